# function_graph switched on and off on every function, with the profiler toggling and
# set_graph_function changing, while every CPU runs the work load: the kernel stays
# healthy and graph tracing stays alive.
# timeout: 240

$ graph_torture 10
~ graph_torture: [1-9][0-9]* on/off rounds, [0-9]+ threads on [0-9]+ CPUs, [0-9]+ items handed off: ok
$ work 0.5 1
~ work: .*: ok
