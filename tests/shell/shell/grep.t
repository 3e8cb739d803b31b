# grep: fixed strings, ^ and $ anchors, -v, -c, -i.

$ echo hello | grep ell
hello
$ echo hello | grep xyz
$ echo $?
1
$ echo hello | grep -c ell
1
$ echo hello | grep -c xyz
0
$ echo hello | grep -v xyz
hello
$ echo hello | grep -v ell
$ echo hello | grep -v -c ell
0
$ echo Hello | grep -i hELL
Hello
$ echo Hello | grep hell
$ echo hello | grep ^he
hello
$ echo hello | grep ^ell
$ echo hello | grep 'llo$'
hello
$ echo hello | grep llo$
hello
$ echo hello | grep 'ell$'
$ echo hello | grep '^hello$'
hello
$ echo hello there | grep '^hello$'
$ echo a.c | grep a.c
a.c
$ echo abc | grep a.c
