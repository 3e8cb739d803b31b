/*
 * Self-tests of the osnoise and timerlat tracers' machinery: the per-CPU timer fires once,
 * never before its deadline, and a cancelled one never; switching among osnoise, timerlat
 * and nop while every CPU is busy always succeeds, and after nop no thread of theirs is
 * left and their hooks are off.
 */
#include <arch/cpu.h>
#include <kernel/ftrace.h>
#include <kernel/percpu.h>
#include <kernel/selftest.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/string.h>

#include "latency.h"

static bool osnoise_test_idle(void)
{
    const struct tracer *t = trace_global.current;
    return t && strcmp(t->name, "nop") == 0;
}

struct osnoise_test_timer {
    volatile unsigned calls;
    volatile uint64_t fired_at;
};

static void osnoise_test_timer_fn(void *arg)
{
    struct osnoise_test_timer *tt = arg;
    tt->fired_at = clock_ns();
    tt->calls++;
}

SELFTEST(cpu_timer_fires_once_after_deadline)
{
    struct osnoise_test_timer tt = {0};
    preempt_disable();
    uint64_t deadline = clock_ns() + 300 * NSEC_PER_USEC;
    cpu_timer_arm(deadline, osnoise_test_timer_fn, &tt);
    preempt_enable();
    uint64_t start = clock_ns();
    while (!tt.calls && clock_ns() - start < 100 * NSEC_PER_MSEC)
        arch_cpu_relax();
    EXPECT_EQ(tt.calls, 1u);
    EXPECT(tt.fired_at >= deadline);
    /* Ticks keep coming after the one-shot deadline: a sleep across several ends. */
    sleep_ns(5 * NSEC_PER_MSEC);
    EXPECT_EQ(tt.calls, 1u);
}

SELFTEST(cpu_timer_cancel)
{
    struct osnoise_test_timer tt = {0};
    preempt_disable();
    cpu_timer_arm(clock_ns() + 2 * NSEC_PER_MSEC, osnoise_test_timer_fn, &tt);
    cpu_timer_cancel();
    preempt_enable();
    sleep_ns(5 * NSEC_PER_MSEC);
    EXPECT_EQ(tt.calls, 0u);
}

static void osnoise_test_count_thread(struct thread *t, void *arg)
{
    unsigned *count = arg;
    if (strncmp(t->name, "osnoise/", 8) == 0 || strncmp(t->name, "timerlat/", 9) == 0)
        ++*count;
}

static unsigned osnoise_test_threads(void)
{
    unsigned count = 0;
    thread_for_each_locked(osnoise_test_count_thread, &count);
    return count;
}

static volatile bool osnoise_test_load_stop;

/* A load that runs, yields and sleeps, so every kind of switch happens meanwhile. */
static int osnoise_test_load(void *arg)
{
    unsigned i = 0;
    while (!READ_ONCE(osnoise_test_load_stop)) {
        uint64_t start = clock_ns();
        while (clock_ns() - start < 200 * NSEC_PER_USEC)
            arch_cpu_relax();
        if (++i % 4 == 0)
            sleep_ns(NSEC_PER_MSEC);
        else
            schedule();
    }
    return 0;
}

SELFTEST(osnoise_timerlat_switch_under_load)
{
    if (!osnoise_test_idle())
        SKIP("a tracer runs");
    struct thread *load[MAX_CPUS] = {0};
    osnoise_test_load_stop = false;
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (cpu_data(c)->online)
            load[c] = kthread_create(osnoise_test_load, NULL, "osnoise_load", c);
    static const char *const order[] = {"osnoise", "timerlat", "nop", "timerlat", "osnoise", "nop"};
    for (int round = 0; round < 5; round++)
        for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
            EXPECT_EQ(trace_set_tracer(order[i]), 0);
            bool off = strcmp(order[i], "nop") == 0;
            EXPECT_EQ(trace_osnoise_hooks_on != 0, !off);
            EXPECT_EQ(osnoise_test_threads() == 0, off);
            sleep_ns(3 * NSEC_PER_MSEC);
        }
    EXPECT_EQ(osnoise_test_threads(), 0u);
    EXPECT_EQ(trace_sched_hooks_on & TRACE_SCHED_HOOKS_OSNOISE, 0);
    WRITE_ONCE(osnoise_test_load_stop, true);
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (load[c])
            kthread_join(load[c]);
    trace_clear(-1);
}
