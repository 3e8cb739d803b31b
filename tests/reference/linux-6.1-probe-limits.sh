# Strings and records at Linux 6.1's limits. A probe's string fetch reads up to
# MAX_STRING_SIZE (4096) bytes with the NUL; a ring buffer event's data is at most
# BUF_MAX_DATA_SIZE (4072) bytes, and a record larger than that is dropped, not cut: a
# kprobe with one string (16 bytes of head, a 4-byte __data_loc) records a string of up to
# 4051 characters. trace_marker and trace_marker_raw take at most TRACE_BUF_SIZE (1024)
# bytes a write and return that count; the writer sends the rest again. The arguments of a
# probe take at most 3072 bytes of its record ("Event too big"). A trace line is printed
# into a page (4096 bytes) piece by piece: when a piece does not fit, the line ends with
# what did and [LINE TOO BIG] if that still fits, else with no newline at all. A trigger
# that tests the record runs on any record that fits, in a buffer of its own while tracing
# is off.
#
# Strings come from a sysctl write (proc_dostring's buffer, %dx, is the written text with
# a NUL after it) and from the arguments of an execve (its argv, a user array that a
# kernel dereference reads on x86). Each is the digits 0-9 over and over, cut to its
# length.
mk() { printf "%$(( ($1 + 9) / 10 ))s" '' | sed 's/ /0123456789/g' | cut -c1-$1; }
echo '=== a string in a kprobe'
echo 'p:longstr proc_dostring s=+0(%dx):string' > kprobe_events; echo rc=$?
echo 1 > events/kprobes/longstr/enable
for n in 300 3900 4004 4005 4006 4050 4051 4052 4095 4096 5000; do
  echo -n "$(mk $n)" > /proc/sys/kernel/domainname; echo "wrote $n: rc=$?"
done
echo 0 > events/kprobes/longstr/enable
cat kprobe_profile
grep -h dropped per_cpu/cpu*/stats
grep -c 'longstr:' trace
grep 'longstr:' trace | awk '{ print length($0) }'
grep 'longstr:' trace
echo '=== an array of strings in a kprobe'
echo > trace
echo 'p:strarr __x64_sys_execve w=+0(+0x68(%di)):string[4]' > kprobe_events; echo rc=$?
for n in 300 2010 2011; do
  w=$(mk $n)
  echo 1 > events/kprobes/strarr/enable
  /bin/busybox echo $w $w > /tmp/out; echo "ran with two words of $n: rc=$?"
  echo 0 > events/kprobes/strarr/enable
done
cat kprobe_profile
grep -c 'strarr:' trace
grep 'strarr:' trace | awk '{ print length($0) }'
grep 'strarr:' trace
echo '=== arguments past 3072 bytes'
echo > trace
echo > error_log
a='+0(%sp):u64[64]'
echo "p:fit proc_dostring $a $a $a $a $a +0(%sp):u64[63] %ax:u64" > kprobe_events; echo rc=$?
echo "p:over proc_dostring $a $a $a $a $a $a x=%ax:u8" >> kprobe_events; echo rc=$?
echo "p:over2 proc_dostring $a $a $a $a $a $a %zz:u8" >> kprobe_events; echo rc=$?
echo "p:over3 proc_dostring $a $a $a $a $a $a x=%ax:zz" >> kprobe_events; echo rc=$?
cat error_log
cat kprobe_events | cut -c1-40
echo > trace
b='+0(%dx):u8[64]'
echo "p:wide proc_dostring $b $b $b $b $b $b $b $b $b $b $b $b $b $b $b $b $b $b $b $b $b s=+0(%dx):string" > kprobe_events; echo rc=$?
echo 1 > events/kprobes/wide/enable
echo -n "$(mk 300)" > /proc/sys/kernel/domainname
echo 0 > events/kprobes/wide/enable
grep -c 'wide:' trace
grep -c 'LINE TOO BIG' trace
grep 'wide:' trace | awk '{ print length($0) }'
cat trace | tail -c 100; echo
echo > kprobe_events
echo '=== a trigger that tests a long record while tracing is off'
echo > trace
echo 'p:longstr proc_dostring s=+0(%dx):string' > kprobe_events; echo rc=$?
echo 'traceon if common_pid > 0' > events/kprobes/longstr/trigger; echo rc=$?
echo 1 > events/kprobes/longstr/enable
for n in 10 600 3000 4051 4052 5000; do
  echo 0 > tracing_on
  echo -n "$(mk $n)" > /proc/sys/kernel/domainname
  echo "$n: tracing_on $(cat tracing_on)"
done
echo 0 > events/kprobes/longstr/enable
echo '!traceon if common_pid > 0' > events/kprobes/longstr/trigger
grep -c 'longstr:' trace
echo 1 > tracing_on
echo > kprobe_events
echo '=== trace_marker'
echo > trace
echo "$(mk 2000)" > trace_marker; echo rc=$?
echo "$(mk 1023)" > trace_marker; echo rc=$?
echo "$(mk 1024)" > trace_marker; echo rc=$?
printf '0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789%s' '' '' '' '' '' '' '' '' '' '' '' '' '' '' '' '' '' '' '' '' > trace_marker; echo rc=$?
printf '0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789%s' '' '' '' '' '' '' '' '' '' '012345678901234567890123' > trace_marker; echo rc=$?
printf '0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789%s' '' '' '' '' '' '' '' '' '' '0123456789012345678901234' > trace_marker; echo rc=$?
grep -c tracing_mark_write trace
grep tracing_mark_write trace | awk '{ print length($0) }'
grep tracing_mark_write trace
echo '=== trace_marker_raw'
echo > trace
printf '0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789%s' '' '' '' '' '' '' '' '' '' '' '' '' '' '' '' '' '' '' '' '' > trace_marker_raw; echo rc=$?
printf '0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789%s' '' '' '' '' '' '' '' '' '' '0123456789012345678901234' > trace_marker_raw; echo rc=$?
grep -c buf: trace
grep buf: trace | awk '{ print $6, NF - 7 }'
grep buf: trace
echo > trace
