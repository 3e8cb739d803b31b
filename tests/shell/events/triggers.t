# events/SYS/EVENT/trigger, replaying Linux 6.1 (runs t1 and t2 of
# tests/reference/linux-6.1-trigger-captures.txt): the list when there is none, read-back newest
# first with `:unlimited` / `:count=N` and ` if FILTER`, EEXIST for a second trigger of a
# type (traceon and traceoff are one; enable_event and disable_event one per target),
# EINVAL for an unknown command, a bad count or filter (and no error_log entry, as Linux
# 6.1), removal with `!` (none there is no error), `>` removing only the hist ones
# (hist, enable_hist). sched_migrate_task never fires here, so its counts stay.
$ cd /sys/kernel/tracing
$ echo > error_log
$ cat events/sched/sched_migrate_task/trigger
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist
$ echo 'traceoff:3 if next_pid == 0' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo 'traceoff:5 if pid == 99999' > events/sched/sched_migrate_task/trigger
$ cat events/sched/sched_migrate_task/trigger; cat events/sched/sched_migrate_task/enable; cat events/sched/enable
traceoff:count=5 if pid == 99999
0*
X
$ echo 'enable_event:sched:sched_wakeup' > events/sched/sched_migrate_task/trigger
$ echo 'enable_event:sched:sched_wakeup:3' > events/sched/sched_migrate_task/trigger
echo: write error: File exists
$ echo 'disable_event:sched:sched_wakeup if pid == 0' > events/sched/sched_migrate_task/trigger
echo: write error: File exists
$ cat events/sched/sched_migrate_task/trigger; cat events/sched/sched_wakeup/enable; cat set_event
enable_event:sched:sched_wakeup:unlimited
traceoff:count=5 if pid == 99999
0*
sched:sched_migrate_task
sched:sched_wakeup
$ echo 'enable_event:sched:nosuch' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo 'enable_event:nosys:nosuch' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo 'enable_event:sched' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo 'enable_event' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo 'traceon:abc' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo 'traceon:' > events/sched/sched_migrate_task/trigger
echo: write error: File exists
$ echo 'traceon:0' > events/sched/sched_migrate_task/trigger
echo: write error: File exists
$ echo 'stacktrace:-1' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo 'stacktrace if' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo 'stacktrace iff pid == 1' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo 'stacktrace  if pid == 1' > events/sched/sched_migrate_task/trigger
$ echo 'traceon:2:3' > events/sched/sched_migrate_task/trigger
echo: write error: File exists
$ echo 'traceon:unlimited' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo '  traceoff  ' > events/sched/sched_migrate_task/trigger
echo: write error: File exists
$ cat events/sched/sched_migrate_task/trigger
stacktrace:unlimited if pid == 1
enable_event:sched:sched_wakeup:unlimited
traceoff:count=5 if pid == 99999
$ echo '!traceoff:7' > events/sched/sched_migrate_task/trigger
$ echo '!traceoff' > events/sched/sched_migrate_task/trigger
$ echo '!bogus' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo '!enable_event:sched:sched_wakeup:77 if x' > events/sched/sched_migrate_task/trigger
$ echo '' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo 'traceon traceoff' > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ echo 'snapshot' > events/sched/sched_migrate_task/trigger
$ echo 'hist:keys=pid' > events/sched/sched_migrate_task/trigger
$ echo 'enable_hist:sched:sched_wakeup' > events/sched/sched_migrate_task/trigger
$ cat events/sched/sched_migrate_task/trigger
enable_hist:sched:sched_wakeup:unlimited
snapshot:unlimited
stacktrace:unlimited if pid == 1
$ echo > events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ cat events/sched/sched_migrate_task/trigger; cat events/sched/sched_wakeup/enable; cat error_log
snapshot:unlimited
stacktrace:unlimited if pid == 1
0
$ echo 'traceoff if nosuchfield == 1' >> events/sched/sched_migrate_task/trigger
echo: write error: Invalid argument
$ cat error_log
$ echo '!snapshot' > events/sched/sched_migrate_task/trigger; echo '!stacktrace' > events/sched/sched_migrate_task/trigger
$ cat events/sched/sched_migrate_task/trigger; cat events/sched/sched_migrate_task/enable; cat set_event
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist
0

# Firing. A trigger on an event that is off runs all the same (soft mode, `0*`); counts go
# down as triggers fire and a count of 0 stops them. sched_switch fires at every sleep.
$ echo 'traceoff:1' > events/sched/sched_switch/trigger; cat events/sched/sched_switch/enable; sleep 0.1; cat tracing_on; cat events/sched/sched_switch/trigger
0*
0
traceoff:count=0
$ echo '!traceoff:1' > events/sched/sched_switch/trigger; echo 1 > tracing_on; cat events/sched/sched_switch/enable
0
$ echo 'enable_event:sched:sched_wakeup:1' > events/sched/sched_switch/trigger; sleep 0.1; cat events/sched/sched_wakeup/enable; cat events/sched/sched_switch/trigger; cat set_event
1*
enable_event:sched:sched_wakeup:count=0
sched:sched_switch
sched:sched_wakeup
$ echo '!enable_event:sched:sched_wakeup:1' > events/sched/sched_switch/trigger; cat events/sched/sched_wakeup/enable; cat set_event
1
sched:sched_wakeup
$ echo 'disable_event:sched:sched_wakeup' > events/sched/sched_switch/trigger; sleep 0.1; cat events/sched/sched_wakeup/enable; cat events/sched/enable
0*
X
$ echo '!disable_event:sched:sched_wakeup' > events/sched/sched_switch/trigger; cat events/sched/sched_wakeup/enable
0
$ echo 1 > events/sched/sched_switch/enable; echo 'traceoff' > events/sched/sched_switch/trigger; cat events/sched/sched_switch/enable; echo 0 > events/sched/sched_switch/enable; cat events/sched/sched_switch/enable; echo > events/sched/sched_switch/trigger; cat events/sched/sched_switch/enable
1*
0*
echo: write error: Invalid argument
0*
$ echo '!traceoff' > events/sched/sched_switch/trigger; cat events/sched/sched_switch/enable; echo 1 > tracing_on
0

# stacktrace: a kernel stack after the event's record, starting in the emitter as Linux's
# starts in trace_event_raw_event_sched_switch.
$ echo > trace; echo 'stacktrace:1' > events/sched/sched_switch/trigger; sleep 0.1; cat trace | grep -v '^#' | head -3; cat events/sched/sched_switch/trigger; echo '!stacktrace:1' > events/sched/sched_switch/trigger; cat events/sched/sched_switch/enable
~ \s+\S+-\d+\s+\[\d{3}\] d\.\.\d\.\s+\d+\.\d{6}: <stack trace>
 => trace_event_emit_sched_switch
~  => \w+
stacktrace:count=0
0

# options/stacktrace: the same after every recorded event.
$ cat options/stacktrace; cat trace_options | grep stacktrace
0
nostacktrace
$ echo > trace; echo 1 > options/stacktrace; echo 1 > events/sched/sched_switch/enable; sleep 0.1; echo 0 > events/sched/sched_switch/enable; echo 0 > options/stacktrace; cat trace | grep -v '^#' | head -3
~ \s+\S+-\d+\s+\[\d{3}\] d\.\.\d\.\s+\d+\.\d{6}: sched_switch: prev_comm=.*
~ \s+\S+-\d+\s+\[\d{3}\] d\.\.\d\.\s+\d+\.\d{6}: <stack trace>
 => trace_event_emit_sched_switch

# snapshot:1 fires once; traceon turns tracing back on from an event that records nothing,
# with a filter too (the record it tests is built outside the ring buffer, as Linux's temp
# buffer), and from one that records while tracing is off.
$ echo 'snapshot:1' > events/sched/sched_switch/trigger; sleep 0.1; cat events/sched/sched_switch/trigger; echo '!snapshot' > events/sched/sched_switch/trigger; echo 1 > tracing_on
snapshot:count=0
$ echo 'traceon' > events/sched/sched_switch/trigger; echo 0 > tracing_on; sleep 0.1; cat tracing_on; echo '!traceon' > events/sched/sched_switch/trigger
1
$ echo 'traceon if prev_pid == 0' > events/sched/sched_switch/trigger; echo 0 > tracing_on; sleep 0.1; cat tracing_on; echo '!traceon' > events/sched/sched_switch/trigger
1
$ echo 1 > events/sched/sched_switch/enable; echo 'traceon if prev_pid == 0' > events/sched/sched_switch/trigger; echo 0 > tracing_on; sleep 0.1; cat tracing_on; echo '!traceon' > events/sched/sched_switch/trigger; echo 0 > events/sched/sched_switch/enable; echo 1 > tracing_on
1
$ echo 'traceon if prev_pid == 12345' > events/sched/sched_switch/trigger; echo 0 > tracing_on; sleep 0.1; cat tracing_on; echo '!traceon' > events/sched/sched_switch/trigger; echo 1 > tracing_on
0

# A trigger's filter tests the trigger's own event; enable_event may aim at the event itself.
$ echo 'enable_event:ftrace:function' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'enable_event:sched:sched_switch' > events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger; echo '!enable_event:sched:sched_switch' > events/sched/sched_switch/trigger
enable_event:sched:sched_switch:unlimited
$ echo 0 > events/sched/sched_switch/enable; cat events/sched/sched_switch/enable; cat events/sched/sched_switch/trigger
0
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist

# On a kprobe event: the probe is armed for the trigger while the event is off, and the
# event cannot go while it has one (EBUSY, as Linux: it is enabled in soft mode).
$ echo 'p:trigprobe ftrace_test_target' > kprobe_events
$ echo 'traceoff' > events/kprobes/trigprobe/trigger; cat events/kprobes/trigprobe/enable; cat tracing_on
0*
1
$ ftrace_test_call target 1; cat tracing_on
0
$ echo > kprobe_events
fentros: kprobe_events: Device or resource busy
$ echo '!traceoff' > events/kprobes/trigprobe/trigger; echo > kprobe_events; echo 1 > tracing_on; cat kprobe_events
