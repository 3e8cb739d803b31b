# Live patching with the sample patch: /proc/cmdline's function replaced while enabled,
# Linux's sysfs layout and values, and the original back once disabled.

$ ls /sys/kernel/livepatch
livepatch_sample
livepatch_work
$ cd /sys/kernel/livepatch/livepatch_sample
$ ls
enabled
force
replace
transition
vmlinux
$ ls vmlinux
patched
show_cmdline,1
$ cat enabled transition replace vmlinux/patched
0
0
0
0
$ cat /proc/cmdline
~ (.* )?panic=poweroff( .*)?
$ echo 1 > enabled; cat enabled
1
$ livepatch wait; cat transition
0
$ livepatch
livepatch_sample enabled=1 transition=0
livepatch_work enabled=0 transition=0
$ cat /sys/kernel/tracing/enabled_functions | grep show_cmdline
~ show_cmdline \(1\) R I\s+tramp: 0x[0-9a-f]+ \(klp_ftrace_handler\+0x0/0x[0-9a-f]+\) ->klp_ftrace_handler\+0x0/0x[0-9a-f]+
$ cat /proc/cmdline
this has been live patched
$ cat vmlinux/patched
1
$ echo 0 > enabled; cat enabled; livepatch wait
0
$ cat /proc/cmdline
~ (.* )?panic=poweroff( .*)?
$ cat vmlinux/patched transition
0
0
$ cat /sys/kernel/tracing/enabled_functions | grep -c show_cmdline
0
