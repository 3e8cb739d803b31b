# chrt with util-linux's options, output and messages (captured from util-linux 2.38's
# chrt on Debian 12, whose ranges fentros has: SCHED_OTHER, SCHED_FIFO, SCHED_RR); ps's
# class and real-time priority columns, as Linux's `ps -o cls,rtprio`; and the prio the
# sched events show, Linux's 99 - rt_priority for real time and 120 for normal threads.
# boot: fresh

$ chrt -m
SCHED_OTHER min/max priority	: 0/0
SCHED_FIFO min/max priority	: 1/99
SCHED_RR min/max priority	: 1/99
$ chrt -p 1
pid 1's current scheduling policy: SCHED_OTHER
pid 1's current scheduling priority: 0
$ chrt -f -p 100 1
chrt: unsupported priority value for the policy: 100: see --max for valid range
$ echo $?
1
$ chrt -f -p 0 1
chrt: unsupported priority value for the policy: 0: see --max for valid range
$ chrt -o -p 5 1
chrt: unsupported priority value for the policy: 5: see --max for valid range
$ chrt -p 999999
chrt: failed to get pid 999999's policy: No such process
$ chrt -f -p 10 999999
chrt: failed to set pid 999999's policy: No such process
$ chrt -f -p abc 1
chrt: invalid priority argument: 'abc'
$ chrt -p abc
chrt: invalid PID argument: 'abc'
$ chrt -f 10
chrt: bad usage
Try 'chrt --help' for more information.
$ chrt
chrt: bad usage
Try 'chrt --help' for more information.
$ chrt -x -p 1
chrt: bad usage
Try 'chrt --help' for more information.
$ chrt -f 10 work 1
chrt: running a command is not supported: use chrt -p
$ echo $?
1

# The shell made SCHED_FIFO 10 (pid 0 is the caller, as on Linux), then round robin.
$ chrt -f -p 10 0
$ chrt -p 1
pid 1's current scheduling policy: SCHED_FIFO
pid 1's current scheduling priority: 10
$ ps | grep RTPRIO
  PID CPU S CLS RTPRIO    TIME NAME
$ ps | grep ' sh'
~ \s+1 +0 R  FF     10 +[0-9]+\.[0-9]{2} sh
$ chrt -p 50 1
$ chrt -p 1
pid 1's current scheduling policy: SCHED_RR
pid 1's current scheduling priority: 50

# Its switches to the idle thread while it sleeps show prio 49 (a sleep of its own: whether
# it waits for the next line before the line arrives depends on the host's timing).
$ echo 1 > /sys/kernel/tracing/events/sched/sched_switch/enable; sleep 0.05; echo 0 > /sys/kernel/tracing/events/sched/sched_switch/enable
$ grep -c 'prev_comm=sh prev_pid=1 prev_prio=49 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120' /sys/kernel/tracing/trace
~ [1-9][0-9]*
$ chrt -o -p 0 1
$ ps | grep ' sh'
~ \s+1 +0 R  TS      - +[0-9]+\.[0-9]{2} sh
