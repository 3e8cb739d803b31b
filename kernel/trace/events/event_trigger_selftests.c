/*
 * Self-tests of event triggers: soft mode and the write path's two ways (triggers before
 * the record, or on it, in the ring buffer or in a scratch slot), counts, and triggers
 * added and removed while every CPU writes the event.
 */
#include <kernel/errno.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/selftest.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_trigger.h"
#include "event_write.h"
#include "trace_internal.h"

static const struct trace_event_call *trig_event(void)
{
    return trace_event_find("sched", "sched_waking");
}

/* As a write to the event's trigger file, under the lock every file operation holds. */
static int trig_write(const struct trace_event_call *call, const char *text)
{
    pfs_control_lock();
    ssize_t n = trace_event_trigger_store((void *)call, text, strlen(text));
    pfs_control_unlock();
    return n < 0 ? (int)n : 0;
}

static void trig_enable(const struct trace_event_call *call, bool on)
{
    pfs_control_lock();
    trace_event_enable(call, on);
    pfs_control_unlock();
}

static bool trig_none(const struct trace_event_call *call)
{
    return !call->state->triggers && !(call->state->commit_flags & TRACE_EVENT_COMMIT_TRIGGERS) &&
           !trace_event_in_soft_mode(call);
}

SELFTEST(event_triggers_soft_mode)
{
    const struct trace_event_call *call = trig_event();
    EXPECT(call != NULL);
    if (!call || trace_event_is_registered(call) || trace_event_has_triggers(call))
        SKIP("sched_waking is in use");
    bool was_on = rb_record_is_on(trace_global.buffer);

    /* No record needed: the trigger runs before one would be made. */
    EXPECT_EQ(trig_write(call, "traceoff"), 0);
    EXPECT(trace_event_in_soft_mode(call) && !trace_event_is_enabled(call));
    EXPECT(READ_ONCE(trace_event_slow_checks) & TRACE_EVENT_SLOW_SOFT_MODE);
    EXPECT_EQ(call->state->trigger_flags, TRACE_EVENT_TRIGGERS_COND); /* traceoff runs after */
    trace_set_on(true);
    trace_sched_waking(current_thread());
    EXPECT(!rb_record_is_on(trace_global.buffer));
    EXPECT_EQ(trig_write(call, "traceon"), -EEXIST);
    EXPECT_EQ(trig_write(call, "!traceoff"), 0);
    EXPECT(trig_none(call));

    /* traceon needs no record: it runs first, without one. */
    EXPECT_EQ(trig_write(call, "traceon:2"), 0);
    EXPECT_EQ(call->state->trigger_flags, TRACE_EVENT_TRIGGERS_UNCOND);
    trace_set_on(false);
    trace_sched_waking(current_thread());
    EXPECT(rb_record_is_on(trace_global.buffer));
    /* Spent only when it switched tracing: now on, so this one does not count. */
    trace_sched_waking(current_thread());
    EXPECT_EQ(trig_write(call, "!traceon"), 0);

    /* A filter makes the record; with the event off and tracing off it is a scratch one. */
    char text[64];
    snprintf(text, sizeof(text), "traceon:1 if pid == %d", current_thread()->pid);
    EXPECT_EQ(trig_write(call, text), 0);
    trace_set_on(false);
    trace_sched_waking(current_thread());
    EXPECT(rb_record_is_on(trace_global.buffer));
    trace_set_on(false);
    trace_sched_waking(current_thread()); /* count 0: no more */
    EXPECT(!rb_record_is_on(trace_global.buffer));
    EXPECT_EQ(trig_write(call, "!traceon"), 0);
    EXPECT(trig_none(call));

    /* enable_event: the target leaves soft mode on when it was switched on. */
    const struct trace_event_call *target = trace_event_find("sched", "sched_wakeup_new");
    EXPECT(target != NULL);
    if (target && !trace_event_is_registered(target)) {
        EXPECT_EQ(trig_write(call, "enable_event:sched:sched_wakeup_new:1"), 0);
        EXPECT(trace_event_in_soft_mode(target) && !trace_event_is_enabled(target));
        EXPECT_EQ(trig_write(call, "disable_event:sched:sched_wakeup_new"), -EEXIST);
        trace_sched_waking(current_thread());
        EXPECT(trace_event_is_enabled(target));
        EXPECT_EQ(trig_write(call, "!enable_event:sched:sched_wakeup_new"), 0);
        EXPECT(!trace_event_in_soft_mode(target) && trace_event_is_enabled(target));
        trig_enable(target, false);
    }
    EXPECT(trig_none(call));
    trace_set_on(was_on);
}

/* ---- triggers added and removed while every CPU writes the event ---- */

#define TRIG_TORTURE_NS (300 * NSEC_PER_MSEC)

static struct {
    volatile bool stop;
    volatile unsigned long writes[MAX_CPUS];
} trig_torture;

static int trig_torture_writer(void *arg)
{
    unsigned cpu = (unsigned)(uintptr_t)arg;
    while (!READ_ONCE(trig_torture.stop)) {
        trace_sched_waking(current_thread());
        WRITE_ONCE(trig_torture.writes[cpu], trig_torture.writes[cpu] + 1);
    }
    return 0;
}

SELFTEST(event_triggers_change_under_writers)
{
    static const char *const edits[] = {
        "stacktrace:3 if pid != 0",
        "enable_event:sched:sched_wakeup_new",
        "traceon",
        "snapshot:0",
        "!stacktrace",
        "!traceon",
        "traceoff:0 if comm ~ \"trig*\"",
        "!enable_event:sched:sched_wakeup_new",
        "!snapshot",
        "enable_event:sched:sched_wakeup_new if pid == 1",
        "!traceoff",
        "!enable_event:sched:sched_wakeup_new",
    };
    const struct trace_event_call *call = trig_event();
    const struct trace_event_call *target = trace_event_find("sched", "sched_wakeup_new");
    EXPECT(call != NULL && target != NULL);
    if (!call || !target || trace_event_is_registered(call) || trace_event_has_triggers(call) ||
        trace_event_is_registered(target))
        SKIP("sched_waking or sched_wakeup_new is in use");
    bool was_on = rb_record_is_on(trace_global.buffer);
    bool had_snapshot = tracing_snapshot_allocated(&trace_global);
    trace_set_on(true);

    struct thread *writers[MAX_CPUS] = {0};
    WRITE_ONCE(trig_torture.stop, false);
    cpumask_t online = cpu_online_mask();
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        trig_torture.writes[cpu] = 0;
        if ((online >> cpu) & 1)
            writers[cpu] =
                kthread_create(trig_torture_writer, (void *)(uintptr_t)cpu, "trig_writer", cpu);
    }
    uint64_t end = clock_ns() + TRIG_TORTURE_NS;
    unsigned rounds = 0, failed = 0;
    while (clock_ns() < end) {
        for (size_t i = 0; i < ARRAY_SIZE(edits); i++)
            failed += trig_write(call, edits[i]) != 0;
        /* The event itself on and off under its triggers too. */
        trig_enable(call, rounds & 1);
        rounds++;
    }
    trig_enable(call, false);
    WRITE_ONCE(trig_torture.stop, true);
    unsigned long writes = 0;
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (writers[cpu])
            EXPECT_EQ(kthread_join(writers[cpu]), 0);
        writes += trig_torture.writes[cpu];
    }
    EXPECT(rounds > 0 && writes > 0);
    EXPECT_EQ(failed, 0);
    EXPECT(trig_none(call));
    EXPECT(!trace_event_in_soft_mode(target));
    if (trace_event_is_enabled(target))
        trig_enable(target, false);
    trace_set_on(false);
    trace_clear(-1);
    /* The snapshot trigger allocated the spare buffer, which outlives it as on Linux:
     * leave the boot as it was for the tests after this one. */
    if (!had_snapshot)
        EXPECT_EQ(trace_snapshot_write(&trace_global, -1, 0), 0);
    trace_set_on(was_on);
}
