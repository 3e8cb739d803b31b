# A test can boot with extra kernel parameters; /proc/cmdline shows them.
# cmdline: fentros.test=42
# smp: 1

$ cat /proc/cmdline
panic=poweroff fentros.test=42
