# The events/ tree, available_events, set_event and the enable files, as Linux 6.1.
$ cd /sys/kernel/tracing
$ cat available_events
irq_vectors:call_function_single_exit
irq_vectors:call_function_single_entry
irq_vectors:call_function_exit
irq_vectors:call_function_entry
irq_vectors:reschedule_exit
irq_vectors:reschedule_entry
irq_vectors:local_timer_exit
irq_vectors:local_timer_entry
irq:irq_handler_exit
irq:irq_handler_entry
sched:sched_process_fork
sched:sched_process_exit
sched:sched_process_free
sched:sched_migrate_task
sched:sched_switch
sched:sched_wakeup_new
sched:sched_wakeup
sched:sched_waking
preemptirq:preempt_enable
preemptirq:preempt_disable
preemptirq:irq_enable
preemptirq:irq_disable
osnoise:sample_threshold
osnoise:nmi_noise
osnoise:irq_noise
osnoise:thread_noise
$ ls events
enable
ftrace
header_event
header_page
irq
irq_vectors
osnoise
preemptirq
sched
$ ls events/sched/sched_switch
enable
filter
format
hist
id
trigger
$ ls events/ftrace/function
format
hist
id
$ cat events/enable events/sched/enable events/sched/sched_switch/enable
0
0
0
$ cat events/sched/filter
### global filter ###
# Use this to set filters for multiple events.
# Only events with the given fields will be affected.
# If no events are modified, an error message will be displayed here
$ cat events/sched/sched_switch/filter
none
$ cat events/ftrace/function/id events/ftrace/print/id events/ftrace/bprint/id events/ftrace/bputs/id
1
5
6
14
$ cat set_event set_event_pid set_event_notrace_pid

# set_event: an event by system:name, then `>>` adds; a system reads X while only some of
# its events are on; `!` removes; the list is in available_events' order.
$ echo sched:sched_switch > set_event; cat set_event; cat events/sched/enable; cat events/enable
sched:sched_switch
X
X
$ cat events/sched/sched_switch/enable events/sched/sched_wakeup/enable
1
0
$ echo 'irq:*' >> set_event; cat set_event
irq:irq_handler_exit
irq:irq_handler_entry
sched:sched_switch
$ echo '!irq:irq_handler_exit' >> set_event; cat set_event; cat events/irq/enable
irq:irq_handler_entry
sched:sched_switch
X
$ echo sched_wakeup >> set_event; echo :sched_waking >> set_event; cat set_event
irq:irq_handler_entry
sched:sched_switch
sched:sched_wakeup
sched:sched_waking

# `>` clears at open, as Linux: an unknown name is refused and leaves nothing on.
$ echo nosuch > set_event; echo $?; cat set_event
echo: write error: Invalid argument
1
$ echo 'sched:' > set_event; cat set_event; cat events/sched/enable
sched:sched_process_fork
sched:sched_process_exit
sched:sched_process_free
sched:sched_migrate_task
sched:sched_switch
sched:sched_wakeup_new
sched:sched_wakeup
sched:sched_waking
1
$ echo > set_event; echo irq > set_event; cat set_event
irq:irq_handler_exit
irq:irq_handler_entry
$ echo '*:*' > set_event; cat set_event | wc -l; cat events/enable
26
1
$ echo > set_event; cat set_event; cat events/enable
0
$ echo '*:sched_switch' > set_event; cat set_event
sched:sched_switch

# Only whole names and `*` match; ftrace's own events cannot be enabled.
$ echo 'sched:sched_sw*' >> set_event; echo $?; echo ftrace:function >> set_event; echo $?; echo '*' >> set_event; echo $?
echo: write error: Invalid argument
1
echo: write error: Invalid argument
1
echo: write error: Invalid argument
1
$ cat set_event
sched:sched_switch
$ echo '' >> set_event; cat set_event
sched:sched_switch
$ echo 0 > events/sched/sched_switch/enable; cat set_event

# Enable files take 0 or 1 only.
$ echo 1 > events/irq_vectors/enable; cat events/irq_vectors/enable; cat events/enable
1
X
$ echo 2 > events/irq_vectors/enable; echo x > events/irq_vectors/local_timer_entry/enable; echo -1 > events/enable
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
$ cat events/irq_vectors/enable; echo 0 > events/enable; cat events/irq_vectors/enable
1
0

# Read-only files refuse to open for writing, as every read-only file here does (Linux's
# root opens them and gets EINVAL from the write).
$ echo 1 > events/ftrace/function/enable
fentros: events/ftrace/function/enable: Permission denied
$ echo 1 > events/sched/sched_switch/id; echo 1 > events/sched/sched_switch/format; echo 1 > events/header_page
fentros: events/sched/sched_switch/id: Permission denied
fentros: events/sched/sched_switch/format: Permission denied
fentros: events/header_page: Permission denied

# set_event_pid: pids in ascending order, `>>` adds, `>` empty clears; bad input changes
# nothing.
$ echo 7 5 > set_event_pid; cat set_event_pid
5
7
$ echo 9 >> set_event_pid; echo abc >> set_event_pid; echo 3x >> set_event_pid; cat set_event_pid
echo: write error: Invalid argument
echo: write error: Invalid argument
5
7
9
$ echo > set_event_pid; cat set_event_pid
$ echo 4 > set_event_notrace_pid; cat set_event_notrace_pid; echo > set_event_notrace_pid
4

# saved_cmdlines_size: 1 to 32768.
$ cat saved_cmdlines_size
6552
$ echo 0 > saved_cmdlines_size; echo abc > saved_cmdlines_size; echo 32769 > saved_cmdlines_size; cat saved_cmdlines_size
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
6552
$ cat options/event-fork
0
$ echo 2 > options/event-fork
echo: write error: Invalid argument

# printk_formats: each trace_printk() format in the kernel, escaped as Linux prints it.
$ cat printk_formats | grep value
~ 0x[0-9a-f]{16} : "value %d %s %lx %c%%\\n"
$ cat printk_formats | grep plain
~ 0x[0-9a-f]{16} : "plain text\\n"
