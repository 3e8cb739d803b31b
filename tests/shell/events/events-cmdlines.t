# saved_cmdlines keeps the comm of every thread seen at a context switch while events are
# on, exited ones included; saved_tgids lists them with their tgid (each thread is its own
# process here). A new saved_cmdlines_size starts an empty cache.
$ cd /sys/kernel/tracing
$ echo 1 > saved_cmdlines_size; echo 6552 > saved_cmdlines_size; cat saved_cmdlines | wc -l
0
$ echo 1 > events/irq_vectors/local_timer_entry/enable
$ work 0.05 1
~ work: .*: ok
$ echo 0 > events/enable; cat saved_cmdlines
~ \d+ sh
...
~ \d+ work/0:0
...
$ cat saved_cmdlines | grep -c swapper
0
$ cat saved_tgids | head -n 1
~ (\d+) \1
$ echo 2 > saved_cmdlines_size; cat saved_cmdlines_size; cat saved_cmdlines | wc -l
2
0
$ echo 1 > events/sched/sched_switch/enable; work 0.05 1; echo 0 > events/enable; cat saved_cmdlines | wc -l
~ work: .*: ok
2
$ echo 6552 > saved_cmdlines_size; echo > trace
