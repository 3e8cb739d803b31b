/*
 * bench latency: what the latency hooks cost, per pair: interrupts off and on
 * (local_irq_save/restore) and preemption off and on (preempt_disable/enable), with
 * nothing listening (the one byte test each site makes), under the latency tracer that
 * times that kind of section (function-trace off: a section's start, its end and the
 * check), and with the preemptirq events of that kind on (two records). Each is over the
 * same loop without the pair; the raw arch pair (no hook at all) is shown for comparison.
 * The pairs run with interrupts and preemption on, as real sections start there. Every
 * setting changed is put back.
 */
#include <arch/cpu.h>
#include <kernel/bench.h>
#include <kernel/errno.h>
#include <kernel/irqflags.h>
#include <kernel/mm.h>
#include <kernel/shell.h>
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "trace_internal.h"

#define BENCH_LAT_PAIRS 100

enum bench_lat_pair { PAIR_NONE, PAIR_IRQ_RAW, PAIR_IRQ, PAIR_PREEMPT };

static uint64_t bench_lat_sample(enum bench_lat_pair pair)
{
    uint64_t t0 = arch_cycles();
    for (unsigned i = 0; i < BENCH_LAT_PAIRS; i++) {
        switch (pair) {
        case PAIR_IRQ_RAW: {
            unsigned long f = arch_irq_save();
            arch_irq_restore(f);
            break;
        }
        case PAIR_IRQ: {
            unsigned long f = local_irq_save();
            local_irq_restore(f);
            break;
        }
        case PAIR_PREEMPT:
            preempt_disable();
            preempt_enable();
            break;
        case PAIR_NONE:
            break;
        }
        barrier();
    }
    return arch_cycles() - t0;
}

static struct bench_stats bench_lat_over(struct bench_stats a, struct bench_stats base)
{
    return (struct bench_stats){(a.min > base.min ? a.min - base.min : 0) / BENCH_LAT_PAIRS,
                                (a.median > base.median ? a.median - base.median : 0) /
                                    BENCH_LAT_PAIRS};
}

/* Samples of pair, and of the empty loop beside them, reported over it as name. */
static void bench_lat_measure(struct bench_ctx *ctx, uint64_t *base, uint64_t *samples,
                              enum bench_lat_pair pair, const char *name, const char *what)
{
    unsigned runs = ctx->runs;
    for (unsigned r = 0; r < runs; r++) {
        base[r] = bench_lat_sample(PAIR_NONE);
        samples[r] = bench_lat_sample(pair);
    }
    bench_report_cycles(ctx, name, what,
                        bench_lat_over(bench_stats_of(samples, runs), bench_stats_of(base, runs)));
}

/* Turns both preemptirq events of a kind on or off; false if either is missing or on. */
static bool bench_lat_events(const char *a, const char *b, bool on)
{
    const struct trace_event_call *ca = trace_event_find("preemptirq", a);
    const struct trace_event_call *cb = trace_event_find("preemptirq", b);
    if (!ca || !cb || (on && (trace_event_is_enabled(ca) || trace_event_is_enabled(cb))))
        return false;
    trace_event_enable(ca, on);
    trace_event_enable(cb, on);
    return true;
}

static void bench_lat_kind(struct bench_ctx *ctx, uint64_t *base, uint64_t *samples,
                           enum bench_lat_pair pair, const char *kind, const char *tracer,
                           const char *ev_off, const char *ev_on)
{
    char name[48], what[80];
    snprintf(name, sizeof(name), "latency.%s.off", kind);
    snprintf(what, sizeof(what), "%s pair, hooks off", kind);
    bench_lat_measure(ctx, base, samples, pair, name, what);

    int err = trace_set_tracer(tracer);
    if (err) {
        bench_row_failed(ctx, "latency", "%s: %s", tracer, strerror(-err));
        return;
    }
    snprintf(name, sizeof(name), "latency.%s.%s", kind, tracer);
    snprintf(what, sizeof(what), "%s pair under %s", kind, tracer);
    bench_lat_measure(ctx, base, samples, pair, name, what);
    trace_set_tracer("nop");

    if (!bench_lat_events(ev_off, ev_on, true)) {
        bench_row_skipped(ctx, "latency", "preemptirq:%s or %s is on", ev_off, ev_on);
        return;
    }
    snprintf(name, sizeof(name), "latency.%s.events", kind);
    snprintf(what, sizeof(what), "%s pair, %s and %s on", kind, ev_off, ev_on);
    bench_lat_measure(ctx, base, samples, pair, name, what);
    bench_lat_events(ev_off, ev_on, false);
}

BENCH_ROW(latency, "interrupt and preemption pairs: hooks off, under their tracer, events on")
{
    const struct tracer *t = trace_global.current;
    if (!t || strcmp(t->name, "nop") != 0 || tracing_snapshot_allocated(&trace_global)) {
        bench_row_skipped(ctx, "latency", "a tracer runs or a snapshot is allocated");
        return;
    }
    uint64_t *base = bench_samples_alloc(ctx, "latency", ctx->runs, 2);
    if (!base)
        return;
    uint64_t *samples = base + ctx->runs;
    bool function_trace = trace_opt(TRACE_OPT_FUNCTION_TRACE);
    bool was_on = rb_record_is_on(trace_global.buffer);
    trace_set_option(TRACE_OPT_FUNCTION_TRACE, false);

    bench_lat_measure(ctx, base, samples, PAIR_IRQ_RAW, "latency.irq.raw",
                      "irq pair, arch only (no hook)");
    bench_lat_kind(ctx, base, samples, PAIR_IRQ, "irq", "irqsoff", "irq_disable", "irq_enable");
    bench_lat_kind(ctx, base, samples, PAIR_PREEMPT, "preempt", "preemptoff", "preempt_disable",
                   "preempt_enable");

    trace_set_option(TRACE_OPT_FUNCTION_TRACE, function_trace);
    trace_set_on(false);
    trace_clear(-1);
    trace_snapshot_write(&trace_global, -1, 0);
    trace_set_on(was_on);
    kfree(base);
}
