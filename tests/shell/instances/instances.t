# Trace instances, replaying Linux 6.1 (tests/reference/linux-6.1-instances.txt has the
# session and tests/reference/linux-6.1-instances.sh the script that captured it): mkdir
# and rmdir with the VFS's errnos, the files of an instance, its tracers, and a buffer,
# clock, switch, marker and events kept apart from the top level's. (A write error reads
# "echo:" here where Linux's sh says "sh:"; ls lists one name a line; fentros has fewer
# clocks.) rmdir of an instance with an open file is EBUSY: the self-test
# instance_rmdir_busy opens one (the shell keeps no file open between commands).

$ cd /sys/kernel/tracing
$ mkdir instances/foo; echo "rc=$?"
rc=0
$ mkdir instances/foo; echo "rc=$?"
mkdir: can't create directory 'instances/foo': File exists
rc=1
$ mkdir instances/foo/bar; echo "rc=$?"
mkdir: can't create directory 'instances/foo/bar': Operation not permitted
rc=1
$ mkdir events/foo; echo "rc=$?"
mkdir: can't create directory 'events/foo': Operation not permitted
rc=1
$ mkdir bar; echo "rc=$?"
mkdir: can't create directory 'bar': Operation not permitted
rc=1
$ rmdir events; echo "rc=$?"
rmdir: 'events': Operation not permitted
rc=1
$ rmdir instances/bar; echo "rc=$?"
rmdir: 'instances/bar': No such file or directory
rc=1
$ rmdir instances/foo/trace; echo "rc=$?"
rmdir: 'instances/foo/trace': Not a directory
rc=1
$ ls instances/foo/events/sched/sched_switch
enable
filter
format
hist
id
trigger
$ ls instances/foo/events | grep header
header_event
header_page
$ cat instances/foo/available_tracers
function nop
$ echo function_graph > instances/foo/current_tracer; echo "rc=$?"
echo: write error: Invalid argument
rc=1
$ echo bogus > instances/foo/current_tracer; echo "rc=$?"
echo: write error: Invalid argument
rc=1
$ cat instances/foo/tracing_on instances/foo/buffer_size_kb instances/foo/buffer_total_size_kb
1
1410
~ 1410|2820|5640
$ cat instances/foo/trace_clock
[local] global counter uptime x86-tsc
$ echo 7 > instances/foo/buffer_size_kb; cat instances/foo/buffer_size_kb instances/foo/per_cpu/cpu0/buffer_size_kb
7
7
$ echo global > instances/foo/trace_clock; cat instances/foo/trace_clock; cat trace_clock
local [global] counter uptime x86-tsc
[local] global counter uptime x86-tsc
$ echo 0 > instances/foo/tracing_on; cat instances/foo/tracing_on tracing_on
0
1
$ echo 1 > instances/foo/tracing_on
$ echo hello-instance > instances/foo/trace_marker
$ grep -c hello-instance instances/foo/trace; grep -c hello-instance trace
1
0
$ echo sched:sched_switch > instances/foo/set_event; cat instances/foo/set_event; cat set_event | wc -l
sched:sched_switch
0
$ cat instances/foo/events/sched/enable instances/foo/events/sched/sched_switch/enable instances/foo/events/enable instances/foo/events/irq/enable
X
1
X
0
$ echo 1 > instances/foo/events/sched/enable; cat instances/foo/events/sched/enable instances/foo/events/enable
1
X
$ echo 0 > instances/foo/events/enable; cat instances/foo/events/sched/enable; cat instances/foo/set_event | wc -l
0
0
$ echo 2 > instances/foo/events/sched/sched_switch/enable; echo "rc=$?"
echo: write error: Invalid argument
rc=1
$ echo 1 > instances/foo/events/sched/sched_switch/enable
$ sleep 0.2; grep -c sched_switch instances/foo/trace; grep -c sched_switch trace
~ [1-9]\d*
0
$ cat instances/foo/snapshot | head -5
# tracer: nop
#
#
# * Snapshot is freed *
#
$ echo 1 > instances/foo/snapshot; echo "rc=$?"
rc=0
$ grep -c sched_switch instances/foo/snapshot
~ [1-9]\d*
$ cat instances/foo/per_cpu/cpu0/stats | head -2
~ entries: \d+
overrun: 0
$ rmdir instances/foo; echo "rc=$?"
rc=0
$ ls instances
$ mkdir instances/a instances/b; ls instances; rmdir instances/a instances/b; echo "rc=$?"
a
b
rc=0

# The function tracer in an instance records there only, whatever the top level runs; the
# graph's reader does not print the instance's lines.
$ mkdir instances/fn; echo function > instances/fn/current_tracer; echo function_graph > current_tracer
$ sleep 0.1; cat instances/fn/trace | grep -v '^#' | head -1
~ \s+\S+-\d+\s+\[\d{3}\] \S{5} +\d+\.\d{6}: \w+ <-\w+
$ echo nop > current_tracer; cat trace | grep -c ' <-'
0
$ echo 0 > instances/fn/tracing_on; echo schedule > instances/fn/set_ftrace_filter; echo > instances/fn/trace; echo 1 > instances/fn/tracing_on
$ sleep 0.1; echo 0 > instances/fn/tracing_on; cat instances/fn/trace | grep -v '^#' | grep -v -c ': schedule <-'
0
$ cat instances/fn/trace | grep -c ': schedule <-'
~ [1-9]\d*
$ cat set_ftrace_filter
#### all functions enabled ####
$ rmdir instances/fn; echo "rc=$?"
rc=0

# An instance's event filters and error_log are its own.
$ mkdir instances/f
$ ls instances/f/events/sched/sched_switch
enable
filter
format
hist
id
trigger
$ echo 'prev_pid == 0' > instances/f/events/sched/sched_switch/filter
$ cat instances/f/events/sched/sched_switch/filter; cat events/sched/sched_switch/filter
prev_pid == 0
none
$ echo 1 > instances/f/events/sched/sched_switch/enable; echo 1 > events/sched/sched_switch/enable
$ sleep 0.2; echo 0 > events/sched/sched_switch/enable; echo 0 > instances/f/tracing_on
$ cat instances/f/trace | grep -v '^#' | grep -v -c 'prev_pid=0 '
0
$ cat instances/f/trace | grep -c 'prev_pid=0 '
~ [1-9]\d*
$ cat trace | grep -v '^#' | grep -v -c 'prev_pid=0 '
~ [1-9]\d*
$ echo > error_log; echo 'prev_pid == ' > instances/f/events/sched/sched_switch/filter
echo: write error: Invalid argument
$ cat instances/f/error_log
~ \[ *\d+\.\d{6}\] event filter parse error: error: Invalid value \(did you forget quotes\)\?
  Command: prev_pid ==
                       ^
$ cat error_log | wc -l
0
$ echo 'prev_pid < 3' > instances/f/events/sched/filter
$ cat instances/f/events/sched/sched_switch/filter instances/f/events/sched/sched_wakeup/filter
prev_pid < 3
none
$ echo 0 > instances/f/events/sched/filter; cat instances/f/events/sched/sched_switch/filter
none
$ echo > instances/f/error_log; cat instances/f/error_log | wc -l
0
$ rmdir instances/f

# An instance's triggers are its own, and act on it: its tracing_on, its event enables (soft
# mode: `0*`, `1*`), its hist tables, its error_log, its snapshot and its buffer.
$ mkdir instances/t
$ ls instances/t/events/sched/sched_switch instances/t/events/ftrace/print
instances/t/events/sched/sched_switch:
enable
filter
format
hist
id
trigger
~
instances/t/events/ftrace/print:
format
hist
id
trigger
$ cat instances/t/events/sched/sched_switch/trigger
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist
$ echo 'traceoff:1 if prev_pid == 0' > instances/t/events/sched/sched_switch/trigger
$ cat instances/t/events/sched/sched_switch/enable; cat events/sched/sched_switch/trigger | head -1
0*
# Available triggers:
$ sleep 0.1; cat instances/t/tracing_on tracing_on instances/t/events/sched/sched_switch/trigger
0
1
traceoff:count=0 if prev_pid == 0
$ echo '!traceoff' > instances/t/events/sched/sched_switch/trigger; echo 1 > instances/t/tracing_on
$ cat instances/t/events/sched/sched_switch/enable
0
$ echo 'enable_event:sched:sched_wakeup:1' > instances/t/events/sched/sched_switch/trigger
$ sleep 0.1; cat instances/t/events/sched/sched_wakeup/enable events/sched/sched_wakeup/enable
1*
0
$ cat instances/t/trace | grep -c sched_wakeup; cat trace | grep -c sched_wakeup
~ [1-9]\d*
0
$ echo '!enable_event:sched:sched_wakeup' > instances/t/events/sched/sched_switch/trigger
$ cat instances/t/events/sched/sched_wakeup/enable
1
$ echo 0 > instances/t/events/sched/sched_wakeup/enable
$ echo 'hist:keys=prev_pid' > instances/t/events/sched/sched_switch/trigger
$ sleep 0.1; cat instances/t/events/sched/sched_switch/hist | head -3; cat events/sched/sched_switch/hist | wc -l
# event histogram
#
# trigger info: hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 [active]
0
$ cat instances/t/events/sched/sched_switch/hist | grep -c '^{ prev_pid:'
~ [1-9]\d*
$ echo > error_log; echo 'hist:keys=nosuch' >> instances/t/events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ cat instances/t/error_log; cat error_log | wc -l
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Couldn't find field
  Command: hist:keys=nosuch
                     ^
0
$ echo 'snapshot' > instances/t/events/ftrace/print/trigger
$ echo marker-one > instances/t/trace_marker; grep -c marker-one instances/t/snapshot
1
$ cat snapshot | head -4 | tail -1
# * Snapshot is freed *
$ echo '!snapshot' > instances/t/events/ftrace/print/trigger; echo 'stacktrace' > instances/t/events/ftrace/print/trigger
$ echo > instances/t/trace; echo marker-two > instances/t/trace_marker; cat instances/t/trace | grep -c '<stack trace>'
1
$ cat trace | grep -c '<stack trace>'
0
$ rmdir instances/t
$ cat events/sched/sched_switch/enable events/sched/sched_wakeup/enable
0
0

# An instance's set_ftrace_filter takes the function commands, acting on the instance: its
# tracing_on, its event enables, its buffer and its snapshot; rmdir takes them out. (The
# snapshot holds both calls' stacks: a call's stacktrace probe runs before its snapshot.)
$ mkdir instances/c
$ echo 'ftrace_test_target:traceoff:1' > instances/c/set_ftrace_filter
$ cat instances/c/set_ftrace_filter; cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:traceoff:count=1
#### all functions enabled ####
$ ftrace_test_call target 1; cat instances/c/tracing_on tracing_on
0
1
$ cat instances/c/set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:traceoff:count=0
$ echo 'schedule:enable_event:sched:sched_wakeup' >> instances/c/set_ftrace_filter
$ sleep 0.01; cat instances/c/events/sched/sched_wakeup/enable events/sched/sched_wakeup/enable
1*
0
$ echo '!schedule:enable_event:sched:sched_wakeup' >> instances/c/set_ftrace_filter
$ echo '!schedule:enable_event:sched:sched_wakeup' >> instances/c/set_ftrace_filter
echo: write error: No such device
$ echo 1 > instances/c/tracing_on; echo 'ftrace_test_target:stacktrace' >> instances/c/set_ftrace_filter
$ ftrace_test_call target 1; cat instances/c/trace | grep -c '<stack trace>'; cat trace | grep -c '<stack trace>'
1
0
$ echo 'ftrace_test_target:snapshot:1' >> instances/c/set_ftrace_filter; ftrace_test_call target 1
$ cat instances/c/snapshot | grep -c '<stack trace>'; cat instances/c/set_ftrace_filter
2
#### all functions enabled ####
ftrace_test_target:snapshot:count=0
ftrace_test_target:stacktrace:unlimited
ftrace_test_target:traceoff:count=0
$ rmdir instances/c; cat enabled_functions | wc -l
0

# An instance's options are its own: its lines are printed with them, its tracer, events
# and markers follow them, and the top level's stay as they are.
$ mkdir instances/o
$ echo 0 > instances/o/options/print-parent; cat instances/o/options/print-parent options/print-parent
0
1
$ echo function > instances/o/current_tracer; echo ftrace_test_target > instances/o/set_ftrace_filter
$ ftrace_test_call target 1; cat instances/o/trace | grep ftrace_test_target
~ \s+sh-\d+\s+\[\d{3}\] \.{5} +\d+\.\d{6}: ftrace_test_target
$ echo sym-offset > instances/o/trace_options; cat instances/o/trace | grep ftrace_test_target
~ \s+sh-\d+\s+\[\d{3}\] \.{5} +\d+\.\d{6}: ftrace_test_target\+0x0/0x[0-9a-f]+
$ cat trace_options | grep sym-offset; cat instances/o/trace_options | grep func_stack
nosym-offset
nofunc_stack_trace
$ echo 1 > instances/o/options/func_stack_trace; echo > instances/o/trace; ftrace_test_call target 1
$ cat instances/o/trace | grep -c '<stack trace>'
1
$ echo nop > instances/o/current_tracer; cat instances/o/trace_options | grep -c func_stack
0
$ echo 0 > instances/o/options/markers; echo x > instances/o/trace_marker
echo: write error: Invalid argument
$ echo x > trace_marker; echo 1 > instances/o/options/stacktrace
$ echo 1 > instances/o/events/sched/sched_switch/enable; sleep 0.1; echo 0 > instances/o/tracing_on
$ cat instances/o/trace | grep -c '<stack trace>'; cat trace | grep -c '<stack trace>'
~ [1-9]\d*
0
$ rmdir instances/o

# An instance's pid lists are its own: set_ftrace_pid for its function tracer,
# set_event_pid for its events (a switch is recorded when either task is listed).
$ mkdir instances/p; ls instances/p | grep pid
set_event_notrace_pid
set_event_pid
set_ftrace_notrace_pid
set_ftrace_pid
$ echo 1 > instances/p/set_ftrace_pid; echo 1 > instances/p/set_event_pid
$ cat instances/p/set_ftrace_pid instances/p/set_event_pid; cat set_ftrace_pid set_event_pid
1
1
no pid
$ echo function > instances/p/current_tracer; echo 1 > instances/p/events/sched/sched_switch/enable
$ work 0.05 2; echo 0 > instances/p/tracing_on
~ work: .*: ok
$ cat instances/p/trace | grep -v '^#' | grep -v ' sh-1 ' | grep -v 'next_pid=1 ' | grep -v 'prev_pid=1 ' | wc -l
0
$ cat instances/p/trace | grep -c 'sched_switch'; cat instances/p/trace | grep -c ' <-'
~ [1-9]\d*
~ [1-9]\d*
$ rmdir instances/p

# A name as long as a name can be; an event made and removed at run time comes and goes
# in every instance too.
$ mkdir instances/nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn; ls instances/nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn | grep -c set_ftrace
4
$ echo 'p:inst_probe ftrace_test_target' > kprobe_events; ls instances/nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn/events/kprobes
enable
filter
inst_probe
$ echo 1 > instances/nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn/events/kprobes/inst_probe/enable; ftrace_test_call target 1
$ cat instances/nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn/trace | grep -c inst_probe; cat trace | grep -c inst_probe
1
0
$ echo > kprobe_events
fentros: kprobe_events: Device or resource busy
$ echo 0 > instances/nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn/events/kprobes/inst_probe/enable; echo > kprobe_events; ls instances/nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn/events | grep -c kprobes
0
$ rmdir instances/nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn

# Hist variables belong to their trace array, as Linux's; a hist trigger's clock is its
# array's, and the top level's trace stays as it was.
$ mkdir instances/h; echo hist-keep > trace_marker
$ echo 'hist:keys=pid:ts0=common_timestamp.usecs' > instances/h/events/sched/sched_waking/trigger
$ cat instances/h/trace_clock; cat trace_clock; grep -c hist-keep trace
local [global] counter uptime x86-tsc
[local] global counter uptime x86-tsc
1
$ echo 'hist:keys=next_pid:lat=common_timestamp.usecs-$ts0' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=pid:ts0=common_timestamp.usecs' > events/sched/sched_waking/trigger
$ echo '!hist:keys=pid:ts0=common_timestamp.usecs' > events/sched/sched_waking/trigger
$ echo local > trace_clock; rmdir instances/h; cat events/sched/sched_waking/enable
0
