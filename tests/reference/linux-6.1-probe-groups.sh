# Linux 6.1: removing a whole group with "-:GRP/" (kprobe_events and dynamic_events), and
# probes placed by address (read-back, automatic names, %return after an address).
cd /sys/kernel/tracing
echo > dynamic_events
echo 'p:grp/a vfs_read' >> kprobe_events
echo 'r:grp/b vfs_read' >> kprobe_events
echo 'p:other/c vfs_read' >> kprobe_events
echo 'e:grp/d sched.sched_switch' >> dynamic_events
cat dynamic_events
echo '-:nosuch/' >> kprobe_events; echo rc=$?
echo '-:' >> kprobe_events; echo rc=$?
echo 1 > events/grp/a/enable
echo '-:grp/' >> kprobe_events; echo rc=$?
cat dynamic_events
echo 0 > events/grp/a/enable
echo '-:grp/' >> kprobe_events; echo rc=$?
cat dynamic_events
test -d events/grp && echo grp-dir-left
echo '-:grp/' >> kprobe_events; echo rc=$?
echo 'p:grp/a vfs_read' >> dynamic_events
echo '-:grp/' >> dynamic_events; echo rc=$?
cat dynamic_events
test -d events/grp || echo grp-dir-gone
echo 'p:grp/a vfs_read' >> dynamic_events
echo 'p:grp/b vfs_open' >> dynamic_events
echo '-:grp/ vfs_open' >> dynamic_events; echo rc=$?
cat dynamic_events
echo '-:grp/ vfs_write' >> dynamic_events; echo rc=$?
echo '-:other/' >> dynamic_events; echo rc=$?
echo > dynamic_events
A=$(grep ' vfs_read$' /proc/kallsyms | cut -d' ' -f1)
echo "p 0x$A" >> kprobe_events; echo rc=$?
echo "r 0x$A" >> kprobe_events; echo rc=$?
echo "p:x1 0x$A%return" >> kprobe_events; echo rc=$?
cat kprobe_events | sed "s/$A/ADDR/; s/(____ptrval____)/ADDR/"
ls events/kprobes | sed "s/$A/ADDR/"
echo "-:p_0x$A" >> kprobe_events; echo rc=$?
cat error_log | sed "s/$A/ADDR/"
