# A command that could not do its job says so and fails. Under fail_page_alloc with room
# (space) for the threads' stacks only, `work` starts its threads, and then its larger
# heap allocations (the ones that take whole pages) fail: it says how many failed, its
# verdict is INCOMPLETE rather than ok, and $? is 1. The shell's own small allocations
# come from slabs it already has, so `echo $?` still runs.
$ cd /sys/kernel/debug/fail_page_alloc
$ echo 0 > verbose; echo 1 > interval; echo -1 > times; echo 262144 > space; echo 100 > probability
$ work 0.3 1
~ work: [1-9]\d* threads on \d+ CPUs? for 0\.300 s: .*: INCOMPLETE
~ work: [1-9]\d* allocations failed: Cannot allocate memory
$ echo $?
1
$ echo 0 > probability; echo 0 > space; echo 1 > times; echo 2 > verbose
$ work 0.05 1
~ work: \d+ threads on \d+ CPUs? for 0\.050 s: [1-9]\d* allocations, .*: ok
$ echo $?
0
