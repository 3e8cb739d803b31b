/*
 * Self-tests of the scheduler's policy: a preempt_on_wake thread runs at its wakeup even
 * with its CPU taken by threads that never sleep, and the others, without the mark, wait
 * for the slices of those ahead of them.
 *
 * Waits are counted in the CPU's own ticks, not in time: a tick is an interrupt the CPU
 * took, so a QEMU thread the host deschedules loses time but not ticks, and the counts
 * are the same on a loaded host as on a quiet one.
 */
#include <kernel/percpu.h>
#include <kernel/selftest.h>
#include <kernel/thread.h>
#include <kernel/time.h>

#define SPINNERS 2
#define WAKES 20

struct wake_test {
    volatile bool stop;
    uint64_t worst_wait_ticks; /* the most ticks one 1 ms sleep took to return */
};

static int spin_until_stopped(void *arg)
{
    struct wake_test *wt = arg;
    while (!wt->stop)
        barrier();
    return 0;
}

static int sleep_and_count_ticks(void *arg)
{
    struct wake_test *wt = arg;
    for (int i = 0; i < WAKES; i++) {
        uint64_t before = this_cpu()->ticks;
        sleep_ns(NSEC_PER_MSEC);
        uint64_t waited = this_cpu()->ticks - before;
        if (waited > wt->worst_wait_ticks)
            wt->worst_wait_ticks = waited;
    }
    wt->stop = true;
    return 0;
}

/* The worst wait of WAKES one-tick sleeps beside SPINNERS busy threads; 0 on failure. */
static uint64_t worst_wake_beside_spinners(bool preempt_on_wake)
{
    struct wake_test wt = {0};
    unsigned cpu = this_cpu_id();
    struct thread *spinners[SPINNERS];
    for (int i = 0; i < SPINNERS; i++)
        spinners[i] = kthread_create(spin_until_stopped, &wt, "spinner", cpu);
    struct thread *sleeper = kthread_create(sleep_and_count_ticks, &wt, "sleeper", cpu);
    if (sleeper) {
        thread_set_preempt_on_wake(sleeper, preempt_on_wake);
        kthread_join(sleeper);
    }
    wt.stop = true;
    for (int i = 0; i < SPINNERS; i++)
        if (spinners[i])
            kthread_join(spinners[i]);
    for (int i = 0; i < SPINNERS; i++)
        if (!spinners[i])
            return 0;
    return sleeper ? wt.worst_wait_ticks : 0;
}

SELFTEST(sched_preempt_on_wake)
{
    /* The sleep ends at the first tick past its deadline, which preempts the spinner. */
    uint64_t marked = worst_wake_beside_spinners(true);
    EXPECT(marked >= 1);
    EXPECT(marked <= 3);
    /* Without the mark the sleeper queues behind both spinners: a slice each, at least
     * the rest of one and the whole other (10 ticks). */
    uint64_t unmarked = worst_wake_beside_spinners(false);
    EXPECT(unmarked >= 10);
}
