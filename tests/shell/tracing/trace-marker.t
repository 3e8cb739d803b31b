# trace_marker: what is written becomes a `tracing_mark_write: TEXT` event with the
# writer's context, under any tracer; `markers` off refuses writes. As in Linux, the pid
# filter is for function tracing and does not hold markers back, and a write that the
# ring buffer refuses (tracing off) fails with EBADF (tracing_mark_write).

# Tracing as the boot sets it up, whatever a test before this one left behind.
$ cd /sys/kernel/tracing
$ echo 0 > tracing_on; echo nop > current_tracer; echo > set_ftrace_filter; echo > set_ftrace_notrace
$ echo > set_ftrace_pid; echo local > trace_clock; echo 1408 > buffer_size_kb
$ echo 1 > options/print-parent; echo 0 > options/sym-offset; echo 0 > options/sym-addr
$ echo 1 > options/context-info; echo 1 > options/irq-info; echo 1 > options/markers
$ echo 1 > options/overwrite; echo 0 > options/func_stack_trace; echo > trace; echo 1 > tracing_on

$ echo hello marker > trace_marker
$ cat trace | tail -n 1
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: tracing_mark_write: hello marker

# Without a trailing newline one is added; an empty line is an empty marker.
$ echo -n no newline > trace_marker
$ echo '' > trace_marker
$ cat trace | tail -n 2
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: tracing_mark_write: no newline
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: tracing_mark_write: 

# Under the function tracer the marker sits among the function events.
$ echo shell_cmd_fn_echo > set_ftrace_filter; echo function > current_tracer
$ echo in function trace > trace_marker
$ echo 0 > tracing_on
$ cat trace | tail -n 3
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo <-[\w.]+
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: tracing_mark_write: in function trace
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: shell_cmd_fn_echo <-[\w.]+
$ echo nop > current_tracer; echo > set_ftrace_filter; echo > trace; echo 1 > tracing_on

# markers off: the write is refused.
$ echo 0 > options/markers
$ echo refused > trace_marker
echo: write error: Invalid argument
$ echo $?
1
$ echo 1 > options/markers
$ cat trace | grep -c refused
0

# set_ftrace_pid does not filter markers.
$ echo 99999 > set_ftrace_pid
$ echo not filtered > trace_marker
$ echo > set_ftrace_pid
$ cat trace | grep -c 'tracing_mark_write: not filtered'
1

# With tracing off the buffer refuses the event, and the write fails.
$ echo 0 > tracing_on
$ echo while off > trace_marker
echo: write error: Bad file descriptor
$ echo $?
1
$ echo 1 > tracing_on

# Back as the boot left it.
$ echo > trace
