# Paths, directories and errors from the pseudo-filesystem.

$ ls /
...
proc
...
sys
...
$ ls /sys | grep -c '^kernel$'
1
$ cat /proc
cat: /proc: Is a directory
$ cat /nope
cat: /nope: No such file or directory
$ cd /nope
cd: /nope: No such file or directory
$ echo $?
1
$ pwd
/

# The prompt follows the working directory; relative paths start there.
$ cd /proc
$ pwd
/proc
$ cat version
~ fentros version .+
$ cd ..
$ pwd
/
