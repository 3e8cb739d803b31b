# Linux 6.1: "-:GRP/" through dynamic_events takes the group's probes of every kind in the
# order they were made, up to the first that cannot go; "!KIND:GRP/" does the same whatever
# KIND; "-:GRP." names no group. Probes placed by address: no $argN, no $retval, %ip kept;
# "r ADDR" off a function's entry fails to register.
cd /sys/kernel/tracing
echo > dynamic_events
echo '== an event probe made first goes before an enabled kprobe stops the rest'
echo 'e:g/e1 sched.sched_switch' >> dynamic_events
echo 'p:g/k1 vfs_read' >> dynamic_events
echo 1 > events/g/k1/enable
echo '-:g/' >> dynamic_events; echo rc=$?
cat dynamic_events
echo 0 > events/g/k1/enable
echo > dynamic_events
echo '== an enabled event probe made first stops everything'
echo 'e:g/e1 sched.sched_switch' >> dynamic_events
echo 'p:g/k1 vfs_read' >> dynamic_events
echo 1 > events/g/e1/enable
echo '-:g/' >> dynamic_events; echo rc=$?
cat dynamic_events
echo 0 > events/g/e1/enable
echo > dynamic_events
echo '== !KIND:GRP/ takes every kind'
echo 'p:g/b1 vfs_read' >> dynamic_events
echo 'e:g/b2 sched.sched_switch' >> dynamic_events
echo '!p:g/' >> dynamic_events; echo rc=$?
cat dynamic_events
echo 'p:g/b1 vfs_read' >> dynamic_events
echo 'e:g/b2 sched.sched_switch' >> dynamic_events
echo '!e:g/' >> dynamic_events; echo rc=$?
cat dynamic_events
echo '== GRP. is no group'
echo 'p:g/d1 vfs_read' >> kprobe_events
echo '-:g.' >> kprobe_events; echo rc=$?
echo '-:g.d1' >> kprobe_events; echo rc=$?
cat kprobe_events
echo > kprobe_events
echo '== by address'
echo > error_log
A=$(grep ' vfs_read$' /proc/kallsyms | cut -d' ' -f1)
B=$(printf '%x' $((0x$A + 0x40)))
echo "p:a1 0x$A \$arg1" >> kprobe_events; echo rc=$?
echo "r:a2 0x$A \$retval" >> kprobe_events; echo rc=$?
echo "r:a3 0x$A \$arg1" >> kprobe_events; echo rc=$?
echo "r:a4 0x$A %ip" >> kprobe_events; echo rc=$?
echo "r:a5 0x$B" >> kprobe_events; echo rc=$?
cat kprobe_events | sed "s/$A/ADDR/; s/$B/ADDRB/"
echo 1 > events/kprobes/a4/enable
grep -q Linux /proc/version
echo 0 > events/kprobes/a4/enable
L=$(grep -v '^#' trace | grep ' a4: ' | head -n 1)
echo "$L" | sed 's/^.* a4: /a4: /; s/arg1=0x[0-9a-f]*/arg1=IP/'
SYM=$(echo "$L" | sed 's/^.* a4: (\([a-z_0-9]*\)+0x\([0-9a-f]*\)\/.*$/\1/')
OFF=$(echo "$L" | sed 's/^.* a4: (\([a-z_0-9]*\)+0x\([0-9a-f]*\)\/.*$/\2/')
IP=$(echo "$L" | sed 's/^.*arg1=0x//')
S=$(grep " $SYM\$" /proc/kallsyms | head -n 1 | cut -d' ' -f1)
[ $((0x$S + 0x$OFF)) = $((0x$IP)) ] && echo 'IP is the return address'
echo > kprobe_events
cat error_log | sed "s/$A/ADDR/; s/$B/ADDRB/"
