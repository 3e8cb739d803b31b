# The files in /proc.

$ ls /proc | grep -c '^version$'
1
$ cat /proc/version
~ fentros version .+
$ cat /proc/cmdline
~ (.* )?panic=poweroff( .*)?
$ cat /proc/meminfo | grep MemTotal
~ MemTotal: +[0-9]+ kB
$ cat /proc/uptime
~ [0-9]+\.[0-9]+ [0-9]+\.[0-9]+
$ cat /proc/interrupts | head -n 1
~ \s+CPU0(\s+CPU[0-9]+)*\s*
