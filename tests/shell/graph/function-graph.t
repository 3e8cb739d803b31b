# function_graph in Linux's format: header, nested entries, leaves, closing braces,
# durations with overhead marks; set_graph_function, max_graph_depth, tracing_thresh,
# set_graph_notrace; the proc/abstime/tail header variant; trace_marker as a comment.
# Interrupts are not traced here (funcgraph-irqs off) so the expected tree is exact.

$ cd /sys/kernel/tracing
$ echo 0 > options/funcgraph-irqs
$ cat set_graph_function
#### all functions enabled ####
$ cat set_graph_notrace
#### no functions disabled ####
$ cat max_graph_depth
0
$ cat tracing_thresh
0
$ echo nosuch_function > set_graph_function
echo: write error: Invalid argument
$ cat set_graph_function
#### all functions enabled ####
$ echo ftrace_test_chain_a > set_graph_function
$ cat set_graph_function
ftrace_test_chain_a
$ echo function_graph > current_tracer
$ cat current_tracer
function_graph
$ ftrace_test_call chain 1
$ echo 0 > tracing_on
$ cat trace
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
...
~ [ 0-9]+\)               \|  ftrace_test_chain_a\(\) \{
~ [ 0-9]+\)               \|    ftrace_test_chain_b\(\) \{
~ [ 0-9]+\)               \|      ftrace_test_chain_c\(\) \{
~ [ 0-9]+\) [ +!#*@$] +[0-9.]+ us +\|        ftrace_test_target_hot\(\);
~ [ 0-9]+\) [ +!#*@$] +[0-9.]+ us +\|      \}
~ [ 0-9]+\) [ +!#*@$] +[0-9.]+ us +\|    \}
~ [ 0-9]+\) [ +!#*@$] +[0-9.]+ us +\|  \}
...
$ echo 1 > options/funcgraph-proc
$ echo 1 > options/funcgraph-abstime
$ echo 1 > options/funcgraph-tail
$ cat trace | head -n 6
# tracer: function_graph
#
#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS
#      |          |     |    |           |   |                     |   |   |   |
~ \s+[0-9]+\.[0-9]{6} \|  +[0-9]+\) +sh-1 +\|               \|  ftrace_test_chain_a\(\) \{
~ \s+[0-9]+\.[0-9]{6} \|  +[0-9]+\) +sh-1 +\|               \|    ftrace_test_chain_b\(\) \{
$ cat trace | grep -c '} /* ftrace_test_chain_a */'
1
$ echo 0 > options/funcgraph-proc
$ echo 0 > options/funcgraph-abstime
$ echo 0 > options/funcgraph-tail
$ echo 1 > max_graph_depth
$ echo > trace
$ echo 1 > tracing_on
$ ftrace_test_call chain 3
$ echo 0 > tracing_on
$ cat trace | grep -c ftrace_test_chain_a
3
$ cat trace | grep -c ftrace_test_chain_b
0
$ echo 0 > max_graph_depth
$ echo ftrace_test_chain_b > set_graph_notrace
$ echo > trace
$ echo 1 > tracing_on
$ ftrace_test_call chain 1
$ echo 0 > tracing_on
$ cat trace | grep -c ftrace_test_chain_c
0
$ cat trace | grep -c 'ftrace_test_chain_a();'
1
$ echo > set_graph_notrace
$ echo 1000000 > tracing_thresh
$ echo > trace
$ echo 1 > tracing_on
$ ftrace_test_call chain 2
$ echo 0 > tracing_on
$ cat trace | grep -c ftrace_test
0
$ echo 0 > tracing_thresh
$ echo > trace
$ echo 1 > tracing_on
$ echo hello graph > trace_marker
$ echo 0 > tracing_on
$ cat trace | grep 'hello graph'
~ [ 0-9]+\)               \|  /\* hello graph \*/
$ echo 1 > tracing_on
$ echo nop > current_tracer
$ echo 1 > options/funcgraph-irqs
$ echo > set_graph_function
$ cat set_graph_function
#### all functions enabled ####
