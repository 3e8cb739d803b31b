# head -n N, tail -n N and wc -l, fed from ls /proc (cmdline, interrupts, meminfo,
# uptime, version, and maybe more).

$ ls /proc | wc -l
~ [5-9]|[1-9][0-9]+
$ ls /proc | head -n 2 | wc -l
2
$ ls /proc | tail -n 3 | wc -l
3
$ ls /proc | head -n 100 | grep -c version
1
$ ls /proc | tail -n 100 | grep -c uptime
1
$ ls /proc | grep -v version | grep -c version
0
$ echo a b c | head -n 1
a b c
$ echo a b c | tail -n 1
a b c
$ echo hi | wc -l
1
$ echo hi | grep -v hi | wc -l
0
