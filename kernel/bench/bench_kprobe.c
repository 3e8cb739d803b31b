/*
 * bench kprobe: what a kprobe event costs per call of ftrace_test_target: an entry probe
 * with two fetch arguments (Linux's usual `p func a=%di b=%si`), a return probe with
 * $retval, and an int3 probe at an offset inside the function with the same two arguments
 * (the trap, the handlers and the out-of-line copy), each against the same calls with the
 * site an idle NOP; and the fprobe events of the same entry (`f func $arg1 $arg2`) and exit.
 * Every call must write one record. Every setting changed is put back.
 */
#include <kernel/bench.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/mm.h>
#include <kernel/pseudofs.h>
#include <kernel/shell.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "bench_tracer.h"
#include "events/event_core.h"
#include "probes/trace_kprobe.h"
#include "trace_internal.h"

/* Calls per sample, as the function and event rows: a sample of 1000 (0.4 to 0.8 ms) held
 * a timer tick (1 kHz) about every other time, and the medians then measured the tick.
 * Linux's side times chunks of 20 (tests/bench_linux.py). */
#define BENCH_KP_CALLS 100

static const struct {
    const char *row, *what, *line, *name;
} bench_kp[] = {
    {"kprobe.entry2", "entry probe with two fetch args, per call",
     "p:bench/kp_entry ftrace_test_target a=%di b=%si", "kp_entry"},
    {"kprobe.return", "return probe with $retval, per call",
     "r:bench/kp_return ftrace_test_target ret=$retval", "kp_return"},
    /* +5: the instruction after the ftrace site (a push, run out of line). */
    {"kprobe.int3", "int3 probe at +5 with two fetch args, per call",
     "p:bench/kp_int3 ftrace_test_target+5 a=%di b=%si", "kp_int3"},
    {"kprobe.fprobe2", "fprobe entry with two fetch args, per call",
     "f:bench/fp_entry ftrace_test_target a=$arg1 b=$arg2", "fp_entry"},
    {"kprobe.fexit", "fprobe exit with $retval, per call",
     "f:bench/fp_exit ftrace_test_target%return ret=$retval", "fp_exit"},
};

/* One probe's samples into on[]; NULL or why there are none. */
static const char *bench_kp_measure(unsigned k, uint64_t *on, unsigned runs, uint64_t *events)
{
    char del[64];
    snprintf(del, sizeof(del), "-:bench/%s", bench_kp[k].name);
    int err = kprobe_command(bench_kp[k].line);
    if (err)
        return strerror(-err);
    const struct trace_event_call *call = trace_event_find("bench", bench_kp[k].name);
    const char *problem = NULL;
    bool was_on = rb_record_is_on(trace_global.buffer);
    uint32_t cpumask = trace_global.cpumask;
    trace_set_cpumask(cpumask | 1u << this_cpu_id());
    trace_set_on(false);
    trace_clear(-1);
    trace_set_on(true);
    err = call ? trace_event_enable(call, true) : -ENOENT;
    if (err) {
        problem = strerror(-err);
    } else {
        bench_tracer_sample(on, runs, BENCH_KP_CALLS);
        *events = bench_tracer_events_written();
        trace_event_enable(call, false);
    }
    trace_set_on(false);
    trace_clear(-1);
    trace_set_cpumask(cpumask);
    trace_set_on(was_on);
    kprobe_command(del);
    return problem;
}

BENCH_ROW(kprobe, "kprobe events per call: an entry probe with two args, a return probe, "
                  "an int3 probe at an offset, an fprobe entry and exit")
{
    if (ftrace_is_dead() || !bench_tracer_target_is_nop()) {
        bench_row_skipped(ctx, "kprobe", "ftrace is dead or ftrace_test_target is traced");
        return;
    }
    unsigned runs = ctx->runs;
    uint64_t *off = bench_samples_alloc(ctx, "kprobe", runs, 2), *on = off + runs;
    if (!off)
        return;
    bench_tracer_sample(off, runs, BENCH_KP_CALLS);
    struct bench_stats u = bench_stats_of(off, runs);
    for (unsigned k = 0; k < ARRAY_SIZE(bench_kp); k++) {
        uint64_t events = 0;
        const char *problem = bench_kp_measure(k, on, runs, &events);
        char why[96];
        /* The warm-up's calls were probed too. */
        uint64_t calls = (uint64_t)(runs + 1) * BENCH_KP_CALLS;
        if (!problem && events != calls) {
            snprintf(why, sizeof(why), "%llu records for %llu calls", (unsigned long long)events,
                     (unsigned long long)calls);
            problem = why;
        }
        if (problem) {
            bench_row_skipped(ctx, bench_kp[k].row, "%s", problem);
            continue;
        }
        struct bench_stats t = bench_stats_of(on, runs);
        struct bench_stats over = {(t.min > u.min ? t.min - u.min : 0) / BENCH_KP_CALLS,
                                   (t.median > u.median ? t.median - u.median : 0) /
                                       BENCH_KP_CALLS};
        bench_report_cycles(ctx, bench_kp[k].row, bench_kp[k].what, over);
    }
    kfree(off);
}

/* ---- the same entry probe among many ---- */

#define BENCH_KP_MANY 1000

/* `echo TEXT > events/bench_many/FILE`: 0 or the errno. */
static int bench_many_write(const char *file, const char *text)
{
    char path[96];
    snprintf(path, sizeof(path), TRACEFS_ROOT "/events/bench_many/%s", file);
    return pfs_write_path(path, text, 0);
}

static unsigned bench_many_enable(unsigned made)
{
    if (made &&
        (bench_many_write("filter", "common_pid < 0") != 0 || bench_many_write("enable", "1") != 0))
        return 0;
    return made;
}

/*
 * n entry probes on other functions, as places of BENCH_KP_MANY_EVENTS events (a kprobe
 * event may have several: the table the handler searches holds places), each on sites of
 * its own, armed, with a filter no record passes: the functions the other CPUs run
 * meanwhile leave nothing in the buffer. Sites the blacklist refuses are passed over.
 * Returns how many places were made.
 */
#define BENCH_KP_MANY_EVENTS 10
static unsigned bench_many_add(unsigned n)
{
    unsigned per_event = (n + BENCH_KP_MANY_EVENTS - 1) / BENCH_KP_MANY_EVENTS, made = 0;
    char line[160];
    for (unsigned e = 0; e < BENCH_KP_MANY_EVENTS && made < n; e++) {
        unsigned here = 0;
        for (size_t r = 0; r < ftrace_rec_total() && here < per_event && made < n; r++) {
            const char *name = ftrace_rec_name(ftrace_rec(r));
            if (!name || !strncmp(name, "ftrace_test_target", 18))
                continue;
            snprintf(line, sizeof(line), "p:bench_many/k%u %s", e, name);
            if (kprobe_command(line) == 0) {
                here++;
                made++;
            }
        }
    }
    return bench_many_enable(made);
}

static void bench_many_remove(unsigned made)
{
    char line[64];
    if (made)
        bench_many_write("enable", "0");
    for (unsigned e = 0; made && e < BENCH_KP_MANY_EVENTS; e++) {
        snprintf(line, sizeof(line), "-:bench_many/k%u", e);
        kprobe_command(line);
    }
}

BENCH_ROW(kprobe_many, "the entry probe of bench kprobe with 10, then 1000, other entry probes "
                       "armed on other functions")
{
    if (ftrace_is_dead() || !bench_tracer_target_is_nop()) {
        bench_row_skipped(ctx, "kprobe_many", "ftrace is dead or ftrace_test_target is traced");
        return;
    }
    unsigned runs = ctx->runs;
    uint64_t *off = bench_samples_alloc(ctx, "kprobe_many", runs, 2), *on = off + runs;
    if (!off)
        return;
    bench_tracer_sample(off, runs, BENCH_KP_CALLS);
    struct bench_stats u = bench_stats_of(off, runs);
    static const unsigned counts[] = {10, BENCH_KP_MANY};
    for (unsigned c = 0; c < ARRAY_SIZE(counts); c++) {
        char row[32], what[96], why[96];
        snprintf(row, sizeof(row), "kprobe_many.%u", counts[c]);
        snprintf(what, sizeof(what), "entry probe, two fetch args, %u others armed, per call",
                 counts[c]);
        unsigned made = bench_many_add(counts[c]);
        uint64_t events = 0;
        char short_of[64];
        snprintf(short_of, sizeof(short_of), "only %u of the other probes could be armed", made);
        const char *problem = made == counts[c] ? bench_kp_measure(0, on, runs, &events) : short_of;
        uint64_t calls = (uint64_t)(runs + 1) * BENCH_KP_CALLS;
        if (!problem && events != calls) {
            snprintf(why, sizeof(why), "%llu records for %llu calls", (unsigned long long)events,
                     (unsigned long long)calls);
            problem = why;
        }
        bench_many_remove(made);
        if (problem) {
            bench_row_skipped(ctx, row, "%s", problem);
            continue;
        }
        struct bench_stats t = bench_stats_of(on, runs);
        struct bench_stats over = {(t.min > u.min ? t.min - u.min : 0) / BENCH_KP_CALLS,
                                   (t.median > u.median ? t.median - u.median : 0) /
                                       BENCH_KP_CALLS};
        bench_report_cycles(ctx, row, what, over);
    }
    kfree(off);
}
