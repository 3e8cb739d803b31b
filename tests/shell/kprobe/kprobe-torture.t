# kprobes made, enabled, disabled and removed at random while `work` runs on every CPU:
# entry and return probes on the load's own functions and on kmalloc/kfree, with fetch
# arguments that dereference good and bad pointers; meanwhile the live patch
# livepatch_work goes on and off, and its function carries probes too. Every action must
# give the errno the rules say, and at the end no probe, no patched site and no leaked
# memory may remain. Half the entry probes go to a random offset: an int3 where it lands on
# an instruction, EILSEQ where it does not. A quarter of the probes are fprobes, a quarter
# event probes on sched and irq events, attached and detached while every CPU writes them.
# smp: 1 2 4
# timeout: 120

$ kprobe_torture 6
~ kprobe_torture: 6 s on [124] CPUs, seed 0x[0-9a-f]+: [1-9][0-9]* makes, [1-9][0-9]* enables, [0-9]+ disables, [1-9][0-9]* removes, [0-9]+ refused as busy, [1-9][0-9]* hits, [0-9]+ missed, [1-9][0-9]* live patch changes \([0-9]+ refused during a transition\), [0-9]+ made at an offset, [0-9]+ refused off an instruction boundary, [0-9]+ on unprobeable instructions
kprobe_torture: ok
$ ftrace_check
~ ftrace_check: [0-9]+ sites consistent
$ cat /sys/kernel/tracing/kprobe_events
