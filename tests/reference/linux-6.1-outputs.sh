# The tracefs files' defaults, refused writes, filter commands, and the output of each
# tracer, as tests/harness/test_harness.py parses them.
s() { echo "### $*"; }
s "cat set_ftrace_filter (empty)"; cat set_ftrace_filter
s "cat set_ftrace_notrace (empty)"; cat set_ftrace_notrace
s "cat set_graph_function (empty)"; cat set_graph_function
s "cat set_graph_notrace (empty)"; cat set_graph_notrace
for f in available_tracers current_tracer tracing_on buffer_size_kb trace_clock; do s $f; cat $f; done
s trace_options; cat trace_options
for f in tracing_cpumask set_ftrace_pid max_graph_depth per_cpu/cpu0/stats; do s $f; cat $f; done
s bad tracer; echo nosuchtracer > current_tracer; echo rc=$?
s bad filter; echo nosuchfunc_xyz > set_ftrace_filter; echo rc=$?; cat set_ftrace_filter
s filter schedule + traceoff probe
echo schedule > set_ftrace_filter; echo 'schedule:traceoff' >> set_ftrace_filter; cat set_ftrace_filter
s clear keeps probe
echo > set_ftrace_filter; cat set_ftrace_filter
echo '!schedule:traceoff' >> set_ftrace_filter; cat set_ftrace_filter
s buffer_size_kb 0; echo 0 > buffer_size_kb; echo rc=$?
s function trace with stack
echo schedule > set_ftrace_filter; echo 1 > options/func_stack_trace
echo function > current_tracer; echo 1 > tracing_on; sleep 1; echo 0 > tracing_on
echo 0 > options/func_stack_trace; head -24 trace
s enabled_functions; cat enabled_functions
s trace_marker in function trace
echo > trace; echo 1 > tracing_on; echo hello marker > trace_marker; echo 0 > tracing_on
grep tracing_mark_write trace
echo nop > current_tracer; echo > set_ftrace_filter; echo > trace
s function_graph
echo do_sys_openat2 > set_graph_function; echo function_graph > current_tracer; echo > trace
echo 1 > tracing_on; cat /proc/version > /dev/null; echo 0 > tracing_on; head -45 trace
s function_graph proc+abstime+tail header
for o in funcgraph-proc funcgraph-abstime funcgraph-tail; do echo 1 > options/$o; done
head -12 trace
for o in funcgraph-proc funcgraph-abstime funcgraph-tail; do echo 0 > options/$o; done
echo nop > current_tracer; echo > set_graph_function; echo > trace
s "stack_trace (disabled)"; cat stack_trace; cat /proc/sys/kernel/stack_tracer_enabled
s stack tracer enabled
echo 1 > /proc/sys/kernel/stack_tracer_enabled; sleep 1
echo 0 > /proc/sys/kernel/stack_tracer_enabled; head -8 stack_trace
s trace_pipe header-less
echo schedule > set_ftrace_filter; echo function > current_tracer; echo 1 > tracing_on
sleep 1 & cat trace_pipe > /tmp/pipe & sleep 2; kill $!; head -3 /tmp/pipe
echo nop > current_tracer; echo > set_ftrace_filter
