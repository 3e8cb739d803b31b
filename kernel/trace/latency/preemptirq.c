/*
 * The latency hooks (<kernel/ftrace.h>): where every interrupts-off, interrupts-on,
 * preemption-off and preemption-on of the kernel arrives while a latency tracer or a
 * preemptirq event wants them, as in Linux's tracer. They hand each transition
 * to the irqsoff tracers (trace_irqsoff.c) and to the preemptirq events.
 *
 * Guards, since the hooks sit under everything: nothing in an NMI (it can interrupt a
 * hook halfway); nothing while this CPU is already inside a hook (the tracer takes locks,
 * whose own hooks would come back here); a redundant off (interrupts already noted off)
 * or an on without its off is dropped, as Linux's per-CPU tracing_irq_cpu drops them. A
 * preemption hook may run with interrupts on (its events must show them on): an
 * interrupt that comes meanwhile finds the hook busy and leaves its own section out.
 * Preemption changes inside an interrupt handler are not transitions (Linux counts the
 * handler itself in preempt_count, so its preempt_disable never goes from 0).
 */
#include <arch/cpu.h>
#include <kernel/ftrace.h>
#include <kernel/percpu.h>

#include "latency.h"

volatile uint8_t trace_irq_hooks_on;
volatile uint8_t trace_preempt_hooks_on;

/* Which users want which hooks: PREEMPTIRQ_USER_* bits. */
static uint8_t irq_users, preempt_users;
/* What the irqsoff tracers want now (set with the users; read in the hooks). */
static volatile bool tracer_irq, tracer_preempt;

static uint8_t irqs_off_noted[MAX_CPUS];
static uint8_t hook_busy[MAX_CPUS];

void preemptirq_hooks_set(bool irq, bool preempt, unsigned user, bool on)
{
    /* Thread context; the tracer and the events each change only their own bit. */
    if (irq && on)
        __atomic_fetch_or(&irq_users, (uint8_t)user, __ATOMIC_SEQ_CST);
    else if (irq)
        __atomic_fetch_and(&irq_users, (uint8_t)~user, __ATOMIC_SEQ_CST);
    if (preempt && on)
        __atomic_fetch_or(&preempt_users, (uint8_t)user, __ATOMIC_SEQ_CST);
    else if (preempt)
        __atomic_fetch_and(&preempt_users, (uint8_t)~user, __ATOMIC_SEQ_CST);
    if (user == PREEMPTIRQ_USER_TRACER) {
        if (irq)
            WRITE_ONCE(tracer_irq, on);
        if (preempt)
            WRITE_ONCE(tracer_preempt, on);
    }
    WRITE_ONCE(trace_irq_hooks_on, __atomic_load_n(&irq_users, __ATOMIC_SEQ_CST) != 0);
    WRITE_ONCE(trace_preempt_hooks_on, __atomic_load_n(&preempt_users, __ATOMIC_SEQ_CST) != 0);
}

void trace_hardirqs_off_caller(unsigned long ip, unsigned long parent_ip)
{
    struct percpu *cpu = this_cpu();
    unsigned c = cpu->cpu;
    if (cpu->nmi_depth || irqs_off_noted[c] || hook_busy[c])
        return;
    hook_busy[c] = 1;
    irqs_off_noted[c] = 1;
    if (READ_ONCE(tracer_irq))
        irqsoff_hardirqs_off(ip, parent_ip);
    preemptirq_event_irq(false, ip, parent_ip);
    hook_busy[c] = 0;
}

void trace_hardirqs_on_caller(unsigned long ip, unsigned long parent_ip)
{
    struct percpu *cpu = this_cpu();
    unsigned c = cpu->cpu;
    if (cpu->nmi_depth || !irqs_off_noted[c] || hook_busy[c])
        return;
    hook_busy[c] = 1;
    preemptirq_event_irq(true, ip, parent_ip);
    if (READ_ONCE(tracer_irq))
        irqsoff_hardirqs_on(ip, parent_ip);
    irqs_off_noted[c] = 0;
    hook_busy[c] = 0;
}

static void preempt_hook(bool on, unsigned long ip, unsigned long parent_ip)
{
    struct percpu *cpu = this_cpu();
    if (cpu->nmi_depth || cpu->irq_depth)
        return;
    bool irqs_were_off = !arch_irqs_enabled();
    unsigned c = cpu->cpu;
    if (!hook_busy[c]) {
        hook_busy[c] = 1;
        if (on) {
            preemptirq_event_preempt(true, ip, parent_ip);
            if (READ_ONCE(tracer_preempt))
                irqsoff_preempt_on(ip, parent_ip, irqs_were_off);
        } else {
            if (READ_ONCE(tracer_preempt))
                irqsoff_preempt_off(ip, parent_ip, irqs_were_off);
            preemptirq_event_preempt(false, ip, parent_ip);
        }
        hook_busy[c] = 0;
    }
}

void trace_preempt_off_caller(unsigned long ip, unsigned long parent_ip)
{
    preempt_hook(false, ip, parent_ip);
}

void trace_preempt_on_caller(unsigned long ip, unsigned long parent_ip)
{
    preempt_hook(true, ip, parent_ip);
}
