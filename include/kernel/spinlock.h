#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <kernel/compiler.h>

/*
 * Ticket spinlock that knows its owner: taking a lock this CPU already holds, or
 * releasing one it does not hold, panics with the lock's name and holder instead of
 * deadlocking or corrupting silently.
 */
struct spinlock {
    volatile uint16_t next;
    volatile uint16_t serving;
    volatile int holder; /* CPU number + 1, 0 when free */
    const char *name;
};

#define SPINLOCK_INIT(lock_name)                                                                   \
    {                                                                                              \
        0, 0, 0, lock_name                                                                         \
    }
#define DEFINE_SPINLOCK(var) struct spinlock var = SPINLOCK_INIT(#var)

void spin_init(struct spinlock *l, const char *name);
void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
bool spin_trylock(struct spinlock *l);
/* Disables interrupts first, so an interrupt handler on this CPU cannot deadlock on it. */
unsigned long spin_lock_irqsave(struct spinlock *l);
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);

#endif
