# Boot-time tracing: ftrace=function with ftrace_filter= starts the function tracer during
# boot, right after the tracing core's initcall, so the trace holds the calls of the rest
# of boot (the tracefs and procfs files being made, on the boot CPU's idle context), then
# those of the shell.
# cmdline: ftrace=function ftrace_filter=kmalloc*

$ cd /sys/kernel/tracing
$ cat current_tracer
function
$ cat set_ftrace_filter
kmalloc
$ dmesg | grep 'Starting tracer'
~ \[\s*\d+\.\d{6}\] Starting tracer 'function'
$ dmesg | grep ignored
$ cat trace | head -n 13
# tracer: function
#
~ # entries-in-buffer/entries-written: \d+/\d+   #P:\d+
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
~ \s+<idle>-0\s+\[000\] [.d][.N][.hz][.\d][.]\s+\d+\.\d{6}: kmalloc <-\w+
$ cat trace | grep '<idle>-0' | grep -c 'kmalloc <-pfs_add_node'
~ [1-9]\d*
$ cat trace | grep -c 'sh-1 '
~ [1-9]\d*
$ cat trace | grep -v '^#' | grep -v 'kmalloc <-' | wc -l
0
