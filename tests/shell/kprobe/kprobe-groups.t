# Removing a whole group with "-:GRP/", as Linux 6.1 does (tests/reference/linux-6.1-probe-groups.txt,
# with vfs_read, vfs_open and vfs_write written pfs_read, pfs_open and pfs_write): through
# kprobe_events it removes the group's kprobes (not its event probes), through dynamic_events
# every probe of the group, in the order they were made; the first enabled event stops it
# there (EBUSY: here the first one made, so nothing goes); a group with nothing to remove is
# ENOENT; "-:GRP/ SYM" removes only the group's probes at SYM.
$ cd /sys/kernel/tracing
$ echo > dynamic_events
$ echo 'p:grp/a pfs_read' >> kprobe_events
$ echo 'r:grp/b pfs_read' >> kprobe_events
$ echo 'p:other/c pfs_read' >> kprobe_events
$ echo 'e:grp/d sched.sched_switch' >> dynamic_events
$ cat dynamic_events
p:grp/a pfs_read
r10:grp/b pfs_read
p:other/c pfs_read
e:grp/d sched.sched_switch
$ echo '-:nosuch/' >> kprobe_events; echo rc=$?
echo: write error: No such file or directory
rc=1
$ echo '-:' >> kprobe_events; echo rc=$?
echo: write error: Invalid argument
rc=1
$ echo 1 > events/grp/a/enable
$ echo '-:grp/' >> kprobe_events; echo rc=$?
echo: write error: Device or resource busy
rc=1
$ cat dynamic_events
p:grp/a pfs_read
r10:grp/b pfs_read
p:other/c pfs_read
e:grp/d sched.sched_switch
$ echo 0 > events/grp/a/enable
$ echo '-:grp/' >> kprobe_events; echo rc=$?
rc=0
$ cat dynamic_events
p:other/c pfs_read
e:grp/d sched.sched_switch
$ ls events/grp
d
enable
filter
$ echo '-:grp/' >> kprobe_events; echo rc=$?
echo: write error: No such file or directory
rc=1
$ echo 'p:grp/a pfs_read' >> dynamic_events
$ echo '-:grp/' >> dynamic_events; echo rc=$?
rc=0
$ cat dynamic_events
p:other/c pfs_read
$ ls events/grp
ls: cannot access 'events/grp': No such file or directory
$ echo 'p:grp/a pfs_read' >> dynamic_events
$ echo 'p:grp/b pfs_open' >> dynamic_events
$ echo '-:grp/ pfs_open' >> dynamic_events; echo rc=$?
rc=0
$ cat dynamic_events
p:other/c pfs_read
p:grp/a pfs_read
$ echo '-:grp/ pfs_write' >> dynamic_events; echo rc=$?
echo: write error: No such file or directory
rc=1
$ echo '-:other/' >> dynamic_events; echo rc=$?
rc=0
$ echo > dynamic_events; cat dynamic_events

# Through dynamic_events every kind goes in the order the probes were made, up to the first
# that cannot go (tests/reference/linux-6.1-probe-groups-order.txt): an event probe made
# before an enabled kprobe goes; an enabled event probe made first keeps the kprobe after it.
$ echo 'e:grp/e1 sched.sched_switch' >> dynamic_events
$ echo 'p:grp/k1 pfs_read' >> dynamic_events
$ echo 1 > events/grp/k1/enable
$ echo '-:grp/' >> dynamic_events; echo rc=$?
echo: write error: Device or resource busy
rc=1
$ cat dynamic_events
p:grp/k1 pfs_read
$ echo 0 > events/grp/k1/enable
$ echo > dynamic_events
$ echo 'e:grp/e1 sched.sched_switch' >> dynamic_events
$ echo 'p:grp/k1 pfs_read' >> dynamic_events
$ echo 1 > events/grp/e1/enable
$ echo '-:grp/' >> dynamic_events; echo rc=$?
echo: write error: Device or resource busy
rc=1
$ cat dynamic_events
e:grp/e1 sched.sched_switch
p:grp/k1 pfs_read
$ echo 0 > events/grp/e1/enable
$ echo > dynamic_events

# "!KIND:GRP/" takes the whole group whatever KIND: Linux reads only what follows the ':'.
$ echo 'p:grp/b1 pfs_read' >> dynamic_events
$ echo 'e:grp/b2 sched.sched_switch' >> dynamic_events
$ echo '!p:grp/' >> dynamic_events; echo rc=$?
rc=0
$ cat dynamic_events
$ echo 'p:grp/b1 pfs_read' >> dynamic_events
$ echo 'e:grp/b2 sched.sched_switch' >> dynamic_events
$ echo '!e:grp/' >> dynamic_events; echo rc=$?
rc=0
$ cat dynamic_events

# A removal splits GRP/ at a '/' only: "-:GRP." and "-:GRP.EVENT" name no event.
$ echo 'p:grp/d1 pfs_read' >> kprobe_events
$ echo '-:grp.' >> kprobe_events; echo rc=$?
echo: write error: No such file or directory
rc=1
$ echo '-:grp.d1' >> kprobe_events; echo rc=$?
echo: write error: No such file or directory
rc=1
$ cat kprobe_events
p:grp/d1 pfs_read
$ echo > kprobe_events
