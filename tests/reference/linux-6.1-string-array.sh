# Arrays of strings in kprobe events (string[N], ustring[N]): the read-back, the format
# file (one __data_loc word per element), the print fmt, a trace line whose elements fault
# (%si of do_sys_openat2 is a user pointer to the path, not an array of pointers), and the
# refusals of a zero size and of a register.
echo 'p:strarr do_sys_openat2 path=+0(%si):string arr=+0(%si):string[2] u=+0(%si):ustring[1]' > kprobe_events; echo rc=$?
cat kprobe_events
cat events/kprobes/strarr/format
echo 1 > events/kprobes/strarr/enable
cat /etc/hostname > /dev/null
echo 0 > events/kprobes/strarr/enable
grep strarr trace | head -3
echo 'p:strarr2 do_sys_openat2 arr=+0(%si):string[0]' >> kprobe_events; echo rc=$?
cat error_log | tail -3
echo 'p:strarr3 do_sys_openat2 arr=%si:string[2]' >> kprobe_events; echo rc=$?
cat error_log | tail -3
echo > kprobe_events
