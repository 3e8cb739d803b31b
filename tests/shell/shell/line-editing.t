# Line editing, with the keys a terminal sends. See "Raw keys" in tests/README.md:
# only what the command prints is compared, not the echo of the editing.

# Backspace (DEL, 0x7f) erases the character before the cursor.
$< echo hellx\x7fo\r
hello

# Backspace on an empty line does nothing.
$< \x7f\x7fecho ok\r
ok

# Ctrl-C abandons the line: nothing runs, and the next line starts empty.
$< echo oops\x03
$ echo $?
130
$ echo after
after

# Up recalls the previous command, twice the one before; the recalled line can be edited.
$ echo first
first
$ echo second
second
$< \x1b[A\x1b[A\r
first
$< \x1b[A\r
first
$< \x1b[A\x7f\x7f\x7f\x7f\x7fxyz\r
xyz
