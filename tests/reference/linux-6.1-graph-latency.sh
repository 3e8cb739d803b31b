# function_graph with options/latency-format: the banner, the flags legend, the column
# lines and each line's flags column, with funcgraph-proc and funcgraph-abstime too.
cd /sys/kernel/tracing
echo 2 > max_graph_depth
echo function_graph > current_tracer
echo 1 > options/latency-format
cat /proc/version > /dev/null
sleep 0.1
echo 0 > tracing_on
echo "##### graph latency-format"
cat trace | head -40
echo 1 > options/funcgraph-proc
echo "##### graph latency-format proc"
cat trace | head -24
echo 0 > options/funcgraph-proc
echo 1 > options/funcgraph-abstime
echo "##### graph latency-format abstime"
cat trace | head -24
