# reboot resets the machine; with -no-reboot QEMU exits with status 0.
# expect: reboot

$ reboot
...
