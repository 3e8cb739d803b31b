# The .snapshot() action of hist triggers, replaying Linux 6.1
# (tests/reference/linux-6.1-hist-snapshot.txt): onmax($VAR).snapshot() owns the
# conditional snapshot while it is in. Meanwhile every write to the snapshot files is
# EBUSY, as is a second owner and a latency tracer; whatever is between its parentheses
# is ignored. trace/hist_snapshot checks what it swaps.

$ cd /sys/kernel/tracing
$ echo 'wakeup_latency u64 lat; pid_t pid' > synthetic_events
$ echo 'hist:keys=pid:ts0=common_timestamp.usecs' > events/sched/sched_waking/trigger
$ echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmax($wakeup_lat).save(next_prio,prev_pid):onmax($wakeup_lat).snapshot()' >> events/sched/sched_switch/trigger; echo "rc=$?"
rc=0
$ cat events/sched/sched_switch/trigger
hist:keys=next_pid:vals=hitcount:wakeup_lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global:onmax($wakeup_lat).save(next_prio,prev_pid):onmax($wakeup_lat).snapshot() [active]
$ echo 1 > snapshot; echo 2 > snapshot; echo 0 > snapshot; echo 1 > per_cpu/cpu0/snapshot
echo: write error: Device or resource busy
echo: write error: Device or resource busy
echo: write error: Device or resource busy
echo: write error: Device or resource busy
$ cat snapshot | head -n 4
# tracer: nop
#
#
# * Snapshot is allocated *

# The latency tracers swap into the same buffer (Linux's tracing_set_tracer: EBUSY).
$ echo irqsoff > current_tracer
echo: write error: Device or resource busy
$ cat current_tracer
nop

# A second owner: EBUSY, with nothing in error_log. A variable of another trigger is not
# this one's.
$ echo > error_log
$ echo 'hist:keys=prev_pid:onchange($wakeup_lat).snapshot()' >> events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=pid:x=common_timestamp:onmax($x).snapshot()' >> events/sched/sched_wakeup/trigger
echo: write error: Device or resource busy
$ cat error_log
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Couldn't find onmax or onchange variable
  Command: hist:keys=prev_pid:onchange($wakeup_lat).snapshot()
                                        ^

# The `snapshot` event trigger meanwhile fires and takes no snapshot: the owner decides
# every swap (Linux 6.1 passes it to the owner's test without data and crashes).
$ echo snapshot >> events/sched/sched_wakeup/trigger; sleep 0.02; sleep 0.02; cat events/sched/sched_wakeup/trigger
snapshot:unlimited
$ echo '!snapshot' >> events/sched/sched_wakeup/trigger

# The hist file says which value and key made the last swap, before the totals.
$ echo 1 > events/sched/enable; sleep 0.02; sleep 0.02; sleep 0.02; sleep 0.02; echo 0 > events/sched/enable
$ cat events/sched/sched_switch/hist | tail -n 8
~
Snapshot taken (see tracing/snapshot).  Details:
~ \ttriggering value \{ onmax\(\$wakeup_lat\) \}: [ \d]{10}\ttriggered by event with key: \{ next_pid: [ \d]{10} \}
~
Totals:
~     Hits: \d+
~     Entries: \d+
    Dropped: 0

# Gone with its trigger: the snapshot files work again.
$ echo '!hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmax($wakeup_lat).save(next_prio,prev_pid):onmax($wakeup_lat).snapshot()' >> events/sched/sched_switch/trigger; echo "rcrm=$?"
rcrm=0
$ cat events/sched/sched_switch/trigger
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist
$ echo 1 > snapshot; echo "rc1after=$?"; echo 0 > snapshot
rc1after=0

# Errors, and the parentheses' content ignored.
$ echo > error_log
$ echo 'hist:keys=pid:onmax(x).snapshot()' >> events/sched/sched_wakeup/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=pid:onmatch(sched.sched_waking).snapshot()' >> events/sched/sched_wakeup/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=pid:ts1=common_timestamp:onmax($ts1).snapshot(pid)' >> events/sched/sched_wakeup/trigger; echo "rc=$?"
rc=0
$ echo 'hist:keys=pid:ts1=common_timestamp:onmax($ts1).snapshot(' >> events/sched/sched_wakeup/trigger
echo: write error: Invalid argument
$ cat error_log
~ \[ *\d+\.\d{6}\] hist:sched:sched_wakeup: error: For onmax\(x\) or onchange\(x\), x must be a variable
  Command: hist:keys=pid:onmax(x).snapshot()
                             ^
~ \[ *\d+\.\d{6}\] hist:sched:sched_wakeup: error: Handler doesn't support action
  Command: hist:keys=pid:onmatch(sched.sched_waking).snapshot()
                                                     ^
~ \[ *\d+\.\d{6}\] hist:sched:sched_wakeup: error: No closing paren found
  Command: hist:keys=pid:ts1=common_timestamp:onmax($ts1).snapshot(
           ^

# `>` takes the hist triggers out; the empty line written then is EINVAL, as on Linux.
$ echo > events/sched/sched_wakeup/trigger; echo > events/sched/sched_switch/trigger; echo > events/sched/sched_waking/trigger
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument
$ echo > synthetic_events
$ echo > error_log
$ cat synthetic_events events/sched/sched_wakeup/trigger events/sched/sched_waking/trigger
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist
