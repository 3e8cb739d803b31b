# Boot-time tracing parameters, each applied as its tracefs file would take it:
# ftrace_filter=, ftrace_notrace=, trace_buf_size= (bytes, K/M/G as Linux's memparse; the
# size given at boot is shown as the pages it got, as Linux does), trace_options=,
# ftrace_graph_filter=, ftrace_graph_notrace=, stacktrace_filter= (which also starts the
# stack tracer, as in Linux) and ftrace_dump_on_oops=orig_cpu.
# cmdline: ftrace_filter=ftrace_test_target,ftrace_test_chain_* ftrace_notrace=ftrace_test_chain_b trace_buf_size=64K trace_options=sym-offset,noprint-parent ftrace_graph_filter=ftrace_test_chain_a ftrace_graph_notrace=ftrace_test_chain_c stacktrace_filter=ftrace_test_target_hot ftrace_dump_on_oops=orig_cpu

$ cd /sys/kernel/tracing
$ dmesg | grep ignored
$ cat current_tracer
nop
$ cat set_ftrace_filter
ftrace_test_target
ftrace_test_chain_c
ftrace_test_chain_b
ftrace_test_chain_a
$ cat set_ftrace_notrace
ftrace_test_chain_b
$ cat buffer_size_kb
67
$ cat per_cpu/cpu0/buffer_size_kb
67
$ cat trace_options
noprint-parent
sym-offset
nosym-addr
context-info
nolatency-format
overwrite
nodisable_on_free
irq-info
markers
noevent-fork
function-trace
nofunction-fork
nodisplay-graph
nostacktrace
$ cat set_graph_function
ftrace_test_chain_a
$ cat set_graph_notrace
ftrace_test_chain_c
$ cat stack_trace_filter
ftrace_test_target_hot
$ cat /proc/sys/kernel/stack_tracer_enabled
1
$ cat /proc/sys/kernel/ftrace_dump_on_oops
2

# The function tracer uses the filters and the options given at boot.
$ echo function > current_tracer
$ ftrace_test_call chain 1
$ ftrace_test_call target 1
$ cat trace | grep -v '^#'
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\.\s+\d+\.\d{6}: ftrace_test_chain_a\+0x0/0x[0-9a-f]+
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\.\s+\d+\.\d{6}: ftrace_test_chain_c\+0x0/0x[0-9a-f]+
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\.\s+\d+\.\d{6}: ftrace_test_target\+0x0/0x[0-9a-f]+
$ echo nop > current_tracer

# The stack tracer, running since boot, measured at target_hot only.
$ cat stack_trace | head -n 4
~         Depth    Size   Location    \(\d+ entries\)
        -----    ----   --------
~   0\)\s+\d+\s+\d+   ftrace_test_target_hot\+0x5/0x[0-9a-f]+
~   1\)\s+\d+\s+\d+   ftrace_test_chain_c\+0x[0-9a-f]+/0x[0-9a-f]+
$ echo 0 > /proc/sys/kernel/stack_tracer_enabled
