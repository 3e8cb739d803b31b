# Linux 6.1's buffer_percent, free_buffer, trace_marker_raw, timestamp_mode and
# tracing_max_latency, at the top level and in an instance: defaults, read-back, errnos,
# the raw_data lines trace_marker_raw records; timestamp_mode under a hist trigger with
# common_timestamp.
mkdir instances/foo
stat -c "%a %n" buffer_percent free_buffer trace_marker_raw timestamp_mode tracing_max_latency
stat -c "%a %n" instances/foo/buffer_percent instances/foo/free_buffer instances/foo/trace_marker_raw instances/foo/timestamp_mode instances/foo/tracing_max_latency
cat events/ftrace/raw_data/format
cat events/ftrace/raw_data/enable; echo 1 > events/ftrace/raw_data/enable; echo "rc=$?"
echo "=== top level"
cat buffer_percent
echo 0 > buffer_percent; echo "rc=$?"; cat buffer_percent
echo 100 > buffer_percent; echo "rc=$?"; cat buffer_percent
echo 101 > buffer_percent; echo "rc=$?"; cat buffer_percent
echo abc > buffer_percent; echo "rc=$?"
echo -1 > buffer_percent; echo "rc=$?"
echo 99999999999999999999 > buffer_percent; echo "rc=$?"
echo 50 > buffer_percent; cat buffer_percent
cat timestamp_mode
echo absolute > timestamp_mode; echo "rc=$?"; cat timestamp_mode
echo delta > timestamp_mode; echo "rc=$?"
cat tracing_max_latency
echo 123 > tracing_max_latency; echo "rc=$?"; cat tracing_max_latency
echo abc > tracing_max_latency; echo "rc=$?"; cat tracing_max_latency
echo 0 > tracing_max_latency; cat tracing_max_latency
cat trace_marker_raw; echo "rc=$?"
echo > trace
echo -n ABCD > trace_marker_raw; echo "rc=$?"
echo -n ABCDefgh > trace_marker_raw; echo "rc=$?"
echo ABCDefghijklmnopqrstu > trace_marker_raw; echo "rc=$?"
echo -n ABC > trace_marker_raw; echo "rc=$?"
echo -n A > trace_marker_raw; echo "rc=$?"
printf '\x01\x00\x00\x00abcd' > trace_marker_raw; echo "rc=$?"
grep -v '^#' trace
echo 0 > options/markers; echo -n ABCDx > trace_marker_raw; echo "rc=$?"; echo 1 > options/markers
echo 0 > tracing_on; echo -n ABCDx > trace_marker_raw; echo "rc=$?"; echo 1 > tracing_on
grep -c buf: trace
cat options/disable_on_free
cat buffer_size_kb buffer_total_size_kb
echo 1 > free_buffer; echo "rc=$?"
cat buffer_size_kb buffer_total_size_kb per_cpu/cpu0/buffer_size_kb tracing_on
echo 1410 > buffer_size_kb; cat buffer_size_kb
cat free_buffer; echo "rc=$?"
cat buffer_size_kb
echo 1410 > buffer_size_kb
echo 1 > options/disable_on_free; echo "rc=$?"; cat options/disable_on_free
grep disable_on_free trace_options
echo 1 > free_buffer; echo "rc=$?"
cat buffer_size_kb tracing_on
echo 0 > options/disable_on_free; echo 1 > tracing_on; echo 1410 > buffer_size_kb
echo nodisable_on_free > trace_options; echo "rc=$?"
echo -n > free_buffer; echo "rc=$?"; cat buffer_size_kb
echo 1410 > buffer_size_kb
echo "=== instances/foo"
cat instances/foo/buffer_percent
echo 0 > instances/foo/buffer_percent; echo "rc=$?"; cat instances/foo/buffer_percent
echo 100 > instances/foo/buffer_percent; echo "rc=$?"; cat instances/foo/buffer_percent
echo 101 > instances/foo/buffer_percent; echo "rc=$?"; cat instances/foo/buffer_percent
echo abc > instances/foo/buffer_percent; echo "rc=$?"
echo -1 > instances/foo/buffer_percent; echo "rc=$?"
echo 99999999999999999999 > instances/foo/buffer_percent; echo "rc=$?"
echo 50 > instances/foo/buffer_percent; cat instances/foo/buffer_percent
cat instances/foo/timestamp_mode
echo absolute > instances/foo/timestamp_mode; echo "rc=$?"; cat instances/foo/timestamp_mode
echo delta > instances/foo/timestamp_mode; echo "rc=$?"
cat instances/foo/tracing_max_latency
echo 123 > instances/foo/tracing_max_latency; echo "rc=$?"; cat instances/foo/tracing_max_latency
echo abc > instances/foo/tracing_max_latency; echo "rc=$?"; cat instances/foo/tracing_max_latency
echo 0 > instances/foo/tracing_max_latency; cat instances/foo/tracing_max_latency
cat instances/foo/trace_marker_raw; echo "rc=$?"
echo > instances/foo/trace
echo -n ABCD > instances/foo/trace_marker_raw; echo "rc=$?"
echo -n ABCDefgh > instances/foo/trace_marker_raw; echo "rc=$?"
echo ABCDefghijklmnopqrstu > instances/foo/trace_marker_raw; echo "rc=$?"
echo -n ABC > instances/foo/trace_marker_raw; echo "rc=$?"
echo -n A > instances/foo/trace_marker_raw; echo "rc=$?"
printf '\x01\x00\x00\x00abcd' > instances/foo/trace_marker_raw; echo "rc=$?"
grep -v '^#' instances/foo/trace
echo 0 > instances/foo/options/markers; echo -n ABCDx > instances/foo/trace_marker_raw; echo "rc=$?"; echo 1 > instances/foo/options/markers
echo 0 > instances/foo/tracing_on; echo -n ABCDx > instances/foo/trace_marker_raw; echo "rc=$?"; echo 1 > instances/foo/tracing_on
grep -c buf: instances/foo/trace
cat instances/foo/options/disable_on_free
cat instances/foo/buffer_size_kb instances/foo/buffer_total_size_kb
echo 1 > instances/foo/free_buffer; echo "rc=$?"
cat instances/foo/buffer_size_kb instances/foo/buffer_total_size_kb instances/foo/per_cpu/cpu0/buffer_size_kb instances/foo/tracing_on
echo 1410 > instances/foo/buffer_size_kb; cat instances/foo/buffer_size_kb
cat instances/foo/free_buffer; echo "rc=$?"
cat instances/foo/buffer_size_kb
echo 1410 > instances/foo/buffer_size_kb
echo 1 > instances/foo/options/disable_on_free; echo "rc=$?"; cat instances/foo/options/disable_on_free
grep disable_on_free instances/foo/trace_options
echo 1 > instances/foo/free_buffer; echo "rc=$?"
cat instances/foo/buffer_size_kb instances/foo/tracing_on
echo 0 > instances/foo/options/disable_on_free; echo 1 > instances/foo/tracing_on; echo 1410 > instances/foo/buffer_size_kb
echo nodisable_on_free > instances/foo/trace_options; echo "rc=$?"
echo -n > instances/foo/free_buffer; echo "rc=$?"; cat instances/foo/buffer_size_kb
echo 1410 > instances/foo/buffer_size_kb
echo 7 > buffer_percent; cat instances/foo/buffer_percent buffer_percent; echo 50 > buffer_percent
echo 5 > tracing_max_latency; cat instances/foo/tracing_max_latency tracing_max_latency; echo 0 > tracing_max_latency
echo -n WXYZ1 > instances/foo/trace_marker_raw; grep -c buf: trace; grep -c buf: instances/foo/trace
rmdir instances/foo; echo "rc=$?"
echo "hist:keys=common_pid:ts0=common_timestamp.usecs" > events/sched/sched_switch/trigger; echo "rc=$?"
cat timestamp_mode
echo "!hist:keys=common_pid:ts0=common_timestamp.usecs" > events/sched/sched_switch/trigger
echo local > trace_clock
