/* Self-tests of SMP, locks, threads, wakeups and sleeping. */
#include <arch/cpu.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/selftest.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/wait.h>
#include <lib/string.h>

static volatile unsigned call_hits[MAX_CPUS];
static volatile int call_ran_on[MAX_CPUS];

static void count_call(void *arg)
{
    unsigned cpu = this_cpu_id();
    __atomic_fetch_add(&call_hits[cpu], 1, __ATOMIC_RELAXED);
    call_ran_on[cpu] = (int)cpu;
    if (arch_irqs_enabled())
        __atomic_fetch_add((unsigned *)arg, 1, __ATOMIC_RELAXED);
}

SELFTEST(smp_call_function_all)
{
    unsigned irqs_on = 0;
    memset((void *)call_hits, 0, sizeof(call_hits));
    smp_call_function(CPUMASK_ALL, count_call, &irqs_on, true);
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        EXPECT_EQ(call_hits[cpu], cpu_data(cpu)->online ? 1 : 0);
    EXPECT_EQ(irqs_on, 0);
}

SELFTEST(smp_call_function_single)
{
    unsigned irqs_on = 0;
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (!cpu_data(cpu)->online)
            continue;
        memset((void *)call_hits, 0, sizeof(call_hits));
        call_ran_on[cpu] = -1;
        smp_call_function_single(cpu, count_call, &irqs_on, true);
        EXPECT_EQ(call_ran_on[cpu], cpu);
        for (unsigned other = 0; other < MAX_CPUS; other++)
            EXPECT_EQ(call_hits[other], other == cpu ? 1 : 0);
    }
    EXPECT_EQ(irqs_on, 0);
}

SELFTEST(smp_sync_round)
{
    uint64_t before = smp_sync_rounds();
    uint64_t ipis_before[MAX_CPUS];
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        ipis_before[cpu] = cpu_data(cpu)->ipis_received;
    smp_sync_all();
    EXPECT_EQ(smp_sync_rounds(), before + 1);
    /* Every other CPU took the interrupt before the round returned. */
    unsigned me = this_cpu_id();
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (cpu_data(cpu)->online && cpu != me)
            EXPECT(cpu_data(cpu)->ipis_received > ipis_before[cpu]);
}

#define LOCK_TEST_ITERATIONS 20000

struct lock_test {
    struct spinlock lock;
    volatile uint64_t counter;
};

static int lock_test_thread(void *arg)
{
    struct lock_test *lt = arg;
    for (int i = 0; i < LOCK_TEST_ITERATIONS; i++) {
        spin_lock(&lt->lock);
        /* A read-modify-write that only the lock keeps atomic. */
        uint64_t v = lt->counter;
        barrier();
        lt->counter = v + 1;
        spin_unlock(&lt->lock);
    }
    return 0;
}

SELFTEST(smp_lock_counts_exact)
{
    struct lock_test lt;
    spin_init(&lt.lock, "selftest_lock");
    lt.counter = 0;
    struct thread *threads[MAX_CPUS * 2];
    unsigned n = 0;
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (!cpu_data(cpu)->online)
            continue;
        for (int k = 0; k < 2; k++) {
            threads[n] = kthread_create(lock_test_thread, &lt, "locktest", cpu);
            EXPECT(threads[n] != NULL);
            if (threads[n])
                n++;
        }
    }
    for (unsigned i = 0; i < n; i++)
        EXPECT_EQ(kthread_join(threads[i]), 0);
    EXPECT_EQ(lt.counter, (uint64_t)n * LOCK_TEST_ITERATIONS);
}

struct wake_test {
    struct wait_queue wq;
    volatile bool flag;
    volatile unsigned woke_on;
    volatile bool waiting;
};

static bool wake_flag_set(void *arg) { return ((struct wake_test *)arg)->flag; }

static int wake_test_thread(void *arg)
{
    struct wake_test *wt = arg;
    wt->waiting = true;
    int r = wait_event_timeout(&wt->wq, wake_flag_set, wt, 5 * NSEC_PER_SEC, false);
    wt->woke_on = this_cpu_id();
    return r;
}

static bool thread_sleeping(struct thread *t) { return t->state == THREAD_SLEEPING; }

SELFTEST(smp_wakeup_across_cpus)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (!cpu_data(cpu)->online)
            continue;
        struct wake_test wt = {.flag = false, .woke_on = ~0u, .waiting = false};
        wait_queue_init(&wt.wq, "selftest_wake");
        struct thread *th = kthread_create(wake_test_thread, &wt, "waketest", cpu);
        EXPECT(th != NULL);
        if (!th)
            continue;
        /* Let it go to sleep, then wake it from here (another CPU, except for our own). */
        uint64_t give_up = clock_ns() + 2 * NSEC_PER_SEC;
        while (!(wt.waiting && thread_sleeping(th)) && clock_ns() < give_up)
            sleep_ns(NSEC_PER_MSEC);
        EXPECT(thread_sleeping(th));
        wt.flag = true;
        wait_queue_wake_all(&wt.wq);
        EXPECT_EQ(kthread_join(th), 0); /* 0: woken by the flag, not the 5 s timeout */
        EXPECT_EQ(wt.woke_on, cpu);
    }
}

SELFTEST(sleep_duration)
{
    for (int i = 0; i < 3; i++) {
        uint64_t start = clock_ns();
        sleep_ns(20 * NSEC_PER_MSEC);
        uint64_t slept = clock_ns() - start;
        EXPECT(slept >= 20 * NSEC_PER_MSEC);
        /* Generous: emulated CPUs can be descheduled by the host. */
        EXPECT(slept < 500 * NSEC_PER_MSEC);
    }
}

static int noop_thread(void *arg) { return (int)(uintptr_t)arg; }

SELFTEST(threads_reaped_without_leaks)
{
    struct thread *warmup = kthread_create(noop_thread, NULL, "warmup", 0);
    EXPECT(warmup != NULL);
    if (warmup)
        kthread_join(warmup);
    struct mm_stats before, after;
    mm_get_stats(&before);
    size_t threads_before = thread_count();
    for (int round = 0; round < 5; round++) {
        struct thread *ts[MAX_CPUS * 3];
        unsigned n = 0;
        for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
            if (!cpu_data(cpu)->online)
                continue;
            for (int k = 0; k < 3; k++) {
                ts[n] = kthread_create(noop_thread, (void *)(uintptr_t)(n + 7), "reaptest", cpu);
                EXPECT(ts[n] != NULL);
                if (ts[n])
                    n++;
            }
        }
        for (unsigned i = 0; i < n; i++)
            EXPECT_EQ(kthread_join(ts[i]), (int)i + 7);
    }
    mm_get_stats(&after);
    EXPECT_EQ(thread_count(), threads_before);
    EXPECT_EQ(after.heap_bytes_in_use, before.heap_bytes_in_use);
    EXPECT_EQ(after.free_pages, before.free_pages);
}
