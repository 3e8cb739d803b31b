/*
 * Sleeping mutex on a wait queue. The owner field is the lock itself: taking it is one
 * compare-and-swap from NULL to the caller, so a waiter's condition check claims the lock
 * in the same step that tests it, under the queue's lock, and an unlock (owner back to
 * NULL, then a wakeup) can never fall between a waiter's check and its sleep. Wakeups are
 * not handed over: a woken waiter competes with newcomers and sleeps again if it loses.
 */
#include <kernel/mutex.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/thread.h>

void mutex_init(struct mutex *m, const char *name)
{
    m->owner = NULL;
    wait_queue_init(&m->waiters, name);
    m->name = name;
}

static struct thread *mutex_caller(const struct mutex *m)
{
    struct thread *me = current_thread();
    if (!me || in_irq())
        panic("mutex %s taken outside a thread (in an interrupt or before the scheduler)", m->name);
    return me;
}

static bool mutex_claim(struct mutex *m, struct thread *me)
{
    return __atomic_compare_exchange_n(&m->owner, &(struct thread *){NULL}, me, false,
                                       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

struct mutex_claim_arg {
    struct mutex *m;
    struct thread *me;
};

static bool mutex_claim_cond(void *arg)
{
    struct mutex_claim_arg *a = arg;
    return mutex_claim(a->m, a->me);
}

bool mutex_trylock(struct mutex *m)
{
    struct thread *me = mutex_caller(m);
    if (READ_ONCE(m->owner) == me)
        panic("mutex %s: taken again by its owner %s (pid %d)", m->name, me->name, me->pid);
    return mutex_claim(m, me);
}

void mutex_lock(struct mutex *m)
{
    /* Checked before the fast path: a caller that may sleep must be told so even when it
     * happens not to wait. */
    if (this_cpu()->preempt_count)
        panic("mutex %s taken with preemption off (a spinlock held?)", m->name);
    if (mutex_trylock(m))
        return;
    struct mutex_claim_arg arg = {m, current_thread()};
    wait_event(&m->waiters, mutex_claim_cond, &arg);
}

void mutex_unlock(struct mutex *m)
{
    struct thread *me = mutex_caller(m);
    struct thread *owner = READ_ONCE(m->owner);
    if (owner != me)
        panic("mutex %s: released by %s (pid %d), held by %s", m->name, me->name, me->pid,
              owner ? owner->name : "nobody");
    __atomic_store_n(&m->owner, NULL, __ATOMIC_RELEASE);
    wait_queue_wake_one(&m->waiters);
}

bool mutex_is_mine(const struct mutex *m)
{
    struct thread *me = current_thread();
    return me && READ_ONCE(m->owner) == me;
}
