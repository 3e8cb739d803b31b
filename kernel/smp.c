/*
 * Cross-CPU calls. Each CPU has a queue of calls for it; an IPI makes it drain the
 * queue. The broadcast sync round is separate and lighter: no queue, just a generation
 * number every other CPU acknowledges from its interrupt handler, because live patching
 * runs three of them per batch.
 */
#include <arch/cpu.h>
#include <arch/irq.h>
#include <arch/setup.h>
#include <kernel/irqflags.h>
#include <kernel/list.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>

struct call_entry {
    struct smp_call call;
    volatile bool done;
    bool free_when_done;
};

struct call_queue {
    struct spinlock lock;
    struct list_node calls;
} __cacheline_aligned;

struct sync_ack {
    volatile uint64_t generation;
    unsigned long pc; /* where the round's interrupt found this CPU */
} __cacheline_aligned;

static struct call_queue call_queues[MAX_CPUS];
static struct sync_ack sync_acks[MAX_CPUS];
static volatile uint64_t sync_generation;
static uint64_t sync_rounds;
static DEFINE_SPINLOCK(sync_lock);
static volatile bool stop_requested;

cpumask_t cpu_online_mask(void)
{
    cpumask_t m = 0;
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (cpu_data(cpu)->online)
            m |= 1u << cpu;
    return m;
}

static void call_function_ipi(struct pt_regs *regs, void *arg)
{
    struct call_queue *q = &call_queues[this_cpu_id()];
    this_cpu()->ipis_received++;
    for (;;) {
        spin_lock(&q->lock);
        struct list_node *n = list_pop_head(&q->calls);
        spin_unlock(&q->lock);
        if (!n)
            break;
        struct smp_call *sc = list_entry(n, struct smp_call, node);
        if (sc->caller_owned) {
            /* Queueable again from here: a request made while fn runs is not lost. */
            __atomic_store_n(&sc->queued, false, __ATOMIC_RELEASE);
            sc->fn(sc->arg);
            continue;
        }
        struct call_entry *c = list_entry(sc, struct call_entry, call);
        c->call.fn(c->call.arg);
        if (c->free_when_done)
            kfree(c);
        else
            __atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
    }
}

static void sync_ipi(struct pt_regs *regs, void *arg)
{
    this_cpu()->ipis_received++;
    struct sync_ack *ack = &sync_acks[this_cpu_id()];
    ack->pc = arch_regs_ip(regs);
    /* The return from this interrupt is what serialises this CPU. */
    __atomic_store_n(&ack->generation, READ_ONCE(sync_generation), __ATOMIC_RELEASE);
}

static bool stop_nmi(struct pt_regs *regs)
{
    if (!stop_requested)
        return false;
    for (;;) {
        arch_irq_disable();
        arch_halt();
    }
}

void smp_init_ipis(void)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        spin_init(&call_queues[cpu].lock, "call_queue");
        list_init(&call_queues[cpu].calls);
    }
    arch_set_irq_handler(ARCH_IPI_CALL_FUNCTION, call_function_ipi, NULL);
    arch_set_irq_handler(ARCH_IPI_SYNC, sync_ipi, NULL);
    arch_set_nmi_hook(stop_nmi);
}

void smp_call_function(cpumask_t mask, void (*fn)(void *arg), void *arg, bool wait)
{
    struct call_entry entries[MAX_CPUS];
    unsigned me = this_cpu_id();
    mask &= cpu_online_mask();
    /* Waiting with interrupts off could deadlock against a CPU calling us the same way. */
    ASSERT(!wait || arch_irqs_enabled() || mask == (1u << me));

    struct percpu *self = this_cpu();
    self->preempt_count++;
    PREEMPT_OFF_HOOK(self->preempt_count);
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (!(mask & (1u << cpu)) || cpu == me)
            continue;
        struct call_entry *c = wait ? &entries[cpu] : kmalloc(sizeof(*c));
        if (!c)
            panic("smp_call_function: out of memory");
        c->call.fn = fn;
        c->call.arg = arg;
        c->call.caller_owned = false;
        c->done = false;
        c->free_when_done = !wait;
        unsigned long flags = spin_lock_irqsave(&call_queues[cpu].lock);
        list_add_tail(&call_queues[cpu].calls, &c->call.node);
        spin_unlock_irqrestore(&call_queues[cpu].lock, flags);
        arch_send_ipi(cpu_data(cpu)->hw_id, ARCH_IPI_CALL_FUNCTION);
    }
    if (mask & (1u << me)) {
        unsigned long flags = local_irq_save();
        fn(arg);
        local_irq_restore(flags);
    }
    if (wait) {
        for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
            if (!(mask & (1u << cpu)) || cpu == me)
                continue;
            while (!__atomic_load_n(&entries[cpu].done, __ATOMIC_ACQUIRE))
                arch_cpu_relax();
        }
    }
    PREEMPT_ON_HOOK(self->preempt_count);
    self->preempt_count--;
}

bool smp_call_async(unsigned cpu, struct smp_call *c)
{
    ASSERT(cpu < MAX_CPUS && cpu_data(cpu)->online);
    if (__atomic_exchange_n(&c->queued, true, __ATOMIC_ACQ_REL))
        return false;
    c->caller_owned = true;
    unsigned long flags = spin_lock_irqsave(&call_queues[cpu].lock);
    list_add_tail(&call_queues[cpu].calls, &c->node);
    spin_unlock_irqrestore(&call_queues[cpu].lock, flags);
    arch_send_ipi(cpu_data(cpu)->hw_id, ARCH_IPI_CALL_FUNCTION);
    return true;
}

void smp_call_function_single(unsigned cpu, void (*fn)(void *arg), void *arg, bool wait)
{
    smp_call_function(1u << cpu, fn, arg, wait);
}

void smp_sync_all(void) { smp_sync_all_pcs(NULL); }

void smp_sync_all_pcs(unsigned long pcs[MAX_CPUS])
{
    /* Interrupts stay on: a CPU waiting here for the lock must still answer the round
     * in flight, or two initiators would wait on each other forever. A caller with
     * interrupts off could not answer either, so none is allowed. */
    ASSERT(arch_irqs_enabled());
    spin_lock(&sync_lock);
    unsigned me = this_cpu_id();
    uint64_t gen = ++sync_generation;
    cpumask_t others = cpu_online_mask() & ~(1u << me);
    if (others)
        arch_send_ipi_others(ARCH_IPI_SYNC);
    arch_sync_core();
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (!(others & (1u << cpu)))
            continue;
        while (__atomic_load_n(&sync_acks[cpu].generation, __ATOMIC_ACQUIRE) != gen)
            arch_cpu_relax();
        if (pcs)
            pcs[cpu] = sync_acks[cpu].pc;
    }
    sync_rounds++;
    spin_unlock(&sync_lock);
}

uint64_t smp_sync_rounds(void) { return READ_ONCE(sync_rounds); }

void smp_stop_other_cpus(void)
{
    if (cpus_online <= 1)
        return;
    stop_requested = true;
    arch_send_nmi_others();
    udelay(10000);
}
