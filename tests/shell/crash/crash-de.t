# A division by zero.
# The report names the exception, its backtrace starts at the function that faulted,
# and panic=poweroff then ends QEMU with status 3.
# expect: crash

$ crash de
...
~ EXCEPTION: #DE .*
...
Call Trace:
~ \s*\[<[0-9a-f]{16}>\] crash_de\+0x[0-9a-f]+/0x[0-9a-f]+
...
Kernel panic - not syncing: Fatal exception
...
