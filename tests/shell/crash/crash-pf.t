# A write to an unmapped address: a page fault in kernel code.
# The report names the exception, its backtrace starts at the function that faulted,
# and panic=poweroff then ends QEMU with status 3.
# expect: crash

$ crash pf
...
~ EXCEPTION: #PF .*
...
Call Trace:
~ \s*\[<[0-9a-f]{16}>\] crash_pf\+0x[0-9a-f]+/0x[0-9a-f]+
...
Kernel panic - not syncing: Fatal exception
...
