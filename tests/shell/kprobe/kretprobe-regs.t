# Return probes read every register as the function left them, as Linux's do: the
# register fixture (arch/x86_64/regs_fixture.asm, `ftrace_test_call regs`) returns with
# 0x0101010101010101 * (i + 1) in the i-th of ax bx cx dx si di bp r8..r15, the status
# flags 0x845 (with IF on: 0xa47) and the pointer it was given at the stack pointer; on
# its ftrace site (rr, and rs beside it: two hooks on one call) and, without a site, by
# int3 (ri). Then under function_graph on the same call, and a stack trace from a return
# probe's record (a trigger, options/stacktrace) that names the caller, never the hook.
$ cd /sys/kernel/tracing
$ echo > trace; echo > kprobe_events
$ echo 'r:rr arch_regs_fixture ax=%ax bx=%bx cx=%cx dx=%dx si=%si di=%di bp=%bp r8=%r8 r9=%r9 r10=%r10 r11=%r11 r12=%r12 r13=%r13 r14=%r14 r15=%r15' >> kprobe_events
$ echo 'r:rs arch_regs_fixture ret=$retval fl=%flags:x16 ip=%ip:symbol s0=+0($stack0) sp0=+0(+0(%sp)) orig=%orig_ax:s64' >> kprobe_events
$ echo 'r:ri arch_regs_fixture_notrace bx=%bx cx=%cx r11=%r11 r15=%r15 fl=%flags:x16 ip=%ip:symbol s0=+0($stack0)' >> kprobe_events
$ echo 1 > events/kprobes/enable
$ ftrace_test_call regs 1; ftrace_test_call regs_int3 1
$ echo 0 > events/kprobes/enable
$ cat trace | grep -v '^#'
~ \s+sh-1\s+\[\d+\] \.\.\.\.\.\s+[\d.]+: rr: \(arch_regs_fixture_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- arch_regs_fixture\) ax=0x101010101010101 bx=0x202020202020202 cx=0x303030303030303 dx=0x404040404040404 si=0x505050505050505 di=0x606060606060606 bp=0x707070707070707 r8=0x808080808080808 r9=0x909090909090909 r10=0xa0a0a0a0a0a0a0a r11=0xb0b0b0b0b0b0b0b r12=0xc0c0c0c0c0c0c0c r13=0xd0d0d0d0d0d0d0d r14=0xe0e0e0e0e0e0e0e r15=0xf0f0f0f0f0f0f0f
~ \s+sh-1\s+\[\d+\] \.\.\.\.\.\s+[\d.]+: rs: \(arch_regs_fixture_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- arch_regs_fixture\) ret=0x101010101010101 fl=0xa47 ip=arch_regs_fixture_call\+0x[0-9a-f]+/0x[0-9a-f]+ s0=0xf0f0f0f0f0f0f0f sp0=0xf0f0f0f0f0f0f0f orig=-1
~ \s+sh-1\s+\[\d+\] \.\.\.\.\.\s+[\d.]+: ri: \(arch_regs_fixture_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- arch_regs_fixture_notrace\) bx=0x202020202020202 cx=0x303030303030303 r11=0xb0b0b0b0b0b0b0b r15=0xf0f0f0f0f0f0f0f fl=0xa47 ip=arch_regs_fixture_call\+0x[0-9a-f]+/0x[0-9a-f]+ s0=0xf0f0f0f0f0f0f0f

$ echo > trace; echo arch_regs_fixture > set_ftrace_filter; echo function_graph > current_tracer
$ echo 1 > events/kprobes/rr/enable
$ ftrace_test_call regs 1
$ echo 0 > events/kprobes/rr/enable; cat trace | grep -v '^#'
~ \s*\d+\)\s+\|  arch_regs_fixture\(\) \{
~ \s*\d+\)\s+\|  /\* rr: \(arch_regs_fixture_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- arch_regs_fixture\) ax=0x101010101010101 bx=0x202020202020202 cx=0x303030303030303 dx=0x404040404040404 si=0x505050505050505 di=0x606060606060606 bp=0x707070707070707 r8=0x808080808080808 r9=0x909090909090909 r10=0xa0a0a0a0a0a0a0a r11=0xb0b0b0b0b0b0b0b r12=0xc0c0c0c0c0c0c0c r13=0xd0d0d0d0d0d0d0d r14=0xe0e0e0e0e0e0e0e r15=0xf0f0f0f0f0f0f0f \*/
~ \s*\d+\).*\|  \}

$ echo nop > current_tracer; echo > set_ftrace_filter
$ echo > trace; echo 'r:st ftrace_test_target_hot' >> kprobe_events
$ echo 'stacktrace' > events/kprobes/st/trigger; echo 1 > events/kprobes/st/enable
$ ftrace_test_call hot 1
$ echo 0 > events/kprobes/st/enable; echo 1 > options/stacktrace; echo 1 > events/kprobes/rr/enable
$ ftrace_test_call regs 1
$ echo 0 > options/stacktrace; echo 0 > events/kprobes/rr/enable
$ cat trace | grep -v '^#'
~ \s+sh-1\s+\[\d+\] \.\.\.\.\.\s+[\d.]+: st: \(shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- ftrace_test_target_hot\)
~ \s+sh-1\s+\[\d+\] \.\.\.2\.\s+[\d.]+: <stack trace>
 => probe_event_write
 => kretprobe_regs_return
 => shell_cmd_fn_ftrace_test_call
 => shell_run_line
 => shell_main
 => shell_thread
 => thread_entry
 => arch_thread_start
~ \s+sh-1\s+\[\d+\] \.\.\.\.\.\s+[\d.]+: rr: \(arch_regs_fixture_call\+0x[0-9a-f]+/0x[0-9a-f]+ <- arch_regs_fixture\) ax=0x101010101010101 bx=0x202020202020202 cx=0x303030303030303 dx=0x404040404040404 si=0x505050505050505 di=0x606060606060606 bp=0x707070707070707 r8=0x808080808080808 r9=0x909090909090909 r10=0xa0a0a0a0a0a0a0a r11=0xb0b0b0b0b0b0b0b r12=0xc0c0c0c0c0c0c0c r13=0xd0d0d0d0d0d0d0d r14=0xe0e0e0e0e0e0e0e r15=0xf0f0f0f0f0f0f0f
~ \s+sh-1\s+\[\d+\] \.\.\.2\.\s+[\d.]+: <stack trace>
 => probe_event_write
 => kretprobe_regs_return
 => arch_regs_fixture_call
$ echo '!stacktrace' > events/kprobes/st/trigger; echo > kprobe_events; cat kprobe_events
