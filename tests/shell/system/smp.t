# SMP: every CPU online and ticking, threads listed, and a short mixed load on all CPUs
# with balanced books.

$ cpus
CPU HWID CURRENT                TICKS   INTERRUPTS     IPIS
~ \s+0 +[0-9]+ sh-1 +[1-9][0-9]* +[1-9][0-9]* +[0-9]+
...
$ cpus | wc -l
~ [2-5]
$ ps
  PID CPU S CLS RTPRIO    TIME NAME
~ \s+0 +0 R  TS      - +[0-9]+\.[0-9]{2} <idle>
...
~ \s+1 +0 R  TS      - +[0-9]+\.[0-9]{2} sh
$ work 0.5 2
~ work: [0-9]+ threads on [0-9]+ CPUs for 0\.500 s: [1-9][0-9]* allocations, [1-9][0-9]* table ops \([0-9]+ contended\), [1-9][0-9]* items handed off, [1-9][0-9]* received, ([1-9][0-9]*) of \1 bit counts wrong: ok
$ ps | grep -c work
0
$ work 0 1
work: invalid time '0' (0 < SECONDS <= 3600)
usage: work [SECONDS] [THREADS_PER_CPU]
$ work 1 99
work: invalid thread count '99' (1..8)
usage: work [SECONDS] [THREADS_PER_CPU]
$ cat /proc/interrupts | grep -c 'LAPIC    timer'
1
