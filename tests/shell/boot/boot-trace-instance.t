# trace_instance= and reserve_mem= on the command line: instances made at boot, one on a
# reserved range (its buffer is the range's, it has last_boot_info and no snapshot), one
# with tracing off and events on; values that cannot be used are reported and ignored.
# (tests/export/test_last_boot.py resets the machine and reads the trace back.)
# cmdline: reserve_mem=1M:4096:trace reserve_mem=2M:3000:odd reserve_mem=1M:4096:trace reserve_mem=12Q:4096:bad reserve_mem=0xfffffffffffff000:4096:huge reserve_mem=8K:4096:tiny trace_instance=boot_map@trace trace_instance=plain^traceoff,sched:sched_switch,irq,nosuch trace_instance=bad^nosuchflag trace_instance=lost@nosuchrange trace_instance=small@tiny trace_instance=again@trace trace_instance=plain
# smp: 1 2 4

$ dmesg | grep -v 'command line' | grep reserve_mem
~ \[\s*\d+\.\d{6}\] reserve_mem: trace at 0x1000000-0x10fffff \(1024 KiB\)
~ \[\s*\d+\.\d{6}\] reserve_mem: 2M:3000:odd: ALIGN is not a power of two; ignored
~ \[\s*\d+\.\d{6}\] reserve_mem: 1M:4096:trace: the name is taken; ignored
~ \[\s*\d+\.\d{6}\] reserve_mem: 12Q:4096:bad: not SIZE:ALIGN:NAME; ignored
~ \[\s*\d+\.\d{6}\] reserve_mem: 0xfffffffffffff000:4096:huge: no free range that large; ignored
~ \[\s*\d+\.\d{6}\] reserve_mem: tiny at 0x1100000-0x1101fff \(8 KiB\)
$ dmesg | grep -v 'command line' | grep trace_instance
~ \[\s*\d+\.\d{6}\] trace_instance: boot_map on trace: a new buffer \(none of this kernel's there\); 0 pages with 0 events kept, 0 pages dropped as invalid
~ \[\s*\d+\.\d{6}\] trace_instance: plain: nosuch: no such event; ignored
~ \[\s*\d+\.\d{6}\] trace_instance: bad\^nosuchflag: unknown flag \(traceoff is known\); ignored
~ \[\s*\d+\.\d{6}\] trace_instance: lost@nosuchrange: no reserved range of that name; ignored
~ \[\s*\d+\.\d{6}\] trace_instance: small@tiny: the range is too small for a buffer on every CPU, or no memory; ignored
~ \[\s*\d+\.\d{6}\] trace_instance: again@trace: the range has an instance already; ignored
~ \[\s*\d+\.\d{6}\] trace_instance: plain: the instance exists; ignored
$ ls /sys/kernel/tracing/instances
boot_map
plain
$ cd /sys/kernel/tracing/instances/boot_map
$ cat last_boot_info
# Current
$ ls snapshot
ls: cannot access 'snapshot': No such file or directory
$ ls per_cpu/cpu0 | grep -c snapshot
0
$ echo 1 > snapshot
fentros: snapshot: Permission denied
$ cat tracing_on
1
$ cat buffer_size_kb
~ \d+
$ echo 100 > buffer_size_kb
echo: write error: Device or resource busy
$ echo 1 > free_buffer
$ cat buffer_total_size_kb
~ \d+
$ cat set_ftrace_filter | head -1
#### all functions enabled ####
$ echo 'work_compute:snapshot' > set_ftrace_filter
echo: write error: Device or resource busy
$ echo function > current_tracer
$ work 0.01
~ work: .*: ok
$ echo 0 > tracing_on
$ cat trace | grep -c work_compute
~ [1-9]\d*
$ echo nop > current_tracer; echo 1 > tracing_on
$ cd ../plain
$ cat tracing_on
0
$ cat set_event
irq:irq_handler_exit
irq:irq_handler_entry
sched:sched_switch
$ ls last_boot_info
ls: cannot access 'last_boot_info': No such file or directory
$ ls events/sched/sched_switch
enable
filter
format
hist
id
trigger
