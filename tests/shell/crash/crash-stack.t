# Runaway recursion overflows the kernel stack into its guard page. The fault cannot
# push its frame on that stack, so it arrives as a double fault on a stack of its own.
# The report names the exception, its backtrace starts at the function that faulted,
# and panic=poweroff then ends QEMU with status 3.
# expect: crash

$ crash stack
...
~ EXCEPTION: #DF .*
...
Call Trace:
~ \s*\[<[0-9a-f]{16}>\] crash_stack\+0x[0-9a-f]+/0x[0-9a-f]+
...
Kernel panic - not syncing: Fatal exception
...
