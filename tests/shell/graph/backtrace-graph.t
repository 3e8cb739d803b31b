# Backtraces while function_graph or the profiler has swapped return addresses for
# return_to_handler: the stacktrace command, func_stack_trace and the stack tracer name
# the real callers, as Linux's do (ftrace_graph_ret_addr).
$ cd /sys/kernel/tracing

# The stacktrace command under function_graph.
$ echo function_graph > current_tracer
$ echo 'ftrace_test_target_hot:stacktrace:1' > set_ftrace_filter
$ ftrace_test_call chain 1
$ echo 0 > tracing_on
$ cat trace | grep '^ => ' | head -n 5
 => ftrace_test_target_hot
 => ftrace_test_chain_c
 => ftrace_test_chain_b
 => ftrace_test_chain_a
 => shell_cmd_fn_ftrace_test_call
$ cat trace | grep -c return_to_handler; cat trace | grep -c ' => 0x'
0
0
$ cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target_hot:stacktrace:count=0
$ echo '!ftrace_test_target_hot:stacktrace:0' >> set_ftrace_filter
$ echo nop > current_tracer; echo > trace; echo 1 > tracing_on

# func_stack_trace under the function tracer while the profiler hooks every return.
$ echo 1 > function_profile_enabled
$ echo ftrace_test_target_hot > set_ftrace_filter
$ echo function > current_tracer; echo 1 > options/func_stack_trace
$ ftrace_test_call chain 1
$ echo 0 > tracing_on; echo 0 > options/func_stack_trace
$ cat trace | grep '^ => ' | head -n 5
 => ftrace_test_target_hot
 => ftrace_test_chain_c
 => ftrace_test_chain_b
 => ftrace_test_chain_a
 => shell_cmd_fn_ftrace_test_call
$ cat trace | grep -c return_to_handler; cat trace | grep -c ' => 0x'
0
0
$ echo nop > current_tracer; echo 0 > function_profile_enabled; echo > set_ftrace_filter

# The stack tracer under function_graph: no frame is return_to_handler.
$ echo function_graph > current_tracer
$ echo ftrace_test_target_hot > stack_trace_filter
$ echo 1 > /proc/sys/kernel/stack_tracer_enabled
$ ftrace_test_call chain 1
$ echo 0 > /proc/sys/kernel/stack_tracer_enabled
$ cat stack_trace | grep -c return_to_handler
0
$ cat stack_trace | head -n 6
~         Depth    Size   Location    \(\d+ entries\)
        -----    ----   --------
~   0\)\s+\d+\s+\d+   ftrace_test_target_hot\+0x5/0x[0-9a-f]+
~   1\)\s+\d+\s+\d+   ftrace_test_chain_c\+0x[0-9a-f]+/0x[0-9a-f]+
~   2\)\s+\d+\s+\d+   ftrace_test_chain_b\+0x[0-9a-f]+/0x[0-9a-f]+
~   3\)\s+\d+\s+\d+   ftrace_test_chain_a\+0x[0-9a-f]+/0x[0-9a-f]+
$ echo nop > current_tracer; echo > stack_trace_filter; echo 0 > stack_max_size
