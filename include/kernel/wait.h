#ifndef KERNEL_WAIT_H
#define KERNEL_WAIT_H

#include <kernel/compiler.h>
#include <kernel/list.h>
#include <kernel/spinlock.h>

/*
 * A queue of threads waiting for a condition. Wakers change the state first, then call
 * wake; waiters re-check their condition after every wakeup, so a wakeup is never lost
 * and a spurious one is harmless.
 */
struct wait_queue {
    struct spinlock lock;
    struct list_node waiters;
};

#define WAIT_QUEUE_INIT(name)                                                                      \
    {                                                                                              \
        SPINLOCK_INIT(#name), LIST_INIT((name).waiters)                                            \
    }

typedef bool (*wait_cond_fn)(void *arg);

void wait_queue_init(struct wait_queue *wq, const char *name);
void wait_queue_wake_all(struct wait_queue *wq);
void wait_queue_wake_one(struct wait_queue *wq);
/* Sleeps until cond(arg) is true. */
void wait_event(struct wait_queue *wq, wait_cond_fn cond, void *arg);
/*
 * Sleeps until cond(arg) is true (returns 0), timeout_ns passed (-ETIMEDOUT, 0 = none), or
 * Ctrl-C was typed when interruptible (-EINTR).
 */
int wait_event_timeout(struct wait_queue *wq, wait_cond_fn cond, void *arg, uint64_t timeout_ns,
                       bool interruptible);

#endif
