# The function tracer's text, character for character as Linux 6.1 prints it
# (kernel/trace/trace.c, trace_output.c): the header block, the context columns
# "%16s-%-7d [%03d] FLAGS %5lu.%06lu: ", `func <-parent`, <idle>-0, <stack trace>, and
# what sym-offset, sym-addr, print-parent, irq-info and context-info change. Regexes
# cover only what varies: pids, CPUs, times, callers' names, need-resched.
#
# Every `echo` runs shell_cmd_fn_echo once, so with the filter on that one function
# each echo typed while tracing is on leaves exactly one event.

# Tracing as the boot sets it up, whatever a test before this one left behind.
$ cd /sys/kernel/tracing
$ echo 0 > tracing_on; echo nop > current_tracer; echo > set_ftrace_filter; echo > set_ftrace_notrace
$ echo > set_ftrace_pid; echo local > trace_clock; echo 1408 > buffer_size_kb
$ echo 1 > options/print-parent; echo 0 > options/sym-offset; echo 0 > options/sym-addr
$ echo 1 > options/context-info; echo 1 > options/irq-info; echo 1 > options/markers
$ echo 1 > options/overwrite; echo 0 > options/func_stack_trace; echo > trace; echo 1 > tracing_on

# An empty buffer under the nop tracer: the whole header, nothing else.
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

# Two events: `echo hello` and the `echo` that stops tracing.
$ echo shell_cmd_fn_echo > set_ftrace_filter
$ echo function > current_tracer
$ echo hello
hello
$ echo 0 > tracing_on
$ cat trace
# tracer: function
#
~ # entries-in-buffer/entries-written: 2/2   #P:[1-9][0-9]*
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo <-[\w.]+
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo <-[\w.]+

# Reading does not consume: the same again.
$ cat trace | grep -c shell_cmd_fn_echo
2

# sym-offset: the traced function itself at +0x0 (its call site is its first
# instruction), the caller at the return address.
$ echo 1 > options/sym-offset
$ cat trace | tail -n 1
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo\+0x0/0x[0-9a-f]+ <-[\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+

# sym-addr: each symbol followed by its address.
$ echo 1 > options/sym-addr
$ cat trace | tail -n 1
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo\+0x0/0x[0-9a-f]+ <ffffffff[0-9a-f]{8}> <-[\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+ <ffffffff[0-9a-f]{8}>
$ echo nosym-offset > trace_options
$ cat trace | tail -n 1
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo <ffffffff[0-9a-f]{8}> <-[\w.]+ <ffffffff[0-9a-f]{8}>
$ echo 0 > options/sym-addr

# noprint-parent: the function alone.
$ echo noprint-parent > trace_options
$ cat trace | tail -n 1
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo
$ echo print-parent > trace_options

# noirq-info: no flag legend, no flag column.
$ echo 0 > options/irq-info
$ cat trace
# tracer: function
#
~ # entries-in-buffer/entries-written: 2/2   #P:[1-9][0-9]*
#
#           TASK-PID     CPU#     TIMESTAMP  FUNCTION
#              | |         |         |         |
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\]  (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo <-[\w.]+
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\]  (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo <-[\w.]+
$ echo 1 > options/irq-info

# func_stack_trace: a <stack trace> event after each function event, one " => " line
# per frame, from the traced function up. Four echos: the one that sets the option has
# no stack yet, the last one, with the option off again, has none either.
$ echo > trace; echo 1 > tracing_on
$ echo 1 > options/func_stack_trace
$ echo stacked
stacked
$ echo 0 > options/func_stack_trace
$ echo 0 > tracing_on
$ cat trace
# tracer: function
#
~ # entries-in-buffer/entries-written: 6/6   #P:[1-9][0-9]*
...
#              | |         |   |||||     |         |
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo <-[\w.]+
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo <-[\w.]+
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: <stack trace>
 => shell_cmd_fn_echo
~  => [\w.]+
...
~  => [\w.]+
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo <-[\w.]+
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: <stack trace>
 => shell_cmd_fn_echo
~  => [\w.]+
...
~  => [\w.]+
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo <-[\w.]+

# The idle task is <idle>-0; a timer tick shows irqs off (d) and hardirq (h).
$ echo sched_tick > set_ftrace_filter
$ echo > trace; echo 1 > tracing_on
$ sleep 0.1
$ echo 0 > tracing_on
$ grep '<idle>-0 ' trace | grep sched_tick | head -n 2
~  {10}<idle>-0 {7}\[[0-9]{3}\] d[.Nnp]h[.0-9a-f]\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: sched_tick <-[\w.]+
~  {10}<idle>-0 {7}\[[0-9]{3}\] d[.Nnp]h[.0-9a-f]\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: sched_tick <-[\w.]+

# nocontext-info: Linux prints `# tracer:` and `#`, then the bare events
# (trace_default_header returns at once without context-info).
$ echo shell_cmd_fn_echo > set_ftrace_filter; echo > trace; echo 1 > tracing_on
$ echo 0 > tracing_on
$ echo 0 > options/context-info
$ cat trace
# tracer: function
#
~ shell_cmd_fn_echo <-[\w.]+
$ echo 1 > options/context-info

# Back as the boot left it.
$ echo nop > current_tracer; echo > set_ftrace_filter; echo > trace; echo 1 > tracing_on
