# livepatch_work fixes work_count_bits, whose deliberate bug makes every check of the
# work load fail, and unpatching brings the bug back; the load's books stay balanced.

$ ls /sys/kernel/livepatch/livepatch_work/vmlinux
patched
work_count_bits,1
$ work 0.3 1
~ work: [0-9]+ threads on [0-9]+ CPUs? for 0\.300 s: .* received, ([1-9][0-9]*) of \1 bit counts wrong: ok
$ echo 1 > /sys/kernel/livepatch/livepatch_work/enabled; livepatch wait
$ cat /sys/kernel/livepatch/livepatch_work/vmlinux/patched
1
$ work 0.3 1
~ work: [0-9]+ threads on [0-9]+ CPUs? for 0\.300 s: .* received, 0 of [1-9][0-9]* bit counts wrong: ok
$ echo 0 > /sys/kernel/livepatch/livepatch_work/enabled; livepatch wait
$ work 0.3 1
~ work: [0-9]+ threads on [0-9]+ CPUs? for 0\.300 s: .* received, ([1-9][0-9]*) of \1 bit counts wrong: ok
$ livepatch
livepatch_sample enabled=0 transition=0
livepatch_work enabled=0 transition=0
