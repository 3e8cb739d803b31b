# reboot resets the machine; with -no-reboot QEMU exits with status 0.
# expect: reboot

$ reboot
...
~ \[ *[0-9]+\.[0-9]{6}\] reboot: Restarting system
...
