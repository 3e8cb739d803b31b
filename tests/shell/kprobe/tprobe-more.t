# Tracepoint probes beside the event's other users (see tprobe.t for the syntax).
$ cd /sys/kernel/tracing

# A place added to a t: event that records only in an instance fires at once, as a place
# added to an enabled event does (the event's enable is the instance's).
$ mkdir instances/foo
$ echo 't:wk sched_wakeup pid=+8($arg1):s32' >> dynamic_events; echo rc=$?
rc=0

$ echo 1 > instances/foo/events/tracepoints/wk/enable
$ echo 't:wk sched_waking pid=+8($arg1):s32' >> dynamic_events; echo rc=$?
rc=0

$ work 0.05 2
~ work: .*ok

$ cat instances/foo/trace | grep -c __probestub_sched_wakeup+
~ [1-9]\d*

$ cat instances/foo/trace | grep -c __probestub_sched_waking+
~ [1-9]\d*

# Enabled in the instance: not removed, place by place or whole.
$ echo '-:wk sched_waking' >> dynamic_events; echo rc=$?
~ .*Device or resource busy
rc=1

$ echo '-:wk' >> dynamic_events; echo rc=$?
~ .*Device or resource busy
rc=1

$ echo 0 > instances/foo/events/tracepoints/wk/enable
$ echo '-:wk' >> dynamic_events; echo rc=$?
rc=0

$ rmdir instances/foo

# A probe on a preemptirq tracepoint, whose hooks run only while someone wants them: the
# event and the probe share them, enabled and disabled in either order.
$ echo 't:pd preempt_disable' >> dynamic_events
$ echo > trace; echo 1 > events/tracepoints/pd/enable; sleep 0.01; echo 0 > events/tracepoints/pd/enable
$ cat trace | grep -c ' pd: '
~ [1-9]\d*

$ echo 1 > events/preemptirq/preempt_disable/enable; echo 1 > events/tracepoints/pd/enable
$ echo 0 > events/preemptirq/preempt_disable/enable; echo > trace; sleep 0.01
$ echo 0 > events/tracepoints/pd/enable
$ cat trace | grep -c ' pd: '
~ [1-9]\d*

$ cat trace | grep -c ' preempt_disable: '
0

$ echo 1 > events/tracepoints/pd/enable; echo 1 > events/preemptirq/preempt_disable/enable
$ echo 0 > events/tracepoints/pd/enable; echo > trace; sleep 0.01
$ echo 0 > events/preemptirq/preempt_disable/enable
$ cat trace | grep -c ' preempt_disable: '
~ [1-9]\d*

$ cat trace | grep -c ' pd: '
0

# Both off: nothing records.
$ echo > trace; sleep 0.01; cat trace | grep -vc '^#'
0

$ echo '-:pd' >> dynamic_events; echo rc=$?
rc=0
