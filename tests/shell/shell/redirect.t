# Redirects. /proc files are read-only; writes to a writable file belong here once one exists.

$ echo x > /proc/version
fentros: /proc/version: Permission denied
$ echo $?
1
$ echo x >> /proc/version
fentros: /proc/version: Permission denied
$ cat /proc/version
~ fentros version .+
