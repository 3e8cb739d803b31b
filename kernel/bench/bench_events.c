/*
 * bench events: the cost of a tracepoint, per event, with the event off (its inline
 * enabled-byte test, against the same loop without the tracepoint) and on (the whole
 * record written to this CPU's buffer). Interrupts stay off while the event is on, so
 * every record in this CPU's buffer is one of the samples'. Every setting changed is put back.
 */
#include <arch/cpu.h>
#include <kernel/bench.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/shell.h>
#include <kernel/thread.h>
#include <kernel/trace_events.h>
#include <lib/printf.h>

#include "events/event_core.h"
#include "events/event_files.h"
#include "trace_internal.h"

#define BENCH_EV_CALLS 100

enum bench_ev { EV_NONE, EV_SCHED_SWITCH, EV_SCHED_WAKEUP, EV_IRQ_ENTRY, EV_LOCAL_TIMER };

static const struct {
    const char *system, *name;
} bench_ev_names[] = {
    [EV_SCHED_SWITCH] = {"sched", "sched_switch"},
    [EV_SCHED_WAKEUP] = {"sched", "sched_wakeup"},
    [EV_IRQ_ENTRY] = {"irq", "irq_handler_entry"},
    [EV_LOCAL_TIMER] = {"irq_vectors", "local_timer_entry"},
};

/* Cycles of BENCH_EV_CALLS tracepoint calls (or empty iterations for EV_NONE). */
static uint64_t bench_ev_sample(enum bench_ev ev, struct thread *me)
{
    unsigned long irq = arch_irq_save();
    uint64_t t0 = arch_cycles();
    for (unsigned i = 0; i < BENCH_EV_CALLS; i++) {
        switch (ev) {
        case EV_SCHED_SWITCH:
            trace_sched_switch(me, me);
            break;
        case EV_SCHED_WAKEUP:
            trace_sched_wakeup(me);
            break;
        case EV_IRQ_ENTRY:
            trace_irq_handler_entry(4, "ttyS0");
            break;
        case EV_LOCAL_TIMER:
            trace_local_timer_entry(0xe0);
            break;
        case EV_NONE:
            break;
        }
        barrier();
    }
    uint64_t t = arch_cycles() - t0;
    arch_irq_restore(irq);
    return t;
}

static uint64_t bench_ev_written_here(void)
{
    struct rb_stats st;
    rb_get_stats(trace_global.buffer, this_cpu_id(), &st);
    return st.entries + st.overrun;
}

static struct bench_stats over(struct bench_stats a, struct bench_stats base)
{
    return (struct bench_stats){(a.min > base.min ? a.min - base.min : 0) / BENCH_EV_CALLS,
                                (a.median > base.median ? a.median - base.median : 0) /
                                    BENCH_EV_CALLS};
}

BENCH_ROW(events, "tracepoints per event: off (the enabled-byte test) and on (a record)")
{
    unsigned runs = ctx->runs;
    uint64_t *base = bench_samples_alloc(ctx, "events", runs, 3), *off = base + runs,
             *on = base + 2 * runs;
    if (!base)
        return;
    for (size_t e = EV_SCHED_SWITCH; e < ARRAY_SIZE(bench_ev_names); e++) {
        const struct trace_event_call *call =
            trace_event_find(bench_ev_names[e].system, bench_ev_names[e].name);
        char name[48], what[64];
        if (!call || trace_event_is_enabled(call) ||
            trace_event_pids[TRACE_EVENT_PIDS_TRACE].count ||
            trace_event_pids[TRACE_EVENT_PIDS_NOTRACE].count) {
            bench_row_skipped(ctx, "events", "%s is on, or set_event_pid is set",
                              bench_ev_names[e].name);
            continue;
        }
        struct thread *me = current_thread();
        preempt_disable();
        for (unsigned r = 0; r < runs; r++) {
            base[r] = bench_ev_sample(EV_NONE, me);
            off[r] = bench_ev_sample(e, me);
        }
        bool was_on = rb_record_is_on(trace_global.buffer);
        uint32_t cpumask = trace_global.cpumask;
        trace_set_cpumask(cpumask | 1u << this_cpu_id());
        trace_set_on(false);
        trace_clear(this_cpu_id());
        trace_set_on(true);
        /* Interrupts off from enable to disable: no real timer tick or device interrupt
         * adds a record of its own to this CPU's count. */
        unsigned long irq = arch_irq_save();
        trace_event_enable(call, true);
        for (unsigned r = 0; r < runs; r++)
            on[r] = bench_ev_sample(e, me);
        trace_event_enable(call, false);
        arch_irq_restore(irq);
        uint64_t written = bench_ev_written_here();
        trace_set_on(false);
        trace_clear(this_cpu_id());
        trace_set_cpumask(cpumask);
        trace_set_on(was_on);
        preempt_enable();

        struct bench_stats b = bench_stats_of(base, runs), o = bench_stats_of(off, runs),
                           n = bench_stats_of(on, runs);
        snprintf(name, sizeof(name), "events.off.%s", bench_ev_names[e].name);
        snprintf(what, sizeof(what), "%s off, over an empty loop", bench_ev_names[e].name);
        bench_report_cycles(ctx, name, what, over(o, b));
        snprintf(name, sizeof(name), "events.on.%s", bench_ev_names[e].name);
        snprintf(what, sizeof(what), "%s on: one record", bench_ev_names[e].name);
        bench_report_cycles(ctx, name, what, over(n, b));
        if (written != (uint64_t)runs * BENCH_EV_CALLS)
            bench_row_failed(ctx, "events", "%s: %llu records for %llu calls",
                             bench_ev_names[e].name, (unsigned long long)written,
                             (unsigned long long)runs * BENCH_EV_CALLS);
    }
    kfree(base);
}
