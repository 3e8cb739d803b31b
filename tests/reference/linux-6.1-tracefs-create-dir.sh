# Linux 6.1: what tracefs_create_dir is called with while a kprobe event is made in an existing
# group, an instance is made, and an event is made with one instance.
cd /sys/kernel/tracing
echo 'p:tcd tracefs_create_dir n=+0(%di):string' >> kprobe_events
echo 1 > events/kprobes/tcd/enable
echo 'p:x1 vfs_read' >> kprobe_events
echo '-- x1 done'
grep -v '^#' trace | sed 's/^.*tcd: ([^)]*) //'
echo > trace
mkdir instances/foo
grep -v '^#' trace | wc -l
grep -v '^#' trace | grep -c 'n="events"'
grep -v '^#' trace | sed 's/^.*tcd: ([^)]*) //' | head -n 12
echo > trace
echo 'p:x2 vfs_open' >> kprobe_events
grep -v '^#' trace | sed 's/^.*tcd: ([^)]*) //'
echo 0 > events/kprobes/tcd/enable
rmdir instances/foo
echo > kprobe_events
