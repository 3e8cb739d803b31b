/*
 * `bench`: the tracer's costs in one table. Rows register with BENCH_ROW; figures are
 * min and median over repeated runs. Under an emulator the TSC advances with emulated
 * time, so the header names the accelerator and says whether times are emulated.
 */
#include <arch/cpu.h>
#include <arch/setup.h>
#include <kernel/bench.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/shell.h>
#include <kernel/time.h>
#include <lib/glob.h>
#include <lib/printf.h>
#include <lib/sort.h>
#include <lib/string.h>

extern const struct bench_row __start_bench_rows[], __stop_bench_rows[];

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

struct bench_stats bench_stats_of(uint64_t *samples, size_t n)
{
    struct bench_stats st = {0, 0};
    if (!n)
        return st;
    sort(samples, n, sizeof(*samples), cmp_u64);
    st.min = samples[0];
    st.median = samples[n / 2];
    return st;
}

void bench_report_cycles(struct bench_ctx *ctx, const char *name, const char *what,
                         struct bench_stats c)
{
    uint64_t min_ns10 = tsc_to_ns(c.min * 10), med_ns10 = tsc_to_ns(c.median * 10);
    shell_printf(ctx->shell, "%-22s %-44s %10llu %10llu %9llu.%llu %9llu.%llu\n", name, what,
                 (unsigned long long)c.min, (unsigned long long)c.median,
                 (unsigned long long)(min_ns10 / 10), (unsigned long long)(min_ns10 % 10),
                 (unsigned long long)(med_ns10 / 10), (unsigned long long)(med_ns10 % 10));
    shell_printf(ctx->shell,
                 "bench: name=%s min_cycles=%llu median_cycles=%llu min_ns=%llu.%llu "
                 "median_ns=%llu.%llu\n",
                 name, (unsigned long long)c.min, (unsigned long long)c.median,
                 (unsigned long long)(min_ns10 / 10), (unsigned long long)(min_ns10 % 10),
                 (unsigned long long)(med_ns10 / 10), (unsigned long long)(med_ns10 % 10));
}

/* A row's note in the table's first column: "ROW  PREFIX WHY". */
static void bench_vnote(struct bench_ctx *ctx, const char *row, const char *prefix, const char *fmt,
                        va_list ap)
{
    char why[160];
    vsnprintf(why, sizeof(why), fmt, ap);
    shell_printf(ctx->shell, "%-22s %s%s\n", row, prefix, why);
}

void bench_row_failed(struct bench_ctx *ctx, const char *row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bench_vnote(ctx, row, "failed: ", fmt, ap);
    va_end(ap);
    ctx->failed = true;
}

void bench_report_value(struct bench_ctx *ctx, const char *name, const char *what, uint64_t value,
                        const char *unit)
{
    shell_printf(ctx->shell, "%-22s %-44s %21llu %s\n", name, what, (unsigned long long)value,
                 unit);
    shell_printf(ctx->shell, "bench: name=%s value=%llu unit=%s\n", name, (unsigned long long)value,
                 unit);
}

void bench_row_skipped(struct bench_ctx *ctx, const char *row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bench_vnote(ctx, row, "skipped: ", fmt, ap);
    va_end(ap);
}

uint64_t *bench_samples_alloc(struct bench_ctx *ctx, const char *row, size_t count, unsigned arrays)
{
    uint64_t *samples = kmalloc(count * arrays * sizeof(*samples));
    if (!samples)
        bench_row_failed(ctx, row, "%s", strerror(ENOMEM));
    return samples;
}

SHELL_COMMAND(bench, "bench [-s] [ROW...]",
              "measure the tracer's costs (rows: ipi nop function function_all graph rb patch "
              "memory events event_trigger hist_trigger kprobe kprobe_many livepatch latency "
              "snapshot wakeup_latency; no ROW: all of them)")
{
    struct bench_ctx bctx = {.shell = ctx, .short_mode = false, .runs = 1000};
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "-s") == 0) {
        bctx.short_mode = true;
        bctx.runs = 50;
        first = 2;
    }
    for (int i = first; i < argc; i++) {
        bool known = false;
        for (const struct bench_row *r = __start_bench_rows; r < __stop_bench_rows; r++)
            known |= glob_match(argv[i], r->name);
        if (!known) {
            shell_eprintf(ctx, "bench: no row matches '%s'\n", argv[i]);
            return shell_usage(ctx);
        }
    }

    bool emulated;
    const char *accel = arch_machine_name(&emulated);
    shell_printf(ctx, "fentros bench: %s, %u CPU%s, TSC %llu.%03llu MHz%s\n", accel, cpus_online,
                 cpus_online == 1 ? "" : "s", (unsigned long long)(tsc_hz() / 1000000),
                 (unsigned long long)(tsc_hz() / 1000 % 1000),
                 emulated ? " (times are emulated time: compare rows, not hosts)" : "");
    shell_printf(ctx, "%-22s %-44s %10s %10s %11s %11s\n", "row", "what", "min cyc", "median cyc",
                 "min ns", "median ns");
    for (const struct bench_row *r = __start_bench_rows; r < __stop_bench_rows; r++) {
        bool wanted = first >= argc;
        for (int i = first; i < argc; i++)
            wanted |= glob_match(argv[i], r->name);
        if (!wanted)
            continue;
        if (shell_interrupted())
            return 130;
        r->fn(&bctx);
    }
    return bctx.failed ? 1 : 0;
}
