# Boot-time tracing parameters that cannot be used are reported in the boot log and
# ignored; the usable values next to them still apply.
# cmdline: ftrace=nosuchtracer trace_buf_size=12Q trace_options=sym-offset,nosuchoption,funcgraph-proc ftrace_filter=nosuchfunction,ftrace_test_target ftrace_graph_filter=nosuchfunction ftrace_dump_on_oops=sometimes stacktrace_filter=nosuchfunction

$ dmesg | grep ignored
~ \[\s*\d+\.\d{6}\] ftrace: ftrace=nosuchtracer: no such tracer; ignored
~ \[\s*\d+\.\d{6}\] ftrace: trace_buf_size=12Q: not a size; ignored
~ \[\s*\d+\.\d{6}\] ftrace: trace_options=nosuchoption: no such option; ignored
~ \[\s*\d+\.\d{6}\] ftrace: trace_options=funcgraph-proc: only for the function_graph tracer; ignored
~ \[\s*\d+\.\d{6}\] ftrace: ftrace_filter=nosuchfunction: no function matches; ignored
~ \[\s*\d+\.\d{6}\] ftrace: ftrace_graph_filter=nosuchfunction: no function matches; ignored
~ \[\s*\d+\.\d{6}\] ftrace: stacktrace_filter=nosuchfunction: no function matches; ignored
~ \[\s*\d+\.\d{6}\] ftrace: ftrace_dump_on_oops=sometimes: expected orig_cpu or nothing; ignored
$ cd /sys/kernel/tracing
$ cat current_tracer
nop
$ cat buffer_size_kb
1410
$ cat trace_options | grep sym-offset
sym-offset
$ cat set_ftrace_filter
ftrace_test_target
$ cat set_graph_function
#### all functions enabled ####
$ cat /proc/sys/kernel/ftrace_dump_on_oops
0
$ cat /proc/sys/kernel/stack_tracer_enabled
1
$ cat stack_trace_filter
#### all functions enabled ####
$ echo 0 > /proc/sys/kernel/stack_tracer_enabled
