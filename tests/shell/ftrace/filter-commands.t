# Filter commands in set_ftrace_filter: func:traceon[:N], func:traceoff[:N],
# func:stacktrace[:N], func:dump and func:cpudump, with Linux 6.1's read-back texts and
# errors. `ftrace_test_call WHICH N` calls a traced test function N times.

$ cd /sys/kernel/tracing
$ cat set_ftrace_filter
#### all functions enabled ####

# traceoff:N turns tracing off when the function runs; the count drops only when the
# state really changes.
$ echo 'ftrace_test_target:traceoff:2' > set_ftrace_filter
$ cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:traceoff:count=2
$ cat tracing_on
1
$ ftrace_test_call target 1
$ cat tracing_on
0
$ cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:traceoff:count=1
$ ftrace_test_call target 3
$ cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:traceoff:count=1
$ echo 1 > tracing_on
$ ftrace_test_call target 1
$ cat tracing_on
0
$ echo 1 > tracing_on
$ ftrace_test_call target 1
$ cat tracing_on
1
$ cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:traceoff:count=0

# A function already in the probe is not added again (Linux: EINVAL, count kept). With and
# without a count are two probes; `!` removes the one its form names, with any count.
$ echo 'ftrace_test_target:traceoff:5' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo 'ftrace_test_target:traceoff' >> set_ftrace_filter
$ cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:traceoff:unlimited
ftrace_test_target:traceoff:count=0
$ echo '!ftrace_test_target:traceoff' >> set_ftrace_filter
$ cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:traceoff:count=0
$ echo '!ftrace_test_target:traceoff:7' >> set_ftrace_filter
$ cat set_ftrace_filter
#### all functions enabled ####
$ echo '!ftrace_test_target:traceoff' >> set_ftrace_filter
echo: write error: No such device

# traceon, unlimited: on at every hit.
$ echo 'ftrace_test_target_hot:traceon' > set_ftrace_filter
$ echo 0 > tracing_on
$ ftrace_test_call hot 1
$ cat tracing_on
1
$ echo 0 > tracing_on
$ ftrace_test_call hot 1
$ cat tracing_on
1

# Several probes at once, on globs; kinds are listed newest first. A count is read in
# base 0 up to the next ':'; dump always counts 1; cpudump has no count.
$ echo 'ftrace_test_chain_*:stacktrace:2' >> set_ftrace_filter
$ echo 'ftrace_test_empty:traceoff:0x10:x' >> set_ftrace_filter
$ echo 'ftrace_test_target:dump:5' >> set_ftrace_filter
$ echo 'ftrace_test_target:cpudump' >> set_ftrace_filter
$ cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:cpudump:unlimited
ftrace_test_target:dump:count=1
ftrace_test_empty:traceoff:count=16
ftrace_test_chain_c:stacktrace:count=2
ftrace_test_chain_b:stacktrace:count=2
ftrace_test_chain_a:stacktrace:count=2
ftrace_test_target_hot:traceon:unlimited

# Errors, as Linux reports them.
$ echo 'ftrace_test_target_hot:traceoff:abc' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo 'ftrace_test_target_hot:traceoff:-1' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo 'ftrace_test_target_hot:traceoff:99999999999999999999' >> set_ftrace_filter
echo: write error: Numerical result out of range
$ echo 'nosuchfunction:traceoff' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo 'ftrace_test_target:nosuchcommand' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo 'ftrace_test_target:dump' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo '!nosuch*:stacktrace:1' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo '!ftrace_test_target:stacktrace' >> set_ftrace_filter
echo: write error: No such device
$ echo 'ftrace_test_target:traceon' >> set_ftrace_notrace
echo: write error: Invalid argument
$ cat set_ftrace_notrace
#### no functions disabled ####

# Probes live beside the function list, and `echo >` clears only the list.
$ echo 'ftrace_test_chain_a ftrace_test_target_hot' > set_ftrace_filter
$ cat set_ftrace_filter
ftrace_test_target_hot
ftrace_test_chain_a
ftrace_test_target:cpudump:unlimited
ftrace_test_target:dump:count=1
ftrace_test_empty:traceoff:count=16
ftrace_test_chain_c:stacktrace:count=2
ftrace_test_chain_b:stacktrace:count=2
ftrace_test_chain_a:stacktrace:count=2
ftrace_test_target_hot:traceon:unlimited
$ echo > set_ftrace_filter
$ cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:cpudump:unlimited
ftrace_test_target:dump:count=1
ftrace_test_empty:traceoff:count=16
ftrace_test_chain_c:stacktrace:count=2
ftrace_test_chain_b:stacktrace:count=2
ftrace_test_chain_a:stacktrace:count=2
ftrace_test_target_hot:traceon:unlimited
$ echo '!*:cpudump' >> set_ftrace_filter
$ echo '!ftrace_test_target:dump' >> set_ftrace_filter
$ echo '!*:traceoff:' >> set_ftrace_filter
$ echo '!*:traceon' >> set_ftrace_filter

# stacktrace:N records a <stack trace> event, twice per function here, next to the
# function tracer's events.
$ echo ftrace_test_chain_a > set_ftrace_filter
$ echo function > current_tracer
$ ftrace_test_call chain 3
$ cat set_ftrace_filter
ftrace_test_chain_a
ftrace_test_chain_c:stacktrace:count=0
ftrace_test_chain_b:stacktrace:count=0
ftrace_test_chain_a:stacktrace:count=0
$ cat trace | grep -c 'stack trace>'
6
$ cat trace | grep -c 'ftrace_test_chain_a <-shell_cmd_fn_ftrace_test_call'
3
$ cat trace | grep -v '^#' | head -n 28
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\.\s+\d+\.\d{6}: <stack trace>
 => ftrace_test_chain_a
 => shell_cmd_fn_ftrace_test_call
 => shell_run_line
 => shell_main
 => shell_thread
 => thread_entry
 => arch_thread_start
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\.\s+\d+\.\d{6}: ftrace_test_chain_a <-shell_cmd_fn_ftrace_test_call
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\.\s+\d+\.\d{6}: <stack trace>
 => ftrace_test_chain_b
 => ftrace_test_chain_a
 => shell_cmd_fn_ftrace_test_call
 => shell_run_line
 => shell_main
 => shell_thread
 => thread_entry
 => arch_thread_start
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\.\s+\d+\.\d{6}: <stack trace>
 => ftrace_test_chain_c
 => ftrace_test_chain_b
 => ftrace_test_chain_a
 => shell_cmd_fn_ftrace_test_call
 => shell_run_line
 => shell_main
 => shell_thread
 => thread_entry
 => arch_thread_start
$ echo '!*:stacktrace:' >> set_ftrace_filter

# traceoff stops what the function tracer records.
$ echo 'ftrace_test_target_hot ftrace_test_target' > set_ftrace_filter
$ echo 'ftrace_test_target:traceoff' >> set_ftrace_filter
$ echo > trace
$ ftrace_test_call hot 2
$ ftrace_test_call target 1
$ ftrace_test_call hot 5
$ cat tracing_on
0
$ cat trace | grep -c ftrace_test_target_hot
2
$ echo nop > current_tracer
$ echo '!ftrace_test_target:traceoff' >> set_ftrace_filter
$ echo 1 > tracing_on

# dump prints the whole buffer to the console in Linux's latency format, consuming it,
# and turns tracing off; it dumps once.
$ echo 'ftrace_test_empty:dump' > set_ftrace_filter
$ echo hello dump > trace_marker
$ ftrace_test_call empty 2
~ \[\s*\d+\.\d{6}\] Dumping ftrace buffer:
~ \[\s*\d+\.\d{6}\] ---------------------------------
~ \[\s*\d+\.\d{6}\]\s+sh-\d+\s+\d\.\.\.\.\.\s+\d+us : tracing_mark_write: hello dump
~ \[\s*\d+\.\d{6}\] ---------------------------------
$ cat tracing_on
0
$ cat trace | grep -v '^#' | wc -l
0
$ cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_empty:dump:count=0
$ echo 1 > tracing_on
$ ftrace_test_call empty 1
$ cat tracing_on
1
$ echo '!ftrace_test_empty:dump' >> set_ftrace_filter

# cpudump prints this CPU's buffer, at every hit.
$ echo 'ftrace_test_empty:cpudump' >> set_ftrace_filter
$ echo hello cpudump > trace_marker
$ ftrace_test_call empty 2
~ \[\s*\d+\.\d{6}\] Dumping ftrace buffer:
~ \[\s*\d+\.\d{6}\] ---------------------------------
~ \[\s*\d+\.\d{6}\]\s+sh-\d+\s+\d\.\.\.\.\.\s+\d+us : tracing_mark_write: hello cpudump
~ \[\s*\d+\.\d{6}\] ---------------------------------
~ \[\s*\d+\.\d{6}\] Dumping ftrace buffer:
~ \[\s*\d+\.\d{6}\]    \(ftrace buffer empty\)
$ echo '!ftrace_test_empty:cpudump' >> set_ftrace_filter
$ echo 1 > tracing_on
$ cat set_ftrace_filter
#### all functions enabled ####
$ cat enabled_functions

# `*:dump` puts a dump on every function, once each: the first dump shows what was traced,
# the others an empty buffer (a dump stops tracing). They print on every CPU, before and
# after the prompt comes back, and never keep it from coming back. What each dump prints
# depends on which functions ran first, so its lines are not checked here.
$ echo function > current_tracer; sleep 0.1; echo '*:dump' > set_ftrace_filter; sleep 0.5
...

# Removing them waits until no CPU is inside one; the lines of the last ones may follow.
$ echo '!*:dump' >> set_ftrace_filter; echo nop > current_tracer
...
$ echo > trace; echo 1 > tracing_on; echo done
done
$ cat set_ftrace_filter
#### all functions enabled ####
