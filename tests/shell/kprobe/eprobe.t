# Event probes (e: lines of dynamic_events), replaying Linux 6.1: the lines, read-back, format
# files, removals and refusals (errno, error_log message and caret) are the ones of
# tests/reference/linux-6.1-eprobes.txt, on the events fentros shares with Linux. The trace
# lines are checked for their form: an event probe's record comes inside the attached
# event's writer, one preemption level deeper (d..2. where sched_switch shows d..1.; Linux
# shows d..3. and d..2.). tests/trace/probes.py checks the values record by record.
$ cd /sys/kernel/tracing
$ echo > error_log

# README
$ cat README | grep 'e[:[<group>/][<event>]] <attached-group>'
	           e[:[<group>/][<event>]] <attached-group>.<attached-event> [<args>] [if <filter>]


# made
$ echo 'e:myep sched/sched_switch prev=$prev_pid:u32 next=$next_pid comm=$next_comm:string st=$prev_state' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'e sched.sched_wakeup' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'e:grp/ sched.sched_waking pid=$pid' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'e:grp2/wk2 sched/sched_waking p=$pid:s32 c=$comm:string pr=$prio:x8 cpu=$target_cpu' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'e:ir irq/irq_handler_entry irq=$irq:s32 name=$name:string' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'e:dr sched/sched_switch d=+0($prev_comm):x64 s=+0($prev_comm):string' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'e:arr sched/sched_switch a=+0($next_comm):u8[4]' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'e:bf sched/sched_switch a=$prev_pid:b4@2/32' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'e:im sched/sched_switch a=\1 b=\"abc\" $prev_pid:s16' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'e:flt sched/sched_switch p=$next_pid:s32 if next_pid == 0' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0


# dynamic_events
$ cat dynamic_events
e:eprobes/myep sched.sched_switch prev=$prev_pid:u32 next=$next_pid comm=$next_comm:string st=$prev_state
e:eprobes/sched_wakeup sched.sched_wakeup
e:grp/sched_waking sched.sched_waking pid=$pid
e:grp2/wk2 sched.sched_waking p=$pid:s32 c=$comm:string pr=$prio:x8 cpu=$target_cpu
e:eprobes/ir irq.irq_handler_entry irq=$irq:s32 name=$name:string
e:eprobes/dr sched.sched_switch d=+0($prev_comm):x64 s=+0($prev_comm):string
e:eprobes/arr sched.sched_switch a=+0($next_comm):u8[4]
e:eprobes/bf sched.sched_switch a=$prev_pid:b4@2/32
e:eprobes/im sched.sched_switch a=\1 b=\"abc\" arg3=$prev_pid:s16
e:eprobes/flt sched.sched_switch p=$next_pid:s32


# kprobe_events
$ cat kprobe_events
$ cat events/eprobes/myep/format
name: myep
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:u32 prev;	offset:8;	size:4;	signed:0;
	field:u64 next;	offset:12;	size:8;	signed:0;
	field:__data_loc char[] comm;	offset:20;	size:4;	signed:1;
	field:u64 st;	offset:24;	size:8;	signed:0;
~
print fmt: " prev=%u next=0x%Lx comm=\"%s\" st=0x%Lx", REC->prev, REC->next, __get_str(comm), REC->st

$ cat events/eprobes/sched_wakeup/format
name: sched_wakeup
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
~
print fmt: ""

$ cat events/grp/sched_waking/format
name: sched_waking
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:u64 pid;	offset:8;	size:8;	signed:0;
~
print fmt: " pid=0x%Lx", REC->pid

$ cat events/grp2/wk2/format
name: wk2
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:s32 p;	offset:8;	size:4;	signed:1;
	field:__data_loc char[] c;	offset:12;	size:4;	signed:1;
	field:u8 pr;	offset:16;	size:1;	signed:0;
	field:u64 cpu;	offset:17;	size:8;	signed:0;
~
print fmt: " p=%d c=\"%s\" pr=0x%x cpu=0x%Lx", REC->p, __get_str(c), REC->pr, REC->cpu

$ cat events/eprobes/ir/format
name: ir
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:s32 irq;	offset:8;	size:4;	signed:1;
	field:__data_loc char[] name;	offset:12;	size:4;	signed:1;
~
print fmt: " irq=%d name=\"%s\"", REC->irq, __get_str(name)

$ cat events/eprobes/dr/format
name: dr
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:u64 d;	offset:8;	size:8;	signed:0;
	field:__data_loc char[] s;	offset:16;	size:4;	signed:1;
~
print fmt: " d=0x%Lx s=\"%s\"", REC->d, __get_str(s)

$ cat events/eprobes/arr/format
name: arr
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:u8 a[];	offset:8;	size:4;	signed:0;
~
print fmt: " a={%u,%u,%u,%u}", REC->a[0], REC->a[1], REC->a[2], REC->a[3]

$ cat events/eprobes/bf/format
name: bf
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:u32 a;	offset:8;	size:4;	signed:0;
~
print fmt: " a=%u", REC->a

$ cat events/eprobes/im/format
name: im
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:u64 a;	offset:8;	size:8;	signed:0;
	field:u64 b;	offset:16;	size:8;	signed:0;
	field:s16 arg3;	offset:24;	size:2;	signed:1;
~
print fmt: " a=0x%Lx b=0x%Lx arg3=%d", REC->a, REC->b, REC->arg3

$ cat events/eprobes/flt/format
name: flt
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:s32 p;	offset:8;	size:4;	signed:1;
~
print fmt: " p=%d", REC->p


# trigger, enable before
$ cat events/sched/sched_switch/trigger
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist

$ cat events/sched/sched_switch/enable
0


# enabled
$ echo 1 > events/eprobes/myep/enable
$ echo 1 > events/eprobes/flt/enable
$ echo 1 > events/eprobes/im/enable
$ echo 1 > events/eprobes/dr/enable
$ echo 1 > events/eprobes/arr/enable
$ echo 1 > events/grp2/wk2/enable
$ cat events/sched/sched_switch/enable
0*

$ cat events/sched/sched_switch/trigger
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist

$ echo 1 > events/sched/sched_switch/enable
$ work 0.01 1
~ work: .*: ok

$ cat trace | grep ' myep: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] d[.N]\.2\.\s+\d+\.\d{6}: myep: \(sched\.sched_switch\) prev=-?\d+ next=0x[0-9a-f]+ comm="[^"]*" st=0x[0-9a-f]+

$ cat trace | grep ' im: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] d[.N]\.2\.\s+\d+\.\d{6}: im: \(sched\.sched_switch\) a=0x[0-9a-f]+ b=0x[0-9a-f]+ arg3=-?\d+

$ cat trace | grep ' flt: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] d[.N]\.2\.\s+\d+\.\d{6}: flt: \(sched\.sched_switch\) p=0

$ cat trace | grep ' flt: ' | grep -v -c ' p=0'
0

$ cat trace | grep ' dr: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] d[.N]\.2\.\s+\d+\.\d{6}: dr: \(sched\.sched_switch\) d=0x[0-9a-f]+ s="[^"]*"

$ cat trace | grep ' arr: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] d[.N]\.2\.\s+\d+\.\d{6}: arr: \(sched\.sched_switch\) a=\{\d+,\d+,\d+,\d+\}

$ cat trace | grep ' wk2: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] \S{5}\s+\d+\.\d{6}: wk2: \(sched\.sched_waking\) p=-?\d+ c="[^"]*" pr=0x[0-9a-f]+ cpu=0x[0-9a-f]+

$ echo 0 > events/sched/sched_switch/enable
$ cat events/sched/sched_switch/enable
0*


# busy
$ echo '-:eprobes/myep' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Device or resource busy
rc=1

$ echo > dynamic_events; echo "rc=$?"
fentros: dynamic_events: Device or resource busy
rc=1

$ cat dynamic_events | wc -l
10

$ echo 0 > events/eprobes/myep/enable
$ echo 0 > events/eprobes/flt/enable
$ echo 0 > events/eprobes/im/enable
$ echo 0 > events/eprobes/dr/enable
$ echo 0 > events/eprobes/arr/enable
$ echo 0 > events/grp2/wk2/enable
$ cat events/sched/sched_switch/enable
0


# removed
$ echo '-:eprobes/myep sched/sched_waking' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1

$ echo '-:eprobes/myep sched.sched_switch prev=$prev_pid' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1

$ echo '-:eprobes/myep sched.sched_switch prev=$prev_pid:u32 next=$next_pid' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo '-:sched_wakeup' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo '-:grp/sched_waking sched/sched_waking' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo '!e:ir irq/irq_handler_entry irq=$irq:s32 name=$name:string' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo '-:nosuch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1

$ cat dynamic_events
e:grp2/wk2 sched.sched_waking p=$pid:s32 c=$comm:string pr=$prio:x8 cpu=$target_cpu
e:eprobes/dr sched.sched_switch d=+0($prev_comm):x64 s=+0($prev_comm):string
e:eprobes/arr sched.sched_switch a=+0($next_comm):u8[4]
e:eprobes/bf sched.sched_switch a=$prev_pid:b4@2/32
e:eprobes/im sched.sched_switch a=\1 b=\"abc\" arg3=$prev_pid:s16
e:eprobes/flt sched.sched_switch p=$next_pid:s32

$ echo > dynamic_events

# refused
$ echo 'e' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1

$ echo 'e a.' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: This requires both group and event name to attach
  Command: e a.
             ^

$ echo 'e .b' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Group name is not specified
  Command: e .b
             ^
~ \[\s*\d+\.\d{6}\] event_probe: error: This requires both group and event name to attach
  Command: e .b
             ^

$ echo 'e a.b' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such device
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Attached event does not exist
  Command: e a.b
             ^

$ echo 'e sched' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: This requires both group and event name to attach
  Command: e sched
             ^

$ echo 'e sched/sched_switch foo' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Invalid fetch argument
  Command: e sched/sched_switch foo
                                ^

$ echo 'e:/bar sched/sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Group name is not specified
  Command: e:/bar sched/sched_switch
             ^

$ echo 'e:12345678901234567890123456789012345678901234567890123456789012345/bar sched/sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Group name is too long
  Command: e:12345678901234567890123456789012345678901234567890123456789012345/bar sched/sched_switch
             ^

$ echo 'e:foo.1/bar sched/sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Group name must follow the same rules as C identifiers
  Command: e:foo.1/bar sched/sched_switch
             ^

$ echo 'e: sched/sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Event name is not specified
  Command: e: sched/sched_switch
             ^

$ echo 'e:foo/12345678901234567890123456789012345678901234567890123456789012345 sched/sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Event name is too long
  Command: e:foo/12345678901234567890123456789012345678901234567890123456789012345 sched/sched_switch
                 ^

$ echo 'e:foo/bar.1 sched/sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Event name must follow the same rules as C identifiers
  Command: e:foo/bar.1 sched/sched_switch
                 ^

$ echo 'e:foo/bar sched/sched_switch%return' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Event name must follow the same rules as C identifiers
  Command: e:foo/bar sched/sched_switch%return
                           ^
~ \[\s*\d+\.\d{6}\] event_probe: error: This requires both group and event name to attach
  Command: e:foo/bar sched/sched_switch%return
                     ^

$ echo 'e:foo/bar sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: This requires both group and event name to attach
  Command: e:foo/bar sched_switch
                     ^

$ echo 'e:foo/bar nosys/noev' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such device
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Attached event does not exist
  Command: e:foo/bar nosys/noev
                     ^

$ echo 'e:foo/bar sched.nosuch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such device
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Attached event does not exist
  Command: e:foo/bar sched.nosuch
                     ^

$ echo 'e:foo/bar ftrace/function' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such device
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Attached event does not exist
  Command: e:foo/bar ftrace/function
                     ^

$ echo 'e:foo/bar sched/sched_switch arg=prev_pid' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Invalid fetch argument
  Command: e:foo/bar sched/sched_switch arg=prev_pid
                                            ^

$ echo 'e:foo/bar sched/sched_switch arg=$foo' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Attached event does not have this field
  Command: e:foo/bar sched/sched_switch arg=$foo
                                        ^

$ echo 'e:foo/bar sched/sched_switch arg=$common_pid' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Attached event does not have this field
  Command: e:foo/bar sched/sched_switch arg=$common_pid
                                        ^

$ echo 'e:foo/bar sched/sched_switch arg=$stack' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Attached event does not have this field
  Command: e:foo/bar sched/sched_switch arg=$stack
                                        ^

$ echo 'e:foo/bar sched/sched_switch arg=$stack0' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Attached event does not have this field
  Command: e:foo/bar sched/sched_switch arg=$stack0
                                        ^

$ echo 'e:foo/bar sched/sched_switch arg=$arg1' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Attached event does not have this field
  Command: e:foo/bar sched/sched_switch arg=$arg1
                                        ^

$ echo 'e:foo/bar sched/sched_switch arg=$retval' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Attached event does not have this field
  Command: e:foo/bar sched/sched_switch arg=$retval
                                        ^

$ echo 'e:foo/bar sched/sched_switch arg=%ax' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Invalid \$\-variable specified
  Command: e:foo/bar sched/sched_switch arg=%ax
                                            ^
~ \[\s*\d+\.\d{6}\] event_probe: error: Invalid fetch argument
  Command: e:foo/bar sched/sched_switch arg=%ax
                                            ^

$ echo 'e:foo/bar sched/sched_switch a=$prev_pid:foo' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Unknown type is specified
  Command: e:foo/bar sched/sched_switch a=$prev_pid:foo
                                                    ^

$ echo 'e:foo/bar sched/sched_switch a=+0($prev_comm' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Dereference brace is not closed
  Command: e:foo/bar sched/sched_switch a=+0($prev_comm
                                                       ^

$ echo 'e:foo/bar sched/sched_switch a=$prev_pid a=$next_pid' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: This argument name is already used
  Command: e:foo/bar sched/sched_switch a=$prev_pid a=$next_pid
                                                    ^

$ echo 'e:foo/bar sched/sched_switch common_pid=$prev_pid' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: This argument name is already used
  Command: e:foo/bar sched/sched_switch common_pid=$prev_pid
                                        ^

$ echo 'e:foo/bar sched/sched_switch =$prev_pid' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Argument name is not specified
  Command: e:foo/bar sched/sched_switch =$prev_pid
                                        ^

$ echo 'e:foo/bar sched/sched_switch a=$prev_comm:u8[3]' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: String accepts only memory argument
  Command: e:foo/bar sched/sched_switch a=$prev_comm:u8[3]
                                                     ^

$ echo 'e:foo/bar sched/sched_switch a=@nosuchsym_xyz' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1

$ echo 'e:foo/bar sched/sched_switch if' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: No filter rule after 'if'
  Command: e:foo/bar sched/sched_switch if
                                           ^

$ echo 'e:foo/bar sched/sched_switch if prev_pid' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event filter parse error: error: Invalid operator
  Command: prev_pid
                    ^

$ echo 'e:foo/bar sched/sched_switch if nosuch == 1' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] event filter parse error: error: Field not found
  Command: nosuch == 1
                  ^


# duplicates
$ echo 'e:egroup/eevent sched/sched_switch p=$prev_pid' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'e:egroup/eevent sched/sched_switch p=$prev_pid' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Given group/event name is already used by another event
  Command: e:egroup/eevent sched/sched_switch p=$prev_pid
           ^

$ echo 'e:egroup/eevent sched/sched_waking' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Given group/event name is already used by another event
  Command: e:egroup/eevent sched/sched_waking
           ^

$ echo 'e:sched/sched_wakeup sched/sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Given group/event name is already used by another event
  Command: e:sched/sched_wakeup sched/sched_switch
           ^

$ echo 'p:egroup/eevent schedule' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Given group/event name is already used by another event
  Command: p:egroup/eevent schedule
           ^

$ echo 'p:kgroup/kevent schedule' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo 'e:kgroup/kevent sched/sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Given group/event name is already used by another event
  Command: e:kgroup/kevent sched/sched_switch
           ^

$ echo 'e:onkp kgroup/kevent' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such device
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Attached event does not exist
  Command: e:onkp kgroup/kevent
                  ^

$ echo 'e:onep egroup/eevent' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such device
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Attached event does not exist
  Command: e:onep egroup/eevent
                  ^

$ echo 's:mysyn u64 lat' >> dynamic_events
$ echo 'e:onsyn synthetic/mysyn l=$lat' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
rc=0

$ echo '-:synthetic/mysyn' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Device or resource busy
rc=1

$ echo '!s:mysyn u64 lat' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Device or resource busy
rc=1

$ cat dynamic_events
e:egroup/eevent sched.sched_switch p=$prev_pid
p:kgroup/kevent schedule
s:synthetic/mysyn	u64 lat
e:eprobes/onsyn synthetic.mysyn l=$lat

$ echo > dynamic_events; echo "rc=$?"
fentros: dynamic_events: Device or resource busy
rc=1

$ cat dynamic_events
s:synthetic/mysyn	u64 lat
e:eprobes/onsyn synthetic.mysyn l=$lat


# kprobe_events
$ echo 'e:viakp sched/sched_switch' >> kprobe_events; echo rc=$?
echo: write error: Invalid argument
rc=1

$ cat error_log

# Beyond the capture: an event probe is an event like any other (its own triggers, with
# the attached event in soft mode meanwhile), and what it attached to stays until it goes.
$ echo 'e:own sched/sched_switch p=$next_pid:s32' >> dynamic_events
$ echo 'hist:keys=p if p == 0' > events/eprobes/own/trigger
$ cat events/eprobes/own/enable; cat events/sched/sched_switch/enable
0*
0*
$ work 0.01 1
~ work: .*: ok
$ cat events/eprobes/own/hist | grep 'p: '
~ \{ p:\s+0 \} hitcount:\s+\d+
$ echo '!hist:keys=p if p == 0' > events/eprobes/own/trigger
$ cat events/eprobes/own/enable; cat events/sched/sched_switch/enable
0
0
$ echo '-:own' >> dynamic_events; echo rc=$?
rc=0
$ echo '-:synthetic/mysyn' >> dynamic_events; echo rc=$?
echo: write error: Device or resource busy
rc=1
$ echo '-:eprobes/onsyn synthetic/mysyn' >> dynamic_events; echo rc=$?
rc=0
$ echo '-:synthetic/mysyn' >> dynamic_events; echo rc=$?
rc=0
$ cat dynamic_events

# A line of more words than a probe takes arguments (its filter's included) is E2BIG.
$ echo 'e:many sched/sched_switch if prev_pid == 0 x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x' >> dynamic_events; echo rc=$?; cat error_log | head -n 1; echo > error_log
echo: write error: Argument list too long
rc=1
~ \[\s*\d+\.\d{6}\] event_probe: error: Too many arguments are specified

# $comm where the attached event has no field "comm" is the current task's name: a number
# (its address) unless a string type or a dereference reads it; an immediate string; an
# unnamed $comm where the event has the field. tests/reference/linux-6.1-eprobe-comm.txt.
$ echo 'e:cm sched/sched_switch c=$comm' >> dynamic_events; echo rc=$?
rc=0
$ echo 'e:cs sched/sched_switch c=$comm:string' >> dynamic_events; echo rc=$?
rc=0
$ echo 'e:cd sched/sched_switch c=+0($comm):x8' >> dynamic_events; echo rc=$?
rc=0
$ echo 'e:st sched/sched_switch c=\"abc\":string' >> dynamic_events; echo rc=$?
rc=0
$ echo 'e:nm sched/sched_waking $comm' >> dynamic_events; echo rc=$?
rc=0
$ cat dynamic_events
e:eprobes/cm sched.sched_switch c=$comm
e:eprobes/cs sched.sched_switch c=$comm:string
e:eprobes/cd sched.sched_switch c=+0($comm):x8
e:eprobes/st sched.sched_switch c=\"abc\":string
e:eprobes/nm sched.sched_waking arg1=$comm
$ cat events/eprobes/cm/format | tail -n 3
	field:u64 c;	offset:8;	size:8;	signed:0;
~
print fmt: " c=0x%Lx", REC->c
$ cat events/eprobes/cs/format | tail -n 3
	field:__data_loc char[] c;	offset:8;	size:4;	signed:1;
~
print fmt: " c=\"%s\"", __get_str(c)
$ echo > trace; echo 1 > events/eprobes/enable
$ work 0.01 1
~ work: .*: ok
$ echo 0 > events/eprobes/enable
$ cat trace | grep ' cm: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] d[.N]\.2\.\s+\d+\.\d{6}: cm: \(sched\.sched_switch\) c=0x[0-9a-f]+
$ cat trace | grep ' cs: ' | grep -c -v ' c="'
0
$ cat trace | grep ' sh-1 ' | grep ' cd: ' | head -n 1
~ \s+sh-1\s+\[\d{3}\] d[.N]\.2\.\s+\d+\.\d{6}: cd: \(sched\.sched_switch\) c=0x73
$ cat trace | grep ' st: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] d[.N]\.2\.\s+\d+\.\d{6}: st: \(sched\.sched_switch\) c="abc\\"
$ cat trace | grep ' nm: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] \S{5}\s+\d+\.\d{6}: nm: \(sched\.sched_waking\) arg1=0x[0-9a-f]+
$ echo > dynamic_events
