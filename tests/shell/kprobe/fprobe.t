# fprobe events (f: lines of dynamic_events), Linux 6.5's syntax (Documentation/trace/
# fprobetrace.rst): an event at a traced function's entry or exit, on its ftrace site only.
# Linux 6.1, the reference kernel here, has none; the messages and errnos are Linux's probe
# messages for the same faults (Linux registers an fprobe through an ftrace filter, so a name
# with no site is EINVAL, "Failed to register probe event"), the lines and format files as
# kprobe events' (kprobe-events.t), with fprobetrace.rst's preemption levels: ...1. at the
# entry, ..... at the exit.
$ cd /sys/kernel/tracing
$ echo > error_log

# the README line ftracetest looks for (Linux 6.5's)
$ cat README | grep 'f[:[<group>/][<event>]] <func-name>[%return] [<args>]'
	           f[:[<group>/][<event>]] <func-name>[%return] [<args>]


# made: entry and exit, default names (SYM__entry, SYM__exit) and group (fprobes)
$ echo 'f pfs_open' >> dynamic_events; echo rc=$?
rc=0

$ echo 'f pfs_open%return' >> dynamic_events; echo rc=$?
rc=0

$ echo 'f:myfp/op pfs_open path=+0($arg2):string a3=$arg3:x32 sp=$stack s0=$stack0 c=$comm' >> dynamic_events; echo rc=$?
rc=0


# an argument that reads $retval makes an exit probe (Linux 6.5)
$ echo 'f:rv pfs_open r=$retval:s32' >> dynamic_events; echo rc=$?
rc=0

$ echo 'f8:rv8 pfs_open%return r=$retval:s32' >> dynamic_events; echo rc=$?
rc=0

$ cat dynamic_events
f:fprobes/pfs_open__entry pfs_open
f:fprobes/pfs_open__exit pfs_open%return
f:myfp/op pfs_open path=+0($arg2):string a3=$arg3:x32 sp=$stack s0=$stack0 c=$comm
f:fprobes/rv pfs_open%return r=$retval:s32
f8:fprobes/rv8 pfs_open%return r=$retval:s32


# kprobe_events and kprobe_profile list kprobes only, as Linux's
$ cat kprobe_events
$ cat kprobe_profile
$ cat events/fprobes/pfs_open__entry/format
name: pfs_open__entry
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

$ cat events/fprobes/pfs_open__exit/format
name: pfs_open__exit
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long __probe_func;	offset:8;	size:8;	signed:0;
	field:unsigned long __probe_ret_ip;	offset:16;	size:8;	signed:0;
~
print fmt: "(%lx <- %lx)", REC->__probe_func, REC->__probe_ret_ip

$ cat events/myfp/op/format
name: op
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long __probe_ip;	offset:8;	size:8;	signed:0;
	field:__data_loc char[] path;	offset:16;	size:4;	signed:1;
	field:u32 a3;	offset:20;	size:4;	signed:0;
	field:u64 sp;	offset:24;	size:8;	signed:0;
	field:u64 s0;	offset:32;	size:8;	signed:0;
	field:__data_loc char[] c;	offset:40;	size:4;	signed:1;
~
print fmt: "(%lx) path=\"%s\" a3=0x%x sp=0x%Lx s0=0x%Lx c=\"%s\"", REC->__probe_ip, __get_str(path), REC->a3, REC->sp, REC->s0, __get_str(c)

$ cat events/fprobes/rv/format
name: rv
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long __probe_func;	offset:8;	size:8;	signed:0;
	field:unsigned long __probe_ret_ip;	offset:16;	size:8;	signed:0;
	field:s32 r;	offset:24;	size:4;	signed:1;
~
print fmt: "(%lx <- %lx) r=%d", REC->__probe_func, REC->__probe_ret_ip, REC->r


# the trace lines: as a kprobe's (the ftrace site is the function's first byte here)
$ echo 1 > events/fprobes/enable
$ echo 1 > events/myfp/enable
$ cat /proc/version
~ fentros version .*

$ echo 0 > events/fprobes/enable
$ echo 0 > events/myfp/enable
$ cat trace | grep ' pfs_open__entry: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] [.N]\.\.1\.\s+\d+\.\d{6}: pfs_open__entry: \(pfs_open\+0x0/0x[0-9a-f]+\)

$ cat trace | grep ' pfs_open__exit: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] [.N]\.\.\.\.\s+\d+\.\d{6}: pfs_open__exit: \(\w+\+0x[0-9a-f]+/0x[0-9a-f]+ <- pfs_open\)

$ cat trace | grep ' op: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] [.N]\.\.1\.\s+\d+\.\d{6}: op: \(pfs_open\+0x0/0x[0-9a-f]+\) path="/proc/version" a3=0x[0-9a-f]+ sp=0x[0-9a-f]+ s0=0x[0-9a-f]+ c="sh"

$ cat trace | grep ' rv: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] [.N]\.\.\.\.\s+\d+\.\d{6}: rv: \(\w+\+0x[0-9a-f]+/0x[0-9a-f]+ <- pfs_open\) r=-?\d+

$ cat trace | grep ' rv8: ' | head -n 1
~ \s+\S+-\d+\s+\[\d{3}\] [.N]\.\.\.\.\s+\d+\.\d{6}: rv8: \(\w+\+0x[0-9a-f]+/0x[0-9a-f]+ <- pfs_open\) r=-?\d+


# refused: a name with no ftrace site (notrace, unknown, an offset) fails to register
$ echo 'f:bad memcpy' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Failed to register probe event
  Command: f:bad memcpy
                 ^

$ echo 'f:bad nosuch_function_xyz' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Failed to register probe event
  Command: f:bad nosuch_function_xyz
                 ^

$ echo 'f:bad pfs_open+4' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Failed to register probe event
  Command: f:bad pfs_open+4
                 ^

$ echo 'f:bad pfs_open%ret' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid probed address suffix
  Command: f:bad pfs_open%ret
                         ^

$ echo 'f8:bad pfs_open' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Maxactive is only for function exit
  Command: f8:bad pfs_open
            ^

$ echo 'f0:bad pfs_open%return' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid maxactive number
  Command: f0:bad pfs_open%return
            ^

$ echo 'f5000:bad pfs_open%return' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Maxactive is too big
  Command: f5000:bad pfs_open%return
            ^

$ echo 'f:bad pfs_open%return $arg1' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid \$\-variable specified
  Command: f:bad pfs_open%return $arg1
                                 ^

$ echo 'f:bad pfs_open x=%ax' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid \$\-variable specified
  Command: f:bad pfs_open x=%ax
                            ^
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid fetch argument
  Command: f:bad pfs_open x=%ax
                            ^

$ echo 'f:bad pfs_open $retval:foo' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Unknown type is specified
  Command: f:bad pfs_open $retval:foo
                                  ^

$ echo 'f:bad pfs_open x=@nosuch_symbol_xyz' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: No such file or directory
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Invalid probed address or symbol
  Command: f:bad pfs_open x=@nosuch_symbol_xyz
                 ^

$ echo 'f:b.a.d pfs_open' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: Event name must follow the same rules as C identifiers
  Command: f:b.a.d pfs_open
               ^

$ echo 'f' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1

$ echo 'f:fp2 pfs_open' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1


# one name, one kind: an fprobe and a kprobe of the same name are two events
$ echo 'p:fprobes/pfs_open__entry pfs_open' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Given group/event name is already used by another event
  Command: p:fprobes/pfs_open__entry pfs_open
           ^

$ echo 'f:kprobes/kp pfs_open' >> dynamic_events; echo rc=$?
rc=0

$ echo 'p:kprobes/kp pfs_open' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Given group/event name is already used by another event
  Command: p:kprobes/kp pfs_open
           ^

$ echo 'f pfs_open' >> dynamic_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: File exists
rc=1
~ \[\s*\d+\.\d{6}\] trace_fprobe: error: There is already the exact same probe event
  Command: f pfs_open
           ^

$ echo 'f:fprobes/pfs_open__entry pfs_close' >> dynamic_events; echo rc=$?
rc=0


# removed: busy while enabled; kprobe_events neither lists nor removes an fprobe
$ echo 1 > events/fprobes/pfs_open__entry/enable
$ echo '-:fprobes/pfs_open__entry' >> dynamic_events; echo rc=$?
echo: write error: Device or resource busy
rc=1

$ echo > dynamic_events; echo rc=$?
fentros: dynamic_events: Device or resource busy
rc=1

$ echo 0 > events/fprobes/pfs_open__entry/enable
$ echo '-:fprobes/pfs_open__entry' >> kprobe_events; echo rc=$?
echo: write error: No such file or directory
rc=1

$ echo '-:fprobes/pfs_open__entry pfs_close' >> dynamic_events; echo rc=$?
rc=0

$ echo '-:rv8 pfs_open%return' >> dynamic_events; echo rc=$?
rc=0

$ echo '!f:myfp/op pfs_open path=+0($arg2):string' >> dynamic_events; echo rc=$?
rc=0

$ cat dynamic_events
f:fprobes/pfs_open__entry pfs_open
f:fprobes/pfs_open__exit pfs_open%return
f:fprobes/rv pfs_open%return r=$retval:s32
f:kprobes/kp pfs_open

$ echo > kprobe_events; echo rc=$?
rc=0

$ cat dynamic_events
f:fprobes/pfs_open__entry pfs_open
f:fprobes/pfs_open__exit pfs_open%return
f:fprobes/rv pfs_open%return r=$retval:s32
f:kprobes/kp pfs_open

$ echo > dynamic_events; echo rc=$?
rc=0

$ cat dynamic_events
