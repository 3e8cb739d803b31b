# poweroff ends QEMU through isa-debug-exit with status 1, after Linux's last words.
# expect: poweroff

$ echo bye
bye
$ poweroff
...
~ \[ *[0-9]+\.[0-9]{6}\] reboot: Power down
...
