# Linux 6.1's event probes on $comm, where the attached event has no field of that name: the
# current task's name (as a number, its address), and an immediate string.
# tools/linux-ref tests/reference/linux-6.1-eprobe-comm.sh > tests/reference/linux-6.1-eprobe-comm.txt
echo 'e:cm sched/sched_switch c=$comm' >> dynamic_events; echo rc=$?
echo 'e:cs sched/sched_switch c=$comm:string' >> dynamic_events; echo rc=$?
echo 'e:cd sched/sched_switch c=+0($comm):x8' >> dynamic_events; echo rc=$?
echo 'e:st sched/sched_switch c=\"abc\":string' >> dynamic_events; echo rc=$?
echo 'e:nm sched/sched_waking $comm' >> dynamic_events; echo rc=$?
cat error_log
cat dynamic_events
cat events/eprobes/cm/format | tail -3
cat events/eprobes/cs/format | tail -3
echo 1 > events/eprobes/enable
sleep 1
echo 0 > events/eprobes/enable
grep -m2 ' cm:' trace
grep -m2 ' cs:' trace
grep -m2 ' cd:' trace
grep -m2 ' st:' trace
grep -m2 ' nm:' trace
