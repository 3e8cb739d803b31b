# `;` runs commands one after another; each sets $?.

$ echo a; echo b
a
b
$ echo a;echo b
a
b
$ echo one ; nosuch ; echo $?
one
fentros: nosuch: command not found
127
$ nosuch; echo $?; echo $?
fentros: nosuch: command not found
127
0
