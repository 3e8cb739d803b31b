/*
 * Waiting for a condition. Until there is a scheduler the only waiter is the boot thread,
 * so waiting means halting until the next interrupt and re-checking; the queue and its
 * wakeups already mark where the scheduler plugs in.
 */
#include <arch/cpu.h>
#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/time.h>
#include <kernel/wait.h>

static uint64_t idle_ns;

uint64_t idle_time_ns(void) { return idle_ns; }

void wait_queue_init(struct wait_queue *wq, const char *name)
{
    spin_init(&wq->lock, name);
    list_init(&wq->waiters);
}

void wait_queue_wake_all(struct wait_queue *wq) { (void)wq; }
void wait_queue_wake_one(struct wait_queue *wq) { (void)wq; }

int wait_event_timeout(struct wait_queue *wq, wait_cond_fn cond, void *arg, uint64_t timeout_ns,
                       bool interruptible)
{
    uint64_t deadline = timeout_ns ? clock_ns() + timeout_ns : 0;
    (void)wq;
    for (;;) {
        arch_irq_disable();
        if (cond && cond(arg)) {
            arch_irq_enable();
            return 0;
        }
        if (interruptible && console_interrupted()) {
            arch_irq_enable();
            return -EINTR;
        }
        if (deadline && clock_ns() >= deadline) {
            arch_irq_enable();
            return -ETIMEDOUT;
        }
        /* The timer tick guarantees a wakeup at least every millisecond. */
        uint64_t before = clock_ns();
        arch_enable_and_halt();
        idle_ns += clock_ns() - before;
    }
}

void wait_event(struct wait_queue *wq, wait_cond_fn cond, void *arg)
{
    wait_event_timeout(wq, cond, arg, 0, false);
}
