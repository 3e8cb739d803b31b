# The two sample patches enabled and disabled in random order while the work load runs
# on every CPU: after each transition the patched functions answer as the patches' state
# says, the load's books balance, and every CPU ran both versions of work_count_bits.
# timeout: 180

$ livepatch_torture 6
~ livepatch_torture: [1-9][0-9]* transitions \(0 forced, longest [0-9]+ ms\), [0-9]+ threads on [0-9]+ CPUs?, [1-9][0-9]* of [1-9][0-9]* bit counts wrong, both versions on every CPU: yes, books: ok: ok
$ livepatch
livepatch_sample enabled=0 transition=0
livepatch_work enabled=0 transition=0
$ cat /proc/cmdline
~ (.* )?panic=poweroff( .*)?
