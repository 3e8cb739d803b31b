/*
 * bench rb:       reserve + commit of a function-sized (12-byte) event in a private ring
 *                 buffer: each CPU writing alone, then every CPU at once, per CPU.
 * bench function: one call of ftrace_test_target under the function tracer filtered to
 *                 it, against the same call with its site a NOP.
 * bench memory:   what tracing keeps per call site and per event, and what ftrace took
 *                 at boot.
 * The trace buffer is only used by `function`, which restores every setting it changes.
 */
#include <arch/cpu.h>
#include <kernel/bench.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/shell.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "bench_tracer.h"
#include "trace_internal.h"

#define BENCH_RB_BATCH 64  /* events per sample: one cycle-counter pair per 64 events */
#define BENCH_RB_PAGES 8   /* pages per CPU: small, so writers wrap and overwrite */
#define BENCH_RB_ROUNDS 10 /* the rb phases take turns this many times */
#define BENCH_FN_CALLS 100 /* calls per sample of `function` */
#define BENCH_MEMORY_EVENTS 1000

/* ---- rb ---- */

struct bench_rb_run {
    struct ring_buffer *rb;
    unsigned runs;
    unsigned writers;                 /* threads taking part in this phase */
    volatile unsigned ready, started; /* the start barrier */
    volatile bool go;
};

struct bench_rb_writer {
    struct bench_rb_run *run;
    uint64_t *samples;
    struct thread *thread;
};

static int bench_rb_writer_main(void *arg)
{
    struct bench_rb_writer *w = arg;
    struct bench_rb_run *run = w->run;

    /* The coordinator may share this CPU: let it run until every writer exists. */
    __atomic_fetch_add(&run->ready, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&run->go, __ATOMIC_ACQUIRE))
        schedule();
    /* From here nothing else needs this CPU; wait, unpreempted, until all writers are
     * here, so that "every CPU at once" really overlaps. */
    preempt_disable();
    __atomic_fetch_add(&run->started, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&run->started, __ATOMIC_ACQUIRE) < run->writers)
        arch_cpu_relax();
    uint32_t seq = 0;
    for (unsigned r = 0; r < run->runs; r++) {
        uint64_t t0 = arch_cycles();
        for (unsigned i = 0; i < BENCH_RB_BATCH; i++) {
            struct rb_reservation res;
            uint32_t *p = rb_reserve(run->rb, 12, &res);
            if (p) {
                p[0] = seq++;
                p[1] = 0;
                p[2] = 0;
                rb_commit(run->rb, &res);
            }
        }
        w->samples[r] = (arch_cycles() - t0) / BENCH_RB_BATCH;
    }
    preempt_enable();
    return 0;
}

/*
 * Runs one phase with writers on the CPUs in mask: each takes `count` samples, CPU c's
 * into samples[c * stride + first ...].
 */
static bool bench_rb_phase(struct ring_buffer *rb, unsigned count, cpumask_t mask,
                           uint64_t *samples, unsigned stride, unsigned first)
{
    struct bench_rb_run run = {.rb = rb, .runs = count};
    struct bench_rb_writer w[MAX_CPUS];
    bool ok = true;
    memset(w, 0, sizeof(w));
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if ((mask >> c) & 1)
            run.writers++;
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!((mask >> c) & 1))
            continue;
        w[c].run = &run;
        w[c].samples = samples + (size_t)c * stride + first;
        w[c].thread = kthread_create(bench_rb_writer_main, &w[c], "bench_rb", c);
        if (!w[c].thread) {
            /* The barrier must still open: count the missing writer in. */
            __atomic_fetch_add(&run.ready, 1, __ATOMIC_RELEASE);
            __atomic_fetch_add(&run.started, 1, __ATOMIC_RELEASE);
            ok = false;
        }
    }
    while (__atomic_load_n(&run.ready, __ATOMIC_ACQUIRE) < run.writers)
        sleep_ns(50 * NSEC_PER_USEC);
    __atomic_store_n(&run.go, true, __ATOMIC_RELEASE);
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (w[c].thread)
            kthread_join(w[c].thread);
    return ok;
}

static uint64_t bench_median_of(uint64_t *values, unsigned n)
{
    return bench_stats_of(values, n).median;
}

BENCH_ROW(rb, "reserve+commit of a 12-byte event: one CPU alone, then every CPU at once")
{
    unsigned runs = ctx->runs, ncpus = 0;
    cpumask_t online = cpu_online_mask();
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if ((online >> c) & 1)
            ncpus = c + 1;
    struct ring_buffer *rb = rb_create(BENCH_RB_PAGES * RB_PAGE_DATA_SIZE, ncpus);
    uint64_t *one_samples = kmalloc((size_t)MAX_CPUS * runs * sizeof(uint64_t));
    uint64_t *all_samples = kmalloc((size_t)MAX_CPUS * runs * sizeof(uint64_t));
    struct bench_stats *one = kzalloc(sizeof(*one) * MAX_CPUS);
    struct bench_stats *all = kzalloc(sizeof(*all) * MAX_CPUS);
    if (!rb || !one_samples || !all_samples || !one || !all) {
        bench_row_failed(ctx, "rb", "%s", strerror(ENOMEM));
        goto out;
    }
    /*
     * The phases take turns, a slice of the samples each, over BENCH_RB_ROUNDS rounds:
     * an emulator's host slows down and speeds up, and phases run one after the other
     * would each see a different host.
     */
    bool ok = true;
    for (unsigned round = 0; round < BENCH_RB_ROUNDS && ok; round++) {
        unsigned first = runs * round / BENCH_RB_ROUNDS;
        unsigned count = runs * (round + 1) / BENCH_RB_ROUNDS - first;
        for (unsigned c = 0; c < ncpus && ok; c++)
            if ((online >> c) & 1)
                ok = bench_rb_phase(rb, count, 1u << c, one_samples, runs, first);
        if (ok)
            ok = bench_rb_phase(rb, count, online, all_samples, runs, first);
    }
    if (!ok) {
        bench_row_failed(ctx, "rb", "cannot start writer threads");
        goto out;
    }
    for (unsigned c = 0; c < ncpus; c++) {
        if (!((online >> c) & 1))
            continue;
        one[c] = bench_stats_of(one_samples + (size_t)c * runs, runs);
        all[c] = bench_stats_of(all_samples + (size_t)c * runs, runs);
    }

    char name[32], what[64];
    uint64_t one_min[MAX_CPUS], one_med[MAX_CPUS], all_min[MAX_CPUS], all_med[MAX_CPUS];
    unsigned n = 0;
    for (unsigned c = 0; c < ncpus; c++) {
        if (!((online >> c) & 1))
            continue;
        snprintf(name, sizeof(name), "rb.one_cpu.cpu%u", c);
        snprintf(what, sizeof(what), "CPU %u writing alone, per event", c);
        bench_report_cycles(ctx, name, what, one[c]);
        snprintf(name, sizeof(name), "rb.all_cpus.cpu%u", c);
        snprintf(what, sizeof(what), "CPU %u while all %u write, per event", c, cpus_online);
        bench_report_cycles(ctx, name, what, all[c]);
        snprintf(name, sizeof(name), "rb.all_vs_one.cpu%u", c);
        snprintf(what, sizeof(what), "CPU %u: all / alone, median", c);
        bench_report_value(ctx, name, what,
                           one[c].median ? all[c].median * 1000 / one[c].median : 0, "per mille");
        one_min[n] = one[c].min;
        one_med[n] = one[c].median;
        all_min[n] = all[c].min;
        all_med[n] = all[c].median;
        n++;
    }
    /* Over CPUs: the smallest minimum and the median of the per-CPU medians. */
    struct bench_stats one_sum = {bench_stats_of(one_min, n).min, bench_median_of(one_med, n)};
    struct bench_stats all_sum = {bench_stats_of(all_min, n).min, bench_median_of(all_med, n)};
    bench_report_cycles(ctx, "rb.one_cpu", "one CPU writing alone (over CPUs)", one_sum);
    snprintf(what, sizeof(what), "each of %u CPU%s writing at once", cpus_online,
             cpus_online == 1 ? "" : "s");
    bench_report_cycles(ctx, "rb.all_cpus", what, all_sum);
    bench_report_value(ctx, "rb.all_vs_one", "all at once / alone, median (target <= 1200)",
                       one_sum.median ? all_sum.median * 1000 / one_sum.median : 0, "per mille");
out:
    if (rb)
        rb_destroy(rb);
    kfree(one_samples);
    kfree(all_samples);
    kfree(one);
    kfree(all);
}

/* ---- function ---- */

/*
 * The function rows: calls of ftrace_test_target under the function tracer, filtered to
 * it (row "function") or with every call site on (row "function_all"), against the same
 * calls with its site a NOP.
 */
static void bench_function_rows(struct bench_ctx *ctx, const char *row, bool every_site)
{
    if (ftrace_is_dead()) {
        bench_row_skipped(ctx, row, "ftrace is dead");
        return;
    }
    unsigned runs = ctx->runs;
    uint64_t *off = bench_samples_alloc(ctx, row, runs, 2), *on = off + runs;
    if (!off)
        return;
    uint64_t events;
    char why[96];
    const char *problem =
        bench_tracer_measure_on("function", every_site, off, on, runs, BENCH_FN_CALLS, &events);

    /* The warm-up's calls were traced too. With every site on, interrupts and the other
     * CPUs write events of their own: then the count may only be larger. */
    uint64_t calls = (uint64_t)(runs + 1) * BENCH_FN_CALLS;
    if (!problem && (every_site ? events < calls : events != calls)) {
        snprintf(why, sizeof(why), "%llu events written for %llu calls", (unsigned long long)events,
                 (unsigned long long)calls);
        problem = why;
    }
    if (problem) {
        bench_row_skipped(ctx, row, "%s", problem);
        goto out;
    }
    struct bench_stats u = bench_stats_of(off, runs), t = bench_stats_of(on, runs);
    /* The difference over whole samples before dividing, to keep the precision. */
    struct bench_stats over = {(t.min > u.min ? t.min - u.min : 0) / BENCH_FN_CALLS,
                               (t.median > u.median ? t.median - u.median : 0) / BENCH_FN_CALLS};
    if (every_site) {
        bench_report_cycles(ctx, "function_all.event",
                            "per traced call, every site on (min: no interrupt in it)", over);
        goto out;
    }
    struct bench_stats u_call = {u.min / BENCH_FN_CALLS, u.median / BENCH_FN_CALLS};
    struct bench_stats t_call = {t.min / BENCH_FN_CALLS, t.median / BENCH_FN_CALLS};
    bench_report_cycles(ctx, "function.untraced", "call ftrace_test_target, site a NOP", u_call);
    bench_report_cycles(ctx, "function.traced", "the same under the function tracer", t_call);
    bench_report_cycles(ctx, "function.event", "overhead per event (one per call)", over);
    bench_report_value(ctx, "function.events", "events written for as many calls", events,
                       "events");
out:
    kfree(off);
}

BENCH_ROW(function, "one traced call under the function tracer, filtered to it, against its NOP")
{
    bench_function_rows(ctx, "function", false);
}

BENCH_ROW(function_all, "the same call with the function tracer on every call site")
{
    bench_function_rows(ctx, "function_all", true);
}

/* ---- memory ---- */

/* Bytes one event with this payload takes in a ring buffer, measured: N of them written
 * into a private buffer large enough to keep them all, its byte count divided by N. */
static uint64_t bench_event_bytes(struct bench_ctx *ctx, unsigned payload)
{
    struct ring_buffer *rb =
        rb_create(BENCH_MEMORY_EVENTS * (payload + 8) + RB_PAGE_DATA_SIZE, MAX_CPUS);
    if (!rb)
        return 0;
    preempt_disable();
    unsigned cpu = this_cpu_id();
    for (unsigned i = 0; i < BENCH_MEMORY_EVENTS; i++) {
        struct rb_reservation res;
        void *p = rb_reserve(rb, payload, &res);
        if (p) {
            memset(p, 0, payload);
            rb_commit(rb, &res);
        }
    }
    preempt_enable();
    struct rb_stats st;
    rb_get_stats(rb, cpu, &st);
    rb_destroy(rb);
    if (st.entries != BENCH_MEMORY_EVENTS || st.overrun || st.dropped) {
        bench_row_failed(ctx, "memory",
                         "a private buffer lost events: the byte count is not per event");
        return 0;
    }
    return st.bytes / st.entries;
}

BENCH_ROW(memory, "bytes per call-site record and per event; ftrace's memory at boot")
{
    bench_report_value(ctx, "memory.record", "per call-site record (struct dyn_ftrace)",
                       sizeof(struct dyn_ftrace), "bytes");
    bench_report_value(ctx, "memory.function", "per function event in the ring buffer",
                       bench_event_bytes(ctx, sizeof(struct trace_fn_event)), "bytes");
    bench_report_value(ctx, "memory.graph_entry", "per graph entry event in the ring buffer",
                       bench_event_bytes(ctx, sizeof(struct trace_graph_ent_event)), "bytes");
    bench_report_value(ctx, "memory.graph_return", "per graph return event in the ring buffer",
                       bench_event_bytes(ctx, sizeof(struct trace_graph_ret_event)), "bytes");

    struct ftrace_stats fs;
    ftrace_get_stats(&fs);
    /* At boot ftrace allocates the record pages and nothing else: the filter hashes are
     * made when a filter is first written. A hash is a bitmap over the records. */
    char what[64];
    snprintf(what, sizeof(what), "ftrace at boot: %zu records in %zu pages", fs.records, fs.pages);
    bench_report_value(ctx, "memory.ftrace_boot", what, fs.pages * 4096, "bytes");
    bench_report_value(ctx, "memory.ftrace_hash", "one filter or notrace hash, when made",
                       sizeof(struct ftrace_hash) + (fs.records + 63) / 64 * 8 + 8, "bytes");
    uint64_t buffer = 0;
    for (unsigned c = 0; c < rb_ncpus(trace_global.buffer); c++)
        buffer += rb_size(trace_global.buffer, c);
    snprintf(what, sizeof(what), "trace buffer, events' bytes, %u CPU%s",
             rb_ncpus(trace_global.buffer), rb_ncpus(trace_global.buffer) == 1 ? "" : "s");
    bench_report_value(ctx, "memory.trace_buffer", what, buffer, "bytes");
}
