# Snapshots taken, cleared, freed and read in every way while `work` runs on every CPU
# under the function tracer; then every CPU of both buffers is checked event by event
# and page by page (kernel/torture/snapshot_torture.c).
# timeout: 120

$ snapshot_torture 6
~ snapshot_torture: 6 s on [124] CPUs?, seed 0x[0-9a-f]+: [1-9][0-9]* file swaps, [1-9][0-9]* from atomic context \([0-9]+ CPU swaps missed\), [0-9]+ clears, [0-9]+ reallocations, [0-9]+ reads; checked [1-9][0-9]* events on [1-9][0-9]* pages
snapshot_torture: ok
$ cat /sys/kernel/tracing/snapshot | head -4
# tracer: nop
#
#
# * Snapshot is freed *
