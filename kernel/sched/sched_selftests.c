/*
 * Self-tests of the scheduler's policy: a preempt_on_wake or real-time thread runs at its
 * wakeup even with its CPU taken by threads that never sleep, and the others wait for the
 * slices of those ahead of them; real-time threads run strongest first; one that never
 * sleeps is throttled, so that its CPU's normal threads still run.
 *
 * Waits are counted in the CPU's own ticks, not in time: a tick is an interrupt the CPU
 * took, so a QEMU thread the host deschedules loses time but not ticks, and the counts
 * are the same on a loaded host as on a quiet one.
 */
#include <kernel/errno.h>
#include <kernel/percpu.h>
#include <kernel/sched.h>
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

enum sleeper_mark { SLEEPER_PLAIN, SLEEPER_PREEMPT_ON_WAKE, SLEEPER_FIFO };

/* The worst wait of WAKES one-tick sleeps beside SPINNERS busy threads; 0 on failure. */
static uint64_t worst_wake_beside_spinners(enum sleeper_mark mark)
{
    struct wake_test wt = {0};
    unsigned cpu = this_cpu_id();
    struct thread *spinners[SPINNERS];
    for (int i = 0; i < SPINNERS; i++)
        spinners[i] = kthread_create(spin_until_stopped, &wt, "spinner", cpu);
    struct thread *sleeper = kthread_create(sleep_and_count_ticks, &wt, "sleeper", cpu);
    if (sleeper) {
        thread_set_preempt_on_wake(sleeper, mark == SLEEPER_PREEMPT_ON_WAKE);
        if (mark == SLEEPER_FIFO)
            sched_setscheduler(sleeper, SCHED_FIFO, 50);
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
    uint64_t marked = worst_wake_beside_spinners(SLEEPER_PREEMPT_ON_WAKE);
    EXPECT(marked >= 1);
    EXPECT(marked <= 3);
    /* Without the mark the sleeper queues behind both spinners: a slice each, at least
     * the rest of one and the whole other (10 ticks). */
    uint64_t unmarked = worst_wake_beside_spinners(SLEEPER_PLAIN);
    EXPECT(unmarked >= 10);
}

SELFTEST(sched_rt_preempts_on_wake)
{
    uint64_t fifo = worst_wake_beside_spinners(SLEEPER_FIFO);
    EXPECT(fifo >= 1);
    EXPECT(fifo <= 3);
}

SELFTEST(sched_setscheduler_checks)
{
    struct thread *me = current_thread();
    EXPECT_EQ(sched_setscheduler(me, SCHED_FIFO, 0), -EINVAL);
    EXPECT_EQ(sched_setscheduler(me, SCHED_RR, SCHED_RT_PRIO_MAX + 1), -EINVAL);
    EXPECT_EQ(sched_setscheduler(me, SCHED_NORMAL, 1), -EINVAL);
    EXPECT_EQ(sched_setscheduler(me, 3, 1), -EINVAL);
    EXPECT_EQ(sched_setscheduler(this_cpu()->idle, SCHED_FIFO, 1), -EINVAL);
    EXPECT_EQ(sched_setscheduler_pid(-5, SCHED_FIFO, 1), -ESRCH);
    EXPECT_EQ(sched_setscheduler_pid(me->pid, SCHED_FIFO, 10), 0);
    int policy = -1, prio = -1;
    EXPECT_EQ(sched_getscheduler_pid(me->pid, &policy, &prio), 0);
    EXPECT_EQ(policy, SCHED_FIFO);
    EXPECT_EQ(prio, 10);
    EXPECT_EQ(thread_trace_prio(me), 89);
    EXPECT_EQ(sched_setscheduler(me, SCHED_NORMAL, 0), 0);
    EXPECT_EQ(thread_trace_prio(me), 120);
}

/* Real-time threads released at once run strongest first. */
#define ORDERED 3

struct order_test {
    struct wait_queue gate;
    volatile bool open;
    unsigned next;
    unsigned ran[ORDERED];
};

struct order_thread {
    struct order_test *ot;
    unsigned prio;
};

static bool order_gate_open(void *arg) { return ((struct order_test *)arg)->open; }

static int order_wait_then_record(void *arg)
{
    struct order_thread *o = arg;
    wait_event(&o->ot->gate, order_gate_open, o->ot);
    unsigned slot = __atomic_fetch_add(&o->ot->next, 1, __ATOMIC_RELAXED);
    if (slot < ORDERED)
        o->ot->ran[slot] = o->prio;
    return 0;
}

SELFTEST(sched_rt_strongest_first)
{
    static const unsigned prios[ORDERED] = {10, 30, 20};
    struct order_test ot = {0};
    struct order_thread args[ORDERED];
    struct thread *threads[ORDERED];
    wait_queue_init(&ot.gate, "order_gate");
    unsigned cpu = this_cpu_id();
    for (int i = 0; i < ORDERED; i++) {
        args[i] = (struct order_thread){&ot, prios[i]};
        threads[i] = kthread_create(order_wait_then_record, &args[i], "ordered", cpu);
        if (threads[i])
            sched_setscheduler(threads[i], SCHED_FIFO, (int)prios[i]);
    }
    /* Each outranks this thread, so each has run to the gate before this sleep ends. */
    sleep_ns(5 * NSEC_PER_MSEC);
    ot.open = true;
    wait_queue_wake_all(&ot.gate);
    for (int i = 0; i < ORDERED; i++)
        if (threads[i])
            kthread_join(threads[i]);
    for (int i = 0; i < ORDERED; i++)
        ASSERT_NOT_NULL(threads[i]);
    EXPECT_EQ(ot.next, ORDERED);
    EXPECT_EQ(ot.ran[0], 30);
    EXPECT_EQ(ot.ran[1], 20);
    EXPECT_EQ(ot.ran[2], 10);
}

/*
 * A real-time thread that never sleeps holds its CPU for most of a period (this thread's
 * one-tick sleep takes hundreds of ticks), and is then throttled, so that this normal
 * thread runs again instead of never.
 */
struct hog_test {
    volatile bool stop;
};

static int hog_until_stopped(void *arg)
{
    struct hog_test *h = arg;
    while (!h->stop)
        barrier();
    return 0;
}

SELFTEST(sched_rt_throttled)
{
    struct hog_test h = {0};
    unsigned cpu = this_cpu_id();
    uint64_t throttled = sched_rt_throttled_count(cpu);
    struct thread *hog = kthread_create(hog_until_stopped, &h, "rt_hog", cpu);
    ASSERT_NOT_NULL(hog);
    uint64_t before = this_cpu()->ticks;
    EXPECT_EQ(sched_setscheduler(hog, SCHED_FIFO, 99), 0);
    sleep_ns(NSEC_PER_MSEC);
    uint64_t waited = this_cpu()->ticks - before;
    h.stop = true;
    kthread_join(hog);
    EXPECT(waited >= 900);
    EXPECT(sched_rt_throttled_count(cpu) > throttled);
}
