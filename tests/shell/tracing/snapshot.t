# snapshot and per_cpu/cpuN/snapshot, replaying Linux 6.1 (tests/reference/
# linux-6.1-snapshot-captures.txt has the session and the script that captured it):
# the help text while there is nothing to show, `echo 1` allocating and swapping, any
# other number clearing, `echo 0` freeing, and the per-CPU files' EINVAL cases.

$ cd /sys/kernel/tracing
$ cat snapshot | head -20
# tracer: nop
#
#
# * Snapshot is freed *
#
# Snapshot commands:
# echo 0 > snapshot : Clears and frees snapshot buffer
# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.
#                      Takes a snapshot of the main buffer.
# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)
#                      (Doesn't have to be '2' works with any number that
#                       is not a '0' or '1')
$ echo 1 > events/sched/sched_switch/enable; sleep 0.1; echo 1 > snapshot
$ cat snapshot | head -14
# tracer: nop
#
~ # entries-in-buffer/entries-written: \d+/\d+   #P:\d
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
~ \s+\S+-\d+\s+\[\d{3}\] \S{5} +\d+\.\d{6}: sched_switch: prev_comm=.* ==> next_comm=.*
~ \s+\S+-\d+\s+\[\d{3}\] \S{5} +\d+\.\d{6}: sched_switch: prev_comm=.* ==> next_comm=.*

# Reading does not consume: the same events again.
$ echo 0 > events/sched/sched_switch/enable
$ cat snapshot | grep -v '^#' | grep -c sched_switch
~ [1-9]\d*
$ cat snapshot | grep -v '^#' | grep -c sched_switch
~ [1-9]\d*
$ echo 2 > snapshot; cat snapshot | head -12
# tracer: nop
#
#
# * Snapshot is allocated *
#
# Snapshot commands:
# echo 0 > snapshot : Clears and frees snapshot buffer
# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.
#                      Takes a snapshot of the main buffer.
# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)
#                      (Doesn't have to be '2' works with any number that
#                       is not a '0' or '1')
$ cat per_cpu/cpu0/snapshot
# tracer: nop
#
#
# * Snapshot is allocated *
#
# Snapshot commands:
# echo 0 > snapshot : Invalid for per_cpu snapshot file.
# echo 1 > snapshot : Not supported with this kernel.
#                     Must use main snapshot file to allocate.
# echo 2 > snapshot : Clears this cpu's snapshot buffer (but does not allocate)
#                      (Doesn't have to be '2' works with any number that
#                       is not a '0' or '1')
$ echo 2 > per_cpu/cpu0/snapshot
$ echo abc > snapshot
echo: write error: Invalid argument
$ echo -1 > snapshot
echo: write error: Invalid argument
$ echo 1 > snapshot extra
echo: write error: Invalid argument
$ echo '1 2' > snapshot
echo: write error: Invalid argument
$ echo ' 1' > snapshot
echo: write error: Invalid argument
$ echo '' > snapshot
echo: write error: Invalid argument
$ echo 99999999999999999999999 > snapshot
echo: write error: Numerical result out of range
$ echo 0 > per_cpu/cpu0/snapshot
echo: write error: Invalid argument
$ echo 1 > per_cpu/cpu0/snapshot
echo: write error: Invalid argument
$ echo 0 > snapshot; cat snapshot | head -6
# tracer: nop
#
#
# * Snapshot is freed *
#
# Snapshot commands:
$ cat per_cpu/cpu0/snapshot | head -4
# tracer: nop
#
#
# * Snapshot is freed *

# Clearing a freed snapshot allocates nothing.
$ echo 5 > snapshot; cat snapshot | head -4
# tracer: nop
#
#
# * Snapshot is freed *

# A swap with tracing off leaves tracing off.
$ echo 0 > tracing_on; echo 1 > snapshot; cat tracing_on
0
$ echo 1 > tracing_on; echo 0 > snapshot
