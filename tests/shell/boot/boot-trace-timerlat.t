# ftrace=timerlat: the tracer starts at boot with a thread on every CPU, though the
# other CPUs come up after the boot-time tracer starts, and records activations.
# cmdline: ftrace=timerlat
# smp: 2 4

$ cd /sys/kernel/tracing
$ cat current_tracer
timerlat
$ echo 0 > tracing_on; ps | grep -c timerlat/1
1
$ cat trace | grep -c 'context thread timer_latency'
~ [1-9]\d*
$ echo nop > current_tracer; ps | grep -c timerlat
0
