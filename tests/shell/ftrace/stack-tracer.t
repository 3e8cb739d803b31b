# The stack tracer: /proc/sys/kernel/stack_tracer_enabled, stack_trace, stack_max_size and
# stack_trace_filter, with Linux 6.1's texts. `ftrace_test_call chain 1` makes a known
# chain: the shell command calls a, a calls b, b calls c, c calls target_hot.
# boot: fresh

$ cd /sys/kernel/tracing
$ cat /proc/sys/kernel/stack_tracer_enabled
0
$ cat stack_max_size
0
$ cat stack_trace
        Depth    Size   Location    (0 entries)
        -----    ----   --------
#
#  Stack tracer disabled
#
# To enable the stack tracer, either add 'stacktrace' to the
# kernel command line
# or 'echo 1 > /proc/sys/kernel/stack_tracer_enabled'
#
$ cat stack_trace_filter
#### all functions enabled ####

# The filter takes set_ftrace_filter's globs, and commits at close even after an error.
$ echo 'ftrace_test_target_h*' > stack_trace_filter
$ cat stack_trace_filter
ftrace_test_target_hot
$ echo 'ftrace_test_chain_[ab]' >> stack_trace_filter
$ cat stack_trace_filter
ftrace_test_target_hot
ftrace_test_chain_b
ftrace_test_chain_a
$ echo nosuchfunction > stack_trace_filter
echo: write error: Invalid argument
$ cat stack_trace_filter
#### all functions enabled ####

# Measured at target_hot only: its own entry (+0x5, the return from its call site), then
# one return address per frame up to the thread's first. Depth counts from the top of the
# thread's stack; a frame's size is the distance to the next, the last one's its depth.
$ echo ftrace_test_target_hot > stack_trace_filter
$ echo 1 > /proc/sys/kernel/stack_tracer_enabled
$ cat /proc/sys/kernel/stack_tracer_enabled
1
$ ftrace_test_call chain 1
$ echo 0 > /proc/sys/kernel/stack_tracer_enabled
$ cat stack_trace
~         Depth    Size   Location    \(\d+ entries\)
        -----    ----   --------
~   0\)\s+\d+\s+\d+   ftrace_test_target_hot\+0x5/0x[0-9a-f]+
~   1\)\s+\d+\s+\d+   ftrace_test_chain_c\+0x[0-9a-f]+/0x[0-9a-f]+
~   2\)\s+\d+\s+\d+   ftrace_test_chain_b\+0x[0-9a-f]+/0x[0-9a-f]+
~   3\)\s+\d+\s+\d+   ftrace_test_chain_a\+0x[0-9a-f]+/0x[0-9a-f]+
~   4\)\s+\d+\s+\d+   shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+
...
~ \s+\d+\)\s+(\d+)\s+\1   arch_thread_start\+0x[0-9a-f]+/0x[0-9a-f]+
$ cat stack_max_size
~ [1-9][0-9]*

# Off, with a maximum kept: the table stays, without the hint. Writing stack_max_size sets
# the maximum (any number); with it 0 the hint comes back above the kept table.
$ cat stack_trace | head -n 3
~         Depth    Size   Location    \(\d+ entries\)
        -----    ----   --------
~   0\)\s+\d+\s+\d+   ftrace_test_target_hot\+0x5/0x[0-9a-f]+
$ echo 123 > stack_max_size
$ cat stack_max_size
123
$ echo 0 > stack_max_size
$ cat stack_trace
~         Depth    Size   Location    \(\d+ entries\)
        -----    ----   --------
#
#  Stack tracer disabled
#
# To enable the stack tracer, either add 'stacktrace' to the
# kernel command line
# or 'echo 1 > /proc/sys/kernel/stack_tracer_enabled'
#
~   0\)\s+\d+\s+\d+   ftrace_test_target_hot\+0x5/0x[0-9a-f]+
...
$ echo abc > stack_max_size
echo: write error: Invalid argument
$ echo -5 > stack_max_size
echo: write error: Invalid argument
$ cat stack_max_size
0

# Only a deeper stack makes a new maximum: target_hot called straight from the shell
# command first, then through the chain; chain_a, at the first one's depth, does not count.
$ echo 'ftrace_test_target_hot ftrace_test_chain_a' > stack_trace_filter
$ echo 1 > /proc/sys/kernel/stack_tracer_enabled
$ ftrace_test_call hot 1
$ cat stack_trace | head -n 4
~         Depth    Size   Location    \(\d+ entries\)
        -----    ----   --------
~   0\)\s+\d+\s+\d+   ftrace_test_target_hot\+0x5/0x[0-9a-f]+
~   1\)\s+\d+\s+\d+   shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+
$ ftrace_test_call chain 1
$ cat stack_trace | head -n 4
~         Depth    Size   Location    \(\d+ entries\)
        -----    ----   --------
~   0\)\s+\d+\s+\d+   ftrace_test_target_hot\+0x5/0x[0-9a-f]+
~   1\)\s+\d+\s+\d+   ftrace_test_chain_c\+0x[0-9a-f]+/0x[0-9a-f]+

# The sysctl keeps any integer, as Linux's proc_dointvec; non-zero means on.
$ echo 2 > /proc/sys/kernel/stack_tracer_enabled
$ cat /proc/sys/kernel/stack_tracer_enabled
2
$ echo abc > /proc/sys/kernel/stack_tracer_enabled
echo: write error: Invalid argument
$ cat /proc/sys/kernel/stack_tracer_enabled
2
$ echo 0 > /proc/sys/kernel/stack_tracer_enabled
$ cat /proc/sys/kernel/stack_tracer_enabled
0

# With every function, the shell's own work is measured.
$ echo > stack_trace_filter
$ echo 0 > stack_max_size
$ echo 1 > /proc/sys/kernel/stack_tracer_enabled
$ ls /proc | wc -l
~ \d+
$ echo 0 > /proc/sys/kernel/stack_tracer_enabled
$ cat stack_trace
~         Depth    Size   Location    \(\d+ entries\)
        -----    ----   --------
...
~ \s+\d+\)\s+(\d+)\s+\1   arch_thread_start\+0x[0-9a-f]+/0x[0-9a-f]+
$ ls /proc/sys/kernel
ftrace_dump_on_oops
ftrace_enabled
stack_tracer_enabled
$ echo 0 > stack_max_size
