# A non-canonical address: a general protection fault.
# The report names the exception, its backtrace starts at the function that faulted,
# and panic=poweroff then ends QEMU with status 3.
# expect: crash

$ crash gp
...
~ EXCEPTION: #GP .*
...
Call Trace:
~ \s*\[<[0-9a-f]{16}>\] crash_gp\+0x[0-9a-f]+/0x[0-9a-f]+
...
Kernel panic - not syncing: Fatal exception
...
