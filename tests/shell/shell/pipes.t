# Pipelines feed one command's output to the next.

$ echo hello | grep ell
hello
$ echo hello world | grep world | grep hello
hello world
$ echo "a | b" | grep '|'
a | b
$ echo hello | grep xyz | wc -l
0
