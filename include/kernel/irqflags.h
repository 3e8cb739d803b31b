/*
 * Interrupts off and on, for code outside the tracer: the arch's operations plus the
 * latency hooks (<kernel/ftrace.h>), as Linux's local_irq_* are raw_local_irq_* plus
 * trace_hardirqs_*. The tracer itself, the patching code and the NMI path use the raw
 * arch_irq_* of <arch/cpu.h>: they must not call back into the tracer.
 *
 * The hooks run while interrupts are off: after disabling, before enabling, so that the
 * tracer never sees a section it could be interrupted in.
 */
#ifndef KERNEL_IRQFLAGS_H
#define KERNEL_IRQFLAGS_H

#include <arch/cpu.h>
#include <kernel/compiler.h>
#include <kernel/ftrace.h>

#define LOCAL_IRQ_HOOK(hook)                                                                       \
    do {                                                                                           \
        if (unlikely(trace_irq_hooks_on))                                                          \
            hook(FTRACE_THIS_IP, FTRACE_CALLER_IP);                                                \
    } while (0)

static __always_inline void local_irq_disable(void)
{
    arch_irq_disable();
    LOCAL_IRQ_HOOK(trace_hardirqs_off_caller);
}

static __always_inline void local_irq_enable(void)
{
    LOCAL_IRQ_HOOK(trace_hardirqs_on_caller);
    arch_irq_enable();
}

static __always_inline unsigned long local_irq_save(void)
{
    unsigned long flags = arch_irq_save();
    LOCAL_IRQ_HOOK(trace_hardirqs_off_caller);
    return flags;
}

static __always_inline void local_irq_restore(unsigned long flags)
{
    if (arch_irqs_enabled_flags(flags)) {
        LOCAL_IRQ_HOOK(trace_hardirqs_on_caller);
        arch_irq_enable();
    }
}

/* Interrupts on and halt as one step (the idle loop): the section ends before the halt. */
static __always_inline void local_irq_enable_and_halt(void)
{
    LOCAL_IRQ_HOOK(trace_hardirqs_on_caller);
    arch_enable_and_halt();
}

/* Preemption counted off or on by code that keeps the count itself (spinlocks, smp calls). */
#define PREEMPT_OFF_HOOK(count)                                                                    \
    do {                                                                                           \
        if (unlikely(trace_preempt_hooks_on) && (count) == 1)                                      \
            trace_preempt_off_caller(FTRACE_THIS_IP, FTRACE_CALLER_IP);                            \
    } while (0)
#define PREEMPT_ON_HOOK(count)                                                                     \
    do {                                                                                           \
        if (unlikely(trace_preempt_hooks_on) && (count) == 1)                                      \
            trace_preempt_on_caller(FTRACE_THIS_IP, FTRACE_CALLER_IP);                             \
    } while (0)

#endif
