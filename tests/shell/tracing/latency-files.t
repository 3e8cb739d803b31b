# The latency tracers' files and command: tracing_max_latency (us; any number, 0 restarts),
# the options Linux has for them (latency-format, on while a latency tracer runs and back
# after; function-trace), an empty max buffer's trace (the tracer's name only, as Linux),
# and preemptirq_delay's refusals with Linux's errno texts. The tracers finding their
# latencies are tests/trace/latency.py.

$ cd /sys/kernel/tracing
$ cat tracing_max_latency
0
$ echo abc > tracing_max_latency
echo: write error: Invalid argument
$ echo -1 > tracing_max_latency
echo: write error: Invalid argument
$ echo 123 > tracing_max_latency; cat tracing_max_latency
123
$ echo 0 > tracing_max_latency
$ cat trace_options | grep latency
nolatency-format
$ cat trace_options | grep function-trace
function-trace
$ echo irqsoff > current_tracer; cat options/latency-format; cat current_tracer
1
irqsoff
$ echo 1000000 > tracing_max_latency; echo > trace; cat trace
# tracer: irqsoff
#
$ echo wakeup_rt > current_tracer; cat options/latency-format
1
$ echo nop > current_tracer; cat options/latency-format
0
$ preemptirq_delay -t foo
preemptirq_delay: invalid test mode 'foo': Invalid argument
$ preemptirq_delay -d 0
preemptirq_delay: delay out of range (1..1000000 us) '0': Numerical result out of range
$ preemptirq_delay -d 2000000
preemptirq_delay: delay out of range (1..1000000 us) '2000000': Numerical result out of range
$ preemptirq_delay -c 99
preemptirq_delay: no such CPU '99': No such device
$ preemptirq_delay -b 11
preemptirq_delay: burst out of range (1..10) '11': Numerical result out of range
$ preemptirq_delay -x
preemptirq_delay: invalid option '-x': Invalid argument
$ preemptirq_delay -d abc
preemptirq_delay: invalid number 'abc': Invalid argument
$ echo $?
1
$ preemptirq_delay -d
usage: preemptirq_delay [-t irq|preempt|alternate|wakeup] [-d USECS] [-b BURST] [-c CPU]
$ preemptirq_delay -t alternate -b 2 -d 10
$ echo $?
0
