/* Self-tests of the sleeping mutex: ownership, exclusion under contention, and sleeping. */
#include <kernel/mutex.h>
#include <kernel/percpu.h>
#include <kernel/selftest.h>
#include <kernel/thread.h>
#include <kernel/time.h>

#define MUTEX_TEST_ITERATIONS 200

struct mutex_test {
    struct mutex lock;
    uint64_t counter;
    volatile int inside;   /* threads between lock and unlock: more than one is a failure */
    volatile int overlaps; /* times a thread found another inside */
};

static int mutex_test_thread(void *arg)
{
    struct mutex_test *mt = arg;
    for (int i = 0; i < MUTEX_TEST_ITERATIONS; i++) {
        mutex_lock(&mt->lock);
        if (__atomic_fetch_add(&mt->inside, 1, __ATOMIC_RELAXED) != 0)
            __atomic_fetch_add(&mt->overlaps, 1, __ATOMIC_RELAXED);
        /* A read-modify-write that only the lock keeps atomic, stretched by a sleep now
         * and then so that waiters pile up and really go to sleep. */
        uint64_t v = mt->counter;
        if (i % 16 == 0)
            sleep_ns(100 * 1000);
        else
            schedule();
        mt->counter = v + 1;
        __atomic_fetch_sub(&mt->inside, 1, __ATOMIC_RELAXED);
        mutex_unlock(&mt->lock);
    }
    return 0;
}

SELFTEST(mutex_owner)
{
    static DEFINE_MUTEX(owner_test_lock);
    EXPECT(!mutex_is_mine(&owner_test_lock));
    mutex_lock(&owner_test_lock);
    EXPECT(mutex_is_mine(&owner_test_lock));
    EXPECT(owner_test_lock.owner == current_thread());
    mutex_unlock(&owner_test_lock);
    EXPECT(!mutex_is_mine(&owner_test_lock));
    EXPECT(mutex_trylock(&owner_test_lock));
    mutex_unlock(&owner_test_lock);
    EXPECT(owner_test_lock.owner == NULL);
}

static int mutex_test_try_thread(void *arg)
{
    struct mutex_test *mt = arg;
    /* Held by the test's thread: another thread must not get it, nor wait for it here. */
    return mutex_trylock(&mt->lock) ? 1 : 0;
}

SELFTEST(mutex_trylock_other)
{
    struct mutex_test mt = {0};
    mutex_init(&mt.lock, "selftest_mutex");
    mutex_lock(&mt.lock);
    struct thread *th = kthread_create(mutex_test_try_thread, &mt, "mutextry", 0);
    ASSERT_NOT_NULL(th);
    EXPECT_EQ(kthread_join(th), 0);
    mutex_unlock(&mt.lock);
    th = kthread_create(mutex_test_try_thread, &mt, "mutextry", 0);
    ASSERT_NOT_NULL(th);
    EXPECT_EQ(kthread_join(th), 1);
    EXPECT(mt.lock.owner != NULL);
}

/* Two threads per CPU (so waiters sleep behind a holder on their own CPU and on others). */
SELFTEST(mutex_counts_exact)
{
    struct mutex_test mt = {0};
    mutex_init(&mt.lock, "selftest_mutex");
    struct thread *threads[MAX_CPUS * 2];
    unsigned n = 0;
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (!cpu_data(cpu)->online)
            continue;
        for (int k = 0; k < 2; k++) {
            threads[n] = kthread_create(mutex_test_thread, &mt, "mutextest", cpu);
            EXPECT(threads[n] != NULL);
            if (threads[n])
                n++;
        }
    }
    for (unsigned i = 0; i < n; i++)
        EXPECT_EQ(kthread_join(threads[i]), 0);
    EXPECT_EQ(mt.counter, (uint64_t)n * MUTEX_TEST_ITERATIONS);
    EXPECT_EQ(mt.overlaps, 0);
    EXPECT(mt.lock.owner == NULL);
    EXPECT(list_empty(&mt.lock.waiters.waiters));
}
