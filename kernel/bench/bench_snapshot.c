/*
 * bench snapshot: what a snapshot costs its caller. A write of `1` to the snapshot file,
 * as `make bench-linux` times one on Linux (one open file, each write timed: the file's
 * write path, the parse, the mutex and the swap, in which every CPU swaps in a cross-CPU
 * call the writer waits for); the same swap called directly, without the file; and one
 * as the function command or an event trigger takes it (this CPU swaps, the others are
 * sent a call that is not waited for). Swaps come in pairs, so the trace ends where it
 * was; the row allocates the snapshot and frees it again, and skips when one is allocated
 * already.
 */
#include <arch/cpu.h>
#include <kernel/bench.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/pseudofs.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "trace_internal.h"

BENCH_ROW(snapshot, "a snapshot swap: a write to the file, a direct call (every CPU, waited for), "
                    "from a trigger")
{
    struct trace_array *tr = &trace_global;
    if (tracing_snapshot_allocated(tr)) {
        bench_row_skipped(ctx, "snapshot", "a snapshot is allocated already");
        return;
    }
    if (tracing_alloc_snapshot(tr) != 0) {
        bench_row_failed(ctx, "snapshot", "no memory for the snapshot buffer");
        return;
    }
    unsigned n = ctx->runs & ~1u;
    uint64_t *samples = bench_samples_alloc(ctx, "snapshot", n, 3);
    if (!samples) {
        trace_snapshot_write(tr, -1, 0);
        return;
    }
    /* Opened once, as Linux's loop opens it: the open is not what is measured. */
    struct pfs_file *f;
    int err = pfs_open(NULL, TRACEFS_ROOT "/snapshot", PFS_WRITE, &f);
    for (unsigned i = 0; i < n && !err; i++) {
        uint64_t t0 = arch_cycles();
        ssize_t written = pfs_write(f, "1", 1);
        samples[2 * n + i] = arch_cycles() - t0;
        if (written != 1)
            err = written < 0 ? (int)written : -EIO;
    }
    if (!err)
        err = pfs_close(f);
    else if (f)
        pfs_close(f);
    if (err) {
        bench_row_failed(ctx, "snapshot", "a write of 1 to snapshot: %s", strerror(-err));
        kfree(samples);
        trace_snapshot_write(tr, -1, 0);
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        uint64_t t0 = arch_cycles();
        trace_snapshot_write(tr, -1, 1);
        samples[i] = arch_cycles() - t0;
    }
    unsigned long missed = READ_ONCE(tr->snapshot_missed);
    for (unsigned i = 0; i < n; i++) {
        preempt_disable();
        uint64_t t0 = arch_cycles();
        tracing_snapshot(tr);
        samples[n + i] = arch_cycles() - t0;
        preempt_enable();
        /* Each CPU's call lands before the next request, which would merge with it. */
        smp_sync_all();
    }
    missed = READ_ONCE(tr->snapshot_missed) - missed;
    char what[64];
    snprintf(what, sizeof(what), "a write of 1 to snapshot, %u CPU%s", cpus_online,
             cpus_online == 1 ? "" : "s");
    bench_report_cycles(ctx, "snapshot.write", what, bench_stats_of(samples + 2 * n, n));
    bench_report_cycles(ctx, "snapshot.swap_all", "trace_snapshot_write(1), no file",
                        bench_stats_of(samples, n));
    bench_report_cycles(ctx, "snapshot.trigger", "tracing_snapshot(), to its caller",
                        bench_stats_of(samples + n, n));
    bench_report_value(ctx, "snapshot.missed", "CPU swaps a trigger's snapshot missed", missed,
                       "swaps");
    kfree(samples);
    trace_snapshot_write(tr, -1, 0);
}
