# Every /sys/kernel/livepatch file refuses what Linux refuses, with Linux's errno, and
# leaves the patch as it was. (A transition held up by a thread, where enabled gives EBUSY
# and force completes it, needs a thread parked inside a patched function: the
# livepatch_busy_during_transition and livepatch_force_* self-tests do that.)

$ cd /sys/kernel/livepatch/livepatch_sample
$ echo 1 > transition
fentros: transition: Permission denied
$ echo 1 > replace
fentros: replace: Permission denied
$ echo 1 > vmlinux/patched
fentros: vmlinux/patched: Permission denied
$ cat force
cat: force: Permission denied
$ echo abc > enabled
echo: write error: Invalid argument
$ echo > enabled
echo: write error: Invalid argument
$ echo 0 > enabled
echo: write error: Invalid argument
$ echo 1 > force
echo: write error: Invalid argument
$ echo x > force
echo: write error: Invalid argument
$ echo 0 > force; echo $?
0
$ cat enabled transition
0
0

# Already enabled: EINVAL, and it stays enabled.
$ echo y > enabled; livepatch wait; echo 1 > enabled
echo: write error: Invalid argument
$ cat enabled; cat /proc/cmdline
1
this has been live patched
$ echo 1 > force
echo: write error: Invalid argument

# Patched functions' ops are permanent: ftrace_enabled cannot go to 0 under them, and
# no patch goes on while it is 0.
$ echo 0 > /proc/sys/kernel/ftrace_enabled
echo: write error: Device or resource busy
$ cat /proc/sys/kernel/ftrace_enabled
1
$ echo n > enabled; livepatch wait; echo 0 > /proc/sys/kernel/ftrace_enabled
$ echo 1 > enabled
~ \[ *[0-9]+\.[0-9]{6}\] livepatch: failed to patch show_cmdline in 'livepatch_sample': -16
echo: write error: Device or resource busy
$ cat enabled transition vmlinux/patched
0
0
0
$ echo 1 > /proc/sys/kernel/ftrace_enabled; echo 1 > enabled; livepatch wait; cat /proc/cmdline
this has been live patched
$ echo 0 > enabled; livepatch wait; cat /proc/cmdline
~ (.* )?panic=poweroff( .*)?

# The livepatch command's own errors.
$ livepatch wait x
livepatch: invalid time 'x' (1..3600)
usage: livepatch [wait [SECONDS]]
$ livepatch foo
usage: livepatch [wait [SECONDS]]
$ livepatch_torture
usage: livepatch_torture SECONDS
$ livepatch_torture 0
usage: livepatch_torture SECONDS
