/* The common ground of the tracer rows (declared in trace_internal.h). */
#include <arch/cpu.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/percpu.h>

#include "bench_tracer.h"
#include "trace_internal.h"

/* Called through a pointer the compiler cannot see through, so every call is real. */
static unsigned long (*volatile bench_target)(unsigned long, unsigned long,
                                              unsigned long) = ftrace_test_target;

static uint64_t time_calls(unsigned calls)
{
    unsigned long (*fn)(unsigned long, unsigned long, unsigned long) = bench_target;
    volatile unsigned long sink = 0;
    uint64_t t0 = arch_cycles();
    for (unsigned long i = 0; i < calls; i++)
        sink += fn(i, 1, 2);
    (void)sink;
    return arch_cycles() - t0;
}

void bench_tracer_sample(uint64_t *samples, unsigned runs, unsigned calls)
{
    time_calls(calls); /* warm up */
    for (unsigned i = 0; i < runs; i++)
        samples[i] = time_calls(calls);
}

uint64_t bench_tracer_events_written(void)
{
    uint64_t n = 0;
    for (unsigned cpu = 0; cpu < rb_ncpus(trace_global.buffer); cpu++) {
        struct rb_stats st;
        rb_get_stats(trace_global.buffer, cpu, &st);
        n += st.entries + st.overrun + st.read;
    }
    return n;
}

bool bench_tracer_target_is_nop(void)
{
    struct dyn_ftrace *rec = ftrace_rec_lookup((unsigned long)ftrace_test_target);
    return rec && !(rec->flags & FTRACE_FL_ENABLED);
}

int bench_tracer_save(struct bench_tracer_saved *s)
{
    s->tracer = trace_global.current ? trace_global.current->name : "nop";
    s->filter = ftrace_hash_copy(ftrace_global_ops->filter_hash);
    s->notrace_hash = ftrace_hash_copy(ftrace_global_ops->notrace_hash);
    s->on = rb_record_is_on(trace_global.buffer);
    s->stack_trace = trace_opt(TRACE_OPT_FUNC_STACK_TRACE);
    s->cpumask = trace_global.cpumask;
    s->pid_count = trace_global.pid_count;
    if (!s->filter || !s->notrace_hash) {
        ftrace_hash_free(s->filter);
        ftrace_hash_free(s->notrace_hash);
        return -ENOMEM;
    }
    return 0;
}

void bench_tracer_restore(struct bench_tracer_saved *s)
{
    trace_set_tracer("nop");
    /* The hashes go back before the tracer, so it starts on the filter it had. */
    ftrace_ops_set_hashes(ftrace_global_ops, s->filter, s->notrace_hash);
    fgraph_filter_changed();
    trace_set_tracer(s->tracer);
    if (s->stack_trace)
        trace_set_option(TRACE_OPT_FUNC_STACK_TRACE, true);
    trace_set_cpumask(s->cpumask);
    /* The pids themselves were left alone; only the count switched them off. */
    __atomic_store_n(&trace_global.pid_count, s->pid_count, __ATOMIC_RELEASE);
    trace_set_on(s->on);
}

int bench_tracer_filter_target(void)
{
    struct ftrace_hash *only = ftrace_hash_alloc();
    if (!only)
        return -ENOMEM;
    int matched = ftrace_hash_apply_glob(only, "ftrace_test_target");
    if (matched != 1) {
        ftrace_hash_free(only);
        return matched < 0 ? matched : -EINVAL;
    }
    int err = ftrace_ops_set_hashes(ftrace_global_ops, only, NULL);
    /* The function profiler's graph op, if it is on, follows the global filter too. */
    fgraph_filter_changed();
    return err;
}

const char *bench_tracer_measure(const char *tracer, uint64_t *off, uint64_t *on, unsigned runs,
                                 unsigned calls, uint64_t *events)
{
    return bench_tracer_measure_on(tracer, false, off, on, runs, calls, events);
}

const char *bench_tracer_measure_on(const char *tracer, bool every_site, uint64_t *off,
                                    uint64_t *on, unsigned runs, unsigned calls, uint64_t *events)
{
    struct bench_tracer_saved saved;
    *events = 0;
    if (bench_tracer_save(&saved) != 0)
        return strerror(ENOMEM);
    const char *problem = NULL;
    int err = trace_set_tracer("nop");
    if (!err)
        err = bench_tracer_filter_target();
    if (err) {
        problem = strerror(-err);
    } else if (!bench_tracer_target_is_nop()) {
        /* Another op (the profiler, a test's op) traces it: no untraced baseline. */
        problem = "ftrace_test_target's site is not an idle NOP";
    } else {
        bench_tracer_sample(off, runs, calls);
        /* Every call must write its events: no pid or CPU filter, no stack events. */
        WRITE_ONCE(trace_global.pid_count, 0);
        trace_set_cpumask(trace_global.cpumask | 1u << this_cpu_id());
        if (trace_opt(TRACE_OPT_FUNC_STACK_TRACE))
            trace_set_option(TRACE_OPT_FUNC_STACK_TRACE, false);
        trace_set_on(true);
        /* Every site: the global filter empty, so the tracer patches them all. */
        if (every_site)
            err = ftrace_ops_set_hashes(ftrace_global_ops, NULL, NULL);
        if (!err)
            err = trace_set_tracer(tracer); /* clears the buffer */
        if (err) {
            problem = strerror(-err);
        } else {
            bench_tracer_sample(on, runs, calls);
            *events = bench_tracer_events_written();
        }
    }
    bench_tracer_restore(&saved);
    return problem;
}
