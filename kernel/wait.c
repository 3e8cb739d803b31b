/*
 * Wait queues. A waiter checks its condition and enqueues itself under the queue's lock,
 * and a waker changes the state before taking that lock, so a wakeup between the check
 * and the sleep is never lost. Before the scheduler runs on this CPU (early boot), waiting
 * means halting until the next interrupt and checking again.
 */
#include <arch/cpu.h>
#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/irqflags.h>
#include <kernel/percpu.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/wait.h>

struct waiter {
    struct list_node node;
    struct thread *thread;
};

void wait_queue_init(struct wait_queue *wq, const char *name)
{
    spin_init(&wq->lock, name);
    list_init(&wq->waiters);
}

static void wake(struct wait_queue *wq, bool all)
{
    unsigned long flags = spin_lock_irqsave(&wq->lock);
    struct list_node *pos, *tmp;
    list_for_each_safe(pos, tmp, &wq->waiters) {
        struct waiter *w = list_entry(pos, struct waiter, node);
        list_remove(&w->node);
        thread_wake(w->thread);
        if (!all)
            break;
    }
    spin_unlock_irqrestore(&wq->lock, flags);
}

void wait_queue_wake_all(struct wait_queue *wq) { wake(wq, true); }
void wait_queue_wake_one(struct wait_queue *wq) { wake(wq, false); }

static int check_stop(wait_cond_fn cond, void *arg, uint64_t deadline, bool interruptible)
{
    if (cond && cond(arg))
        return 0;
    if (interruptible && console_interrupted())
        return -EINTR;
    if (deadline && clock_ns() >= deadline)
        return -ETIMEDOUT;
    return 1;
}

int wait_event_timeout(struct wait_queue *wq, wait_cond_fn cond, void *arg, uint64_t timeout_ns,
                       bool interruptible)
{
    uint64_t deadline = timeout_ns ? clock_ns() + timeout_ns : 0;
    struct thread *me = current_thread();
    if (!me || me->is_idle) {
        /* No thread to put to sleep: poll, halting between checks. */
        for (;;) {
            local_irq_disable();
            int r = check_stop(cond, arg, deadline, interruptible);
            if (r <= 0) {
                local_irq_enable();
                return r;
            }
            local_irq_enable_and_halt();
        }
    }
    struct waiter w = {.thread = me};
    list_init(&w.node);
    for (;;) {
        unsigned long flags = spin_lock_irqsave(&wq->lock);
        int r = check_stop(cond, arg, deadline, interruptible);
        if (r <= 0) {
            if (!list_empty(&w.node))
                list_remove(&w.node);
            spin_unlock_irqrestore(&wq->lock, flags);
            return r;
        }
        if (list_empty(&w.node))
            list_add_tail(&wq->waiters, &w.node);
        thread_prepare_sleep(deadline);
        spin_unlock_irqrestore(&wq->lock, flags);
        schedule();
    }
}

void wait_event(struct wait_queue *wq, wait_cond_fn cond, void *arg)
{
    wait_event_timeout(wq, cond, arg, 0, false);
}

uint64_t idle_time_ns(void)
{
    uint64_t sum = 0;
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (cpu_data(cpu)->online)
            sum += sched_idle_runtime_ns(cpu);
    return sum;
}
