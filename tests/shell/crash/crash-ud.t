# An invalid opcode (ud2).
# The report names the exception, its backtrace starts at the function that faulted,
# and panic=poweroff then ends QEMU with status 3.
# expect: crash

$ crash ud
...
~ EXCEPTION: #UD .*
...
Call Trace:
~ \s*\[<[0-9a-f]{16}>\] crash_ud\+0x[0-9a-f]+/0x[0-9a-f]+
...
Kernel panic - not syncing: Fatal exception
...
