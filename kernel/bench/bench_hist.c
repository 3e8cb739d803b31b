/*
 * bench hist_trigger: what a two-key hist trigger (`hist:keys=pid,prio:vals=target_cpu`)
 * costs the event it sits on: sched_wakeup written by this CPU with the trigger and the
 * event off (the record is built for the trigger alone, as Linux's temp buffer), and with
 * the event recording too. The keys are the same each time, so every event finds its
 * entry: the map's steady state. Interrupts stay off around each sample, as in the
 * event_trigger row; every setting changed is put back.
 */
#include <arch/cpu.h>
#include <kernel/bench.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/thread.h>
#include <kernel/trace_events.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "events/event_files.h"
#include "events/event_trigger.h"
#include "trace_internal.h"

#define BENCH_HIST_CALLS 100
#define BENCH_HIST_TRIGGER "hist:keys=pid,prio:vals=target_cpu"

static uint64_t bench_hist_sample(struct thread *me, bool call)
{
    unsigned long irq = arch_irq_save();
    uint64_t t0 = arch_cycles();
    for (unsigned i = 0; i < BENCH_HIST_CALLS; i++) {
        if (call)
            trace_sched_wakeup(me);
        barrier();
    }
    uint64_t t = arch_cycles() - t0;
    arch_irq_restore(irq);
    return t;
}

static struct bench_stats bench_hist_over(struct bench_stats a, struct bench_stats base)
{
    return (struct bench_stats){(a.min > base.min ? a.min - base.min : 0) / BENCH_HIST_CALLS,
                                (a.median > base.median ? a.median - base.median : 0) /
                                    BENCH_HIST_CALLS};
}

static int bench_hist_write(const struct trace_event_call *call, const char *text)
{
    pfs_control_lock();
    ssize_t n = trace_event_trigger_store((void *)call, text, strlen(text));
    pfs_control_unlock();
    return n < 0 ? (int)n : 0;
}

BENCH_ROW(hist_trigger, "sched_wakeup with hist:keys=pid,prio:vals=target_cpu, off and on")
{
    unsigned runs = ctx->runs;
    const struct trace_event_call *call = trace_event_find("sched", "sched_wakeup");
    if (!call || trace_event_is_registered(call) || trace_event_has_triggers(call) ||
        trace_event_pids[TRACE_EVENT_PIDS_TRACE].count ||
        trace_event_pids[TRACE_EVENT_PIDS_NOTRACE].count) {
        bench_row_skipped(ctx, "hist_trigger", "sched_wakeup is in use, or set_event_pid is set");
        return;
    }
    uint64_t *base = bench_samples_alloc(ctx, "hist_trigger", runs, 3), *off = base + runs,
             *on = base + 2 * runs;
    if (!base)
        return;
    struct thread *me = current_thread();
    bool was_on = rb_record_is_on(trace_global.buffer);
    uint32_t cpumask = trace_global.cpumask;
    int err = bench_hist_write(call, BENCH_HIST_TRIGGER);
    preempt_disable();
    trace_set_cpumask(cpumask | 1u << this_cpu_id());
    trace_set_on(false);
    trace_clear(this_cpu_id());
    trace_set_on(true);
    for (unsigned r = 0; r < runs && !err; r++) {
        base[r] = bench_hist_sample(me, false);
        off[r] = bench_hist_sample(me, true);
    }
    preempt_enable();
    trace_event_enable(call, true);
    preempt_disable();
    for (unsigned r = 0; r < runs && !err; r++)
        on[r] = bench_hist_sample(me, true);
    preempt_enable();
    trace_event_enable(call, false);
    if (!err)
        bench_hist_write(call, "!" BENCH_HIST_TRIGGER);
    trace_set_on(false);
    trace_clear(-1);
    trace_set_cpumask(cpumask);
    trace_set_on(was_on);
    if (err) {
        bench_row_failed(ctx, "hist_trigger", "the trigger was refused: %d", err);
        kfree(base);
        return;
    }
    struct bench_stats b = bench_stats_of(base, runs), f = bench_stats_of(off, runs),
                       n = bench_stats_of(on, runs);
    bench_report_cycles(ctx, "hist_trigger.off",
                        "sched_wakeup off, two-key hist trigger: one event", bench_hist_over(f, b));
    bench_report_cycles(ctx, "hist_trigger.on", "sched_wakeup on, two-key hist trigger: one record",
                        bench_hist_over(n, b));
    kfree(base);
}
