# Strings and records at Linux 6.1's limits, the checks of tests/reference/linux-6.1-probe-limits.sh
# (its output beside it) on fentros's fixture: `ftrace_test_strings LEN...` calls
# ftrace_strings_target with strings of those lengths, the digits 0-9 over and over as the
# capture's, where Linux's probe read them from a sysctl write (proc_dostring) and an
# execve's argv. A string is read up to 4096 bytes with its NUL; a record larger than the
# ring buffer takes (4072 bytes) is dropped whole, its hit counted in kprobe_profile and
# nowhere else; the arguments' fields take at most 3072 bytes ("Event too big"); a trace
# line has a page of text, cut at the first piece that does not fit, then "[LINE TOO BIG]"
# when that still fits, else no newline. What differs from the capture: the function, so
# the width of the line's head (after Linux's 88 characters a string prints whole up to
# 4005 characters; the self-test kprobe_line_too_big finds the edge for fentros's head),
# and "echo:" where Linux's sh says "sh:".
$ cd /sys/kernel/tracing
$ echo > trace; echo > error_log; echo > kprobe_events

# One string: 300 and 3900 characters are whole lines; 4050 and 4051 fit the record (16
# bytes of head, 4 of __data_loc, the string and its NUL: 4072 at most) but not a line;
# 4052 and more are dropped. Every call is a hit.
$ echo 'p:longstr ftrace_strings_target s=+0(%di):string' > kprobe_events; echo rc=$?
rc=0
$ echo 1 > events/kprobes/longstr/enable
$ ftrace_test_strings 300; ftrace_test_strings 3900; ftrace_test_strings 4050; ftrace_test_strings 4051
$ ftrace_test_strings 4052; ftrace_test_strings 4095; ftrace_test_strings 4096; ftrace_test_strings 5000
$ echo 0 > events/kprobes/longstr/enable
$ cat kprobe_profile
  longstr                                                    8               0
$ cat per_cpu/cpu0/stats | grep dropped
dropped events: 0
$ cat trace | grep -c 'longstr:'
4
$ cat trace | grep 'longstr:'
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: longstr: \(ftrace_strings_target\+0x0/0x[0-9a-f]+\) s="(0123456789){30}"
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: longstr: \(ftrace_strings_target\+0x0/0x[0-9a-f]+\) s="(0123456789){390}"
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: longstr: \(ftrace_strings_target\+0x0/0x[0-9a-f]+\) s=\[LINE TOO BIG\]
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: longstr: \(ftrace_strings_target\+0x0/0x[0-9a-f]+\) s=\[LINE TOO BIG\]

# An array of strings: the record holds the four (a 12- and a 4-character one, then two
# long ones) if together they fit: 16 bytes of head, 16 of __data_loc words, 13 + 5 +
# 2011 + 2011 bytes of strings make 4072 exactly; one character more each is dropped.
$ echo > trace
$ echo 'p:strarr ftrace_strings_target w=+0(%si):string[4]' > kprobe_events; echo rc=$?
rc=0
$ echo 1 > events/kprobes/strarr/enable
$ ftrace_test_strings 12 4 300 300; ftrace_test_strings 12 4 2010 2010; ftrace_test_strings 12 4 2011 2011
$ echo 0 > events/kprobes/strarr/enable
$ cat kprobe_profile
  strarr                                                     3               0
$ cat trace | grep -c 'strarr:'
2
$ cat trace | grep 'strarr:'
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: strarr: \(ftrace_strings_target\+0x0/0x[0-9a-f]+\) w=\{"012345678901","0123","(0123456789){30}","(0123456789){30}"\}
~  {14}sh-(?=[0-9 ]{7} \[)[0-9]+ * \[[0-9]{3}\] [.N]\.\.\.\. (?= *[0-9])[ 0-9]{4}[0-9]\.[0-9]{6}: strarr: \(ftrace_strings_target\+0x0/0x[0-9a-f]+\) w=\{"012345678901","0123","(0123456789){201}",\[LINE TOO BIG\]

# The arguments' fields: 3072 bytes at most. The one that passes it is refused before its
# expression is read (a bad register or not), after its type (a bad type is that error).
$ echo > trace; echo > kprobe_events; echo > error_log
$ echo 'p:fit ftrace_strings_target +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[63] %ax:u64' > kprobe_events; echo rc=$?
rc=0
$ echo 'p:over ftrace_strings_target +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] x=%ax:u8' >> kprobe_events; echo rc=$?
echo: write error: Argument list too long
rc=1
$ echo 'p:over2 ftrace_strings_target +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] %zz:u8' >> kprobe_events; echo rc=$?
echo: write error: Argument list too long
rc=1
$ echo 'p:over3 ftrace_strings_target +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] x=%ax:zz' >> kprobe_events; echo rc=$?
echo: write error: Invalid argument
rc=1
$ cat error_log
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Event too big \(too many fields\?\)
  Command: p:over ftrace_strings_target +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] x=%ax:u8
                                                                                                                                          ^
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Event too big \(too many fields\?\)
  Command: p:over2 ftrace_strings_target +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] %zz:u8
                                                                                                                                         ^
~ \[\s*\d+\.\d{6}\] trace_kprobe: error: Unknown type is specified
  Command: p:over3 ftrace_strings_target +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] +0(%sp):u64[64] x=%ax:zz
                                                                                                                                               ^
$ cat kprobe_events
p:kprobes/fit ftrace_strings_target arg1=+0(%sp):u64[64] arg2=+0(%sp):u64[64] arg3=+0(%sp):u64[64] arg4=+0(%sp):u64[64] arg5=+0(%sp):u64[64] arg6=+0(%sp):u64[63] arg7=%ax:u64

# A line whose last piece that fits leaves no room for "[LINE TOO BIG]": it ends there,
# with no newline, and the next event's line (a marker) runs on from it.
$ echo 'p:wide ftrace_strings_target +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] +0(%di):u8[64] s=+0(%di):string' > kprobe_events; echo rc=$?
rc=0
$ echo 1 > events/kprobes/wide/enable; ftrace_test_strings 300; echo 0 > events/kprobes/wide/enable
$ echo after > trace_marker
$ cat trace | grep -c 'wide:'
1
$ cat trace | grep -c 'LINE TOO BIG'
0
$ cat trace | grep 'wide:' | grep -c 'tracing_mark_write: after'
1

# A trigger that tests the record (a filter) runs on any record that fits, in a scratch
# slot while tracing is off: its traceon turns tracing back on, for strings of up to 4051
# characters.
$ echo > trace; echo > kprobe_events
$ echo 'p:longstr ftrace_strings_target s=+0(%di):string' > kprobe_events; echo rc=$?
rc=0
$ echo 'traceon if common_pid > 0' > events/kprobes/longstr/trigger; echo rc=$?
rc=0
$ echo 1 > events/kprobes/longstr/enable
$ echo 0 > tracing_on; ftrace_test_strings 10; cat tracing_on
1
$ echo 0 > tracing_on; ftrace_test_strings 600; cat tracing_on
1
$ echo 0 > tracing_on; ftrace_test_strings 3000; cat tracing_on
1
$ echo 0 > tracing_on; ftrace_test_strings 4051; cat tracing_on
1
$ echo 0 > tracing_on; ftrace_test_strings 4052; cat tracing_on
0
$ echo 0 > tracing_on; ftrace_test_strings 5000; cat tracing_on
0
$ echo 0 > events/kprobes/longstr/enable; echo '!traceon if common_pid > 0' > events/kprobes/longstr/trigger
$ cat trace | grep -c 'longstr:'
0

# Back as the boot left it.
$ echo 1 > tracing_on; echo > kprobe_events; echo > trace; echo > error_log
