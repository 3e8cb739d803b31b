/*
 * bench event_trigger: what a trigger costs the event it sits on. sched_wakeup on, written
 * to this CPU's buffer, without a trigger and then with `traceoff:0`, which never fires but
 * sends every record through the out-of-line path that runs triggers on it (the slow
 * reservation, the trigger list, the commit out of line). Interrupts stay off while the
 * event is on, as in the events row. Every setting changed is put back.
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

#define BENCH_TRIGGER_CALLS 100

/* Cycles of BENCH_TRIGGER_CALLS wakeup tracepoints (or as many empty iterations). */
static uint64_t bench_trigger_sample(struct thread *me, bool call)
{
    unsigned long irq = arch_irq_save();
    uint64_t t0 = arch_cycles();
    for (unsigned i = 0; i < BENCH_TRIGGER_CALLS; i++) {
        if (call)
            trace_sched_wakeup(me);
        barrier();
    }
    uint64_t t = arch_cycles() - t0;
    arch_irq_restore(irq);
    return t;
}

static struct bench_stats bench_trigger_over(struct bench_stats a, struct bench_stats base)
{
    return (struct bench_stats){(a.min > base.min ? a.min - base.min : 0) / BENCH_TRIGGER_CALLS,
                                (a.median > base.median ? a.median - base.median : 0) /
                                    BENCH_TRIGGER_CALLS};
}

/* As a write to the event's trigger file, under the lock every file operation holds. */
static int bench_trigger_write(const struct trace_event_call *call, const char *text)
{
    pfs_control_lock();
    ssize_t n = trace_event_trigger_store((void *)call, text, strlen(text));
    pfs_control_unlock();
    return n < 0 ? (int)n : 0;
}

BENCH_ROW(event_trigger, "sched_wakeup on, without a trigger and with traceoff:0 (never fires)")
{
    unsigned runs = ctx->runs;
    const struct trace_event_call *call = trace_event_find("sched", "sched_wakeup");
    if (!call || trace_event_is_registered(call) || trace_event_has_triggers(call) ||
        trace_event_pids[TRACE_EVENT_PIDS_TRACE].count ||
        trace_event_pids[TRACE_EVENT_PIDS_NOTRACE].count) {
        bench_row_skipped(ctx, "event_trigger", "sched_wakeup is in use, or set_event_pid is set");
        return;
    }
    uint64_t *base = bench_samples_alloc(ctx, "event_trigger", runs, 3), *plain = base + runs,
             *triggered = base + 2 * runs;
    if (!base)
        return;
    struct thread *me = current_thread();
    bool was_on = rb_record_is_on(trace_global.buffer);
    uint32_t cpumask = trace_global.cpumask;
    preempt_disable();
    trace_set_cpumask(cpumask | 1u << this_cpu_id());
    trace_set_on(false);
    trace_clear(this_cpu_id());
    trace_set_on(true);
    trace_event_enable(call, true);
    for (unsigned r = 0; r < runs; r++) {
        base[r] = bench_trigger_sample(me, false);
        plain[r] = bench_trigger_sample(me, true);
    }
    preempt_enable();
    /* Adding a trigger waits for other CPUs: not with preemption off. */
    int err = bench_trigger_write(call, "traceoff:0");
    preempt_disable();
    for (unsigned r = 0; r < runs && !err; r++)
        triggered[r] = bench_trigger_sample(me, true);
    preempt_enable();
    if (!err)
        bench_trigger_write(call, "!traceoff");
    trace_event_enable(call, false);
    bool still_on = rb_record_is_on(trace_global.buffer);
    trace_set_on(false);
    trace_clear(-1);
    trace_set_cpumask(cpumask);
    trace_set_on(was_on);
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
                        bench_trigger_over(p, b));
    bench_report_cycles(ctx, "event_trigger.with", "sched_wakeup on, with traceoff:0 (never fires)",
                        bench_trigger_over(t, b));
    kfree(base);
}
