# dynamic_events and synthetic events: s: lines to make one, -: to remove one, how
# dynamic_events lists them beside kprobes, `>` on it, busy events, and the errors
# (error_log) of malformed s: lines.
echo 's:myevent u64 lat; pid_t pid' >> dynamic_events; echo "rc=$?"
cat dynamic_events
cat synthetic_events
echo 's:synthetic/myev2 char str[]; int v' >> dynamic_events; echo "rc=$?"
echo 'p:kprobes/kp1 vfs_read' >> dynamic_events
cat dynamic_events
echo '-:synthetic/myevent' >> dynamic_events; echo "rc=$?"
echo '-:myev2' >> dynamic_events; echo "rc=$?"
cat dynamic_events
echo '== errors'
echo 's:junk/myevent char str[' >> dynamic_events; echo "rc=$?"
echo 's:myevent' >> dynamic_events; echo "rc=$?"
echo 's:' >> dynamic_events; echo "rc=$?"
echo 's:a b' >> dynamic_events; echo "rc=$?"
echo 's:my-ev u64 x' >> dynamic_events; echo "rc=$?"
echo 's:myev3 u64 x' >> dynamic_events; echo 's:myev3 u64 x' >> dynamic_events; echo "rc=$?"
echo 's:synthetic/ u64 x' >> dynamic_events; echo "rc=$?"
echo '-:synthetic/nosuch' >> dynamic_events; echo "rc=$?"
echo 'myev4 u64 y' >> synthetic_events
cat dynamic_events
echo '-:myev3 u64 x' >> dynamic_events; echo "rc=$?"
echo 's:myev5 u64 x' >> dynamic_events
echo '-:myev5 u64 y' >> dynamic_events; echo "rc=$?"
echo '-:myev5 u64 x; u64 z' >> dynamic_events; echo "rc=$?"
echo '-:kprobes/myev4' >> dynamic_events; echo "rc=$?"
cat dynamic_events
cat error_log
echo '== busy'
echo 1 > events/synthetic/myev4/enable
echo '-:myev4' >> dynamic_events; echo "rc=$?"
echo > dynamic_events; echo "rc=$?"
cat dynamic_events
echo 0 > events/synthetic/myev4/enable
echo > dynamic_events; echo "rc=$?"
cat dynamic_events
cat synthetic_events
echo '== the README'
grep -n 's:\[synthetic/\]' README
grep -n 'place' README
echo '== through synthetic_events, listed in dynamic_events'
echo 'wl u64 lat; char comm[16]' > synthetic_events
cat dynamic_events
echo '!wl' >> synthetic_events
