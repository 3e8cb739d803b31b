# `bench -s`: every row prints its lines, in the table and as `bench: name=...` lines,
# with non-zero figures. Speed is never judged here (make bench does that); a row that
# could not measure says "skipped" or "failed", which fails this test.
#
# Rows print in link order, so after one run of the whole table each row is run alone
# and its own lines are checked in the order the row prints them.
# timeout: 300

$ bench -s
~ fentros bench: .*, [1-9][0-9]* CPUs?, TSC [1-9][0-9]*\.[0-9]{3} MHz.*
~ row +what +min cyc +median cyc +min ns +median ns
...
! skipped
! failed

$ bench -s nop
...
~ nop\.traced +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=nop\.traced min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
...
~ bench: name=nop\.ratio value=[1-9][0-9]* unit=per mille

$ bench -s function
...
~ function\.untraced +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=function\.untraced min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ function\.traced +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=function\.traced min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ function\.event +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=function\.event min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ function\.events +.* +[1-9][0-9]* events
~ bench: name=function\.events value=[1-9][0-9]* unit=events

$ bench -s graph
...
~ bench: name=graph\.event min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
...

$ bench -s rb
...
~ rb\.one_cpu\.cpu0 +CPU 0 writing alone, per event +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=rb\.one_cpu\.cpu0 min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ rb\.all_cpus\.cpu0 +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=rb\.all_cpus\.cpu0 min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ rb\.all_vs_one\.cpu0 +.* +[1-9][0-9]* per mille
~ bench: name=rb\.all_vs_one\.cpu0 value=[1-9][0-9]* unit=per mille
...
~ rb\.one_cpu +one CPU writing alone \(over CPUs\) +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=rb\.one_cpu min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ rb\.all_cpus +each of [1-9][0-9]* CPUs? writing at once +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=rb\.all_cpus min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ rb\.all_vs_one +.* +[1-9][0-9]* per mille
~ bench: name=rb\.all_vs_one value=[1-9][0-9]* unit=per mille

$ bench -s patch
...
~ bench: name=patch\.all\.on min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
...

$ bench -s ipi
...
~ bench: name=ipi\.sync_round min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
...

# Sizes are exact: Linux's 16-byte function event (12 bytes and a 4-byte header), and
# the graph events' payloads in kernel/trace/trace_internal.h plus the header.
$ bench -s memory
...
~ memory\.record +.* +16 bytes
~ bench: name=memory\.record value=16 unit=bytes
~ memory\.function +.* +16 bytes
~ bench: name=memory\.function value=16 unit=bytes
~ memory\.graph_entry +.* +16 bytes
~ bench: name=memory\.graph_entry value=16 unit=bytes
~ memory\.graph_return +.* +24 bytes
~ bench: name=memory\.graph_return value=24 unit=bytes
~ memory\.ftrace_boot +ftrace at boot: [1-9][0-9]* records in [1-9][0-9]* pages +[1-9][0-9]* bytes
~ bench: name=memory\.ftrace_boot value=[1-9][0-9]* unit=bytes
~ memory\.ftrace_hash +.* +[1-9][0-9]* bytes
~ bench: name=memory\.ftrace_hash value=[1-9][0-9]* unit=bytes
~ memory\.trace_buffer +.* +[1-9][0-9]* bytes
~ bench: name=memory\.trace_buffer value=[1-9][0-9]* unit=bytes

# The trace state the rows touched is as it was.
$ cat /sys/kernel/tracing/current_tracer
nop
$ cat /sys/kernel/tracing/set_ftrace_filter
#### all functions enabled ####
$ cat /sys/kernel/tracing/tracing_on
1

$ bench -s events
...
~ events\.off\.sched_switch +.* +[0-9]+ +[0-9]+ +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=events\.off\.sched_switch min_cycles=[0-9]+ median_cycles=[0-9]+ min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ events\.on\.sched_switch +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=events\.on\.sched_switch min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
...
~ bench: name=events\.on\.local_timer_entry min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
! skipped
! failed

$ bench -s kprobe
...
~ bench: name=kprobe\.entry2 min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ kprobe\.return +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=kprobe\.return min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ kprobe\.int3 +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=kprobe\.int3 min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ kprobe\.fprobe2 +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=kprobe\.fprobe2 min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ kprobe\.fexit +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=kprobe\.fexit min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]

# The same entry probe with 10 and 1000 other probes armed, which it leaves as it found.
$ bench -s kprobe_many
...
~ bench: name=kprobe_many\.10 min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ kprobe_many\.1000 +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=kprobe_many\.1000 min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
$ cat /sys/kernel/tracing/kprobe_events | grep -c bench_many
0

$ bench -s function_all
...
~ bench: name=function_all\.event min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]

$ bench -s livepatch
...
~ livepatch\.unpatched +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=livepatch\.unpatched min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ livepatch\.patched +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=livepatch\.patched min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
...
~ bench: name=livepatch\.transition value=[1-9][0-9]* unit=us
! skipped
! failed

$ bench -s snapshot
...
~ snapshot\.write +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=snapshot\.write min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ snapshot\.swap_all +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=snapshot\.swap_all min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ snapshot\.trigger +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=snapshot\.trigger min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ snapshot\.missed +.* +[0-9]+ swaps
~ bench: name=snapshot\.missed value=[0-9]+ unit=swaps
! skipped
! failed

$ bench -s event_trigger
...
~ event_trigger\.without +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=event_trigger\.without min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ event_trigger\.with +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=event_trigger\.with min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
! skipped
! failed

$ bench -s hist_trigger
...
~ hist_trigger\.off +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=hist_trigger\.off min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ hist_trigger\.on +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=hist_trigger\.on min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
! skipped
! failed

# Two events per round trip: each wakeup of one thread and the switch to it match (the
# first switch to each thread has no wakeup before it, the last one an extra: 1999 or 2000).
$ bench -s wakeup_latency
...
~ wakeup_latency\.off +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=wakeup_latency\.off min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ wakeup_latency\.on +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=wakeup_latency\.on min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ wakeup_latency\.cost +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=wakeup_latency\.cost min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ wakeup_latency\.matches +.* +(1999|2000) per mille
~ bench: name=wakeup_latency\.matches value=(1999|2000) unit=per mille
! skipped
! failed
$ cat /sys/kernel/tracing/synthetic_events; cat /sys/kernel/tracing/events/sched/sched_waking/trigger; cat /sys/kernel/tracing/events/sched/sched_switch/trigger
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist

$ bench -s latency
...
~ latency\.irq\.raw +.* +[0-9]+ +[0-9]+ +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=latency\.irq\.raw min_cycles=[0-9]+ median_cycles=[0-9]+ min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ latency\.irq\.off +.* +[0-9]+ +[0-9]+ +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=latency\.irq\.off min_cycles=[0-9]+ median_cycles=[0-9]+ min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ latency\.irq\.irqsoff +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=latency\.irq\.irqsoff min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ latency\.irq\.events +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=latency\.irq\.events min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ latency\.preempt\.off +.* +[0-9]+ +[0-9]+ +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=latency\.preempt\.off min_cycles=[0-9]+ median_cycles=[0-9]+ min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ latency\.preempt\.preemptoff +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=latency\.preempt\.preemptoff min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
~ latency\.preempt\.events +.* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9] +[0-9]+\.[0-9]
~ bench: name=latency\.preempt\.events min_cycles=[1-9][0-9]* median_cycles=[1-9][0-9]* min_ns=[0-9]+\.[0-9] median_ns=[0-9]+\.[0-9]
! skipped
! failed
