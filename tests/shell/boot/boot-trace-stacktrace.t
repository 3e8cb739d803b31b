# `stacktrace` on the kernel command line starts the stack tracer at boot, on every
# function: by the time the shell runs, it has measured the shell thread's stack.
# cmdline: stacktrace

$ cat /proc/sys/kernel/stack_tracer_enabled
1
$ cat /sys/kernel/tracing/stack_trace_filter
#### all functions enabled ####
$ cat /sys/kernel/tracing/stack_max_size
~ [1-9]\d*
$ cat /sys/kernel/tracing/stack_trace
~         Depth    Size   Location    \(\d+ entries\)
        -----    ----   --------
~   0\)\s+\d+\s+\d+   \w+\+0x5/0x[0-9a-f]+
...
~ \s+\d+\)\s+(\d+)\s+\1   arch_thread_start\+0x[0-9a-f]+/0x[0-9a-f]+
! Stack tracer disabled
$ echo 0 > /proc/sys/kernel/stack_tracer_enabled
