# The host channel and the PCI bus on a machine without the channel's device (the test
# boots have no ivshmem-plain): both report it cleanly, and xfer over the debug console
# is unchanged. tests/export/test_channel.py records through the device.

$ lspci
00:00.0 0600: 8086:1237 (rev 02)
...

$ lspci -x
usage: lspci [-v]
$ hostchan
hostchan: no device: boot QEMU with -device ivshmem-plain (see tools/fentros-trace record --channel shm)
$ echo $?
1
$ xfer -c /proc/version
xfer: no host channel: boot QEMU with -device ivshmem-plain
$ echo $?
1
$ xfer -c
usage: xfer [-c] FILE... | xfer -c --follow FILE... | xfer -c --stop
$ xfer -c -x /proc/version
usage: xfer [-c] FILE... | xfer -c --follow FILE... | xfer -c --stop
$ xfer -c --follow /proc/version
xfer: no host channel: boot QEMU with -device ivshmem-plain
$ echo $?
1
$ xfer -c --stop
xfer: not following any file
$ xfer -c --follow
usage: xfer [-c] FILE... | xfer -c --follow FILE... | xfer -c --stop
