# Tracepoint probes (t: lines of dynamic_events), Linux 6.10's: an event that fires with a
# tracepoint and records what its fetch arguments read from the tracepoint's own C arguments
# ($argN, memory at them, $comm, immediates). Debian's Linux 6.1, the reference kernel here, has
# none: the syntax, default names, read-back and the refusals (errno, error_log message and
# caret) follow Linux's Documentation/trace/fprobetrace.rst and kernel/trace/trace_fprobe.c of
# 6.10 and later (the tracepoint name check is 6.14's); the format files and trace lines are an
# fprobe's entry (fprobe.t). fentros's tracepoints are its trace events' (sched_switch takes
# prev and next, two struct thread pointers: a thread's pid is at +8, its name at +12, which
# kernel/trace/probes/tprobe_selftests.c pins). The record comes one preemption level deeper
# than the event's own (d..2. where sched_switch shows d..1.; Linux shows d..3. and d..2.); its
# address is the tracepoint's stub, __probestub_NAME, as on Linux (+0x0 here, +0x4 there after
# the endbr64). tests/trace/probes.py checks the values against the events' records.
$ cd /sys/kernel/tracing
$ echo > error_log

# the README line (Linux 6.10's)
$ cat README | grep 't[:[<group>/][<event>]] <tracepoint>'
	           t[:[<group>/][<event>]] <tracepoint> [<args>]


# made: default group (tracepoints) and name (the tracepoint's), a name after GRP/ left empty
$ echo 't sched_switch' >> dynamic_events; echo rc=$?
rc=0

$ echo 't:mygrp/sw sched_switch prev=$arg1 next=$arg2 npid=+8($arg2):s32 ncomm=+12($arg2):string c=$comm' >> dynamic_events; echo rc=$?
rc=0

$ echo 't:grp/ irq_handler_entry irq=$arg1:s32 name=+0($arg2):string' >> dynamic_events; echo rc=$?
rc=0


# one event on two tracepoints: the same name and arguments append it, as on Linux
$ echo 't:wk sched_wakeup pid=+8($arg1):s32 comm=+12($arg1):string' >> dynamic_events; echo rc=$?
rc=0

$ echo 't:wk sched_waking pid=+8($arg1):s32 comm=+12($arg1):string' >> dynamic_events; echo rc=$?
rc=0

$ cat dynamic_events
t:tracepoints/sched_switch sched_switch
t:mygrp/sw sched_switch prev=$arg1 next=$arg2 npid=+8($arg2):s32 ncomm=+12($arg2):string c=$comm
t:grp/irq_handler_entry irq_handler_entry irq=$arg1:s32 name=+0($arg2):string
t:tracepoints/wk sched_wakeup pid=+8($arg1):s32 comm=+12($arg1):string
t:tracepoints/wk sched_waking pid=+8($arg1):s32 comm=+12($arg1):string


# kprobe_events and kprobe_profile list kprobes only, as Linux's
$ cat kprobe_events
$ cat kprobe_profile
$ cat events/tracepoints/sched_switch/format
name: sched_switch
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long __probe_ip;	offset:8;	size:8;	signed:0;
~
print fmt: "(%lx)", REC->__probe_ip

$ cat events/mygrp/sw/format
name: sw
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long __probe_ip;	offset:8;	size:8;	signed:0;
	field:u64 prev;	offset:16;	size:8;	signed:0;
	field:u64 next;	offset:24;	size:8;	signed:0;
	field:s32 npid;	offset:32;	size:4;	signed:1;
	field:__data_loc char[] ncomm;	offset:36;	size:4;	signed:1;
	field:__data_loc char[] c;	offset:40;	size:4;	signed:1;
~
print fmt: "(%lx) prev=0x%Lx next=0x%Lx npid=%d ncomm=\"%s\" c=\"%s\"", REC->__probe_ip, REC->prev, REC->next, REC->npid, __get_str(ncomm), __get_str(c)


# the trace lines, beside sched_switch's own; enabled, an event cannot be removed
$ echo 1 > events/sched/sched_switch/enable
$ echo 1 > events/mygrp/enable
$ echo 1 > events/tracepoints/enable
$ echo 1 > events/grp/enable
$ echo '-:mygrp/sw' >> dynamic_events; echo rc=$?
echo: write error: Device or resource busy
rc=1

$ work 0.05 1
~ work: .*: ok

$ echo 0 > events/tracepoints/enable
$ echo 0 > events/mygrp/enable
$ echo 0 > events/grp/enable
$ echo 0 > events/sched/sched_switch/enable
$ cat trace | grep ' sw: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] d\.\.2\.\s+\d+\.\d{6}: sw: \(__probestub_sched_switch\+0x0/0x[0-9a-f]+\) prev=0x[0-9a-f]+ next=0x[0-9a-f]+ npid=\d+ ncomm="[^"]+" c="[^"]+"

$ cat trace | grep ' sched_switch: (' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] d\.\.2\.\s+\d+\.\d{6}: sched_switch: \(__probestub_sched_switch\+0x0/0x[0-9a-f]+\)

$ cat trace | grep ' wk: (__probestub_sched_waking+' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] [d.][.N][.hH]\d\.\s+\d+\.\d{6}: wk: \(__probestub_sched_waking\+0x0/0x[0-9a-f]+\) pid=\d+ comm="[^"]+"

$ cat trace | grep ' wk: (__probestub_sched_wakeup+' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] [d.][.N][.hH]\d\.\s+\d+\.\d{6}: wk: \(__probestub_sched_wakeup\+0x0/0x[0-9a-f]+\) pid=\d+ comm="[^"]+"

# (irq_handler_entry: whatever device interrupts came meanwhile; its lines read as the event's)
$ cat trace | grep -c ' irq_handler_entry: (__probestub_irq_handler_entry+0x0/'
~ \d+


# removed: by name, one place of two by its tracepoint, by the making line
$ echo '-:mygrp/sw' >> dynamic_events; echo rc=$?
rc=0

$ echo '-:wk sched_waking' >> dynamic_events; echo rc=$?
rc=0

$ echo '-:wk sched_waking' >> dynamic_events; echo rc=$?
echo: write error: No such file or directory
rc=1

$ echo '!t:tracepoints/sched_switch sched_switch' >> dynamic_events; echo rc=$?
rc=0

$ cat dynamic_events
t:grp/irq_handler_entry irq_handler_entry irq=$arg1:s32 name=+0($arg2):string
t:tracepoints/wk sched_wakeup pid=+8($arg1):s32 comm=+12($arg1):string

$ ls events/mygrp
ls: cannot access 'events/mygrp': No such file or directory

# refused, each with Linux's errno and error_log line
$ echo 't sched_switch $retval' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: \$retval is not available on probe
  Command: t sched_switch $retval
                          ^

$ echo 't sched_switch x=+0($retval)' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: \$retval is not available on probe
  Command: t sched_switch x=+0($retval)
                               ^

$ echo 't nosuch_tracepoint' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Tracepoint is not found
  Command: t nosuch_tracepoint
             ^

$ echo 't function' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Tracepoint is not found
  Command: t function
             ^

$ echo 't sched_switch%return' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid probed address suffix
  Command: t sched_switch%return
                         ^

$ echo 't sched.switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid character in tracepoint name
  Command: t sched.switch
                  ^

$ echo 't5 sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Maxactive is only for function exit
  Command: t5 sched_switch
            ^

$ echo 't0 sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid maxactive number
  Command: t0 sched_switch
            ^

$ echo 't:1x sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Event name must follow the same rules as C identifiers
  Command: t:1x sched_switch
             ^

$ echo 't:/x sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Group name is not specified
  Command: t:/x sched_switch
             ^

$ echo 't sched_switch $arg0' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid argument number
  Command: t sched_switch $arg0
                          ^

$ echo 't sched_switch $stack' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid \$\-variable specified
  Command: t sched_switch $stack
                          ^

$ echo 't sched_switch $stack0' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid \$\-variable specified
  Command: t sched_switch $stack0
                          ^

$ echo 't sched_switch x=$foo' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid \$\-variable specified
  Command: t sched_switch x=$foo
                            ^

$ echo 't sched_switch x=+0($arg1' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Dereference brace is not closed
  Command: t sched_switch x=+0($arg1
                                    ^

$ echo 't sched_switch x=$arg1:u9' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Unknown type is specified
  Command: t sched_switch x=$arg1:u9
                                  ^

$ echo 't sched_switch x=$arg1:string' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: String accepts only memory argument
  Command: t sched_switch x=$arg1:string
                                  ^

# fentros knows each tracepoint's arguments (Linux knows them from BTF): none past them
$ echo 't sched_switch $arg3' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid argument number
  Command: t sched_switch $arg3
                          ^

$ echo 't sched_wakeup x=+8($arg2):s32' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid argument number
  Command: t sched_wakeup x=+8($arg2):s32
                               ^

# registers: an fprobe's two lines (Linux logs both)
$ echo 't sched_switch x=%ax' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid \$\-variable specified
  Command: t sched_switch x=%ax
                            ^
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid fetch argument
  Command: t sched_switch x=%ax
                            ^

# an unknown @SYM: ENOENT when the probe is registered, as Linux's
$ echo 't sched_wakeup a=@nosuch_symbol_xyz' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid probed address or symbol
  Command: t sched_wakeup a=@nosuch_symbol_xyz
             ^

# names taken: the same probe again, a trace event's name, an fprobe's (another type of the
# same family), other arguments for an event on another tracepoint
$ echo 't:wk sched_wakeup pid=+8($arg1):s32 comm=+12($arg1):string' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: There is already the exact same probe event
  Command: t:wk sched_wakeup pid=+8($arg1):s32 comm=+12($arg1):string
           ^

$ echo 't:sched/sched_switch sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Given group/event name is already used by another event
  Command: t:sched/sched_switch sched_switch
           ^

$ echo 'f:fprobes/fx pfs_open' >> dynamic_events; echo rc=$?
rc=0

$ echo 't:fprobes/fx sched_switch' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Probe type is different from existing probe
  Command: t:fprobes/fx sched_switch
           ^

$ echo 't:wk sched_wakeup_new pid=+8($arg1):s32' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Argument type or name is different from existing probe
  Command: t:wk sched_wakeup_new pid=+8($arg1):s32
                                                   ^

# fentros fetches an event's arguments alike at each of its tracepoints: other fetches with
# the same names and types are refused (Linux keeps each probe's own)
$ echo 't:wk sched_wakeup_new pid=+12($arg1):s32 comm=+12($arg1):string' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Argument type or name is different from existing probe
  Command: t:wk sched_wakeup_new pid=+12($arg1):s32 comm=+12($arg1):string
                                 ^

# no error_log line: a lone t, and a t line in kprobe_events (dynamic_events' only)
$ echo 't' >> dynamic_events; echo rc=$?; cat error_log
echo: write error: Invalid argument
rc=1

$ echo 't sched_switch' >> kprobe_events; echo rc=$?; cat error_log
echo: write error: Invalid argument
rc=1


# '>' removes them all; their groups go with them
$ echo > dynamic_events; echo rc=$?
rc=0

$ cat dynamic_events
$ ls events/tracepoints
ls: cannot access 'events/tracepoints': No such file or directory
