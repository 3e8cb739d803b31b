/*
 * bench event_trigger: what a trigger costs the event it sits on. sched_wakeup on, written
 * to this CPU's buffer, without a trigger and then with `traceoff:0`, which never fires but
 * sends every record through the out-of-line path that runs triggers on it (the slow
 * reservation, the trigger list, the commit out of line). Interrupts stay off while the
 * event is on, as in the events row. Every setting changed is put back.
 */
#include <kernel/bench.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/thread.h>
#include <kernel/trace_events.h>

#include "bench_wakeup.h"
#include "events/event_core.h"
#include "trace_internal.h"

BENCH_ROW(event_trigger, "sched_wakeup on, without a trigger and with traceoff:0 (never fires)")
{
    unsigned runs = ctx->runs;
    const struct trace_event_call *call = bench_wakeup_claim(ctx, "event_trigger");
    if (!call)
        return;
    uint64_t *base = bench_samples_alloc(ctx, "event_trigger", runs, 3), *plain = base + runs,
             *triggered = base + 2 * runs;
    if (!base)
        return;
    struct thread *me = current_thread();
    struct bench_wakeup_saved saved;
    preempt_disable();
    bench_wakeup_buffer_begin(&saved);
    trace_event_enable(call, true);
    for (unsigned r = 0; r < runs; r++) {
        base[r] = bench_wakeup_sample(me, false);
        plain[r] = bench_wakeup_sample(me, true);
    }
    preempt_enable();
    int err = bench_wakeup_trigger_write(call, "traceoff:0");
    preempt_disable();
    for (unsigned r = 0; r < runs && !err; r++)
        triggered[r] = bench_wakeup_sample(me, true);
    preempt_enable();
    if (!err)
        bench_wakeup_trigger_write(call, "!traceoff");
    trace_event_enable(call, false);
    bool still_on = rb_record_is_on(trace_global.buffer);
    bench_wakeup_buffer_end(&saved);
    if (err || !still_on) {
        bench_row_failed(ctx, "event_trigger",
                         err ? "the trigger was refused: %d" : "traceoff:0 turned tracing off (%d)",
                         err);
        kfree(base);
        return;
    }
    struct bench_stats b = bench_stats_of(base, runs), p = bench_stats_of(plain, runs),
                       t = bench_stats_of(triggered, runs);
    bench_report_cycles(ctx, "event_trigger.without", "sched_wakeup on: one record",
                        bench_wakeup_per_call(p, b));
    bench_report_cycles(ctx, "event_trigger.with", "sched_wakeup on, with traceoff:0 (never fires)",
                        bench_wakeup_per_call(t, b));
    kfree(base);
}
