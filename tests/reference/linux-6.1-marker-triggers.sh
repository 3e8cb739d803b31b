# Triggers on ftrace:print, the event trace_marker writes: which files the ftrace system's
# events have, a hist trigger keyed on the writer and on the text, traceoff and snapshot
# triggers fired by marker writes, a filter on buf.
ls events/ftrace/print events/ftrace/function
ls events/ftrace
echo 'hist:keys=common_pid' > events/ftrace/print/trigger; echo "rc=$?"
echo hello > trace_marker; echo hello > trace_marker
cat events/ftrace/print/hist
cat events/ftrace/print/trigger
echo '!hist:keys=common_pid' >> events/ftrace/print/trigger
echo 'hist:keys=buf:vals=hitcount' >> events/ftrace/print/trigger; echo "rc=$?"
echo -n start > trace_marker; echo end > trace_marker; echo -n start > trace_marker
cat events/ftrace/print/hist
echo '!hist:keys=buf:vals=hitcount' >> events/ftrace/print/trigger
echo 'hist:keys=common_pid if buf == "start"' >> events/ftrace/print/trigger; echo "rc=$?"
echo -n start > trace_marker; echo -n stop > trace_marker
cat events/ftrace/print/hist | grep hitcount
echo '!hist:keys=common_pid' >> events/ftrace/print/trigger
echo 'traceoff:1 if buf ~ "stop*"' >> events/ftrace/print/trigger; echo "rc=$?"
echo go > trace_marker; cat tracing_on; echo stop > trace_marker; cat tracing_on
cat events/ftrace/print/trigger
echo '!traceoff:1' >> events/ftrace/print/trigger; echo 1 > tracing_on
echo 'snapshot' >> events/ftrace/print/trigger; echo "rc=$?"
echo one > trace_marker
grep -c one snapshot
echo '!snapshot' >> events/ftrace/print/trigger
echo 'enable_event:sched:sched_switch' >> events/ftrace/print/trigger; echo "rc=$?"
echo x > trace_marker; cat events/sched/sched_switch/enable
echo '!enable_event:sched:sched_switch' >> events/ftrace/print/trigger
echo 'stacktrace' >> events/ftrace/print/trigger; echo "rc=$?"
echo '!stacktrace' >> events/ftrace/print/trigger
echo 'hist:keys=common_pid' > events/ftrace/function/trigger; echo "rc=$?"
echo 'hist:keys=ip' > events/ftrace/bprint/trigger; echo "rc=$?"
cat events/ftrace/print/filter; echo "rcf=$?"
echo 'buf == "x"' > events/ftrace/print/filter; echo "rcf2=$?"
cat events/ftrace/print/format
echo > error_log
echo 'hist:keys=buf:vals=hitcount' >> events/ftrace/print/trigger; echo "rc=$?"
echo 'hist:keys=common_pid:vals=buf' >> events/ftrace/print/trigger; echo "rc=$?"
echo 'hist:keys=ip.sym' >> events/ftrace/print/trigger; echo "rc=$?"
echo hi > trace_marker
cat events/ftrace/print/hist
cat error_log
