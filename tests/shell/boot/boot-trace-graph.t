# ftrace=function_graph with the graph filters given at boot: the calls of
# pfs_create_seq made while boot creates the /proc and tracefs files, without what
# pfs_add_node calls (set_graph_notrace). tracefs_create is in kernel/trace/, which is not
# traced: it matches no function, and is reported and ignored.
# cmdline: ftrace=function_graph ftrace_graph_filter=pfs_create_seq,tracefs_create ftrace_graph_notrace=pfs_add_node

$ cd /sys/kernel/tracing
$ dmesg | grep ignored
~ \[\s*\d+\.\d{6}\] ftrace: ftrace_graph_filter=tracefs_create: no function matches; ignored
$ cat current_tracer
function_graph
$ cat set_graph_function
pfs_create_seq
$ cat set_graph_notrace
pfs_add_node
$ cat trace | grep -c 'pfs_create_seq() {'
~ [1-9]\d*
$ cat trace | grep -c pfs_add_node
0
$ echo nop > current_tracer
