/*
 * Self-tests of the latency tracers' machinery: the hooks are off while nothing wants
 * them, the report rule with and without tracing_thresh, the latency format's marks, and
 * irqsoff and preemptoff finding a section made here, with its bounds and CPU.
 */
#include <arch/cpu.h>
#include <kernel/ftrace_test.h>
#include <kernel/irqflags.h>
#include <kernel/selftest.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/string.h>

#include "latency.h"

static bool latency_test_idle(void)
{
    const struct tracer *t = trace_global.current;
    return t && strcmp(t->name, "nop") == 0 && tracing_thresh_ns() == 0;
}

SELFTEST(latency_hooks_off_while_unused)
{
    if (!latency_test_idle())
        SKIP("a tracer runs or tracing_thresh is set");
    /* No latency tracer and no preemptirq event: every site costs its one test. */
    EXPECT_EQ(trace_irq_hooks_on, 0);
    EXPECT_EQ(trace_preempt_hooks_on, 0);
}

SELFTEST(latency_report_rule)
{
    if (!latency_test_idle())
        SKIP("a tracer runs or tracing_thresh is set");
    uint64_t saved = latency_max_ns;
    latency_max_ns = 5000;
    EXPECT(!latency_report(4000));
    EXPECT(!latency_report(5000)); /* a new maximum must beat the old one */
    EXPECT(latency_report(5001));
    graph_test_set_limits(0, 3000);
    EXPECT(latency_report(3000)); /* with a threshold: every section at least that long */
    EXPECT(latency_report(4000));
    EXPECT(!latency_report(2999));
    graph_test_set_limits(0, 0);
    latency_max_ns = saved;
}

SELFTEST(latency_marks)
{
    EXPECT_EQ(latency_mark(0), ' ');
    EXPECT_EQ(latency_mark(10000), ' ');
    EXPECT_EQ(latency_mark(10001), '+');
    EXPECT_EQ(latency_mark(100001), '!');
    EXPECT_EQ(latency_mark(1000001), '#');
    EXPECT_EQ(latency_mark(10000001), '*');
    EXPECT_EQ(latency_mark(100000001), '@');
    EXPECT_EQ(latency_mark(1000000001), '$');
}

static __noinline void latency_test_spin(uint64_t ns)
{
    uint64_t start = clock_ns();
    while (clock_ns() - start < ns)
        barrier();
}

static __noinline void latency_test_irqs_off(uint64_t ns)
{
    unsigned long flags = local_irq_save();
    latency_test_spin(ns);
    local_irq_restore(flags);
}

static __noinline void latency_test_preempt_off(uint64_t ns)
{
    preempt_disable();
    latency_test_spin(ns);
    preempt_enable();
}

/* Runs the section until it is the maximum (another CPU's may win the race, as on Linux). */
static bool latency_test_section(void (*section)(uint64_t), uint64_t ns)
{
    for (int i = 0; i < 5; i++) {
        section(ns);
        if (latency_max_ns >= ns)
            return true;
    }
    return false;
}

static void latency_test_tracer(struct selftest_ctx *t, const char *name, void (*section)(uint64_t))
{
    bool function_trace = trace_opt(TRACE_OPT_FUNCTION_TRACE);
    trace_set_option(TRACE_OPT_FUNCTION_TRACE, false);
    EXPECT_EQ(trace_set_tracer(name), 0);
    EXPECT(trace_irq_hooks_on || trace_preempt_hooks_on);
    const uint64_t ns = 3 * NSEC_PER_MSEC;
    EXPECT(latency_test_section(section, ns));
    EXPECT(latency_max_data.latency_ns >= ns);
    EXPECT(latency_max_data.critical_start != 0);
    EXPECT(latency_max_data.critical_end != 0);
    EXPECT_EQ(latency_max_data.pid, current_thread()->pid);
    EXPECT(latency_max_data.time_start != 0);
    EXPECT_EQ(trace_set_tracer("nop"), 0);
    EXPECT_EQ(trace_irq_hooks_on, 0);
    EXPECT_EQ(trace_preempt_hooks_on, 0);
    trace_set_option(TRACE_OPT_FUNCTION_TRACE, function_trace);
    trace_snapshot_write(&trace_global, -1, 0);
}

SELFTEST(latency_irqsoff_finds_section)
{
    if (!latency_test_idle() || tracing_snapshot_allocated(&trace_global))
        SKIP("a tracer runs, tracing_thresh is set or a snapshot is allocated");
    latency_test_tracer(t, "irqsoff", latency_test_irqs_off);
}

SELFTEST(latency_preemptoff_finds_section)
{
    if (!latency_test_idle() || tracing_snapshot_allocated(&trace_global))
        SKIP("a tracer runs, tracing_thresh is set or a snapshot is allocated");
    latency_test_tracer(t, "preemptoff", latency_test_preempt_off);
}
