# Under function_graph, events show as comments inside the graph, as in Linux.
$ cd /sys/kernel/tracing
$ echo work_compute > set_graph_function; echo function_graph > current_tracer
$ echo 1 > events/irq_vectors/local_timer_entry/enable; work 0.05 1
~ work: .*: ok
$ echo 0 > tracing_on; echo 0 > events/enable; cat trace | grep local_timer_entry | head -n 1
~ \s*\d+\)\s+\|\s+/\* local_timer_entry: vector=224 \*/
$ echo nop > current_tracer; echo > set_graph_function; echo 1 > tracing_on
