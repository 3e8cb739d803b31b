# Linux 6.1's event probes (e: lines of dynamic_events) on the events fentros shares with it
# (sched_switch, sched_waking, sched_wakeup, irq_handler_entry): the read-back, the format
# files, the trace lines, removal, and each refusal's errno and error_log line.
# tools/linux-ref tests/reference/linux-6.1-eprobes.sh > tests/reference/linux-6.1-eprobes.txt
echo 0 > tracing_on
echo > trace
echo > error_log
try() { # line: write it to dynamic_events, print the status and the error_log, then clear it
    echo "# $1"
    echo "$1" >> dynamic_events; echo "rc=$?"
    cat error_log; echo > error_log
}
echo "=== README"
grep 'e\[:' README
echo "=== made"
try 'e:myep sched/sched_switch prev=$prev_pid:u32 next=$next_pid comm=$next_comm:string st=$prev_state'
try 'e sched.sched_wakeup'
try 'e:grp/ sched.sched_waking pid=$pid'
try 'e:grp2/wk2 sched/sched_waking p=$pid:s32 c=$comm:string pr=$prio:x8 cpu=$target_cpu'
try 'e:ir irq/irq_handler_entry irq=$irq:s32 name=$name:string'
try 'e:dr sched/sched_switch d=+0($prev_comm):x64 s=+0($prev_comm):string'
try 'e:arr sched/sched_switch a=+0($next_comm):u8[4]'
try 'e:bf sched/sched_switch a=$prev_pid:b4@2/32'
try 'e:im sched/sched_switch a=\1 b=\"abc\" $prev_pid:s16'
try 'e:flt sched/sched_switch p=$next_pid:s32 if next_pid == 0'
echo "=== dynamic_events"
cat dynamic_events
echo "=== kprobe_events"
cat kprobe_events
for e in eprobes/myep eprobes/sched_wakeup grp/sched_waking grp2/wk2 eprobes/ir eprobes/dr eprobes/arr eprobes/bf eprobes/im eprobes/flt; do
  echo "=== format $e"; cat events/$e/format
done
echo "=== trigger, enable before"
cat events/sched/sched_switch/trigger
cat events/sched/sched_switch/enable
echo "=== enabled"
echo 1 > events/eprobes/myep/enable
echo 1 > events/eprobes/flt/enable
echo 1 > events/eprobes/im/enable
cat events/sched/sched_switch/enable
cat events/sched/sched_switch/trigger
echo 1 > events/sched/sched_switch/enable
echo 1 > tracing_on
sleep 1
echo 0 > tracing_on
grep -m 8 'sched_switch' trace
echo 0 > events/sched/sched_switch/enable
cat events/sched/sched_switch/enable
echo "=== busy"
try '-:eprobes/myep'
echo "# > dynamic_events"
echo > dynamic_events; echo "rc=$?"
cat dynamic_events | wc -l
echo 0 > events/eprobes/myep/enable
echo 0 > events/eprobes/flt/enable
echo 0 > events/eprobes/im/enable
cat events/sched/sched_switch/enable
echo "=== removed"
try '-:eprobes/myep sched/sched_waking'
try '-:eprobes/myep sched.sched_switch prev=$prev_pid'
try '-:eprobes/myep sched.sched_switch prev=$prev_pid:u32 next=$next_pid'
try '-:sched_wakeup'
try '-:grp/sched_waking sched/sched_waking'
try '!e:ir irq/irq_handler_entry irq=$irq:s32 name=$name:string'
try '-:nosuch'
cat dynamic_events
echo > dynamic_events
echo "=== refused"
try 'e'
try 'e a.'
try 'e .b'
try 'e a.b'
try 'e sched'
try 'e sched/sched_switch foo'
try 'e:/bar sched/sched_switch'
try 'e:12345678901234567890123456789012345678901234567890123456789012345/bar sched/sched_switch'
try 'e:foo.1/bar sched/sched_switch'
try 'e: sched/sched_switch'
try 'e:foo/12345678901234567890123456789012345678901234567890123456789012345 sched/sched_switch'
try 'e:foo/bar.1 sched/sched_switch'
try 'e:foo/bar sched/sched_switch%return'
try 'e:foo/bar sched_switch'
try 'e:foo/bar nosys/noev'
try 'e:foo/bar sched.nosuch'
try 'e:foo/bar ftrace/function'
try 'e:foo/bar sched/sched_switch arg=prev_pid'
try 'e:foo/bar sched/sched_switch arg=$foo'
try 'e:foo/bar sched/sched_switch arg=$common_pid'
try 'e:foo/bar sched/sched_switch arg=$stack'
try 'e:foo/bar sched/sched_switch arg=$stack0'
try 'e:foo/bar sched/sched_switch arg=$arg1'
try 'e:foo/bar sched/sched_switch arg=$retval'
try 'e:foo/bar sched/sched_switch arg=%ax'
try 'e:foo/bar sched/sched_switch a=$prev_pid:foo'
try 'e:foo/bar sched/sched_switch a=+0($prev_comm'
try 'e:foo/bar sched/sched_switch a=$prev_pid a=$next_pid'
try 'e:foo/bar sched/sched_switch common_pid=$prev_pid'
try 'e:foo/bar sched/sched_switch =$prev_pid'
try 'e:foo/bar sched/sched_switch a=$prev_comm:u8[3]'
try 'e:foo/bar sched/sched_switch a=@nosuchsym_xyz'
try 'e:foo/bar sched/sched_switch if'
try 'e:foo/bar sched/sched_switch if prev_pid'
try 'e:foo/bar sched/sched_switch if nosuch == 1'
echo "=== duplicates"
try 'e:egroup/eevent sched/sched_switch p=$prev_pid'
try 'e:egroup/eevent sched/sched_switch p=$prev_pid'
try 'e:egroup/eevent sched/sched_waking'
try 'e:sched/sched_wakeup sched/sched_switch'
try 'p:egroup/eevent schedule'
try 'p:kgroup/kevent schedule'
try 'e:kgroup/kevent sched/sched_switch'
try 'e:onkp kgroup/kevent'
try 'e:onep egroup/eevent'
echo 's:mysyn u64 lat' >> dynamic_events
try 'e:onsyn synthetic/mysyn l=$lat'
try '-:synthetic/mysyn'
try '!s:mysyn u64 lat'
cat dynamic_events
echo "# > dynamic_events"
echo > dynamic_events; echo "rc=$?"
cat dynamic_events
echo "=== kprobe_events"
echo 'e:viakp sched/sched_switch' >> kprobe_events; echo "rc=$?"
cat error_log
