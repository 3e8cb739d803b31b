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
$ ls events
enable
ftrace
header_event
header_page
irq
irq_vectors
sched
