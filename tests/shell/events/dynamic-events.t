# dynamic_events with synthetic events beside kprobes, replaying Linux 6.1
# (tests/reference/linux-6.1-dynamic-events.txt; fentros's function names): s: lines make
# them, -: and ! lines remove them (fields, if given, must be all of the event's), the
# file lists every kind in the order they were made, and `>` removes them in that order up
# to the first that cannot go.

$ cd /sys/kernel/tracing
$ echo 's:myevent u64 lat; pid_t pid' >> dynamic_events; echo "rc=$?"
rc=0
$ cat dynamic_events
s:synthetic/myevent	u64 lat; pid_t pid
$ cat synthetic_events
myevent	u64 lat; pid_t pid
$ echo 's:synthetic/myev2 char str[]; int v' >> dynamic_events; echo "rc=$?"
rc=0
$ echo 'p:kprobes/kp1 kfree' >> dynamic_events
$ cat dynamic_events
s:synthetic/myevent	u64 lat; pid_t pid
s:synthetic/myev2	char[] str; int v
p:kprobes/kp1 kfree
$ echo '-:synthetic/myevent' >> dynamic_events; echo "rc=$?"
rc=0
$ echo '-:myev2' >> dynamic_events; echo "rc=$?"
rc=0
$ cat dynamic_events
p:kprobes/kp1 kfree

# Errors, logged against the whole line.
$ echo > error_log
$ echo 's:junk/myevent char str[' >> dynamic_events
echo: write error: Invalid argument
$ echo 's:myevent' >> dynamic_events
echo: write error: Invalid argument
$ echo 's:' >> dynamic_events
echo: write error: Invalid argument
$ echo 's:a b' >> dynamic_events
echo: write error: Invalid argument
$ echo 's:my-ev u64 x' >> dynamic_events
echo: write error: Invalid argument
$ echo 's:myev3 u64 x' >> dynamic_events; echo 's:myev3 u64 x' >> dynamic_events
echo: write error: File exists
$ echo 's:synthetic/ u64 x' >> dynamic_events
echo: write error: Invalid argument
$ echo '-:synthetic/nosuch' >> dynamic_events
echo: write error: No such file or directory
$ echo 'myev4 u64 y' >> synthetic_events
$ cat dynamic_events
p:kprobes/kp1 kfree
s:synthetic/myev3	u64 x
s:synthetic/myev4	u64 y
$ echo '-:myev3 u64 x' >> dynamic_events; echo "rc=$?"
rc=0
$ echo 's:myev5 u64 x' >> dynamic_events
$ echo '-:myev5 u64 y' >> dynamic_events
echo: write error: No such file or directory
$ echo '-:myev5 u64 x; u64 z' >> dynamic_events
echo: write error: No such file or directory
$ echo '-:kprobes/myev4' >> dynamic_events
echo: write error: No such file or directory
$ echo '-:myev5 u64 x' >> dynamic_events
$ cat dynamic_events
p:kprobes/kp1 kfree
s:synthetic/myev4	u64 y
$ cat error_log
~ \[ *\d+\.\d{6}\] synthetic_events: error: Command must be of the form: s or -:\[synthetic/\]<name> field\[;field\] \.\.\.
  Command: s:junk/myevent char str[
           ^
~ \[ *\d+\.\d{6}\] synthetic_events: error: Command must be of the form: <name> field\[;field\] \.\.\.
  Command: s:myevent
           ^
~ \[ *\d+\.\d{6}\] synthetic_events: error: Command must be of the form: <name> field\[;field\] \.\.\.
  Command: s:
           ^
~ \[ *\d+\.\d{6}\] synthetic_events: error: Command must be of the form: <name> field\[;field\] \.\.\.
  Command: s:a b
           ^
~ \[ *\d+\.\d{6}\] synthetic_events: error: Illegal name
  Command: s:my-ev u64 x
             ^
~ \[ *\d+\.\d{6}\] synthetic_events: error: Event already exists
  Command: s:myev3 u64 x
             ^
~ \[ *\d+\.\d{6}\] synthetic_events: error: Command must be of the form: <name> field\[;field\] \.\.\.
  Command: s:synthetic/ u64 x
           ^

# A busy event stays; `>` takes what comes before it.
$ echo 1 > events/synthetic/myev4/enable
$ echo '-:myev4' >> dynamic_events
echo: write error: Device or resource busy
$ echo > dynamic_events
fentros: dynamic_events: Device or resource busy
$ cat dynamic_events
s:synthetic/myev4	u64 y
$ echo 0 > events/synthetic/myev4/enable
$ echo > dynamic_events; echo "rc=$?"
rc=0
$ cat dynamic_events synthetic_events

# The line that made an event removes it with a '!' in front (ftracetest's
# dynevent/generic_clear_event.tc), kprobes by their place too.
$ echo 'p:myevent1 kfree' >> dynamic_events; echo 's:latency1 u64 lat; pid_t pid;' >> dynamic_events; echo 'r:myevent2 kfree' >> dynamic_events
$ cat dynamic_events
p:kprobes/myevent1 kfree
s:synthetic/latency1	u64 lat; pid_t pid
~ r\d+:kprobes/myevent2 kfree
$ echo '!p:myevent1 kfree' >> dynamic_events; echo '!s:latency1 u64 lat; pid_t pid;' >> dynamic_events; cat dynamic_events
~ r\d+:kprobes/myevent2 kfree
$ echo '!r:myevent2 kfree' >> dynamic_events; cat dynamic_events

# The README names the s: line (ftracetest runs its dynevent tests only then).
$ cat README | grep 's:[synthetic/]'
	           s:[synthetic/]<event> <field> [<field>]
