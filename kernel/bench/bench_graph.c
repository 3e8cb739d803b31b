/*
 * bench graph: what function_graph costs per traced call. ftrace_test_target is called
 * with its site a NOP (tracer nop), then with function_graph on and set_ftrace_filter
 * holding only it, so exactly one site calls the tracer and every call writes an entry
 * and a return event. The row puts back the tracer, the filters, tracing_on, the CPU mask
 * and the pid filter it found.
 */
#include <kernel/bench.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/shell.h>
#include <lib/printf.h>

#include "bench_tracer.h"
#include "trace_internal.h"

/*
 * Calls per sample. Short samples on purpose: under an emulator on a busy host the vCPU
 * thread is paused now and then while the TSC runs on, and a traced call here costs ~1 us
 * of emulated time; 20 calls keep most samples clear of a pause, so min and median are
 * the tracer's cost, not the host's scheduling.
 */
#define BENCH_GRAPH_CALLS 20

static void bench_graph_report(struct bench_ctx *ctx, uint64_t *off, uint64_t *on, unsigned runs,
                               uint64_t calls, uint64_t events)
{
    struct bench_stats u = bench_stats_of(off, runs), t = bench_stats_of(on, runs);
    struct bench_stats u_call = {u.min / BENCH_GRAPH_CALLS, u.median / BENCH_GRAPH_CALLS};
    struct bench_stats t_call = {t.min / BENCH_GRAPH_CALLS, t.median / BENCH_GRAPH_CALLS};
    /* Overhead: the same calls with and without the tracer, min against min and median
     * against median, over whole samples before dividing, to keep the precision. */
    uint64_t d_min = t.min > u.min ? t.min - u.min : 0;
    uint64_t d_med = t.median > u.median ? t.median - u.median : 0;
    struct bench_stats over = {d_min / BENCH_GRAPH_CALLS, d_med / BENCH_GRAPH_CALLS};
    /* Per event as Linux users compute it: overhead over events written (two per call). */
    struct bench_stats over_event = {d_min * calls / BENCH_GRAPH_CALLS / events,
                                     d_med * calls / BENCH_GRAPH_CALLS / events};

    bench_report_cycles(ctx, "graph.untraced", "call ftrace_test_target, site a NOP", u_call);
    bench_report_cycles(ctx, "graph.traced", "the same under function_graph, filtered to it",
                        t_call);
    bench_report_cycles(ctx, "graph.call", "overhead per traced call (entry + return)", over);
    bench_report_cycles(ctx, "graph.event", "overhead per event written", over_event);
    bench_report_value(ctx, "graph.events_per_call", "events written per traced call",
                       events / calls, "events");
}

BENCH_ROW(graph, "one traced call under function_graph, filtered to it, against its NOP site")
{
    if (ftrace_is_dead() || fgraph_is_dead()) {
        bench_row_skipped(ctx, "graph", "ftrace or function_graph is dead");
        return;
    }
    unsigned runs = ctx->runs;
    uint64_t *off = bench_samples_alloc(ctx, "graph", runs, 2), *on = off + runs;
    if (!off)
        return;
    uint64_t events;
    char why[160];
    const char *problem =
        bench_tracer_measure("function_graph", off, on, runs, BENCH_GRAPH_CALLS, &events);

    /* The warm-up's calls were traced too. */
    uint64_t calls = (uint64_t)(runs + 1) * BENCH_GRAPH_CALLS;
    if (!problem && events != 2 * calls) {
        /* What is left that could drop events: the graph's own filters and limits. */
        snprintf(why, sizeof(why),
                 "%llu events written for %llu calls (set_graph_function, set_graph_notrace, "
                 "max_graph_depth or tracing_thresh?)",
                 (unsigned long long)events, (unsigned long long)calls);
        problem = why;
    }
    if (problem)
        bench_row_skipped(ctx, "graph", "%s", problem);
    else
        bench_graph_report(ctx, off, on, runs, calls, events);
    kfree(off);
}
