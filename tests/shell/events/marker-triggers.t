# Triggers on ftrace:print, the event trace_marker writes, replaying Linux 6.1
# (tests/reference/linux-6.1-marker-triggers.txt): print alone of ftrace's events has a
# trigger file (each has a hist file), and every marker recorded runs its triggers, which
# see Linux's record (common_pid, ip, buf; the buf of `echo` ends in its newline).

$ cd /sys/kernel/tracing
$ ls events/ftrace/print events/ftrace/function
events/ftrace/print:
format
hist
id
trigger
~
events/ftrace/function:
format
hist
id
$ echo 'hist:keys=common_pid' > events/ftrace/print/trigger; echo "rc=$?"
rc=0
$ echo hello > trace_marker; echo hello > trace_marker
$ cat events/ftrace/print/hist
# event histogram
#
# trigger info: hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 [active]
#
~
~ \{ common_pid: +\d+ \} hitcount:          2
~
Totals:
    Hits: 2
    Entries: 1
    Dropped: 0
$ cat events/ftrace/print/trigger
hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 [active]
$ echo '!hist:keys=common_pid' >> events/ftrace/print/trigger
$ echo 'hist:keys=buf:vals=hitcount' >> events/ftrace/print/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=common_pid if buf == "start"' >> events/ftrace/print/trigger; echo "rc=$?"
rc=0
$ echo -n start > trace_marker; echo -n stop > trace_marker
$ cat events/ftrace/print/hist | grep hitcount
# trigger info: hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 if buf == "start" [active]
~ \{ common_pid: +\d+ \} hitcount:          1
$ echo 'traceoff:1 if buf ~ "stop*"' >> events/ftrace/print/trigger; echo "rc=$?"
rc=0
$ echo go > trace_marker; cat tracing_on; echo stop > trace_marker; cat tracing_on
1
0
$ cat events/ftrace/print/trigger
traceoff:count=0 if buf ~ "stop*"
hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 if buf == "start" [active]
$ echo '!traceoff:1' >> events/ftrace/print/trigger; echo 1 > tracing_on
$ echo 'snapshot' >> events/ftrace/print/trigger; echo "rc=$?"
rc=0
$ echo one > trace_marker
$ cat snapshot | grep -c one
1
$ echo '!snapshot' >> events/ftrace/print/trigger
$ echo 'enable_event:sched:sched_switch' >> events/ftrace/print/trigger; echo "rc=$?"
rc=0
$ echo x > trace_marker; cat events/sched/sched_switch/enable
1*
$ echo '!enable_event:sched:sched_switch' >> events/ftrace/print/trigger
$ echo 'hist:keys=common_pid' > events/ftrace/function/trigger
fentros: events/ftrace/function/trigger: Permission denied
$ cat events/ftrace/print/filter
cat: events/ftrace/print/filter: No such file or directory

# buf has no size: no field for a histogram. ip is the address in tracing_mark_write.
$ echo > error_log
$ echo 'hist:keys=common_pid:vals=buf' >> events/ftrace/print/trigger
echo: write error: Invalid argument
$ cat error_log
~ \[ *\d+\.\d{6}\] hist:ftrace:print: error: Couldn't find field
  Command: hist:keys=common_pid:vals=buf
                                     ^
$ echo 'hist:keys=ip.sym' >> events/ftrace/print/trigger; echo hi > trace_marker; cat events/ftrace/print/hist | grep 'ip:'
~ \{ ip: \[[0-9a-f]{16}\] tracing_mark_write +\} hitcount:          1
$ echo > events/ftrace/print/trigger
echo: write error: Invalid argument
$ echo 0 > events/sched/sched_switch/enable; echo 0 > snapshot
