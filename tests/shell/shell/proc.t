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

# /proc/kallsyms as Linux's with CONFIG_KALLSYMS_ALL: text and data, with nm's letters
# (capital when global), in address order from _stext.
$ cat /proc/kallsyms | head -n 1
~ ffffffff[0-9a-f]{8} T _stext
$ cat /proc/kallsyms | grep ' schedule$'
~ ffffffff[0-9a-f]{8} T schedule
$ cat /proc/kallsyms | grep ' trace_global$'
~ ffffffff[0-9a-f]{8} B trace_global
$ cat /proc/kallsyms | grep ' ftrace_enabled$'
~ ffffffff[0-9a-f]{8} d ftrace_enabled
$ cat /proc/kallsyms | grep ' x86_reg_names$'
~ ffffffff[0-9a-f]{8} r x86_reg_names
$ cat /proc/kallsyms | grep ' boot_pd$'
~ ffffffff[0-9a-f]{8} b boot_pd
$ cat /proc/kallsyms | grep -c ' _etext$'
1
