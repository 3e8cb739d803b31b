# echo, words and quoting.

$ echo a b
a b
$ echo
~
$ echo   spaced    out
spaced out
$ echo 'single   quoted'
single   quoted
$ echo "double   quoted" word
double   quoted word
$ echo 'a'"b"c
abc
$ echo "it's"
it's
$ echo 'a | b; c > d'
a | b; c > d
