# Does a blocking read of trace_pipe_raw wait for buffer_percent? At 100, one marker in an
# instance wakes a read(2) (dd) and cat of the CPU it landed on (no splice or poll here).
mknod /dev/null c 1 3
mkdir instances/w
echo 100 > instances/w/buffer_percent
dd if=instances/w/per_cpu/cpu0/trace_pipe_raw of=/tmp/r0 bs=4096 count=1 2>/tmp/e &
dd if=instances/w/per_cpu/cpu1/trace_pipe_raw of=/tmp/r1 bs=4096 count=1 2>/tmp/e &
sleep 1
wc -c /tmp/r0 /tmp/r1
echo hello > instances/w/trace_marker
sleep 1
wc -c /tmp/r0 /tmp/r1
kill %1 %2; wait
rmdir instances/w
mkdir instances/w
echo 100 > instances/w/buffer_percent
cat instances/w/per_cpu/cpu0/trace_pipe_raw > /tmp/c0 &
cat instances/w/per_cpu/cpu1/trace_pipe_raw > /tmp/c1 &
sleep 1
wc -c /tmp/c0 /tmp/c1
echo hello > instances/w/trace_marker
sleep 1
wc -c /tmp/c0 /tmp/c1
kill %1 %2; wait
rmdir instances/w; echo "rc=$?"
