# synthetic_events, hist variables and the onmatch and onmax actions, replaying Linux 6.1
# (tests/reference/linux-6.1-hist-captures.txt: the "synthetic" part of w3, then s1): the
# definition's read-back and format file, the wakeup latency example of histogram.rst
# with fentros's events, the trigger read-back with variables and actions, EBUSY while a
# synthetic event or a variable is used, and refusals with Linux's errno and error_log.
$ cd /sys/kernel/tracing
$ echo > error_log; echo 'wakeup_latency u64 lat; pid_t pid; int prio' > synthetic_events
$ cat synthetic_events
~ wakeup_latency\tu64 lat; pid_t pid; int prio
$ cat events/synthetic/wakeup_latency/format
name: wakeup_latency
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:u64 lat;	offset:8;	size:8;	signed:0;
	field:pid_t pid;	offset:16;	size:4;	signed:1;
	field:int prio;	offset:24;	size:4;	signed:1;
~
print fmt: "lat=%llu, pid=%d, prio=%d", REC->lat, REC->pid, REC->prio
$ ls events/synthetic/wakeup_latency
enable
filter
format
hist
id
trigger
$ echo 'hist:keys=pid:ts0=common_timestamp.usecs if comm=="sh"' >> events/sched/sched_waking/trigger
$ echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,next_prio) if next_comm=="sh"' >> events/sched/sched_switch/trigger
$ echo 'hist:keys=pid,prio,lat:sort=pid,lat' >> events/synthetic/wakeup_latency/trigger
$ echo 1 > events/synthetic/wakeup_latency/enable; echo 1 > events/sched/sched_switch/enable; echo 1 > events/sched/sched_waking/enable
$ sleep 0.05; sleep 0.05; sleep 0.05; sleep 0.05; sleep 0.05; echo 0 > events/sched/sched_switch/enable; echo 0 > events/sched/sched_waking/enable
$ cat events/synthetic/wakeup_latency/hist | head -5
# event histogram
#
# trigger info: hist:keys=pid,prio,lat:vals=hitcount:sort=pid,lat:size=2048 [active]
#
~
$ cat events/synthetic/wakeup_latency/hist | grep '^{' | head -n 1
~ \{ pid:          1, prio:        120, lat: [ \d]{10} \} hitcount: [ \d]{10}
$ cat trace | grep wakeup_latency: | head -n 1
~ \s*\S+-\d+ +\[\d{3}\] d\.\.\d\. +\d+\.\d{6}: wakeup_latency: lat=\d+ pid=1 prio=120
$ cat events/sched/sched_switch/hist | head -n 5
# event histogram
#
# trigger info: hist:keys=next_pid:vals=hitcount:wakeup_lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,next_prio) if next_comm=="sh" [active]
#
~
$ cat events/sched/sched_waking/trigger
hist:keys=pid:vals=hitcount:ts0=common_timestamp.usecs:sort=hitcount:size=2048:clock=global if comm=="sh" [active]

# Refused, as Linux: another trigger of the event has the variable wakeup_lat already.
$ echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmax($wakeup_lat).save(next_comm,prev_pid) if next_comm=="sh"' >> events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ cat events/sched/sched_switch/trigger
hist:keys=next_pid:vals=hitcount:wakeup_lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,next_prio) if next_comm=="sh" [active]
$ echo 'bad_synth u99 x' >> synthetic_events
echo: write error: Invalid argument
$ cat error_log | tail -n 3
~ \[ *\d+\.\d{6}\] synthetic_events: error: Invalid type
  Command: bad_synth u99 x
                     ^
$ echo '!wakeup_latency' >> synthetic_events
echo: write error: Device or resource busy

# s1: errors of actions and references; a variable another trigger reads cannot go.
$ echo > error_log; echo 'hist:keys=next_pid:lat=common_timestamp.usecs-$nosuch' >> events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).nosuch($wakeup_lat,next_pid)' >> events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid)' >> events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.nosuch).wakeup_latency($wakeup_lat,next_pid,next_prio)' >> events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ cat error_log
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Couldn't find synthetic event
  Command: hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).nosuch($wakeup_lat,next_pid)
                                                                                                 ^
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Param count doesn't match synthetic event field count
  Command: hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid)
                                                                                                 ^
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Invalid subsystem or event name
  Command: hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.nosuch).wakeup_latency($wakeup_lat,next_pid,next_prio)
                                                                                   ^
$ echo '!hist:keys=pid:ts0=common_timestamp.usecs if comm=="sh"' >> events/sched/sched_waking/trigger
echo: write error: Device or resource busy
$ echo > events/sched/sched_waking/trigger; cat events/sched/sched_waking/trigger
echo: write error: Invalid argument
hist:keys=pid:vals=hitcount:ts0=common_timestamp.usecs:sort=hitcount:size=2048:clock=global if comm=="sh" [active]
$ echo > synthetic_events
fentros: synthetic_events: Device or resource busy

# The trace(SYNTH,...) form reads back as written; once nothing uses them, all go.
$ echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).trace(wakeup_latency,$wakeup_lat,next_pid,next_prio)' > events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger
hist:keys=next_pid:vals=hitcount:wakeup_lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global:onmatch(sched.sched_waking).trace(wakeup_latency,$wakeup_lat,next_pid,next_prio) [active]
$ echo 0 > events/synthetic/wakeup_latency/enable; echo > events/synthetic/wakeup_latency/trigger; echo > events/sched/sched_switch/trigger; echo > events/sched/sched_waking/trigger; echo '!wakeup_latency' >> synthetic_events; cat synthetic_events; cat set_event
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument

# Definitions: Linux's errors, types and format.
$ echo > error_log; echo 'foo' >> synthetic_events
echo: write error: Invalid argument
$ echo '9bad u64 x' >> synthetic_events
echo: write error: Invalid argument
$ echo 'e2 unsigned x' >> synthetic_events
echo: write error: Invalid argument
$ echo 'e3 u64 9x' >> synthetic_events
echo: write error: Invalid argument
$ echo 'e4 u64 a; u64 a' >> synthetic_events; cat synthetic_events
~ e4\tu64 a; u64 a
$ echo 'e5 u64 a; s32 b; unsigned int c; long d; char e; bool f' >> synthetic_events; cat synthetic_events; cat events/synthetic/e5/format | tail -n 8
~ e4\tu64 a; u64 a
~ e5\tu64 a; s32 b; unsigned int c; long d; char e; bool f
	field:u64 a;	offset:8;	size:8;	signed:0;
	field:s32 b;	offset:16;	size:4;	signed:1;
	field:unsigned int c;	offset:24;	size:4;	signed:0;
	field:long d;	offset:32;	size:8;	signed:1;
	field:char e;	offset:40;	size:1;	signed:1;
	field:bool f;	offset:48;	size:1;	signed:1;
~
print fmt: "a=%llu, b=%d, c=%u, d=%ld, e=%d, f=%d", REC->a, REC->b, REC->c, REC->d, REC->e, REC->f
$ echo 'e5 u64 a' >> synthetic_events
echo: write error: File exists
$ echo '!nosuch' >> synthetic_events
echo: write error: No such file or directory
$ echo > synthetic_events; cat synthetic_events
$ cat error_log
~ \[ *\d+\.\d{6}\] synthetic_events: error: Command must be of the form: <name> field\[;field\] \.\.\.
  Command: foo
           ^
~ \[ *\d+\.\d{6}\] synthetic_events: error: Illegal name
  Command: 9bad u64 x
           ^
~ \[ *\d+\.\d{6}\] synthetic_events: error: Incomplete type
  Command: e2 unsigned x
              ^
~ \[ *\d+\.\d{6}\] synthetic_events: error: Illegal name
  Command: e3 u64 9x
                  ^
~ \[ *\d+\.\d{6}\] synthetic_events: error: Event already exists
  Command: e5 u64 a
           ^

# s2, s3: string fields (char NAME[N] in a 256-byte slot, char NAME[] as __data_loc), Linux's
# older form without ';', removal by a line that repeats the definition, and a string
# parameter (next_comm) copied into the event.
$ echo > error_log; echo 'wakeup_latency  u64 lat pid_t pid char comm[16]' > synthetic_events; cat synthetic_events; cat events/synthetic/wakeup_latency/format | tail -n 6
~ wakeup_latency\tu64 lat; pid_t pid; char\[16\] comm
~
	field:u64 lat;	offset:8;	size:8;	signed:0;
	field:pid_t pid;	offset:16;	size:4;	signed:1;
	field:char comm[];	offset:24;	size:16;	signed:1;
~
print fmt: "lat=%llu, pid=%d, comm=%s", REC->lat, REC->pid, REC->comm
$ echo '!wakeup_latency  u64 lat pid_t pid char comm[16]' >> synthetic_events; cat synthetic_events
$ echo 'wakeup_latency  u64 lat pid_t pid char' > synthetic_events; cat synthetic_events
echo: write error: Invalid argument
$ echo 'x char c[8]; u64 y; char d[16]; char e[]; u32 z' > synthetic_events; cat synthetic_events; cat events/synthetic/x/format | tail -n 8
~ x\tchar\[8\] c; u64 y; char\[16\] d; char\[\] e; u32 z
~
	field:char c[];	offset:8;	size:8;	signed:1;
	field:u64 y;	offset:264;	size:8;	signed:0;
	field:char d[];	offset:272;	size:16;	signed:1;
	field:__data_loc char[] e;	offset:528;	size:8;	signed:1;
	field:u32 z;	offset:536;	size:4;	signed:0;
~
print fmt: "c=%s, y=%llu, d=%s, e=%s, z=%u", REC->c, REC->y, REC->d, __get_str(e), REC->z
$ echo 'myevent char var[10]' > synthetic_events; cat synthetic_events
~ myevent\tchar\[10\] var
$ echo 'big char s[300]' >> synthetic_events
echo: write error: Invalid argument
$ echo 'w2 u64 lat; pid_t pid; char comm[16]' > synthetic_events
$ echo 'hist:keys=pid:ts0=common_timestamp.usecs' >> events/sched/sched_waking/trigger
$ echo 'hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).w2($lat,next_pid,next_comm)' >> events/sched/sched_switch/trigger
$ echo 'hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).w2($lat,next_comm,next_pid)' >> events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 1 > events/synthetic/w2/enable; echo 1 > events/sched/sched_switch/enable; sleep 0.2; echo 0 > events/sched/sched_switch/enable; cat trace | grep ' w2: ' | grep 'comm=sh' | head -n 1
~ \s*\S+-\d+ +\[\d{3}\] d\.\.\d\. +\d+\.\d{6}: w2: lat=\d+ pid=1 comm=sh
$ cat error_log
~ \[ *\d+\.\d{6}\] synthetic_events: error: Invalid field
  Command: wakeup_latency  u64 lat pid_t pid char
                                             ^
~ \[ *\d+\.\d{6}\] synthetic_events: error: Invalid array specification
  Command: big char s[300]
                    ^
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Param type doesn't match synthetic event field type
  Command: hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).w2($lat,next_comm,next_pid)
                                                                                                  ^
$ echo 0 > events/synthetic/w2/enable; echo > events/sched/sched_switch/trigger; echo > events/sched/sched_waking/trigger; echo > synthetic_events; cat synthetic_events
echo: write error: Invalid argument
echo: write error: Invalid argument

# onmax($VAR).save(FIELDS): the largest latency of each key and the fields of the switch that
# made it, under the entry as Linux's track_data_print; a variable name one of the event's
# triggers has already is refused.
$ echo 'hist:keys=pid:ts0=common_timestamp.usecs' >> events/sched/sched_waking/trigger
$ echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmax($wakeup_lat).save(next_comm,prev_pid)' >> events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger
hist:keys=next_pid:vals=hitcount:wakeup_lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global:onmax($wakeup_lat).save(next_comm,prev_pid) [active]
$ echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onchange($wakeup_lat).save(prev_pid)' >> events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=next_pid:lat2=common_timestamp.usecs-$ts0:onmax(lat2).save(prev_pid)' >> events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=next_pid:lat2=common_timestamp.usecs-$ts0:onmax($nosuch).save(prev_pid)' >> events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ sleep 0.05; sleep 0.05; cat events/sched/sched_switch/hist | grep 'next_comm: sh ' | head -n 1
~ \tmax: [ \d]{10}  next_comm: sh {30}  prev_pid: [ \d]{10}
$ cat error_log | grep error: | tail -n 3
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Variable already defined
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: For onmax\(x\) or onchange\(x\), x must be a variable
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Couldn't find onmax or onchange variable
$ echo > events/sched/sched_switch/trigger; echo > events/sched/sched_waking/trigger
echo: write error: Invalid argument
echo: write error: Invalid argument
