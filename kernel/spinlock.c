/*
 * Ticket spinlocks with ownership checks. Not traced: the tracer and the code patcher
 * take locks, and tracing lock functions would recurse into them.
 */
#include <arch/cpu.h>
#include <kernel/irqflags.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>

static inline int my_holder_id(void) { return (int)this_cpu_id() + 1; }

void spin_init(struct spinlock *l, const char *name)
{
    l->next = 0;
    l->serving = 0;
    l->holder = 0;
    l->name = name;
}

void spin_lock(struct spinlock *l)
{
    int me = my_holder_id();
    if (unlikely(l->holder == me) && !panic_in_progress)
        panic("spinlock %s: recursive acquire on CPU %d", l->name, me - 1);
    /* A thread preempted while holding a lock would leave its CPU spinning on itself. */
    struct percpu *cpu = this_cpu();
    cpu->preempt_count++;
    PREEMPT_OFF_HOOK(cpu->preempt_count);
    uint16_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
    while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket)
        arch_cpu_relax();
    l->holder = me;
}

bool spin_trylock(struct spinlock *l)
{
    struct percpu *cpu = this_cpu();
    cpu->preempt_count++;
    PREEMPT_OFF_HOOK(cpu->preempt_count);
    uint16_t serving = __atomic_load_n(&l->serving, __ATOMIC_RELAXED);
    uint16_t expected = serving;
    /* Take a ticket only if it would be served at once. */
    if (!__atomic_compare_exchange_n(&l->next, &expected, (uint16_t)(serving + 1), false,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        PREEMPT_ON_HOOK(cpu->preempt_count);
        cpu->preempt_count--;
        return false;
    }
    l->holder = my_holder_id();
    return true;
}

/* Re-enables preemption and takes a switch that became due while the lock was held. */
static inline void spin_preempt_enable(void)
{
    struct percpu *cpu = this_cpu();
    PREEMPT_ON_HOOK(cpu->preempt_count);
    if (--cpu->preempt_count == 0 && cpu->need_resched && cpu->irq_depth == 0 &&
        arch_irqs_enabled())
        schedule();
}

void spin_unlock(struct spinlock *l)
{
    int me = my_holder_id();
    if (unlikely(l->holder != me) && !panic_in_progress)
        panic("spinlock %s: released by CPU %d but held by %s%d", l->name, me - 1,
              l->holder ? "CPU " : "nobody", l->holder ? l->holder - 1 : 0);
    l->holder = 0;
    __atomic_store_n(&l->serving, (uint16_t)(l->serving + 1), __ATOMIC_RELEASE);
    spin_preempt_enable();
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
    unsigned long flags = local_irq_save();
    spin_lock(l);
    return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
    spin_unlock(l);
    local_irq_restore(flags);
    struct percpu *cpu = this_cpu();
    if (cpu->need_resched && cpu->preempt_count == 0 && cpu->irq_depth == 0 &&
        arch_irqs_enabled_flags(flags))
        schedule();
}
