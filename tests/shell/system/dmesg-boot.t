# The kernel log from its start: a fresh boot's first line is the version banner.
# boot: fresh
$ dmesg | head -n 1
~ \[ *[0-9]+\.[0-9]{6}\] fentros version .+
$ dmesg | grep -c 'fentros version'
1
