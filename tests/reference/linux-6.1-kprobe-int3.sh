mount -t debugfs none /sys/kernel/debug 2>/dev/null
cd /sys/kernel/tracing
echo 'p:a vfs_read' > kprobe_events
echo 'p:c vfs_read+5' >> kprobe_events
echo 'p:e kprobe_int3_handler' >> kprobe_events
echo $?
echo 'p:g 0xffffffff00000000' >> kprobe_events
echo $?
cat error_log
echo 1 > events/kprobes/enable
cat /sys/kernel/debug/kprobes/list | od -c | head -20
cat /sys/kernel/debug/kprobes/list
cat /proc/version > /dev/null
cat trace | tail -3
head -3 /sys/kernel/debug/kprobes/blacklist | od -c | head
grep -m3 int3 /sys/kernel/debug/kprobes/blacklist
echo 0 > events/kprobes/enable
cat kprobe_profile
