# Turning allocation-failure injection off always works with one command, even when every
# allocation fails (probability 100, no limit on times): a pipeline that names a
# fault-injection file runs with injection paused for the shell (README,
# "Allocation-failure injection"). verbose 0 keeps the reports out of the outputs.
$ cd /sys/kernel/debug/failslab
$ echo 0 > verbose; echo 1 > interval; echo -1 > times; echo 100 > probability
$ cat /proc/version
~ .*Cannot allocate memory
$ echo 0 > probability
$ cat probability times
0
-1
$ cat /proc/version | grep -c fentros
1

# The same from another directory, by absolute path, and reading the file too.
$ cd /
$ echo 100 > /sys/kernel/debug/failslab/probability; cat /sys/kernel/debug/failslab/probability
100
$ echo still failing
~ .*Cannot allocate memory
$ echo 0 > /sys/kernel/debug/failslab/probability
$ echo back
back

# The page allocator: cat's 4 KiB read buffer takes pages.
$ cd /sys/kernel/debug/fail_page_alloc
$ echo 0 > verbose; echo 1 > interval; echo -1 > times; echo 100 > probability
$ cat /proc/version
~ .*Cannot allocate memory
$ echo 0 > probability
$ cat probability times
0
-1
$ cat /proc/version | grep -c fentros
1

# Both at once, and a load that allocates on every CPU afterwards.
$ echo 100 > probability; echo 100 > ../failslab/probability
$ echo 0 > probability; echo 0 > ../failslab/probability
$ work 0.05 1
~ work: \d+ threads on \d+ CPUs for 0\.050 s: [1-9]\d* allocations, .*: ok
$ echo 2 > verbose; echo 1 > times; echo 2 > ../failslab/verbose; echo 1 > ../failslab/times
