# function_graph with options/latency-format, as Linux 6.1 prints it
# (tests/reference/linux-6.1-graph-latency.txt): the latency banner, the legend of the
# flags column (as wide as the columns before it), the column lines with `||||`, and each
# line's flags after the CPU (and task) columns. The banner's counts and the lines differ
# from run to run; the rest is Linux's text.
# smp: 1 2 4

$ cd /sys/kernel/tracing
$ echo 2 > max_graph_depth
$ echo function_graph > current_tracer
$ echo 1 > options/latency-format
$ work 0.01
~ work: .*: ok
$ echo 0 > tracing_on
$ cat trace | head -n 17
# tracer: function_graph
#
# function_graph latency trace v1.1.5 on 0.1.0
# --------------------------------------------------------------------
~ # latency: 0 us, #\d+/\d+, CPU#0 \| \(M:preempt VP:0, KP:0, SP:0 HP:0 #P:\d\)
#    -----------------
#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)
#    -----------------
#
#      _-----=> irqs-off        
#     / _----=> need-resched    
#    | / _---=> hardirq/softirq 
#    || / _--=> preempt-depth   
#    ||| /                      
# CPU||||     DURATION                  FUNCTION CALLS
# |  ||||      |   |                     |   |   |   |
~  \d\)  [d.][N.][hz.][0-9a-f.]\. \| .*
$ cat trace | head -n 20 | tail -n 3
~  \d\)  [d.][N.][hz.][0-9a-f.]\. \| .*
~  \d\)  [d.][N.][hz.][0-9a-f.]\. \| .*
~  \d\)  [d.][N.][hz.][0-9a-f.]\. \| .*
$ echo 1 > options/funcgraph-proc
$ cat trace | head -n 17 | tail -n 8
#                       _-----=> irqs-off        
#                      / _----=> need-resched    
#                     | / _---=> hardirq/softirq 
#                     || / _--=> preempt-depth   
#                     ||| /                      
# CPU  TASK/PID       ||||     DURATION                  FUNCTION CALLS
# |     |    |        ||||      |   |                     |   |   |   |
~  \d\) .{14} \|  [d.][N.][hz.][0-9a-f.]\. \| .*
$ echo 0 > options/funcgraph-proc; echo 1 > options/funcgraph-abstime
$ cat trace | head -n 17 | tail -n 8
#                      _-----=> irqs-off        
#                     / _----=> need-resched    
#                    | / _---=> hardirq/softirq 
#                    || / _--=> preempt-depth   
#                    ||| /                      
#     TIME        CPU||||     DURATION                  FUNCTION CALLS
#      |          |  ||||      |   |                     |   |   |   |
~ \s+\d+\.\d{6} \|   \d\)  [d.][N.][hz.][0-9a-f.]\. \| .*
$ echo 0 > options/funcgraph-abstime; echo 0 > options/latency-format
$ echo > trace
$ cat trace | head -n 4
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
$ echo nop > current_tracer; echo 0 > max_graph_depth; echo 1 > tracing_on
