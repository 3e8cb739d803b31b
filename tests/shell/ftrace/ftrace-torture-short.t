# The ftrace torture test, shorter, on 1 and 2 CPUs (ftrace-torture.t runs it on 4).
# smp: 1 2
# timeout: 120

$ ftrace_torture 8
~ ftrace_torture: [0-9]+\.[0-9]{3} s on [12] CPUs?, seed 0x[0-9a-f]+: [1-9][0-9]* iterations, .*
ftrace_torture: ok
$ ftrace_check
~ ftrace_check: [0-9]+ sites consistent
