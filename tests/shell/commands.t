# The built-in commands run, print what they should, and exit 0.

$ help | grep -c echo
~ [1-9][0-9]*
$ help | grep -c selftest
~ [1-9][0-9]*
$ sleep 0.1
$ echo $?
0
$ uptime
~ .*[0-9].*
$ echo $?
0
$ dmesg | wc -l
~ [1-9][0-9]*
$ meminfo
...
$ echo $?
0
$ version
~ fentros version .+
