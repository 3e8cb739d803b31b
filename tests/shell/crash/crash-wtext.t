# A write to kernel text, which is mapped read-only: a protection page fault.
# The report names the exception, its backtrace starts at the function that faulted,
# and panic=poweroff then ends QEMU with status 3.
# expect: crash

$ crash wtext
...
~ EXCEPTION: #PF .*
...
Call Trace:
~ \s*\[<[0-9a-f]{16}>\] crash_wtext\+0x[0-9a-f]+/0x[0-9a-f]+
...
Kernel panic - not syncing: Fatal exception
...
