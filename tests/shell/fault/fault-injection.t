# Allocation-failure injection: /sys/kernel/debug/failslab/ and fail_page_alloc/ with
# Linux's files, defaults and parsing (lib/fault-inject.c and debugfs's ul, atomic_t and
# bool attributes; Debian's 6.1 cloud kernel, which tools/linux-ref boots, is built without
# CONFIG_FAILSLAB, so there is no such directory to compare with).
$ cd /sys/kernel/debug
$ ls failslab
interval
probability
space
task-filter
times
verbose
$ cd failslab; cat probability interval times space verbose task-filter
0
1
1
0
2
N
$ cat ../fail_page_alloc/probability ../fail_page_alloc/times
0
1

# Unsigned files refuse a sign, words and blanks before the number; signed ones keep
# the low 32 bits, as an int; bool takes y/n/1/0/on/off.
$ echo -5 > interval
echo: write error: Invalid argument
$ echo abc > probability
echo: write error: Invalid argument
$ echo ' 7' > verbose
echo: write error: Invalid argument
$ echo 99999999999999999999 > interval
echo: write error: Numerical result out of range
$ echo 0x10 > space; cat space
16
$ echo 99999999999 > times; cat times
1215752191
$ echo -1 > times; cat times
-1
$ echo on > task-filter; cat task-filter; echo N > task-filter; cat task-filter
Y
N
$ echo maybe > task-filter
echo: write error: Invalid argument
$ echo 0 > space; echo 1 > interval

# One failure, then none: times counts down to 0. Whatever the failed allocation was,
# the shell and the kernel go on. The output is not checked, and may be empty: the one
# failure usually hits `echo after` (Cannot allocate memory), but an allocation on
# another CPU may take it first, and then nothing is printed; `cat times` below is what
# proves that exactly one failure happened.
$ echo 0 > verbose; echo 1 > times; echo 100 > probability; echo after
...
$ cat times
0
$ echo 0 > probability; echo 1 > times; echo 2 > verbose; echo still here
still here
