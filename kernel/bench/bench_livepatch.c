/*
 * bench livepatch: what a live-patched call costs. The same function called while its
 * site is an idle NOP and while a patch sends it to its new version (site -> regs-saving
 * trampoline -> the livepatch handler -> the new version), and how long a patching
 * transition takes on an idle system.
 */
#include <arch/cpu.h>
#include <kernel/bench.h>
#include <kernel/errno.h>
#include <kernel/livepatch.h>
#include <kernel/mm.h>
#include <kernel/shell.h>
#include <kernel/time.h>

#define BENCH_KLP_CALLS 1000 /* calls per sample */

int bench_klp_target(int a);
int bench_klp_target_v2(int a);

/* The old and the new version do the same work, so the difference is the redirection. */
__noinline int bench_klp_target(int a) { return a + 1; }
__noinline int bench_klp_target_v2(int a) { return a + 1; }

static int (*volatile bench_klp_fn)(int) = bench_klp_target;

static struct klp_func bench_klp_funcs[] = {
    {.old_name = "bench_klp_target", .new_func = bench_klp_target_v2}, {}};
static struct klp_object bench_klp_objs[] = {{.funcs = bench_klp_funcs}, {}};
static struct klp_patch bench_klp_patch = {.name = "bench_klp", .objs = bench_klp_objs};

static uint64_t bench_klp_time_calls(int (*fn)(int))
{
    int acc = 0;
    uint64_t t0 = arch_cycles();
    for (unsigned i = 0; i < BENCH_KLP_CALLS; i++)
        acc = fn(acc);
    uint64_t t = arch_cycles() - t0;
    barrier();
    return acc == BENCH_KLP_CALLS ? t : 0;
}

BENCH_ROW(livepatch, "a live-patched call against the same call unpatched; a transition")
{
    if (!bench_klp_patch.initialized && klp_init_patch(&bench_klp_patch) != 0) {
        bench_row_skipped(ctx, "livepatch", "cannot resolve bench_klp_target");
        return;
    }
    unsigned n = ctx->runs;
    uint64_t *plain = bench_samples_alloc(ctx, "livepatch", n, 3), *patched = plain + n,
             *transition = plain + 2 * n;
    if (!plain)
        return;
    int (*fn)(int) = bench_klp_fn;
    bool ok = true;
    bench_klp_time_calls(fn);
    for (unsigned i = 0; i < n && ok; i++)
        ok = (plain[i] = bench_klp_time_calls(fn)) != 0;
    /* Each round patches and unpatches, so the transitions are measured too. */
    for (unsigned i = 0; i < n && ok; i++) {
        uint64_t t0 = clock_ns();
        ok = klp_enable_patch(&bench_klp_patch) == 0 &&
             klp_wait_transition(&bench_klp_patch, NSEC_PER_SEC) == 0;
        transition[i] = clock_ns() - t0;
        if (ok) {
            bench_klp_time_calls(fn);
            patched[i] = bench_klp_time_calls(fn);
        }
        if (bench_klp_patch.enabled && (klp_disable_patch(&bench_klp_patch) != 0 ||
                                        klp_wait_transition(&bench_klp_patch, NSEC_PER_SEC) != 0))
            ok = false;
        ok = ok && patched[i] != 0;
    }
    if (!ok) {
        bench_row_skipped(ctx, "livepatch", "the patch did not apply");
    } else {
        struct bench_stats p = bench_stats_of(plain, n), q = bench_stats_of(patched, n);
        struct bench_stats p_call = {p.min / BENCH_KLP_CALLS, p.median / BENCH_KLP_CALLS};
        struct bench_stats q_call = {q.min / BENCH_KLP_CALLS, q.median / BENCH_KLP_CALLS};
        bench_report_cycles(ctx, "livepatch.unpatched", "call bench_klp_target (site: NOP)",
                            p_call);
        bench_report_cycles(ctx, "livepatch.patched", "the same call, live-patched to _v2", q_call);
        bench_report_value(ctx, "livepatch.ratio", "patched / unpatched, median per call",
                           p.median ? q.median * 1000 / p.median : 0, "per mille");
        struct bench_stats tr = bench_stats_of(transition, n);
        bench_report_value(ctx, "livepatch.transition", "enable to transition done, median",
                           tr.median / 1000, "us");
    }
    kfree(plain);
}
