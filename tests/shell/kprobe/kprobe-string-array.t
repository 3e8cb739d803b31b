# Arrays of strings in kprobe events, as Linux 6.1's (tests/reference/linux-6.1-string-array.txt):
# ADDR:string[N] reads N pointers stored one after the other from ADDR and records the string
# each points to; the record has one __data_loc word per element (__data_loc char[][N]), the
# print fmt one __get_str(NAME[k]) each, the trace line {"a",(fault)}. On the fixture,
# +8(%si) is the probe item's label pointer: element 0 is "item-label"; element 1 is the
# item's bytes and flags taken for a pointer, which faults; the next call passes pointers
# that fault.
$ cd /sys/kernel/tracing
$ echo > error_log; echo > trace
$ echo 'p:sa ftrace_probe_target name=+0(%di):string arr=+8(%si):string[2] u=+8(%si):ustring[1]' > kprobe_events; echo rc=$?
rc=0

$ cat kprobe_events
p:kprobes/sa ftrace_probe_target name=+0(%di):string arr=+8(%si):string[2] u=+8(%si):ustring[1]
$ cat events/kprobes/sa/format
name: sa
~ ID: \d+
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
~
	field:unsigned long __probe_ip;	offset:8;	size:8;	signed:0;
	field:__data_loc char[] name;	offset:16;	size:4;	signed:1;
	field:__data_loc char[][2] arr;	offset:20;	size:8;	signed:1;
	field:__data_loc char[][1] u;	offset:28;	size:4;	signed:1;
~
print fmt: "(%lx) name=\"%s\" arr={\"%s\",\"%s\"} u={\"%s\"}", REC->__probe_ip, __get_str(name), __get_str(arr[0]), __get_str(arr[1]), __get_str(u[0])
$ echo 1 > events/kprobes/sa/enable; ftrace_test_call probe 2; echo 0 > events/kprobes/sa/enable
$ cat trace | grep -v '^#'
~ \s+sh-\d+\s+\[\d+\] \.\.\.\.\.\s+[\d.]+: sa: \(ftrace_probe_target\+0x0/0x[0-9a-f]+\) name="probe-name" arr=\{"item-label",\(fault\)\} u=\{"item-label"\}
~ \s+sh-\d+\s+\[\d+\] \.\.\.\.\.\s+[\d.]+: sa: \(ftrace_probe_target\+0x0/0x[0-9a-f]+\) name=\(fault\) arr=\{\(fault\),\(fault\)\} u=\{\(fault\)\}

# A size of 0, and a register in place of an address, are refused as on Linux.
$ echo 'p:sa2 ftrace_probe_target arr=+0(%si):string[0]' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid array size
  Command: p:sa2 ftrace_probe_target arr=+0(%si):string[0]
                                                        ^

$ echo 'p:sa3 ftrace_probe_target arr=%si:string[2]' >> kprobe_events; echo rc=$?; cat error_log; echo > error_log
echo: write error: Invalid argument
rc=1
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: String accepts only memory argument
  Command: p:sa3 ftrace_probe_target arr=%si:string[2]
                                             ^

$ echo > kprobe_events; cat kprobe_events
