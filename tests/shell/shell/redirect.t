# Redirects into a read-only file (/proc): refused with the shell's message and status 1,
# the file unchanged. Writes that succeed are tested with the files they go to (tracefs).

$ echo x > /proc/version
fentros: /proc/version: Permission denied
$ echo $?
1
$ echo x >> /proc/version
fentros: /proc/version: Permission denied
$ cat /proc/version
~ fentros version .+
