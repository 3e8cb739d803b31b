/* The sched_wakeup event as the event_trigger and hist_trigger rows time it (bench_wakeup.h). */
#include <arch/cpu.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/thread.h>
#include <kernel/trace_events.h>
#include <lib/string.h>

#include "bench_wakeup.h"
#include "events/event_core.h"
#include "events/event_files.h"
#include "events/event_trigger.h"
#include "trace_internal.h"

const struct trace_event_call *bench_wakeup_claim(struct bench_ctx *ctx, const char *row)
{
    const struct trace_event_call *call = trace_event_find("sched", "sched_wakeup");
    if (!call || trace_event_is_registered(call) || trace_event_has_triggers(call) ||
        trace_event_pids[TRACE_EVENT_PIDS_TRACE].count ||
        trace_event_pids[TRACE_EVENT_PIDS_NOTRACE].count) {
        bench_row_skipped(ctx, row, "sched_wakeup is in use, or set_event_pid is set");
        return NULL;
    }
    return call;
}

int bench_wakeup_trigger_write(const struct trace_event_call *call, const char *text)
{
    pfs_control_lock();
    ssize_t n = trace_event_trigger_store((void *)call, text, strlen(text));
    pfs_control_unlock();
    return n < 0 ? (int)n : 0;
}

uint64_t bench_wakeup_sample(struct thread *me, bool call)
{
    unsigned long irq = arch_irq_save();
    uint64_t t0 = arch_cycles();
    for (unsigned i = 0; i < BENCH_WAKEUP_CALLS; i++) {
        if (call)
            trace_sched_wakeup(me);
        barrier();
    }
    uint64_t t = arch_cycles() - t0;
    arch_irq_restore(irq);
    return t;
}

struct bench_stats bench_wakeup_per_call(struct bench_stats a, struct bench_stats base)
{
    return (struct bench_stats){(a.min > base.min ? a.min - base.min : 0) / BENCH_WAKEUP_CALLS,
                                (a.median > base.median ? a.median - base.median : 0) /
                                    BENCH_WAKEUP_CALLS};
}

void bench_wakeup_buffer_begin(struct bench_wakeup_saved *s)
{
    s->on = rb_record_is_on(trace_global.buffer);
    s->cpumask = trace_global.cpumask;
    trace_set_cpumask(s->cpumask | 1u << this_cpu_id());
    trace_set_on(false);
    trace_clear(this_cpu_id());
    trace_set_on(true);
}

void bench_wakeup_buffer_end(const struct bench_wakeup_saved *s)
{
    trace_set_on(false);
    trace_clear(-1);
    trace_set_cpumask(s->cpumask);
    trace_set_on(s->on);
}
