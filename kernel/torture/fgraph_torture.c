/*
 * `graph_torture SECONDS`: switches function_graph on and off on every function, with
 * the profiler toggling beside it and set_graph_function changing, while every CPU runs
 * the work load. Return hooks are installed and removed under running threads, frames
 * stay outstanding across switches and context switches: at the end the kernel must be
 * healthy, graph tracing alive, and the work load's books balanced.
 */
#include <kernel/errno.h>
#include <kernel/ftrace_test.h>
#include <kernel/shell.h>
#include <kernel/time.h>
#include <kernel/work.h>
#include <lib/string.h>

#include "trace_internal.h"

static const char *const graph_filters[] = {"",       "work_*",   "k*alloc",
                                            "*lock*", "schedule", "wait_event*"};

SHELL_COMMAND(graph_torture, "graph_torture SECONDS",
              "switch function_graph and the profiler on and off under load, then check health")
{
    unsigned long secs;
    if (argc != 2 || kstrtoul(argv[1], 10, &secs) != 0 || secs == 0 || secs > 3600)
        return shell_usage(ctx);
    struct work_run *run = work_start(secs * 1000, 2);
    if (!run) {
        shell_eprintf(ctx, "graph_torture: %s\n", strerror(ENOMEM));
        return 1;
    }
    uint64_t end = clock_ns() + secs * NSEC_PER_SEC;
    unsigned long rounds = 0, failures = 0;
    bool interrupted = false;
    while (clock_ns() < end) {
        fgraph_set_filter_text(false, graph_filters[rounds % ARRAY_SIZE(graph_filters)]);
        failures += trace_set_tracer("function_graph") != 0;
        if (rounds % 3 == 0)
            failures += trace_profile_set(true) != 0;
        if (sleep_ns_interruptible(30 * NSEC_PER_MSEC) == -EINTR) {
            interrupted = true;
            break;
        }
        failures += trace_set_tracer("nop") != 0;
        if (rounds % 2 == 0)
            trace_profile_set(false);
        rounds++;
    }
    trace_set_tracer("nop");
    trace_profile_set(false);
    fgraph_set_filter_text(false, "");
    if (interrupted)
        work_stop(run);
    struct work_summary sum;
    work_finish(run, &sum);
    bool ok = !failures && sum.books_ok && !fgraph_is_dead();
    shell_printf(ctx,
                 "graph_torture: %lu on/off rounds, %zu threads on %u CPUs, %llu items "
                 "handed off: %s\n",
                 rounds, sum.threads, sum.cpus, (unsigned long long)sum.handed_off,
                 ok ? "ok" : "FAILED");
    if (interrupted)
        return 130;
    return ok ? 0 : 1;
}

SHELL_COMMAND(graph_mismatch_test, "graph_mismatch_test",
              "damage a function_graph shadow frame on purpose: graph tracing must stop, "
              "the kernel must go on")
{
    if (argc != 1)
        return shell_usage(ctx);
    int err = trace_set_tracer("function_graph");
    if (err) {
        shell_eprintf(ctx, "graph_mismatch_test: %s\n", strerror(-err));
        return 1;
    }
    unsigned long damaged = fgraph_mismatch_victim();
    trace_set_tracer("nop");
    shell_printf(ctx, "graph_mismatch_test: frame damaged: %s, graph tracing %s\n",
                 damaged ? "yes" : "no", fgraph_is_dead() ? "stopped" : "running");
    return damaged && fgraph_is_dead() ? 0 : 1;
}
