# funcgraph-retval and funcgraph-retval-hex, Linux 6.5's options and text (newer than
# the 6.1 the rest follows): a leaf's return value after "name();", a close's as
# "} /* name = value */", an error code (an int's -22 too) in decimal unless -hex.
$ cd /sys/kernel/tracing
$ echo 0 > options/funcgraph-irqs
$ echo ftrace_test_chain_a ftrace_errno_target > set_graph_function
$ echo function_graph > current_tracer
$ cat options/funcgraph-retval options/funcgraph-retval-hex
0
0
$ echo 1 > options/funcgraph-retval
$ ftrace_test_call chain 1
$ ftrace_test_call errno 1
$ echo 0 > tracing_on
$ cat trace | grep ' = '
~ [ 0-9]+\) [ +!#*@$] +[0-9.]+ us +\|        ftrace_test_target_hot\(\); /\* = 0x1 \*/
~ [ 0-9]+\) [ +!#*@$] +[0-9.]+ us +\|      \} /\* ftrace_test_chain_c = 0x2 \*/
~ [ 0-9]+\) [ +!#*@$] +[0-9.]+ us +\|    \} /\* ftrace_test_chain_b = 0x4 \*/
~ [ 0-9]+\) [ +!#*@$] +[0-9.]+ us +\|  \} /\* ftrace_test_chain_a = 0x7 \*/
~ [ 0-9]+\) [ +!#*@$] +[0-9.]+ us +\|  ftrace_errno_target\(\); /\* = -22 \*/
$ echo 1 > options/funcgraph-retval-hex
$ cat trace | grep errno_target
~ [ 0-9]+\) [ +!#*@$] +[0-9.]+ us +\|  ftrace_errno_target\(\); /\* = 0xffffffea \*/
$ echo 0 > options/funcgraph-retval
$ cat trace | grep errno_target
~ [ 0-9]+\) [ +!#*@$] +[0-9.]+ us +\|  ftrace_errno_target\(\);
$ echo 0 > options/funcgraph-retval-hex; echo 1 > options/funcgraph-irqs
$ echo nop > current_tracer; echo > set_graph_function
