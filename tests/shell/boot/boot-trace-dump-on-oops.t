# ftrace_dump_on_oops: a panic prints the trace buffer (every CPU merged by time, in
# Linux's latency format) after "Kernel panic - not syncing", before the report ends.
# cmdline: ftrace=function ftrace_filter=ftrace_test_target trace_options=sym-offset ftrace_dump_on_oops
# expect: crash

$ echo hello oops > /sys/kernel/tracing/trace_marker
$ ftrace_test_call target 2
$ crash panic
...
Kernel panic - not syncing: crash: panic requested from the shell
~ \[\s*\d+\.\d{6}\] Dumping ftrace buffer:
~ \[\s*\d+\.\d{6}\] ---------------------------------
~ \[\s*\d+\.\d{6}\]\s+sh-\d+\s+\d\.\.\.\.\.\s+\d+us : tracing_mark_write: hello oops
~ \[\s*\d+\.\d{6}\]\s+sh-\d+\s+\d\.\.\.\.\.\s+\d+us : ftrace_test_target\+0x0/0x[0-9a-f]+ <-shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+
~ \[\s*\d+\.\d{6}\]\s+sh-\d+\s+\d\.\.\.\.\.\s+\d+us : ftrace_test_target\+0x0/0x[0-9a-f]+ <-shell_cmd_fn_ftrace_test_call\+0x[0-9a-f]+/0x[0-9a-f]+
~ \[\s*\d+\.\d{6}\] ---------------------------------
---[ end Kernel panic: powering off ]---
