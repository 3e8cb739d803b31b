# tracefs_create_dir (kernel/fs/tracefs.c) is called as Linux 6.1 calls its own: once for each
# directory an event makes, never for one that is already there (an event's system when it
# has other events, an instance's events/). Linux 6.1
# (tests/reference/linux-6.1-tracefs-create-dir.txt), probed the same way while making x1 in
# the existing group kprobes, then x2 with one instance: "x1", then "x2" twice (the top
# level's and the instance's), and no "kprobes" or "events".
$ cd /sys/kernel/tracing
$ echo > kprobe_events; echo > trace
$ echo 'p:tcd tracefs_create_dir n=+0(%di):string' >> kprobe_events
$ echo 1 > events/kprobes/tcd/enable
$ echo 'p:x1 pfs_read' >> kprobe_events
$ cat trace | grep -v '^#' | grep -c tcd:
1
$ cat trace | grep -c 'n="x1"'
1
$ mkdir instances/foo; echo > trace
$ echo 'p:x2 pfs_open' >> kprobe_events
$ cat trace | grep -v '^#' | grep -c tcd:
2
$ cat trace | grep -c 'n="x2"'
2
$ echo 0 > events/kprobes/tcd/enable
$ rmdir instances/foo
$ echo > kprobe_events; echo > trace
