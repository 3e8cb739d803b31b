# /proc/sys/kernel/ftrace_enabled, Linux's sysctl: 0 turns every call site into a NOP at
# once (the ops stay registered and see nothing), any other int turns them back on and
# reads back as written; not a number is EINVAL.
$ cat /proc/sys/kernel/ftrace_enabled
1
$ cd /sys/kernel/tracing
$ echo ftrace_test_target_hot > set_ftrace_filter; echo function > current_tracer
$ cat enabled_functions | wc -l
1
$ echo 0 > /proc/sys/kernel/ftrace_enabled; cat /proc/sys/kernel/ftrace_enabled
0
$ cat enabled_functions | wc -l
0
$ ftrace_test_call chain 3
$ cat trace | grep -c ftrace_test_target_hot
0
$ echo 7 > /proc/sys/kernel/ftrace_enabled; cat /proc/sys/kernel/ftrace_enabled
7
$ ftrace_test_call chain 3
$ cat trace | grep -c ftrace_test_target_hot
3
$ echo abc > /proc/sys/kernel/ftrace_enabled
echo: write error: Invalid argument
$ echo 1 > /proc/sys/kernel/ftrace_enabled; echo nop > current_tracer; echo > set_ftrace_filter
