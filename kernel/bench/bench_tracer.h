/*
 * What the bench rows that measure the tracers share (bench_tracer.c): the tracer's
 * settings saved and put back around a measurement, and timed calls of ftrace_test_target.
 */
#ifndef KERNEL_BENCH_BENCH_TRACER_H
#define KERNEL_BENCH_BENCH_TRACER_H

#include <kernel/compiler.h>

struct ftrace_hash;

/*
 * What the `function` and `graph` rows share: timed samples of calls to
 * ftrace_test_target, and the trace settings they change (so every call records) saved
 * before and put back after.
 */
struct bench_tracer_saved {
    const char *tracer;
    struct ftrace_hash *filter, *notrace_hash;
    bool on, stack_trace;
    uint32_t cpumask;
    unsigned pid_count;
};

int bench_tracer_save(struct bench_tracer_saved *s);
void bench_tracer_restore(struct bench_tracer_saved *s);
/* Only ftrace_test_target in set_ftrace_filter, nothing in set_ftrace_notrace. */
int bench_tracer_filter_target(void);
/* No op traces ftrace_test_target now: its site is the idle NOP. */
bool bench_tracer_target_is_nop(void);
/* Events written since the last clear, overwritten and consumed ones included. */
uint64_t bench_tracer_events_written(void);
/* samples[i] = TSC cycles of `calls` calls; one warm-up sample is taken first. */
void bench_tracer_sample(uint64_t *samples, unsigned runs, unsigned calls);

/*
 * The whole measurement: `runs` samples of `calls` calls with the site an idle NOP into
 * off[], then the same under `tracer` filtered to the target into on[], every setting
 * put back after. *events = events written while traced (warm-up included). Returns
 * NULL, or why there is no measurement.
 */
const char *bench_tracer_measure(const char *tracer, uint64_t *off, uint64_t *on, unsigned runs,
                                 unsigned calls, uint64_t *events);
/* The same with every call site traced (every_site), not only ftrace_test_target. */
const char *bench_tracer_measure_on(const char *tracer, bool every_site, uint64_t *off,
                                    uint64_t *on, unsigned runs, unsigned calls, uint64_t *events);

#endif
