#ifndef KERNEL_BENCH_H
#define KERNEL_BENCH_H

#include <kernel/compiler.h>

/*
 * The `bench` command's rows. Each row measures one thing and reports it with
 * bench_report_cycles: min and median over repeated runs, in TSC cycles and ns, printed as a
 * table line and as a machine-readable "bench: name=..." line.
 */
struct shell_ctx;

struct bench_ctx {
    struct shell_ctx *shell;
    bool short_mode; /* fewer repetitions: `make test` only checks that rows print */
    unsigned runs;   /* repetitions a row should use */
    bool failed;     /* a row could not measure: bench fails */
};

struct bench_row {
    const char *name;
    const char *help;
    void (*fn)(struct bench_ctx *ctx);
};

#define BENCH_ROW(row_name, help_text)                                                             \
    static void bench_fn_##row_name(struct bench_ctx *ctx);                                        \
    static const struct bench_row bench_row_##row_name __used __section(".bench_rows")             \
        __aligned(8) = {#row_name, help_text, bench_fn_##row_name};                                \
    static void bench_fn_##row_name(struct bench_ctx *ctx)

struct bench_stats {
    uint64_t min;
    uint64_t median;
};

/* Sorts samples in place and returns min and median. */
struct bench_stats bench_stats_of(uint64_t *samples, size_t n);
/* A timing line: cycles per operation (min and median), converted to ns. */
void bench_report_cycles(struct bench_ctx *ctx, const char *name, const char *what,
                         struct bench_stats cycles);
/* The line of a row that could not measure (`ROW failed: WHY`); bench then fails. */
void bench_row_failed(struct bench_ctx *ctx, const char *row, const char *fmt, ...) __printf(3, 4);
/* A plain value line (counts, bytes, ratios in per mille). */
void bench_report_value(struct bench_ctx *ctx, const char *name, const char *what, uint64_t value,
                        const char *unit);
/* A row that cannot measure here says why (`ROW skipped: WHY`); tests/bench.py keeps the
 * line as a note. */
void bench_row_skipped(struct bench_ctx *ctx, const char *row, const char *fmt, ...) __printf(3, 4);
/*
 * A row's sample arrays in one allocation: `arrays` arrays of `count` samples, back to
 * back (array i starts at i * count), freed with one kfree. NULL when there is no room,
 * after the row's failed line (bench then fails).
 */
uint64_t *bench_samples_alloc(struct bench_ctx *ctx, const char *row, size_t count,
                              unsigned arrays);

#endif
