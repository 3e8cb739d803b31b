# kprobes at any instruction, through int3: offsets inside traced functions, a notrace
# function's first instruction, refusals (Linux's EILSEQ for an offset inside an
# instruction, EINVAL for the blacklist), /sys/kernel/debug/kprobes/list and blacklist in
# Linux's formats (tests/reference/linux-6.1-kprobe-int3.txt), kprobe_profile.
# The targets are kernel/fixtures/kprobe_int3_targets.c: kprobe_int3_notrace begins
# push %rbp (1 byte), mov %rsp,%rbp (3 bytes); a traced function's +5 is the instruction
# after its ftrace site.
$ cd /sys/kernel/tracing
$ echo 'p:n0 kprobe_int3_notrace n=%di' > kprobe_events
$ echo 'p:n1 kprobe_int3_notrace+1 n=%di:s64 sp=%sp' >> kprobe_events
$ echo 'p:c0 kprobe_int3_call n=%di' >> kprobe_events
$ echo 'p:c5 kprobe_int3_call+5 n=%di' >> kprobe_events
$ echo 'r:nr kprobe_int3_notrace ret=$retval:s64' >> kprobe_events
$ echo 'p:bad kprobe_int3_notrace+2' >> kprobe_events
echo: write error: Invalid or incomplete multibyte or wide character
$ echo 'p:bl x86_kprobe_int3' >> kprobe_events
echo: write error: Invalid argument
$ echo 'p:bl kprobe_int3_hit+4' >> kprobe_events
echo: write error: Invalid argument
$ cat error_log
~ \[\s*\d+\.\d+\] trace_kprobe: error: Probe point is not an instruction boundary
  Command: p:bad kprobe_int3_notrace+2
                 ^
~ \[\s*\d+\.\d+\] trace_kprobe: error: Failed to register probe event
  Command: p:bl x86_kprobe_int3
                ^
~ \[\s*\d+\.\d+\] trace_kprobe: error: Failed to register probe event
  Command: p:bl kprobe_int3_hit+4
                ^
$ cat kprobe_events
p:kprobes/n0 kprobe_int3_notrace n=%di
p:kprobes/n1 kprobe_int3_notrace+1 n=%di:s64 sp=%sp
p:kprobes/c0 kprobe_int3_call n=%di
p:kprobes/c5 kprobe_int3_call+5 n=%di
r10:kprobes/nr kprobe_int3_notrace ret=$retval:s64

# Nothing is armed while the events are off.
$ cat /sys/kernel/debug/kprobes/list
$ echo 1 > events/kprobes/enable
$ cat /sys/kernel/debug/kprobes/list
~ [0-9a-f]{16}  k  kprobe_int3_notrace\+0x0    
~ [0-9a-f]{16}  k  kprobe_int3_notrace\+0x1    
~ [0-9a-f]{16}  k  kprobe_int3_call\+0x0    \[FTRACE\]
~ [0-9a-f]{16}  k  kprobe_int3_call\+0x5    
~ [0-9a-f]{16}  k  kprobe_int3_notrace\+0x0    
$ ftrace_test_call int3 2
$ echo 0 > events/kprobes/enable
$ cat trace | grep -v '^#'
~ \s+sh-1\s+\[\d+\] \.\.\.\.\.\s+\d+\.\d+: c0: \(kprobe_int3_call\+0x0/0x[0-9a-f]+\) n=0x0
~ \s+sh-1\s+\[\d+\] d\.\.\.\.\s+\d+\.\d+: c5: \(kprobe_int3_call\+0x5/0x[0-9a-f]+\) n=0x0
~ \s+sh-1\s+\[\d+\] d\.\.\.\.\s+\d+\.\d+: n0: \(kprobe_int3_notrace\+0x0/0x[0-9a-f]+\) n=0x0
~ \s+sh-1\s+\[\d+\] d\.\.\.\.\s+\d+\.\d+: n1: \(kprobe_int3_notrace\+0x1/0x[0-9a-f]+\) n=0 sp=0x[0-9a-f]+
~ \s+sh-1\s+\[\d+\] \.\.\.\.\.\s+\d+\.\d+: nr: \(shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- kprobe_int3_notrace\) ret=-5
~ \s+sh-1\s+\[\d+\] \.\.\.\.\.\s+\d+\.\d+: c0: \(kprobe_int3_call\+0x0/0x[0-9a-f]+\) n=0x1
~ \s+sh-1\s+\[\d+\] d\.\.\.\.\s+\d+\.\d+: c5: \(kprobe_int3_call\+0x5/0x[0-9a-f]+\) n=0x1
~ \s+sh-1\s+\[\d+\] d\.\.\.\.\s+\d+\.\d+: n0: \(kprobe_int3_notrace\+0x0/0x[0-9a-f]+\) n=0x1
~ \s+sh-1\s+\[\d+\] d\.\.\.\.\s+\d+\.\d+: n1: \(kprobe_int3_notrace\+0x1/0x[0-9a-f]+\) n=1 sp=0x[0-9a-f]+
~ \s+sh-1\s+\[\d+\] \.\.\.\.\.\s+\d+\.\d+: nr: \(shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- kprobe_int3_notrace\) ret=-2
$ cat kprobe_profile
  n0                                                         2               0
  n1                                                         2               0
  c0                                                         2               0
  c5                                                         2               0
  nr                                                         2               0
$ cat /sys/kernel/debug/kprobes/list
$ grep x86_kprobe_int3 /sys/kernel/debug/kprobes/blacklist
~ 0x[0-9a-f]{16}-0x[0-9a-f]{16}\tx86_kprobe_int3
$ grep -c kprobe_int3_notrace /sys/kernel/debug/kprobes/blacklist
0
$ echo > kprobe_events
$ echo 'p:far kprobe_int3_notrace+0x10000000' > kprobe_events
echo: write error: Invalid argument
$ cat kprobe_events
