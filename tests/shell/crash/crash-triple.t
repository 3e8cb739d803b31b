# crash triple: an empty interrupt table and a breakpoint fault three times over, and the
# CPU resets with no report; with -no-reboot QEMU exits with status 0, as after reboot.
# (tests/export/test_last_boot.py resets without -no-reboot and reads a trace across it.)
# expect: reboot

$ crash triple
crash: triple fault (the machine resets)
