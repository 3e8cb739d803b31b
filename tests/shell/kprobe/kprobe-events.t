# kprobe events on ftrace call sites: the read-back, format files, trace lines, filters,
# kprobe_profile, removal and the busy rules. Forms and texts are Linux 6.1's, from the
# kp1 and kp3 runs in tests/reference/linux-6.1-probe-captures.txt:
# read-back normalisation (names given to unnamed args, r10 for a return probe's default
# maxactive), "(sym+0x0/0xsize) name=val", "(caller+off/size <- func)", "(fault)" for a
# string a bad pointer gave, the packed field offsets and the print fmt.
$ cd /sys/kernel/tracing
$ echo > error_log; echo > kprobe_events
$ cat kprobe_events; cat dynamic_events; cat kprobe_profile

$ echo 'p:pt ftrace_probe_target name=+0(%di):string id=+0(%si):x64 label=+0(+8(%si)):string bytes=+16(%si):u8[4] flags=+20(%si):b4@4/32 n=%dx:s64 $arg3:s32' > kprobe_events
$ echo 'r:ptr ftrace_probe_target $retval ret=$retval:s64' >> kprobe_events
$ echo 'p ftrace_probe_target' >> kprobe_events; echo 'r5 ftrace_probe_target' >> kprobe_events
$ echo 'p:mygrp/hot ftrace_test_target_hot %di a=$arg1:u32 c=$comm' >> kprobe_events
$ cat kprobe_events
p:kprobes/pt ftrace_probe_target name=+0(%di):string id=+0(%si):x64 label=+0(+8(%si)):string bytes=+16(%si):u8[4] flags=+20(%si):b4@4/32 n=%dx:s64 arg7=$arg3:s32
r10:kprobes/ptr ftrace_probe_target arg1=$retval ret=$retval:s64
p:kprobes/p_ftrace_probe_target_0 ftrace_probe_target
r5:kprobes/r_ftrace_probe_target_0 ftrace_probe_target
p:mygrp/hot ftrace_test_target_hot arg1=%di a=$arg1:u32 c=$comm
$ cat dynamic_events | wc -l
5
$ ls events/kprobes; ls events/mygrp; ls events/kprobes/pt
enable
filter
p_ftrace_probe_target_0
pt
ptr
r_ftrace_probe_target_0
enable
filter
hot
enable
filter
format
hist
id
trigger
$ cat events/kprobes/pt/format
name: pt
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long __probe_ip;	offset:8;	size:8;	signed:0;
	field:__data_loc char[] name;	offset:16;	size:4;	signed:1;
	field:u64 id;	offset:20;	size:8;	signed:0;
	field:__data_loc char[] label;	offset:28;	size:4;	signed:1;
	field:u8 bytes[];	offset:32;	size:4;	signed:0;
	field:u32 flags;	offset:36;	size:4;	signed:0;
	field:s64 n;	offset:40;	size:8;	signed:1;
	field:s32 arg7;	offset:48;	size:4;	signed:1;
~
print fmt: "(%lx) name=\"%s\" id=0x%Lx label=\"%s\" bytes={%u,%u,%u,%u} flags=%u n=%Ld arg7=%d", REC->__probe_ip, __get_str(name), REC->id, __get_str(label), REC->bytes[0], REC->bytes[1], REC->bytes[2], REC->bytes[3], REC->flags, REC->n, REC->arg7
$ cat events/kprobes/ptr/format | tail -6 | head -4
	field:unsigned long __probe_func;	offset:8;	size:8;	signed:0;
	field:unsigned long __probe_ret_ip;	offset:16;	size:8;	signed:0;
	field:u64 arg1;	offset:24;	size:8;	signed:0;
	field:s64 ret;	offset:32;	size:8;	signed:1;
$ cat events/kprobes/ptr/format | tail -1
print fmt: "(%lx <- %lx) arg1=0x%Lx ret=%Ld", REC->__probe_func, REC->__probe_ret_ip, REC->arg1, REC->ret
$ cat events/mygrp/hot/format | tail -1
print fmt: "(%lx) arg1=0x%Lx a=%u c=\"%s\"", REC->__probe_ip, REC->arg1, REC->a, __get_str(c)

# Nothing is patched until an event is enabled; then one shared regs-saving op serves the entry
# probes, and another that saves no register at the entry the return probes: a function with
# both is called through the list of ops.
$ cat enabled_functions; cat events/kprobes/enable; cat events/kprobes/pt/enable
0
0
$ echo 1 > events/kprobes/pt/enable; echo 1 > events/kprobes/ptr/enable; echo 1 > events/mygrp/enable
$ cat events/kprobes/enable; cat set_event
X
mygrp:hot
kprobes:ptr
kprobes:pt
$ cat enabled_functions
~ ftrace_test_target_hot \(1\) R    	tramp: 0x[0-9a-f]+ \(kprobe_ftrace_handler\+0x0/0x[0-9a-f]+\) ->kprobe_ftrace_handler\+0x0/0x[0-9a-f]+
~ ftrace_probe_target \(2\) R     ->ftrace_list_dispatch\+0x0/0x[0-9a-f]+

# Every other call passes a pointer to an unmapped page and a non-canonical one: the
# strings show Linux's fault marker, the numbers read 0, and nothing crashes.
$ ftrace_test_call probe 4; ftrace_test_call hot 2
$ cat trace | grep -v '^#'
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: pt: \(ftrace_probe_target\+0x0/0x[0-9a-f]+\) name="probe-name" id=0x1122334455667788 label="item-label" bytes=\{1,2,3,4\} flags=10 n=-1 arg7=-1
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: ptr: \(shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- ftrace_probe_target\) arg1=0xfffffffffffffffe ret=-2
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: pt: \(ftrace_probe_target\+0x0/0x[0-9a-f]+\) name=\(fault\) id=0x0 label=\(fault\) bytes=\{0,0,0,0\} flags=0 n=0 arg7=0
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: ptr: \(shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- ftrace_probe_target\) arg1=0x0 ret=0
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: pt: \(ftrace_probe_target\+0x0/0x[0-9a-f]+\) name="probe-name" id=0x1122334455667788 label="item-label" bytes=\{1,2,3,4\} flags=10 n=1 arg7=1
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: ptr: \(shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- ftrace_probe_target\) arg1=0x2 ret=2
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: pt: \(ftrace_probe_target\+0x0/0x[0-9a-f]+\) name=\(fault\) id=0x0 label=\(fault\) bytes=\{0,0,0,0\} flags=0 n=2 arg7=2
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: ptr: \(shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- ftrace_probe_target\) arg1=0x4 ret=4
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: hot: \(ftrace_test_target_hot\+0x0/0x[0-9a-f]+\) arg1=0x0 a=0 c="sh"
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: hot: \(ftrace_test_target_hot\+0x0/0x[0-9a-f]+\) arg1=0x1 a=1 c="sh"
$ cat kprobe_profile
  pt                                                         4               0
  ptr                                                        4               0
  p_ftrace_probe_target_0                                    0               0
  r_ftrace_probe_target_0                                    0               0
  hot                                                        2               0

# Filters see the probe's fields, strings and numbers; an array is no field for them.
$ echo 'n > 0 && name ~ "probe*"' > events/kprobes/pt/filter; cat events/kprobes/pt/filter
n > 0 && name ~ "probe*"
$ echo 'ret < 0' > events/kprobes/ptr/filter
$ echo 'bytes == 1' > events/kprobes/pt/filter; cat error_log; echo > error_log
echo: write error: Invalid argument
~ \[\s*\d+\.\d{6}\] event filter parse error: error: Field not found
  Command: bytes == 1
                 ^
$ echo > trace; ftrace_test_call probe 4; cat trace | grep -v '^#'
~ .* ptr: \(shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- ftrace_probe_target\) arg1=0xfffffffffffffffe ret=-2
~ .* pt: \(ftrace_probe_target\+0x0/0x[0-9a-f]+\) name="probe-name" id=0x1122334455667788 label="item-label" bytes=\{1,2,3,4\} flags=10 n=1 arg7=1
$ echo 1 > options/sym-addr; cat trace | tail -2; echo 0 > options/sym-addr
~ .* ptr: \(shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+ <[0-9a-f]{16}> <- ftrace_probe_target <[0-9a-f]{16}>\) arg1=0xfffffffffffffffe ret=-2
~ .* pt: \(ftrace_probe_target\+0x0/0x[0-9a-f]+ <[0-9a-f]{16}>\) name="probe-name" .*

# An enabled probe cannot go, one by one or all at once (EBUSY, no error_log line).
$ echo '-:pt' >> kprobe_events
echo: write error: Device or resource busy
$ echo > kprobe_events
fentros: kprobe_events: Device or resource busy
$ cat kprobe_events | wc -l; cat error_log
5
$ echo 0 > events/kprobes/enable; echo 0 > events/mygrp/enable; cat enabled_functions
$ echo '-:pt' >> kprobe_events; echo '-:kprobes/ptr' >> dynamic_events
$ echo '-:pt' >> kprobe_events
echo: write error: No such file or directory
$ cat kprobe_events
p:kprobes/p_ftrace_probe_target_0 ftrace_probe_target
r5:kprobes/r_ftrace_probe_target_0 ftrace_probe_target
p:mygrp/hot ftrace_test_target_hot arg1=%di a=$arg1:u32 c=$comm
$ echo > dynamic_events; cat kprobe_events; cat kprobe_profile; ls events | grep -c 'kprobes\|mygrp'
0

# The same name and arguments on another function add a place to the event, as Linux
# appends a probe; a place added while the event is on fires at once.
$ echo 'p:two ftrace_test_target_hot v=%di' >> kprobe_events; echo 'p:two ftrace_test_target v=%di' >> kprobe_events
$ cat kprobe_events; ls events/kprobes
p:kprobes/two ftrace_test_target_hot v=%di
p:kprobes/two ftrace_test_target v=%di
enable
filter
two
$ echo 1 > events/kprobes/two/enable; echo 'p:two ftrace_test_chain_c v=%di' >> kprobe_events
$ echo > trace; ftrace_test_call hot 1; ftrace_test_call target 1; ftrace_test_call chain 1
$ cat trace | grep -v '^#'
~ .* two: \(ftrace_test_target_hot\+0x0/0x[0-9a-f]+\) v=0x0
~ .* two: \(ftrace_test_target\+0x0/0x[0-9a-f]+\) v=0x0
~ .* two: \(ftrace_test_chain_c\+0x0/0x[0-9a-f]+\) v=0x0
~ .* two: \(ftrace_test_target_hot\+0x0/0x[0-9a-f]+\) v=0x0
$ cat kprobe_profile
  two                                                        2               0
  two                                                        1               0
  two                                                        1               0
$ echo 0 > events/kprobes/two/enable; echo '-:two' >> kprobe_events; cat kprobe_events; cat enabled_functions

# '-:EVENT SYM [ARGS]' removes only the event's probes at SYM whose first arguments read back
# as ARGS, refused while the event is on; the last probe takes the event along.
$ echo 'p:multi ftrace_test_target v=%di' >> kprobe_events; echo 'p:multi ftrace_test_chain_c v=%di' >> kprobe_events
$ echo 1 > events/kprobes/multi/enable; echo '-:multi ftrace_test_target' >> kprobe_events; echo rc=$?; echo 0 > events/kprobes/multi/enable
echo: write error: Device or resource busy
rc=1
$ echo '-:multi ftrace_test_target' >> kprobe_events; cat kprobe_events
p:kprobes/multi ftrace_test_chain_c v=%di
$ echo '-:multi ftrace_test_target' >> kprobe_events; echo rc=$?
echo: write error: No such file or directory
rc=1
$ echo '-:multi ftrace_test_chain_c v=%si' >> kprobe_events; echo rc=$?
echo: write error: No such file or directory
rc=1
$ echo '-:kprobes/multi ftrace_test_chain_c v=%di' >> kprobe_events; cat kprobe_events; ls events/kprobes
ls: cannot access 'events/kprobes': No such file or directory
