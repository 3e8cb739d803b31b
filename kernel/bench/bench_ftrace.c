/*
 * bench nop:   what an idle call site costs: a traced empty function (its site a 5-byte
 *              NOP) against its twin built without -pg.
 * bench patch: what turning tracing on and off costs: boot conversion, enabling and
 *              disabling every site, enabling one function; with the sync rounds each used.
 */
#include <arch/cpu.h>
#include <arch/ftrace.h>
#include <kernel/bench.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/shell.h>
#include <kernel/smp.h>
#include <lib/printf.h>
#include <lib/string.h>

#define BENCH_NOP_CALLS 1000 /* calls per sample: one cycle-counter pair per 1000 calls */

/* Called through pointers the compiler cannot see through, so every call is a real call. */
static void (*volatile bench_traced_fn)(void) = ftrace_test_empty;
static void (*volatile bench_untraced_fn)(void) = ftrace_test_empty_untraced;

static uint64_t bench_time_calls(void (*fn)(void))
{
    uint64_t t0 = arch_cycles();
    for (unsigned i = 0; i < BENCH_NOP_CALLS; i++)
        fn();
    return arch_cycles() - t0;
}

BENCH_ROW(nop, "an idle (NOP) call site against the same function built without -pg")
{
    struct dyn_ftrace *rec = ftrace_rec_lookup((unsigned long)ftrace_test_empty);
    if (!rec || (rec->flags & FTRACE_FL_ENABLED)) {
        bench_row_skipped(ctx, "nop", "ftrace_test_empty's site is not an idle NOP now");
        return;
    }
    unsigned n = ctx->runs;
    uint64_t *traced = bench_samples_alloc(ctx, "nop", n, 2), *untraced = traced + n;
    if (!traced)
        return;
    void (*traced_fn)(void) = bench_traced_fn;
    void (*untraced_fn)(void) = bench_untraced_fn;
    /* Warm up, then alternate, so that drift and interrupts hit both sides alike. */
    bench_time_calls(traced_fn);
    bench_time_calls(untraced_fn);
    for (unsigned i = 0; i < n; i++) {
        traced[i] = bench_time_calls(traced_fn);
        untraced[i] = bench_time_calls(untraced_fn);
    }
    struct bench_stats t = bench_stats_of(traced, n), u = bench_stats_of(untraced, n);
    /* Per call, keeping one decimal's worth in the ratio below. */
    struct bench_stats t_call = {t.min / BENCH_NOP_CALLS, t.median / BENCH_NOP_CALLS};
    struct bench_stats u_call = {u.min / BENCH_NOP_CALLS, u.median / BENCH_NOP_CALLS};
    bench_report_cycles(ctx, "nop.traced", "call ftrace_test_empty (site: 5-byte NOP)", t_call);
    bench_report_cycles(ctx, "nop.untraced", "call ftrace_test_empty_untraced (no -pg)", u_call);
    bench_report_value(ctx, "nop.ratio", "traced / untraced, median per call",
                       u.median ? t.median * 1000 / u.median : 0, "per mille");
    kfree(traced);
}

/* notrace: with the op on every function, a traced callback would trace itself. */
static notrace void bench_empty_callback(unsigned long ip, unsigned long parent_ip,
                                         struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

struct bench_toggle {
    uint64_t *on_cycles, *off_cycles;
    uint64_t on_rounds, off_rounds; /* sync rounds of the last register / unregister */
    uint64_t on_batches, off_batches;
    size_t sites;       /* sites the last register patched */
    bool rounds_steady; /* every register and every unregister used the same count */
};

/* Registers and unregisters ops `runs` times, timing each and counting its sync rounds. */
static int bench_toggle_op(struct ftrace_ops *ops, unsigned runs, struct bench_toggle *b)
{
    b->rounds_steady = true;
    for (unsigned i = 0; i < runs; i++) {
        struct ftrace_stats s0, s1, s2;
        ftrace_get_stats(&s0);
        uint64_t r0 = smp_sync_rounds();
        uint64_t t0 = arch_cycles();
        int err = register_ftrace_function(ops);
        uint64_t t1 = arch_cycles();
        uint64_t r1 = smp_sync_rounds();
        if (err)
            return err;
        ftrace_get_stats(&s1);
        err = unregister_ftrace_function(ops);
        uint64_t t2 = arch_cycles();
        uint64_t r2 = smp_sync_rounds();
        if (err)
            return err;
        ftrace_get_stats(&s2);
        if (i && (r1 - r0 != b->on_rounds || r2 - r1 != b->off_rounds))
            b->rounds_steady = false;
        b->on_cycles[i] = t1 - t0;
        b->off_cycles[i] = t2 - t1;
        b->on_rounds = r1 - r0;
        b->off_rounds = r2 - r1;
        b->on_batches = s1.batches - s0.batches;
        b->off_batches = s2.batches - s1.batches;
        b->sites = s1.sites_patched - s0.sites_patched;
    }
    return 0;
}

static void bench_report_toggle(struct bench_ctx *ctx, const char *prefix,
                                const struct bench_toggle *b, unsigned runs)
{
    char name[40], what[64];
    struct bench_stats on = bench_stats_of(b->on_cycles, runs);
    struct bench_stats off = bench_stats_of(b->off_cycles, runs);
    size_t sites = b->sites ? b->sites : 1;

    snprintf(name, sizeof(name), "%s.on", prefix);
    snprintf(what, sizeof(what), "register: patch %zu site%s, one batch", b->sites,
             b->sites == 1 ? "" : "s");
    bench_report_cycles(ctx, name, what, on);
    snprintf(name, sizeof(name), "%s.on_rounds", prefix);
    snprintf(what, sizeof(what), "sync rounds per register (%llu batch%s)%s",
             (unsigned long long)b->on_batches, b->on_batches == 1 ? "" : "es",
             b->rounds_steady ? "" : ", varied");
    bench_report_value(ctx, name, what, b->on_rounds, "rounds");
    snprintf(name, sizeof(name), "%s.off", prefix);
    snprintf(what, sizeof(what), "unregister: patch back, wait for callbacks");
    bench_report_cycles(ctx, name, what, off);
    snprintf(name, sizeof(name), "%s.off_rounds", prefix);
    snprintf(what, sizeof(what), "sync rounds per unregister (%llu batch%s + 1 wait)",
             (unsigned long long)b->off_batches, b->off_batches == 1 ? "" : "es");
    bench_report_value(ctx, name, what, b->off_rounds, "rounds");
    if (sites > 1) {
        struct bench_stats on_site = {on.min / sites, on.median / sites};
        struct bench_stats off_site = {off.min / sites, off.median / sites};
        snprintf(name, sizeof(name), "%s.on_site", prefix);
        bench_report_cycles(ctx, name, "register, per site", on_site);
        snprintf(name, sizeof(name), "%s.off_site", prefix);
        bench_report_cycles(ctx, name, "unregister, per site", off_site);
    }
}

BENCH_ROW(patch, "boot conversion, enabling and disabling all sites, enabling one function")
{
    struct ftrace_stats st;
    ftrace_get_stats(&st);
    size_t usable = st.records - st.disabled;
    bench_report_value(ctx, "patch.sites", "call sites in the kernel (patchable)", usable, "sites");
    bench_report_value(ctx, "patch.boot_per_site", "boot: verify and NOP one site",
                       usable ? st.boot_convert_ns / usable : 0, "ns");
    if (ftrace_is_dead()) {
        bench_row_skipped(ctx, "patch", "dynamic ftrace is disabled");
        return;
    }
    /* Each run patches every site twice with three sync rounds each: keep it modest. */
    unsigned runs = ctx->short_mode ? 3 : 30;
    struct bench_toggle b = {0};
    b.on_cycles = kmalloc(runs * sizeof(uint64_t));
    b.off_cycles = kmalloc(runs * sizeof(uint64_t));
    struct ftrace_hash *one = ftrace_hash_alloc();
    struct ftrace_ops ops = {.func = bench_empty_callback, .tramp_slot = -1};
    if (!b.on_cycles || !b.off_cycles || !one) {
        kfree(b.on_cycles);
        kfree(b.off_cycles);
        ftrace_hash_free(one);
        bench_row_failed(ctx, "patch", "%s", strerror(ENOMEM));
        return;
    }

    int err = bench_toggle_op(&ops, runs, &b);
    if (!err)
        bench_report_toggle(ctx, "patch.all", &b, runs);

    if (!err && ftrace_hash_apply_glob(one, "ftrace_test_target") > 0) {
        ftrace_ops_set_hashes(&ops, one, NULL);
        one = NULL;
        err = bench_toggle_op(&ops, runs, &b);
        if (!err)
            bench_report_toggle(ctx, "patch.one", &b, runs);
    }
    if (err)
        bench_row_failed(ctx, "patch", "%s", strerror(-err));
    ftrace_ops_set_hashes(&ops, NULL, NULL);
    ftrace_hash_free(one);
    kfree(b.on_cycles);
    kfree(b.off_cycles);
}
