/*
 * Self-tests of hist triggers, through the trigger and hist files' own functions: exact
 * counts and sums from every CPU writing one event at once, sorting, a shared (named)
 * table, a full table's drops, and hist triggers added, cleared and removed while every
 * CPU writes.
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

#include "events/event_core.h"
#include "events/event_trigger.h"
#include "trace_internal.h"

/* sched_waking: what a test thread emits at will, with its own pid in the record. */
static const struct trace_event_call *hist_test_event(void)
{
    return trace_event_find("sched", "sched_waking");
}

static int hist_test_write(const struct trace_event_call *call, const char *text)
{
    pfs_control_lock();
    ssize_t n = trace_event_trigger_store((void *)call, text, strlen(text));
    pfs_control_unlock();
    return n < 0 ? (int)n : 0;
}

/* The hist file's text, into a seqbuf the caller frees. */
static void hist_test_read(const struct trace_event_call *call, struct seqbuf *s)
{
    pfs_control_lock();
    trace_event_hist_show(s, (void *)call);
    pfs_control_unlock();
}

/* The number after "label" in text, or -1. */
static long hist_test_number(const char *text, const char *label)
{
    const char *p = text ? strstr(text, label) : NULL;
    if (!p)
        return -1;
    p += strlen(label);
    while (*p == ' ')
        p++;
    unsigned long v;
    char digits[24];
    size_t n = 0;
    while (p[n] >= '0' && p[n] <= '9' && n < sizeof(digits) - 1) {
        digits[n] = p[n];
        n++;
    }
    digits[n] = '\0';
    return n && !kstrtoul(digits, 10, &v) ? (long)v : -1;
}

static bool hist_test_usable(const struct trace_event_call *call)
{
    return call && !trace_event_is_registered(call) && !trace_event_has_triggers(call);
}

#define HIST_TEST_ROUNDS 3000

static struct {
    volatile unsigned ready, go;
    /* What each CPU's writer says it wakes: pids no thread has, so that the scheduler's
     * own wakeups meanwhile stay out of the counts. */
    struct thread fake[MAX_CPUS];
} hist_test;

#define HIST_TEST_PID 90000

static int hist_test_writer(void *arg)
{
    struct thread *fake = arg;
    __atomic_fetch_add(&hist_test.ready, 1, __ATOMIC_SEQ_CST);
    while (!READ_ONCE(hist_test.go))
        ;
    for (unsigned i = 0; i < HIST_TEST_ROUNDS; i++)
        trace_sched_waking(fake);
    return 0;
}

/* Writers on every CPU at once; returns how many ran and fills pids. */
static unsigned hist_test_run_writers(int *pids)
{
    struct thread *writers[MAX_CPUS] = {0};
    cpumask_t online = cpu_online_mask();
    unsigned n = 0;
    hist_test.ready = hist_test.go = 0;
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if ((online >> cpu) & 1) {
            struct thread *fake = &hist_test.fake[cpu];
            fake->pid = HIST_TEST_PID + (int)cpu;
            fake->cpu = cpu;
            fake->prio = 120;
            strlcpy(fake->name, "hist_fake", sizeof(fake->name));
            writers[cpu] = kthread_create(hist_test_writer, fake, "hist_test", cpu);
            if (writers[cpu])
                pids[n++] = fake->pid;
        }
    while (READ_ONCE(hist_test.ready) < n)
        sleep_ns(1000000);
    WRITE_ONCE(hist_test.go, 1);
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (writers[cpu])
            kthread_join(writers[cpu]);
    return n;
}

SELFTEST(hist_trigger_every_cpu_exact)
{
    const struct trace_event_call *call = hist_test_event();
    if (!hist_test_usable(call))
        SKIP("sched_waking is in use");
    /* Only the writers: keyed by pid, summing the pid, sorted by pid. */
    EXPECT_EQ(hist_test_write(call, "hist:keys=pid:vals=pid:sort=pid if pid >= 90000"), 0);
    int pids[MAX_CPUS];
    unsigned n = hist_test_run_writers(pids);
    struct seqbuf s = {0};
    hist_test_read(call, &s);
    EXPECT_EQ(hist_test_number(s.buf, "Hits:"), (long)n * HIST_TEST_ROUNDS);
    EXPECT_EQ(hist_test_number(s.buf, "Entries:"), (long)n);
    EXPECT_EQ(hist_test_number(s.buf, "Dropped:"), 0);
    /* Each writer's line, in pid order: "{ pid: P } hitcount: R  pid: P*R". */
    const char *line = s.buf;
    int last = -1;
    for (unsigned i = 0; i < n && line; i++) {
        line = strstr(line, "\n{ pid:");
        if (!line)
            break;
        line++;
        long pid = hist_test_number(line, "{ pid:");
        EXPECT(pid > last);
        last = (int)pid;
        EXPECT_EQ(hist_test_number(line, "hitcount:"), HIST_TEST_ROUNDS);
        EXPECT_EQ(hist_test_number(strstr(line, "}"), "pid:"), pid * HIST_TEST_ROUNDS);
    }
    EXPECT(line != NULL);
    seqbuf_free(&s);
    EXPECT_EQ(hist_test_write(call, "!hist:keys=pid:vals=pid:sort=pid if pid >= 90000"), 0);
    EXPECT(!trace_event_has_triggers(call) && !trace_event_in_soft_mode(call));
}

/* A table of 128 entries fed more keys than that: every extra insert is a drop, and the
 * entries still add up to the hits. */
SELFTEST(hist_trigger_full_table_drops)
{
    const struct trace_event_call *call = hist_test_event();
    if (!hist_test_usable(call))
        SKIP("sched_waking is in use");
    EXPECT_EQ(hist_test_write(call, "hist:keys=common_timestamp:size=128"), 0);
    for (unsigned i = 0; i < 300; i++)
        trace_sched_waking(current_thread());
    struct seqbuf s = {0};
    hist_test_read(call, &s);
    long hits = hist_test_number(s.buf, "Hits:"), dropped = hist_test_number(s.buf, "Dropped:");
    EXPECT_EQ(hist_test_number(s.buf, "Entries:"), 128);
    EXPECT(dropped > 0);
    EXPECT_EQ(hits, 128); /* each time stamp a new key: one hit each */
    seqbuf_free(&s);
    EXPECT_EQ(hist_test_write(call, "!hist:keys=common_timestamp:size=128"), 0);
    EXPECT(!trace_event_has_triggers(call));
    /* common_timestamp made the clock global, as Linux's; the tests' default is local. */
    trace_set_clock("local");
}

/* Two events' triggers of one name fill one table; a third of other keys is refused. */
SELFTEST(hist_trigger_named_shared)
{
    const struct trace_event_call *a = hist_test_event();
    const struct trace_event_call *b = trace_event_find("sched", "sched_wakeup_new");
    if (!hist_test_usable(a) || !hist_test_usable(b))
        SKIP("sched_waking or sched_wakeup_new is in use");
    EXPECT_EQ(hist_test_write(a, "hist:name=st_shared:keys=common_pid"), 0);
    EXPECT_EQ(hist_test_write(b, "hist:name=st_shared:keys=common_pid"), 0);
    EXPECT_EQ(hist_test_write(b, "hist:name=st_shared:keys=pid"), -EINVAL);
    for (unsigned i = 0; i < 10; i++) {
        trace_sched_waking(current_thread());
        trace_sched_wakeup_new(current_thread());
    }
    struct seqbuf sa = {0}, sb = {0};
    hist_test_read(a, &sa);
    hist_test_read(b, &sb);
    EXPECT_EQ(hist_test_number(sa.buf, "Hits:"), 20);
    EXPECT_EQ(hist_test_number(sb.buf, "Hits:"), 20);
    EXPECT(sa.buf && strstr(sa.buf, "hist:name=st_shared:keys=common_pid:vals=hitcount"));
    seqbuf_free(&sa);
    seqbuf_free(&sb);
    EXPECT_EQ(hist_test_write(a, "!hist:name=st_shared:keys=common_pid"), 0);
    /* The other trigger keeps the table. */
    trace_sched_wakeup_new(current_thread());
    hist_test_read(b, &sb);
    EXPECT_EQ(hist_test_number(sb.buf, "Hits:"), 21);
    seqbuf_free(&sb);
    EXPECT_EQ(hist_test_write(b, "!hist:name=st_shared:keys=common_pid"), 0);
    EXPECT(!trace_event_has_triggers(a) && !trace_event_has_triggers(b));
}

/* ---- added, cleared, paused and removed while every CPU writes ---- */

static volatile bool hist_torture_stop;

static int hist_torture_writer(void *arg)
{
    while (!READ_ONCE(hist_torture_stop))
        trace_sched_waking(current_thread());
    return 0;
}

SELFTEST(hist_trigger_change_under_writers)
{
    static const char *const edits[] = {
        "hist:keys=pid,common_cpu:vals=prio",
        "hist:keys=comm:sort=hitcount.descending",
        "hist:keys=stacktrace",
        "hist:keys=pid.log2:size=128 if pid > 1",
        "hist:keys=pid,common_cpu:vals=prio:clear",
        "hist:keys=comm:sort=hitcount.descending:pause",
        "!hist:keys=stacktrace",
        "hist:keys=comm:sort=hitcount.descending:cont",
        "!hist:keys=pid,common_cpu:vals=prio",
        "!hist:keys=comm:sort=hitcount.descending",
        "!hist:keys=pid.log2 if pid > 1",
    };
    const struct trace_event_call *call = hist_test_event();
    if (!hist_test_usable(call))
        SKIP("sched_waking is in use");
    struct thread *writers[MAX_CPUS] = {0};
    WRITE_ONCE(hist_torture_stop, false);
    cpumask_t online = cpu_online_mask();
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if ((online >> cpu) & 1)
            writers[cpu] = kthread_create(hist_torture_writer, NULL, "hist_writer", cpu);
    uint64_t end = clock_ns() + 300 * NSEC_PER_MSEC;
    unsigned rounds = 0, failed = 0;
    while (clock_ns() < end) {
        for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
            failed += hist_test_write(call, edits[i]) != 0;
            if (i == 3) {
                struct seqbuf s = {0};
                hist_test_read(call, &s);
                failed += !s.buf || !strstr(s.buf, "Totals:");
                seqbuf_free(&s);
            }
        }
        rounds++;
    }
    WRITE_ONCE(hist_torture_stop, true);
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (writers[cpu])
            EXPECT_EQ(kthread_join(writers[cpu]), 0);
    EXPECT(rounds > 0);
    EXPECT_EQ(failed, 0);
    EXPECT(!trace_event_has_triggers(call) && !trace_event_in_soft_mode(call));
}
