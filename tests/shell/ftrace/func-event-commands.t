# func:enable_event:SYS:EVENT[:N] and func:disable_event:SYS:EVENT[:N] in set_ftrace_filter,
# replaying Linux 6.1 (the func runs of tests/reference/linux-6.1-trigger-captures.txt):
# read-back newest kind first, the event in soft mode while a probe aims at it (`0*`, `1*`
# once a call switched it on), one probe of a kind per function (a second is EINVAL), a
# removal naming the kind only, ENODEV when the kind has no probe (a probe made with a
# count needs a count to be removed), EINVAL for an unknown event or function or a bad
# count. `ftrace_test_call target N` calls ftrace_test_target N times. schedule runs at
# once, so the probe on it has switched sched_wakeup on before it is removed (it stays on).
$ cd /sys/kernel/tracing
$ echo 'schedule:enable_event:sched:sched_wakeup:2' > set_ftrace_filter; cat set_ftrace_filter
#### all functions enabled ####
schedule:enable_event:sched:sched_wakeup:count=2
$ echo '!schedule:enable_event:sched:sched_wakeup' >> set_ftrace_filter
echo: write error: No such device
$ echo '!schedule:enable_event:sched:sched_wakeup:0' >> set_ftrace_filter; cat set_ftrace_filter; cat events/sched/sched_wakeup/enable
#### all functions enabled ####
1
$ echo 0 > events/sched/sched_wakeup/enable
$ echo 'ftrace_test_target:enable_event:sched:sched_migrate_task' > set_ftrace_filter; cat set_ftrace_filter; cat events/sched/sched_migrate_task/enable
#### all functions enabled ####
ftrace_test_target:enable_event:sched:sched_migrate_task:unlimited
0*
$ ftrace_test_call target 1; cat events/sched/sched_migrate_task/enable
1*
$ echo 'ftrace_test_target:disable_event:sched:sched_migrate_task:3' >> set_ftrace_filter; cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:disable_event:sched:sched_migrate_task:count=3
ftrace_test_target:enable_event:sched:sched_migrate_task:unlimited
$ echo 'ftrace_test_target:enable_event:sched:nosuch' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo 'ftrace_test_target:enable_event:sched' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo 'ftrace_test_target:enable_event' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo 'nosuchfunc:enable_event:sched:sched_wakeup' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo 'ftrace_test_target:enable_event:sched:sched_wakeup' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo 'ftrace_test_target:enable_event:sched:sched_wakeup:abc' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo 'ftrace_test_target:enable_event:ftrace:function' >> set_ftrace_filter
echo: write error: Invalid argument
$ echo '!ftrace_test_target:disable_event:sched:sched_migrate_task' >> set_ftrace_filter
echo: write error: No such device
$ echo '!ftrace_test_target:enable_event:sched:nosuch' >> set_ftrace_filter
echo: write error: Invalid argument

# Both run on each call, the newest kind first: disable then enable leaves it on. A
# counted switch is spent only when the event changes.
$ ftrace_test_call target 2; cat events/sched/sched_migrate_task/enable; cat set_ftrace_filter
1*
#### all functions enabled ####
ftrace_test_target:disable_event:sched:sched_migrate_task:count=1
ftrace_test_target:enable_event:sched:sched_migrate_task:unlimited
$ echo '!ftrace_test_target:disable_event:sched:sched_migrate_task:0' >> set_ftrace_filter; cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:enable_event:sched:sched_migrate_task:unlimited
$ echo '!ftrace_test_target:enable_event:sched:sched_migrate_task' >> set_ftrace_filter; cat set_ftrace_filter; cat events/sched/sched_migrate_task/enable
#### all functions enabled ####
1
$ echo '!ftrace_test_target:enable_event:sched:sched_migrate_task' >> set_ftrace_filter
echo: write error: No such device
$ echo 'ftrace_test_target:disable_event:sched:sched_migrate_task:1' >> set_ftrace_filter; ftrace_test_call target 3; cat events/sched/sched_migrate_task/enable; cat set_ftrace_filter
0*
#### all functions enabled ####
ftrace_test_target:disable_event:sched:sched_migrate_task:count=0
$ echo '!ftrace_test_target:disable_event:sched:sched_migrate_task:0' >> set_ftrace_filter; cat events/sched/sched_migrate_task/enable; cat set_event
0

# A glob makes one probe whose count its functions share; `!glob` takes them all out.
$ echo 'ftrace_test_target*:enable_event:sched:sched_wakeup:2' >> set_ftrace_filter; cat set_ftrace_filter
#### all functions enabled ####
~ ftrace_test_target\w*:enable_event:sched:sched_wakeup:count=2
...
$ echo '!ftrace_test_target*:enable_event:sched:sched_wakeup:0' >> set_ftrace_filter; cat set_ftrace_filter; cat events/sched/sched_wakeup/enable
#### all functions enabled ####
0

# With the other commands, kinds are listed newest first whatever their command, as Linux.
$ echo 'ftrace_test_target:enable_event:sched:sched_wakeup' > set_ftrace_filter; echo 'ftrace_test_target:traceon:2' >> set_ftrace_filter; echo 'ftrace_test_target:disable_event:sched:sched_waking:3' >> set_ftrace_filter; echo 'ftrace_test_target:stacktrace' >> set_ftrace_filter; cat set_ftrace_filter
#### all functions enabled ####
ftrace_test_target:stacktrace:unlimited
ftrace_test_target:disable_event:sched:sched_waking:count=3
ftrace_test_target:traceon:count=2
ftrace_test_target:enable_event:sched:sched_wakeup:unlimited
$ echo '!ftrace_test_target:enable_event:sched:sched_wakeup' >> set_ftrace_filter; echo '!ftrace_test_target:traceon:0' >> set_ftrace_filter; echo '!ftrace_test_target:disable_event:sched:sched_waking:0' >> set_ftrace_filter; echo '!ftrace_test_target:stacktrace' >> set_ftrace_filter; cat set_ftrace_filter; cat set_event
#### all functions enabled ####
