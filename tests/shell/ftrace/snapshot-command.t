# The `snapshot` command of set_ftrace_filter: func:snapshot[:N], with Linux 6.1's
# read-back (`schedule:snapshot:count=0`, `:unlimited`), its removal (the counted and
# the unlimited probe are two probes: `!func:snapshot` does not remove a counted one, and
# says ENODEV, as in tests/reference/linux-6.1-snapshot-captures.txt), and what a hit
# does: swap the trace into the snapshot, or, with no snapshot allocated, write Linux's
# two marker lines and turn tracing off.

$ cd /sys/kernel/tracing
$ echo 'schedule:snapshot:1' > set_ftrace_filter; sleep 0.01; cat set_ftrace_filter
#### all functions enabled ####
schedule:snapshot:count=0
$ echo '!schedule:snapshot' >> set_ftrace_filter
echo: write error: No such device
$ cat set_ftrace_filter
#### all functions enabled ####
schedule:snapshot:count=0
$ echo '!schedule:snapshot:0' >> set_ftrace_filter; cat set_ftrace_filter
#### all functions enabled ####

# An empty count is -1, which never fires; the same probe again adds nothing (EINVAL);
# an unknown function is EINVAL; each removal names its own probe.
$ echo 'schedule:snapshot:' > set_ftrace_filter; cat set_ftrace_filter
#### all functions enabled ####
schedule:snapshot:count=-1
$ echo 'schedule:snapshot:3' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo 'nosuchfn:snapshot' > set_ftrace_filter
echo: write error: Invalid argument
$ echo 'schedule:snapshot' >> set_ftrace_filter; cat set_ftrace_filter
#### all functions enabled ####
schedule:snapshot:unlimited
schedule:snapshot:count=-1
$ echo '!schedule:snapshot:3' >> set_ftrace_filter; echo '!schedule:snapshot' >> set_ftrace_filter
$ cat set_ftrace_filter
#### all functions enabled ####

# Setting the command up allocated the snapshot, as Linux does.
$ cat snapshot | head -4
# tracer: nop
#
#
# * Snapshot is allocated *
$ echo 0 > snapshot
$ echo 'ftrace_test_empty:snapshot:x' > set_ftrace_filter
echo: write error: Invalid argument
$ cat snapshot | head -4
# tracer: nop
#
#
# * Snapshot is freed *

# Three calls before the snapshot, two after: each buffer has its own.
$ echo 'ftrace_test_target ftrace_test_empty' > set_ftrace_filter
$ echo function > current_tracer
$ echo 'ftrace_test_empty:snapshot:1' >> set_ftrace_filter
$ cat set_ftrace_filter
ftrace_test_target
ftrace_test_empty
ftrace_test_empty:snapshot:count=1
$ ftrace_test_call target 3; ftrace_test_call empty 1; ftrace_test_call target 2
$ cat snapshot | grep -c ftrace_test_target
3
$ cat trace | grep -c ftrace_test_target
2
$ cat snapshot | grep ftrace_test_target | head -1
~ \s+sh-\d+\s+\[\d{3}\] \.\.\.\.\. +\d+\.\d{6}: ftrace_test_target <-shell_cmd_fn_ftrace_test_call
$ ftrace_test_call empty 1; cat set_ftrace_filter | tail -1
ftrace_test_empty:snapshot:count=0
$ cat snapshot | grep -c ftrace_test_target
3

# The unlimited command takes one at every hit. With no snapshot: the markers, tracing off.
$ echo '!ftrace_test_empty:snapshot:0' >> set_ftrace_filter
$ echo 'ftrace_test_empty:snapshot' >> set_ftrace_filter; cat set_ftrace_filter | tail -1
ftrace_test_empty:snapshot:unlimited
$ echo 0 > snapshot; echo > trace
$ ftrace_test_call empty 1
$ cat tracing_on
0
$ cat trace | grep '***'
~ \s+sh-\d+\s+\[\d{3}\] \S{5} +\d+\.\d{6}: tracing_snapshot_instance_cond: \*\*\* SNAPSHOT NOT ALLOCATED \*\*\*
~ \s+sh-\d+\s+\[\d{3}\] \S{5} +\d+\.\d{6}: tracing_snapshot_instance_cond: \*\*\* stopping trace here!   \*\*\*
$ echo '!ftrace_test_empty:snapshot' >> set_ftrace_filter; echo nop > current_tracer
$ echo 1 > tracing_on
