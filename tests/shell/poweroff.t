# poweroff ends QEMU through isa-debug-exit with status 1.
# expect: poweroff

$ echo bye
bye
$ poweroff
...
! Kernel panic
