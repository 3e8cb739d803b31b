# The built-in commands run, print what they should, and exit 0.

$ help | grep '^echo '
~ echo +.+
$ help | grep -c '^selftest '
1
$ sleep 0.1
$ echo $?
0
$ uptime
~ up [0-9:.]+, [0-9]+ CPUs? online

# On a boot shared with other tests the log may have wrapped: the first line is then any
# whole line (trace/dmesg tests the wrap; shell/system/dmesg-boot the boot's first line).
$ dmesg | head -n 1
~ \[ *[0-9]+\.[0-9]{6}\] .+
$ meminfo
~ MemTotal: +[0-9]+ kB
...
$ echo $?
0
$ version
~ fentros version .+
