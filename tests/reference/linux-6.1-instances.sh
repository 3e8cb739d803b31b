# Trace instances: mkdir/rmdir and their errors, what an instance holds, its tracers,
# events, buffer and switches kept apart from the top level's, and rmdir while busy.
mkdir instances/foo; echo "rc=$?"
mkdir instances/foo; echo "rc=$?"
mkdir instances/foo/bar; echo "rc=$?"
mkdir events/foo; echo "rc=$?"
mkdir bar; echo "rc=$?"
rmdir events; echo "rc=$?"
rmdir instances/bar; echo "rc=$?"
rmdir instances/foo/trace; echo "rc=$?"
ls instances/foo/per_cpu/cpu0
ls instances/foo/events/sched/sched_switch
ls instances/foo/events | grep header
cat instances/foo/available_tracers
echo function_graph > instances/foo/current_tracer; echo "rc=$?"
echo bogus > instances/foo/current_tracer; echo "rc=$?"
cat instances/foo/tracing_on instances/foo/buffer_size_kb instances/foo/buffer_total_size_kb
cat instances/foo/trace_clock
echo 7 > instances/foo/buffer_size_kb; cat instances/foo/buffer_size_kb instances/foo/per_cpu/cpu1/buffer_size_kb; cat buffer_size_kb
echo global > instances/foo/trace_clock; cat instances/foo/trace_clock; cat trace_clock
echo 0 > instances/foo/tracing_on; cat instances/foo/tracing_on tracing_on
echo 1 > instances/foo/tracing_on
echo hello-instance > instances/foo/trace_marker
grep -c hello-instance instances/foo/trace; grep -c hello-instance trace
echo sched:sched_switch > instances/foo/set_event; cat instances/foo/set_event; cat set_event | wc -l
cat instances/foo/events/sched/enable instances/foo/events/sched/sched_switch/enable instances/foo/events/enable instances/foo/events/irq/enable
echo 1 > instances/foo/events/sched/enable; cat instances/foo/events/sched/enable instances/foo/events/enable
echo 0 > instances/foo/events/enable; cat instances/foo/events/sched/enable; cat instances/foo/set_event | wc -l
echo 2 > instances/foo/events/sched/sched_switch/enable; echo "rc=$?"
echo 1 > instances/foo/events/sched/sched_switch/enable
sleep 0.2; grep -c sched_switch instances/foo/trace; grep -c sched_switch trace
cat instances/foo/snapshot | head -5
echo 1 > instances/foo/snapshot; echo "rc=$?"
grep -c sched_switch instances/foo/snapshot
cat instances/foo/per_cpu/cpu0/stats | head -2
exec 3< instances/foo/trace_pipe; rmdir instances/foo; echo "rc=$?"; exec 3<&-
exec 3< instances/foo/events/sched/enable; rmdir instances/foo; echo "rc=$?"; exec 3<&-
rmdir instances/foo; echo "rc=$?"
ls instances
mkdir instances/a instances/b; ls instances; rmdir instances/a instances/b; echo "rc=$?"
