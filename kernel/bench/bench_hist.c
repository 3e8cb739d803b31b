/*
 * bench hist_trigger: what a two-key hist trigger (`hist:keys=pid,prio:vals=target_cpu`)
 * costs the event it sits on: sched_wakeup written by this CPU with the trigger and the
 * event off (the record is built for the trigger alone, as Linux's temp buffer), and with
 * the event recording too. The keys are the same each time, so every event finds its
 * entry: the map's steady state. Interrupts stay off around each sample, as in the
 * event_trigger row; every setting changed is put back.
 */
#include <kernel/bench.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/thread.h>
#include <kernel/trace_events.h>

#include "bench_wakeup.h"
#include "events/event_core.h"
#include "trace_internal.h"

#define BENCH_HIST_TRIGGER "hist:keys=pid,prio:vals=target_cpu"

BENCH_ROW(hist_trigger, "sched_wakeup with hist:keys=pid,prio:vals=target_cpu, off and on")
{
    unsigned runs = ctx->runs;
    const struct trace_event_call *call = bench_wakeup_claim(ctx, "hist_trigger");
    if (!call)
        return;
    uint64_t *base = bench_samples_alloc(ctx, "hist_trigger", runs, 3), *off = base + runs,
             *on = base + 2 * runs;
    if (!base)
        return;
    struct thread *me = current_thread();
    struct bench_wakeup_saved saved;
    int err = bench_wakeup_trigger_write(call, BENCH_HIST_TRIGGER);
    preempt_disable();
    bench_wakeup_buffer_begin(&saved);
    for (unsigned r = 0; r < runs && !err; r++) {
        base[r] = bench_wakeup_sample(me, false);
        off[r] = bench_wakeup_sample(me, true);
    }
    preempt_enable();
    trace_event_enable(call, true);
    preempt_disable();
    for (unsigned r = 0; r < runs && !err; r++)
        on[r] = bench_wakeup_sample(me, true);
    preempt_enable();
    trace_event_enable(call, false);
    if (!err)
        bench_wakeup_trigger_write(call, "!" BENCH_HIST_TRIGGER);
    bench_wakeup_buffer_end(&saved);
    if (err) {
        bench_row_failed(ctx, "hist_trigger", "the trigger was refused: %d", err);
        kfree(base);
        return;
    }
    struct bench_stats b = bench_stats_of(base, runs), f = bench_stats_of(off, runs),
                       n = bench_stats_of(on, runs);
    bench_report_cycles(ctx, "hist_trigger.off",
                        "sched_wakeup off, two-key hist trigger: one event",
                        bench_wakeup_per_call(f, b));
    bench_report_cycles(ctx, "hist_trigger.on", "sched_wakeup on, two-key hist trigger: one record",
                        bench_wakeup_per_call(n, b));
    kfree(base);
}
