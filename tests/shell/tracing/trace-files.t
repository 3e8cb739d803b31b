# The tracing core's files, as Linux 6.1 shows them to a shell user: available_tracers,
# current_tracer, tracing_on, trace_options and options/, trace_clock, set_ftrace_pid,
# buffer_size_kb errors, per_cpu/cpuN/stats, and clearing with `echo > trace`. Errors are
# Linux's errno texts. (tracing_cpumask and buffer sizes depend on the CPU count: they
# are checked in tests/trace/files.py.)

# Tracing as the boot sets it up, whatever a test before this one left behind.
$ cd /sys/kernel/tracing
$ echo 0 > tracing_on; echo nop > current_tracer; echo > set_ftrace_filter; echo > set_ftrace_notrace
$ echo > set_ftrace_pid; echo local > trace_clock; echo 1408 > buffer_size_kb
$ echo 1 > options/print-parent; echo 0 > options/sym-offset; echo 0 > options/sym-addr
$ echo 1 > options/context-info; echo 1 > options/irq-info; echo 1 > options/markers
$ echo 1 > options/overwrite; echo 0 > options/func_stack_trace; echo > trace; echo 1 > tracing_on

# Tracers: most recently registered first, nop last.
$ cat available_tracers
timerlat osnoise hwlat function_graph wakeup_rt wakeup preemptirqsoff preemptoff irqsoff function nop
$ cat current_tracer
nop
$ echo nosuch > current_tracer
echo: write error: Invalid argument
$ echo $?
1
$ cat current_tracer
nop
$ echo ' function ' > current_tracer
$ cat current_tracer
function
$ echo nop > current_tracer

# tracing_on: 0 stops recording, any other number starts it; the write is a plain
# number, as kstrtoul takes it.
$ cat tracing_on
1
$ echo 0 > tracing_on
$ cat tracing_on
0
$ echo 2 > tracing_on
$ cat tracing_on
1
$ echo x > tracing_on
echo: write error: Invalid argument
$ echo ' 1 ' > tracing_on
echo: write error: Invalid argument
$ echo -1 > tracing_on
echo: write error: Invalid argument
$ cat tracing_on
1

# A write to tracing_on does not clear the buffer.
$ echo kept > trace_marker; echo 0 > tracing_on; echo 1 > tracing_on
$ grep -c 'tracing_mark_write: kept' trace
1

# trace_options: one option a line, `no` when off, in Linux's order; the current
# tracer's own options come last, and only while it is current.
$ cat trace_options
print-parent
nosym-offset
nosym-addr
context-info
nolatency-format
overwrite
nodisable_on_free
irq-info
markers
noevent-fork
function-trace
nofunction-fork
nodisplay-graph
nostacktrace
$ echo function > current_tracer
$ cat trace_options | tail -n 1
nofunc_stack_trace
$ echo func_stack_trace > trace_options
$ cat options/func_stack_trace
1
$ cat trace_options | tail -n 1
func_stack_trace
$ echo nofunc_stack_trace > trace_options
$ echo nop > current_tracer
$ echo func_stack_trace > trace_options
echo: write error: Invalid argument
$ cat options/func_stack_trace
0
$ echo sym-offset > trace_options
$ cat options/sym-offset
1
$ cat trace_options | head -n 2
print-parent
sym-offset
$ echo ' nosym-offset ' > trace_options
$ cat options/sym-offset
0
$ echo nosuchopt > trace_options
echo: write error: Invalid argument
$ echo nonosuchopt > trace_options
echo: write error: Invalid argument
$ echo '' > trace_options
echo: write error: Invalid argument
$ echo 'sym-offset sym-addr' > trace_options
echo: write error: Invalid argument
$ cat options/sym-offset
0

# options/NAME: 0 or 1, nothing else.
$ cat options/print-parent
1
$ echo 0 > options/print-parent
$ cat trace_options | head -n 1
noprint-parent
$ echo 1 > options/print-parent
$ echo 2 > options/print-parent
echo: write error: Invalid argument
$ echo x > options/print-parent
echo: write error: Invalid argument
$ echo ' 1 ' > options/print-parent
echo: write error: Invalid argument
$ cat options/print-parent
1
$ ls options | grep -c '^func_stack_trace$'
1

# trace_clock: brackets around the one in use; an unknown one fails; every switch
# clears the buffer, even to the same clock.
$ cat trace_clock
~ \[local\] global counter uptime( perf)?( mono)?( mono_raw)?( boot)?( tai)? x86-tsc
$ echo ' global ' > trace_clock
$ cat trace_clock
~ local \[global\] counter uptime( perf)?( mono)?( mono_raw)?( boot)?( tai)? x86-tsc
$ echo nosuch > trace_clock
echo: write error: Invalid argument
$ cat trace_clock
~ local \[global\] counter uptime( perf)?( mono)?( mono_raw)?( boot)?( tai)? x86-tsc
$ echo x > trace_marker
$ cat trace | grep -c tracing_mark_write
1
$ echo global > trace_clock
$ cat trace | head -n 3
# tracer: nop
#
~ # entries-in-buffer/entries-written: 0/0   #P:[1-9][0-9]*

# counter and x86-tsc are not nanoseconds: times print as plain integers (%12llu),
# in the trace and in the stats.
$ echo counter > trace_clock
$ echo one > trace_marker; echo two > trace_marker
$ cat trace | tail -n 2
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9]+:)[ 0-9]{11}[0-9]: tracing_mark_write: one
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9]+:)[ 0-9]{11}[0-9]: tracing_mark_write: two
$ cat per_cpu/cpu0/stats
entries: 2
overrun: 0
commit overrun: 0
~ bytes: [1-9][0-9]*
~ oldest event ts: [1-9][0-9]*
~ now ts: [1-9][0-9]*
dropped events: 0
read events: 0
$ echo x86-tsc > trace_clock
$ echo tsc > trace_marker
$ cat trace | tail -n 1
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9]+:)[ 0-9]{11}[0-9]: tracing_mark_write: tsc
$ echo local > trace_clock

# per_cpu/cpuN/stats: Linux's names, ns clocks as %5llu.%06lu.
$ echo > trace
$ echo s > trace_marker
$ cat per_cpu/cpu0/stats
entries: 1
overrun: 0
commit overrun: 0
~ bytes: [1-9][0-9]*
~ oldest event ts: (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}
~ now ts: (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}
dropped events: 0
read events: 0
$ ls per_cpu/cpu0
buffer_size_kb
snapshot
snapshot_raw
stats
trace
trace_pipe
trace_pipe_raw

# `>` on trace clears it (O_TRUNC), whatever is written; `>>` does not.
$ echo junk >> trace
$ cat trace | grep -c tracing_mark_write
1
$ echo junk > trace
$ cat trace | grep -c tracing_mark_write
0
$ echo again > trace_marker
$ echo > trace
$ cat trace
# tracer: nop
#
~ # entries-in-buffer/entries-written: 0/0   #P:[1-9][0-9]*
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |

# Switching tracers clears the buffer; writing the current one again does not.
$ echo x > trace_marker
$ echo nop > current_tracer
$ cat trace | grep -c tracing_mark_write
1
$ echo function > current_tracer; echo nop > current_tracer
$ cat trace | grep -c tracing_mark_write
0

# buffer_size_kb: 0 and non-numbers are invalid, a size the machine cannot have fails
# with ENOMEM.
$ echo 0 > buffer_size_kb
echo: write error: Invalid argument
$ echo abc > buffer_size_kb
echo: write error: Invalid argument
$ echo 0 > per_cpu/cpu0/buffer_size_kb
echo: write error: Invalid argument
$ echo 100000000000 > buffer_size_kb
echo: write error: Cannot allocate memory
$ echo $?
1

# set_ftrace_pid: `no pid` when empty; `>` replaces, `>>` adds; a bad pid fails (after
# `>` emptied the list).
$ cat set_ftrace_pid
no pid
$ echo 7 > set_ftrace_pid
$ cat set_ftrace_pid
7
$ echo 8 > set_ftrace_pid
$ cat set_ftrace_pid
8
$ echo abc > set_ftrace_pid
echo: write error: Invalid argument
$ cat set_ftrace_pid
no pid
$ echo -1 > set_ftrace_pid
echo: write error: Invalid argument
$ echo 4 > set_ftrace_pid; echo > set_ftrace_pid
$ cat set_ftrace_pid
no pid

# Linux keeps the pids in a bitmap, so they read back in ascending order.
$ echo 5 > set_ftrace_pid; echo 2 >> set_ftrace_pid; echo 9 3 >> set_ftrace_pid
$ echo 2 >> set_ftrace_pid
$ cat set_ftrace_pid
2
3
5
9

# Resizing keeps the events, as Linux does: growing, and shrinking to a size that still
# holds them.
$ echo 0 > tracing_on; echo > trace; echo 1 > tracing_on
$ echo hello-one > trace_marker; echo hello-two > trace_marker; echo 0 > tracing_on
$ echo 2816 > buffer_size_kb
$ cat trace | grep -c hello
2
$ echo 8 > buffer_size_kb
$ cat trace | grep hello
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: tracing_mark_write: hello-one
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: tracing_mark_write: hello-two
$ echo 1408 > buffer_size_kb; echo 1 > tracing_on

# Back as the boot left it.
$ echo > set_ftrace_pid; echo > trace
