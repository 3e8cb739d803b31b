/* bench ipi: one IPI round trip, and one broadcast sync round. */
#include <arch/cpu.h>
#include <kernel/bench.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/smp.h>
#include <lib/printf.h>

static void ipi_noop(void *arg) { (void)arg; }

BENCH_ROW(ipi, "IPI round trip and broadcast sync round")
{
    unsigned n = ctx->runs;
    uint64_t *samples = bench_samples_alloc(ctx, "ipi", n, 1);
    if (!samples)
        return;
    unsigned me = this_cpu_id(), target = me;
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (cpu != me && cpu_data(cpu)->online) {
            target = cpu;
            break;
        }
    char what[64];
    if (target != me) {
        for (unsigned i = 0; i < n; i++) {
            uint64_t t0 = arch_cycles();
            smp_call_function_single(target, ipi_noop, NULL, true);
            samples[i] = arch_cycles() - t0;
        }
        snprintf(what, sizeof(what), "IPI round trip, CPU %u -> %u and back", me, target);
        bench_report_cycles(ctx, "ipi.roundtrip", what, bench_stats_of(samples, n));
    }
    uint64_t rounds_before = smp_sync_rounds();
    for (unsigned i = 0; i < n; i++) {
        uint64_t t0 = arch_cycles();
        smp_sync_all();
        samples[i] = arch_cycles() - t0;
    }
    snprintf(what, sizeof(what), "broadcast sync round, %u other CPU%s", cpus_online - 1,
             cpus_online == 2 ? "" : "s");
    bench_report_cycles(ctx, "ipi.sync_round", what, bench_stats_of(samples, n));
    bench_report_value(ctx, "ipi.sync_rounds_run", "sync rounds counted for the above",
                       smp_sync_rounds() - rounds_before, "rounds");
    kfree(samples);
}
