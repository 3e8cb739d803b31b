# Exit statuses and $?, as a Linux shell sets them.

$ nosuch
fentros: nosuch: command not found
$ echo $?
127
$ echo $?
0
$ nosuch with arguments
fentros: nosuch: command not found
$ cat /nope
cat: /nope: No such file or directory
$ echo $?
1
$ echo "status $?"
status 0
$ echo '$?'
~ \$\?
