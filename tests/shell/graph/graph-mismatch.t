# A function_graph shadow frame that no longer matches the real stack is detected at the
# function's return: graph tracing stops with a report, the function still returns to
# the right place, and the kernel goes on. Graph tracing stays off for this boot.
# boot: fresh

$ graph_mismatch_test
~ \[ *[0-9]+\.[0-9]{6}\] ftrace: function graph return mismatch: expected slot [0-9a-f]{16}, got [0-9a-f]{16} \(from fgraph_mismatch_victim\+0x0/0x[0-9a-f]+, return to [0-9a-f]{16}\); graph tracing stopped
graph_mismatch_test: frame damaged: yes, graph tracing stopped
$ dmesg | grep -c 'function graph return mismatch'
1
$ echo function_graph > /sys/kernel/tracing/current_tracer
echo: write error: No such device
$ echo function > /sys/kernel/tracing/current_tracer
$ work 0.2 1
~ work: .*: ok
$ echo nop > /sys/kernel/tracing/current_tracer
$ echo alive
alive
