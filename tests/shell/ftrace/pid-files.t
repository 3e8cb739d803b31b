# set_ftrace_notrace_pid as Linux 6.1 shows it: `cat` of an empty list is "no pid" (as
# set_ftrace_pid's in tests/reference/linux-6.1-outputs.txt), a written pid reads back, a
# non-number is EINVAL, `>` replaces the list; options/function-fork exists and is off.
$ cd /sys/kernel/tracing
$ cat set_ftrace_notrace_pid
no pid
$ echo 1 > set_ftrace_notrace_pid; echo $?; cat set_ftrace_notrace_pid
0
1
$ echo 7 >> set_ftrace_notrace_pid; echo 3 >> set_ftrace_notrace_pid; cat set_ftrace_notrace_pid
1
3
7
$ echo abc > set_ftrace_notrace_pid
echo: write error: Invalid argument
$ cat set_ftrace_notrace_pid
no pid
$ echo 5 > set_ftrace_notrace_pid; echo > set_ftrace_notrace_pid; cat set_ftrace_notrace_pid
no pid
$ cat options/function-fork; cat trace_options | grep function-fork
0
nofunction-fork
