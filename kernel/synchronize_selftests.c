/*
 * Self-tests of synchronize_readers(): a reader on another CPU holds the read side while
 * this CPU waits, and the wait must not end before the reader has left.
 */
#include <arch/cpu.h>
#include <kernel/percpu.h>
#include <kernel/selftest.h>
#include <kernel/symbols.h>
#include <kernel/synchronize.h>
#include <kernel/thread.h>
#include <kernel/time.h>

/*
 * How long a reader stays inside after a sync round reached it: a writer that returned
 * after the round alone would be back long before, and would find the reader not yet left.
 */
#define SYNC_TEST_HOLD_NS (50 * NSEC_PER_MSEC)
/* A bound on every wait, for a test that fails instead of hanging. */
#define SYNC_TEST_GIVE_UP_NS (5 * NSEC_PER_SEC)

struct sync_test {
    struct sync_readers readers;
    volatile bool ready; /* the reader is inside (or in the unmarked code) */
    volatile bool left;  /* set by the reader just before it marks itself out */
    volatile bool timed_out;
};

static struct sync_test sync_test;

/* Some CPU other than this one, or -1. */
static int sync_test_other_cpu(void)
{
    unsigned me = this_cpu_id();
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (c != me && cpu_data(c)->online)
            return (int)c;
    return -1;
}

/* Stays inside for SYNC_TEST_HOLD_NS, then marks the reader out. */
static void sync_test_hold(struct sync_test *st, unsigned cpu)
{
    uint64_t until = clock_ns() + SYNC_TEST_HOLD_NS;
    while (clock_ns() < until)
        arch_cpu_relax();
    WRITE_ONCE(st->left, true);
    sync_read_exit(&st->readers, cpu);
}

/* A reader that stays inside until a sync round reached its CPU, and a while longer. */
static int sync_test_reader(void *arg)
{
    struct sync_test *st = arg;
    preempt_disable();
    unsigned cpu = sync_read_enter(&st->readers);
    uint64_t ipis = READ_ONCE(this_cpu()->ipis_received);
    WRITE_ONCE(st->ready, true);
    uint64_t give_up = clock_ns() + SYNC_TEST_GIVE_UP_NS;
    while (READ_ONCE(this_cpu()->ipis_received) == ipis && clock_ns() < give_up)
        arch_cpu_relax();
    if (READ_ONCE(this_cpu()->ipis_received) == ipis)
        WRITE_ONCE(st->timed_out, true);
    sync_test_hold(st, cpu);
    preempt_enable();
    return 0;
}

/* Starts fn on cpu with a fresh read side and waits until it reports ready. */
static struct thread *sync_test_start(struct selftest_ctx *t, int (*fn)(void *arg),
                                      bool (*unmarked)(unsigned long pc), int cpu)
{
    sync_test = (struct sync_test){.readers = SYNC_READERS_INIT};
    sync_test.readers.side.unmarked = unmarked;
    struct thread *th = kthread_create(fn, &sync_test, "sync_reader", (unsigned)cpu);
    EXPECT(th != NULL);
    if (!th)
        return NULL;
    uint64_t give_up = clock_ns() + SYNC_TEST_GIVE_UP_NS;
    while (!READ_ONCE(sync_test.ready) && clock_ns() < give_up)
        sleep_ns(NSEC_PER_MSEC);
    EXPECT(READ_ONCE(sync_test.ready));
    return th;
}

SELFTEST(synchronize_readers_waits_for_reader)
{
    int cpu = sync_test_other_cpu();
    if (cpu < 0)
        SKIP("one CPU: no reader can be inside on another");
    struct thread *th = sync_test_start(t, sync_test_reader, NULL, cpu);
    if (!th)
        return;
    EXPECT(!READ_ONCE(sync_test.left));
    synchronize_readers(&sync_test.readers);
    EXPECT(READ_ONCE(sync_test.left));
    EXPECT_EQ(kthread_join(th), 0);
    EXPECT(!sync_test.timed_out);
    /* Nobody inside: it returns at once, whatever happened before. */
    synchronize_readers(&sync_test.readers);
    EXPECT_EQ(sync_test.readers.inside[cpu].n, 0);
}

/*
 * The unmarked code of the next test: a reader that may already hold the old pointer but
 * has not marked itself spins here until two sync rounds found it here, then marks itself
 * before it leaves. Only inlined accesses, so every interrupt finds it in this function.
 */
static __noinline unsigned sync_test_unmarked_spin(struct sync_test *st)
{
    uint64_t give_up = arch_cycles() + tsc_hz() * (SYNC_TEST_GIVE_UP_NS / NSEC_PER_SEC);
    uint64_t ipis = READ_ONCE(this_cpu()->ipis_received);
    WRITE_ONCE(st->ready, true);
    while (READ_ONCE(this_cpu()->ipis_received) < ipis + 2) {
        if (arch_cycles() > give_up) {
            WRITE_ONCE(st->timed_out, true);
            break;
        }
        arch_cpu_relax();
    }
    return sync_read_enter(&st->readers);
}

static uintptr_t unmarked_start;
static size_t unmarked_size;

static bool sync_test_in_unmarked(unsigned long pc) { return pc - unmarked_start < unmarked_size; }

static int sync_test_unmarked_reader(void *arg)
{
    preempt_disable();
    sync_test_hold(arg, sync_test_unmarked_spin(arg));
    preempt_enable();
    return 0;
}

SELFTEST(synchronize_readers_asks_unmarked_again)
{
    int cpu = sync_test_other_cpu();
    if (cpu < 0)
        SKIP("one CPU: no reader can be inside on another");
    ASSERT_NOT_NULL(
        sym_lookup((uintptr_t)sync_test_unmarked_spin, &unmarked_start, &unmarked_size));
    ASSERT_EQ(unmarked_start, (uintptr_t)sync_test_unmarked_spin);
    struct thread *th = sync_test_start(t, sync_test_unmarked_reader, sync_test_in_unmarked, cpu);
    if (!th)
        return;
    /* The reader's marker is clear: only the unmarked rule keeps this waiting. */
    unsigned repeats = synchronize_read_side(&sync_test.readers.side);
    EXPECT(READ_ONCE(sync_test.left));
    EXPECT(repeats >= 1);
    EXPECT_EQ(kthread_join(th), 0);
    EXPECT(!sync_test.timed_out);
}
