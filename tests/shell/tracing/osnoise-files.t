# The osnoise/ directory of the osnoise and timerlat tracers, as Linux 6.1's: the files,
# their defaults and refusals, the osnoise: events' format files and each tracer's
# header. (The tracers' lines and their numbers: tests/trace/osnoise.py.)
$ cd /sys/kernel/tracing
$ ls osnoise
cpus
period_us
print_stack
runtime_us
stop_tracing_total_us
stop_tracing_us
timerlat_period_us
$ cat osnoise/period_us osnoise/runtime_us osnoise/stop_tracing_us osnoise/stop_tracing_total_us
1000000
1000000
0
0
$ cat osnoise/timerlat_period_us osnoise/print_stack
1000
0

# runtime_us is never over period_us, period_us never under runtime_us (EINVAL).
$ echo 2000000 > osnoise/runtime_us
echo: write error: Invalid argument
$ echo 999999 > osnoise/period_us
echo: write error: Invalid argument
$ echo 500000 > osnoise/runtime_us; echo 500000 > osnoise/period_us; cat osnoise/period_us
500000
$ echo 1000000 > osnoise/period_us; echo 1000000 > osnoise/runtime_us
$ echo abc > osnoise/stop_tracing_us
echo: write error: Invalid argument
$ echo -1 > osnoise/print_stack
echo: write error: Invalid argument

# timerlat_period_us: 100 us to 1 s.
$ echo 99 > osnoise/timerlat_period_us
echo: write error: Invalid argument
$ echo 1000001 > osnoise/timerlat_period_us
echo: write error: Invalid argument
$ echo 100 > osnoise/timerlat_period_us; cat osnoise/timerlat_period_us; echo 1000 > osnoise/timerlat_period_us
100

# cpus: a CPU list; a CPU this machine lacks is ERANGE, bad syntax EINVAL.
$ echo 0 > osnoise/cpus; cat osnoise/cpus
0
$ echo 16 > osnoise/cpus
echo: write error: Numerical result out of range
$ echo 0-x > osnoise/cpus
echo: write error: Invalid argument
$ cat osnoise/cpus
0

# Each tracer's header, with nothing recorded yet.
$ echo 0 > tracing_on; echo osnoise > current_tracer; cat trace
# tracer: osnoise
#
#                                _-----=> irqs-off
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable                         MAX
#                              |||| /     delay                                   SINGLE      Interference counters:
#                              |||||               RUNTIME      NOISE  % OF CPU  NOISE    +-----------------------------+
#           TASK-PID      CPU# |||||   TIMESTAMP    IN US       IN US  AVAILABLE  IN US     HW    NMI    IRQ   SIRQ THREAD
#              | |         |   |||||      |           |             |    |            |      |      |      |      |      |
$ echo timerlat > current_tracer; cat trace
# tracer: timerlat
#
#                                _-----=> irqs-off
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#                              |||||            ACTIVATION
#           TASK-PID      CPU# |||||   TIMESTAMP   ID            CONTEXT                 LATENCY
#              | |         |   |||||      |         |                  |                       |
$ ps | grep timerlat
~ \s+\d+\s+0 [SR]  FF     95\s+\d+\.\d+ timerlat/0
$ echo nop > current_tracer; echo 1 > tracing_on; ps | grep -c timerlat
0

# The events: Linux 6.1's format files (no softirq_noise: there are no softirqs).
$ ls events/osnoise
enable
filter
irq_noise
nmi_noise
sample_threshold
thread_noise
$ cat events/osnoise/irq_noise/format
name: irq_noise
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:u64 start;	offset:8;	size:8;	signed:0;
	field:u64 duration;	offset:16;	size:8;	signed:0;
	field:__data_loc char[] desc;	offset:24;	size:4;	signed:1;
	field:int vector;	offset:28;	size:4;	signed:1;
~
print fmt: "%s:%d start %llu.%09u duration %llu ns", __get_str(desc), REC->vector, (REC->start) / 1000000000UL, (REC->start) % 1000000000UL, REC->duration
$ cat events/osnoise/thread_noise/format
name: thread_noise
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:char comm[16];	offset:8;	size:16;	signed:1;
	field:u64 start;	offset:24;	size:8;	signed:0;
	field:u64 duration;	offset:32;	size:8;	signed:0;
	field:pid_t pid;	offset:40;	size:4;	signed:1;
~
print fmt: "%8s:%d start %llu.%09u duration %llu ns", REC->comm, REC->pid, (REC->start) / 1000000000UL, (REC->start) % 1000000000UL, REC->duration
$ cat events/osnoise/nmi_noise/format | tail -n 4
	field:u64 start;	offset:8;	size:8;	signed:0;
	field:u64 duration;	offset:16;	size:8;	signed:0;
~
print fmt: "start %llu.%09u duration %llu ns", (REC->start) / 1000000000UL, (REC->start) % 1000000000UL, REC->duration
$ cat events/osnoise/sample_threshold/format | tail -n 5
	field:u64 start;	offset:8;	size:8;	signed:0;
	field:u64 duration;	offset:16;	size:8;	signed:0;
	field:u64 interference;	offset:24;	size:8;	signed:0;
~
print fmt: "start %llu.%09u duration %llu ns interference %llu", (REC->start) / 1000000000UL, (REC->start) % 1000000000UL, REC->duration, REC->interference
