# Dynamic ftrace under stress on 4 CPUs: ops on all functions, on changing globs and with
# SAVE_REGS are registered, unregistered and re-filtered in random orders while every CPU
# runs the work load and calls traced functions; every site is checked after every step.
# smp: 4
# timeout: 180

$ ftrace_torture 20
~ ftrace_torture: [0-9]+\.[0-9]{3} s on 4 CPUs, seed 0x[0-9a-f]+: [1-9][0-9]* iterations, .*
ftrace_torture: ok
$ ftrace_check
~ ftrace_check: [0-9]+ sites consistent
$ cat /sys/kernel/tracing/enabled_functions
