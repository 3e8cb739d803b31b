# Hist triggers and events/SYS/EVENT/hist, replaying Linux 6.1
# (tests/reference/linux-6.1-hist-captures.txt: the "hist" part of w3, then h1): the
# histogram's text (header, `{ key } hitcount: N  val: N` lines in Linux's widths, Totals),
# the trigger file's normalised read-back with [active]/[paused], removal with `!`, the key
# modifiers, and refusals with Linux's errno and error_log entry. Which threads switch
# differs from Linux's, so entry lines are matched by their shape.
$ cd /sys/kernel/tracing
$ echo > error_log; cat events/sched/sched_switch/hist
$ echo 'hist:keys=next_comm:vals=prev_pid:sort=hitcount.descending:size=256' > events/sched/sched_switch/trigger
$ echo 1 > events/sched/sched_switch/enable; sleep 0.3; echo 0 > events/sched/sched_switch/enable
$ cat events/sched/sched_switch/hist | grep -v '^{'
# event histogram
#
# trigger info: hist:keys=next_comm:vals=hitcount,prev_pid:sort=hitcount.descending:size=256 [active]
#
~
~
Totals:
~     Hits: [1-9]\d*
~     Entries: [1-9]\d*
    Dropped: 0
$ cat events/sched/sched_switch/hist | grep '^{ next_comm: sh '
~ \{ next_comm: sh {48} \} hitcount: [ \d]{10}  prev_pid: [ \d]{10}
$ cat events/sched/sched_switch/trigger
hist:keys=next_comm:vals=hitcount,prev_pid:sort=hitcount.descending:size=256 [active]
$ echo 'hist:keys=next_comm:vals=prev_pid:sort=hitcount.descending:size=256:pause' >> events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger
hist:keys=next_comm:vals=hitcount,prev_pid:sort=hitcount.descending:size=256 [paused]
$ echo '!hist:keys=next_comm:vals=prev_pid:sort=hitcount.descending:size=256' >> events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger; cat events/sched/sched_switch/hist
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist

# .execname: the thread's name, then its pid; a compound key.
$ echo 'hist:keys=common_pid.execname,prev_state:vals=hitcount' > events/sched/sched_switch/trigger; echo 1 > events/sched/sched_switch/enable; sleep 0.2; echo 0 > events/sched/sched_switch/enable; cat events/sched/sched_switch/hist | head -5
# event histogram
#
# trigger info: hist:keys=common_pid.execname,prev_state:vals=hitcount:sort=hitcount:size=2048 [active]
#
~
$ cat events/sched/sched_switch/hist | grep '{ common_pid: <idle> ' | head -n 1; cat events/sched/sched_switch/hist | grep '{ common_pid: sh ' | head -n 1
~ \{ common_pid: <idle>          \[         0\], prev_state: [ \d]{10} \} hitcount: [ \d]{10}
~ \{ common_pid: sh              \[         1\], prev_state: [ \d]{10} \} hitcount: [ \d]{10}
$ echo '!hist:keys=common_pid.execname,prev_state:vals=hitcount' > events/sched/sched_switch/trigger

# .hex and .log2.
$ echo 'hist:keys=next_pid.hex,prev_prio.log2' > events/sched/sched_switch/trigger; echo 1 > events/sched/sched_switch/enable; sleep 0.2; echo 0 > events/sched/sched_switch/enable; cat events/sched/sched_switch/hist | head -5
# event histogram
#
# trigger info: hist:keys=next_pid.hex,prev_prio.log2:vals=hitcount:sort=hitcount:size=2048 [active]
#
~
$ cat events/sched/sched_switch/hist | grep '^{' | head -2
~ \{ next_pid: [0-9a-f]+, prev_prio: ~ 2\^7  \} hitcount: +\d+
~ \{ next_pid: [0-9a-f]+, prev_prio: ~ 2\^7  \} hitcount: +\d+
$ echo '!hist:keys=next_pid.hex,prev_prio.log2' > events/sched/sched_switch/trigger

# Refusals: EINVAL and Linux's error_log entry, the caret under the field.
$ echo 'hist:keys=bogus' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=next_pid:vals=nosuch' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ cat error_log
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Couldn't find field
  Command: hist:keys=bogus
                     ^
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Couldn't find field
  Command: hist:keys=next_pid:vals=nosuch
                                   ^
$ cat events/sched/sched_switch/trigger; cat events/sched/sched_switch/enable
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist
0

# h1: several hist triggers on one event, after the others and oldest first; EEXIST for
# the same keys, values, sort and filter whatever the size; pause, continue and clear of
# one that exists, ENOENT for one that does not (no error_log entry for either, as 6.1).
$ echo > error_log; echo 'hist:keys=prev_pid' > events/sched/sched_switch/trigger; echo 'hist:keys=prev_pid' >> events/sched/sched_switch/trigger
echo: write error: File exists
$ echo 'hist:keys=prev_pid:size=1024' >> events/sched/sched_switch/trigger
echo: write error: File exists
$ echo 'hist:keys=prev_pid if prev_pid > 1' >> events/sched/sched_switch/trigger
$ echo 'traceoff:3' >> events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger
traceoff:count=3
hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 [active]
hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 if prev_pid > 1 [active]
$ echo 'hist:keys=prev_pid:clear' >> events/sched/sched_switch/trigger; echo 'hist:keys=next_pid:clear' >> events/sched/sched_switch/trigger
echo: write error: No such file or directory
$ echo 'hist:keys=next_pid:cont' >> events/sched/sched_switch/trigger
echo: write error: No such file or directory
$ echo '!traceoff' >> events/sched/sched_switch/trigger; echo 'hist:keys=next_pid:pause' >> events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger
hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 [active]
hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 if prev_pid > 1 [active]
hist:keys=next_pid:vals=hitcount:sort=hitcount:size=2048 [paused]
$ echo 'hist:keys=next_pid:continue' >> events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger
hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 [active]
hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 if prev_pid > 1 [active]
hist:keys=next_pid:vals=hitcount:sort=hitcount:size=2048 [active]

# Each histogram in the hist file, oldest first, two blank lines between them; clear empties
# one; a paused one counts nothing.
$ sleep 0.1; echo 'hist:keys=next_pid:pause' >> events/sched/sched_switch/trigger; echo 'hist:keys=prev_pid:pause' >> events/sched/sched_switch/trigger; echo 'hist:keys=prev_pid:clear' >> events/sched/sched_switch/trigger; cat events/sched/sched_switch/hist | grep -v '^{'
# event histogram
#
# trigger info: hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 [paused]
#
~
~
Totals:
    Hits: 0
    Entries: 0
    Dropped: 0
~
~
# event histogram
#
# trigger info: hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 if prev_pid > 1 [active]
#
~
~
Totals:
~     Hits: \d+
~     Entries: \d+
    Dropped: 0
~
~
# event histogram
#
# trigger info: hist:keys=next_pid:vals=hitcount:sort=hitcount:size=2048 [paused]
#
~
~
Totals:
~     Hits: [1-9]\d*
~     Entries: [1-9]\d*
    Dropped: 0
$ echo 'hist:keys=prev_pid if prev_pid > 1' >> events/sched/sched_switch/trigger
echo: write error: File exists

# `>` takes out only hist triggers (and fails on the empty line, as Linux).
$ echo 'traceoff:3' >> events/sched/sched_switch/trigger; echo > events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger
echo: write error: Invalid argument
traceoff:count=3
$ echo '!traceoff' >> events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist

# size: rounded up to a power of two, 128 to 131072; removal whatever the size.
$ echo 'hist:keys=prev_pid:size=10' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid:size=300000' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid:size=abc' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid:size=200' > events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger; echo '!hist:keys=prev_pid' >> events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger
hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=256 [active]
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist

# Refusals, with error_log entries where Linux 6.1 makes them.
$ echo 'hist:vals=prev_pid' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid.bogus' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid.buckets=0' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid:sort=nosuch' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid:sort=prev_pid.up' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid:sort=prev_pid,hitcount,next_pid' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid:sort=' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid,next_pid,prev_prio,next_prio' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid:vals=prev_prio,next_prio,next_pid' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid:vals=prev_comm' > events/sched/sched_switch/trigger; echo '!hist:keys=prev_pid:vals=prev_comm' > events/sched/sched_switch/trigger
$ echo 'hist:keys=prev_pid:foo' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid:foo=bar' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid if nosuch == 1' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid if' > events/sched/sched_switch/trigger
echo: write error: Invalid argument
$ echo 'hist:keys=prev_pid,next_pid.sym,prev_prio.sym-offset,next_prio.buckets=10:vals=prev_state.hex:sort=next_pid.descending,prev_pid' > events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger
echo: write error: Invalid argument
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist
$ cat error_log
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Invalid field modifier
  Command: hist:keys=prev_pid.bogus
                              ^
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Invalid field modifier
  Command: hist:keys=prev_pid.buckets=0
                                      ^
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Sort field must be a key or a val
  Command: hist:keys=prev_pid:sort=nosuch
                                   ^
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Invalid sort modifier
  Command: hist:keys=prev_pid:sort=prev_pid.up
                                            ^
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Too many sort fields \(Max = 2\)
  Command: hist:keys=prev_pid:sort=prev_pid,hitcount,next_pid
                              ^
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Empty assignment
  Command: hist:keys=prev_pid:sort=
                              ^
~ \[ *\d+\.\d{6}\] hist:sched:sched_switch: error: Couldn't find field
  Command: hist:keys=prev_pid:foo=bar
                                  ^

# Modifiers in the read-back (three keys at most); common_timestamp switches trace_clock to
# the trigger's clock, global unless told.
$ echo 'hist:keys=next_pid.sym,prev_prio.sym-offset,next_prio.buckets=10:vals=prev_state.hex:sort=next_pid.descending,prev_prio' > events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger
hist:keys=next_pid.sym,prev_prio.sym-offset,next_prio.buckets=10:vals=hitcount,prev_state.hex:sort=next_pid.sym.descending,prev_prio.sym-offset:size=2048 [active]
$ echo 'hist:keys=common_timestamp.usecs,common_cpu' > events/sched/sched_switch/trigger; cat events/sched/sched_switch/trigger; cat trace_clock
hist:keys=common_timestamp.usecs,common_cpu:vals=hitcount:sort=hitcount:size=2048:clock=global [active]
local [global] counter uptime x86-tsc
$ sleep 0.1; cat events/sched/sched_switch/hist | grep '^{' | head -n 2
~ \{ common_timestamp: [ \d]{10}, common_cpu: [ \d]{10} \} hitcount:          1
~ \{ common_timestamp: [ \d]{10}, common_cpu: [ \d]{10} \} hitcount:          1

# name=: triggers of one name share a table, on any event, if their keys agree.
$ echo 'hist:name=foo:keys=common_pid' >> events/sched/sched_switch/trigger; echo 'hist:name=foo:keys=common_pid' >> events/sched/sched_waking/trigger; echo 'hist:name=foo:keys=pid' >> events/sched/sched_wakeup/trigger; cat events/sched/sched_waking/trigger
echo: write error: Invalid argument
hist:name=foo:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 [active]
$ cat error_log | tail -n 3
~ \[ *\d+\.\d{6}\] hist:sched:sched_wakeup: error: Named hist trigger doesn't match existing named trigger \(includes variables\)
  Command: hist:name=foo:keys=pid
                ^
$ sleep 0.1; cat events/sched/sched_waking/hist | grep Hits | grep -v 'Hits: 0' | wc -l
1

# enable_hist / disable_hist: pause or continue every histogram of another event.
$ echo 'disable_hist:sched:sched_switch' > events/sched/sched_waking/trigger; echo 'enable_hist:sched:sched_switch:2 if pid > 0' > events/sched/sched_wakeup/trigger; cat events/sched/sched_waking/trigger events/sched/sched_wakeup/trigger
disable_hist:sched:sched_switch:unlimited
enable_hist:sched:sched_switch:count=2 if pid > 0
$ echo 'enable_hist:sched:sched_switch' >> events/sched/sched_wakeup/trigger
echo: write error: File exists
$ echo 'disable_hist:sched:sched_switch' >> events/sched/sched_wakeup/trigger
echo: write error: File exists
$ echo 'enable_hist:sched:nosuch' >> events/sched/sched_wakeup/trigger
echo: write error: Invalid argument
$ sleep 0.1; cat events/sched/sched_switch/trigger
hist:keys=common_timestamp.usecs,common_cpu:vals=hitcount:sort=hitcount:size=2048:clock=global [paused]
hist:name=foo:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 [paused]
$ echo > events/sched/sched_waking/trigger; echo > events/sched/sched_wakeup/trigger; echo > events/sched/sched_switch/trigger; cat events/sched/sched_waking/trigger events/sched/sched_wakeup/trigger events/sched/sched_switch/trigger | grep -v '^#'; cat set_event
echo: write error: Invalid argument
echo: write error: Invalid argument
echo: write error: Invalid argument

# stacktrace: the kernel stack from the code with the tracepoint up.
$ echo 'hist:keys=stacktrace' > events/sched/sched_switch/trigger; sleep 0.1; cat events/sched/sched_switch/hist | head -n 7
# event histogram
#
# trigger info: hist:keys=stacktrace:vals=hitcount:sort=hitcount:size=2048 [active]
#
~
{ stacktrace:
~          schedule\+0x[0-9a-f]+/0x[0-9a-f]+
$ cat events/sched/sched_switch/hist | grep '^}' | head -n 1
~ \} hitcount: [ \d]{10}
$ echo > events/sched/sched_switch/trigger; echo local > trace_clock
echo: write error: Invalid argument
