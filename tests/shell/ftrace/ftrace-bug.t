# A call site that does not hold what ftrace expects: ftrace must notice before writing
# anything, print Linux's "ftrace bug" report, leave every other site alone, and refuse
# further changes until reboot, while the rest of the kernel keeps working.
# ftrace_corrupt writes another valid 5-byte NOP (nopw 0x0(%rax)) over the idle site.
# boot: fresh

$ ftrace_check
~ ftrace_check: [0-9]+ sites consistent
$ ftrace_corrupt ftrace_test_target
~ ftrace_corrupt: ftrace_test_target at [0-9a-f]{16}: wrote 66:0f:1f:40:00 \(nopw 0x0\(%rax\)\) over 0f:1f:44:00:00
$ ftrace_check
~ ftrace_check: ftrace_test_target \([0-9a-f]{16}\): holds 66:0f:1f:40:00, record says 0f:1f:44:00:00 \(nop\)
~ ftrace_check: 1 of [0-9]+ sites inconsistent

# Enabling it, with other functions, trips over the site before anything is written.
$ ftrace_test_op on ftrace_test_target 'work_*' 'k*alloc'
~ \[ *[0-9]+\.[0-9]{6}\] ------------\[ ftrace bug \]------------
~ \[ *[0-9]+\.[0-9]{6}\] ftrace failed to modify 
~ \[ *[0-9]+\.[0-9]{6}\] \[<[0-9a-f]{16}>\] ftrace_test_target\+0x0/0x[0-9a-f]+
~ \[ *[0-9]+\.[0-9]{6}\]  actual:   66:0f:1f:40:00
~ \[ *[0-9]+\.[0-9]{6}\]  expected: 0f:1f:44:00:00
~ \[ *[0-9]+\.[0-9]{6}\] Setting ftrace call site to call ftrace function
~ \[ *[0-9]+\.[0-9]{6}\] ftrace record flags: [0-9a-f]+
...
ftrace_test_op: register: No such device
! WARNING:
! BUG:
$ echo $?
1

# Nothing was written: the bad site is as it was, every other site is still a NOP.
$ ftrace_check
~ ftrace_check: ftrace_test_target \([0-9a-f]{16}\): holds 66:0f:1f:40:00, record says 0f:1f:44:00:00 \(nop\)
~ ftrace_check: 1 of [0-9]+ sites inconsistent
$ cat /sys/kernel/tracing/enabled_functions | wc -l
0

# Dynamic ftrace stays off until reboot: the filter files and available_filter_functions
# refuse to open, for reading too (as in Linux; the shell reports the failed open), no op
# can register, no tracer can start.
$ echo kmalloc > /sys/kernel/tracing/set_ftrace_filter
fentros: /sys/kernel/tracing/set_ftrace_filter: No such device
$ echo $?
1
$ echo kmalloc >> /sys/kernel/tracing/set_ftrace_notrace
fentros: /sys/kernel/tracing/set_ftrace_notrace: No such device
$ cat /sys/kernel/tracing/set_ftrace_filter
cat: /sys/kernel/tracing/set_ftrace_filter: No such device
$ cat /sys/kernel/tracing/set_graph_function
cat: /sys/kernel/tracing/set_graph_function: No such device
$ cat /sys/kernel/tracing/available_filter_functions
cat: /sys/kernel/tracing/available_filter_functions: No such device
$ echo $?
1
$ ftrace_test_op on kmalloc
ftrace_test_op: register: No such device
$ echo function > /sys/kernel/tracing/current_tracer
echo: write error: No such device
$ echo $?
1
$ cat /sys/kernel/tracing/current_tracer
nop
$ ftrace_check
~ ftrace_check: ftrace_test_target \([0-9a-f]{16}\): holds 66:0f:1f:40:00, record says 0f:1f:44:00:00 \(nop\)
~ ftrace_check: 1 of [0-9]+ sites inconsistent
$ ftrace_torture 1
ftrace_torture: FAILED (dynamic ftrace is disabled)

# The rest of the kernel is fine.
$ work 0.5
~ work: [0-9]+ threads on [0-9]+ CPUs? for 0\.500 s: .*: ok
$ echo alive
alive
