# Event filters (Linux 6.1's language, see events/event_filter.h): an event's filter reads
# back as written, a refused text keeps the old one and gets Linux's errno, `0` clears; a
# system's filter goes to each of its events that has the fields it names.
$ cd /sys/kernel/tracing
$ echo 'prev_pid == 0' > events/sched/sched_switch/filter; echo $?; cat events/sched/sched_switch/filter
0
prev_pid == 0
$ echo 'prev_comm ~ "sw*" && next_pid != 0' > events/sched/sched_switch/filter; cat events/sched/sched_switch/filter
prev_comm ~ "sw*" && next_pid != 0
$ echo 'prev_pid == abc' > events/sched/sched_switch/filter; echo $?; cat events/sched/sched_switch/filter
echo: write error: Invalid argument
1
prev_comm ~ "sw*" && next_pid != 0
$ echo 'nosuchfield == 1' > events/sched/sched_switch/filter; echo 'prev_pid == 1 &&' > events/sched/sched_switch/filter; echo 'prev_comm > 1' > events/sched/sched_switch/filter
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
$ echo '(prev_pid == 1' > events/sched/sched_switch/filter; echo $?
echo: write error: No such file or directory
1
$ cat events/sched/sched_switch/filter
prev_comm ~ "sw*" && next_pid != 0
$ echo 0 > events/sched/sched_switch/filter; cat events/sched/sched_switch/filter
none

# A system's filter.
$ echo 'common_pid != 0' > events/sched/filter; echo $?; cat events/sched/filter
0
### global filter ###
# Use this to set filters for multiple events.
# Only events with the given fields will be affected.
# If no events are modified, an error message will be displayed here
$ cat events/sched/sched_switch/filter events/sched/sched_wakeup/filter events/irq/irq_handler_entry/filter
common_pid != 0
common_pid != 0
none
$ echo 'prev_pid == 0' > events/sched/filter; cat events/sched/sched_switch/filter events/sched/sched_wakeup/filter
prev_pid == 0
common_pid != 0
$ echo 'nosuch == 1' > events/sched/filter; echo $?; cat events/sched/sched_switch/filter
echo: write error: Invalid argument
1
prev_pid == 0
$ echo 0 > events/sched/filter; cat events/sched/sched_switch/filter events/sched/sched_wakeup/filter
none
none
