# An oops while function_graph runs: every return address on the stack has been swapped
# for return_to_handler, and the Call Trace must still name the real callers (the
# unwinder maps each one back through the thread's shadow stack), as Linux's does.
# expect: crash

$ echo function_graph > /sys/kernel/tracing/current_tracer
$ crash pf
...
~ EXCEPTION: #PF .*
...
Call Trace:
~ \s*\[<[0-9a-f]{16}>\] crash_pf\+0x[0-9a-f]+/0x[0-9a-f]+
~ \s*\[<[0-9a-f]{16}>\] shell_run_line\+0x[0-9a-f]+/0x[0-9a-f]+
~ \s*\[<[0-9a-f]{16}>\] shell_main\+0x[0-9a-f]+/0x[0-9a-f]+
~ \s*\[<[0-9a-f]{16}>\] shell_thread\+0x[0-9a-f]+/0x[0-9a-f]+
...
Kernel panic - not syncing: Fatal exception
...
