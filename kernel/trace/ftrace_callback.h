/*
 * The guard around every ftrace callback entered from a trampoline.
 *
 * A callback runs with preemption off, and at most once per context (thread, hardirq,
 * NMI) on a CPU: a traced function called from inside a callback in the same context is
 * turned away, not traced. The bits of the contexts now inside a callback are this CPU's
 * ftrace_recursion word; unregistering an op waits until every CPU's word is zero once
 * (ftrace.c: wait_for_callbacks), so the word is also the "someone is inside" count.
 *
 * The generic dispatchers (ftrace.c) run the guard around an op's func. An op's own
 * trampoline can instead call the op's `entry` (struct ftrace_ops), which runs the guard
 * inline itself: one call and one stack frame less on every traced call. Such an entry
 * lives in FTRACE_DIRECT_ENTRY_TEXT (entry text), because until the guard has counted it
 * in, only its program counter tells unregistering that the CPU is on its way into the op.
 */
#ifndef KERNEL_TRACE_FTRACE_CALLBACK_H
#define KERNEL_TRACE_FTRACE_CALLBACK_H

#include <arch/ftrace.h>
#include <kernel/compiler.h>
#include <kernel/ftrace.h>
#include <kernel/percpu.h>

/* This CPU's context as one bit: 1 thread, 2 hardirq, 4 NMI (struct percpu). */
static __always_inline unsigned ftrace_context_bit(const struct percpu *cpu)
{
    return READ_ONCE(cpu->context_bit);
}

/* False when this context is already inside; else *bit is for ftrace_callback_exit. */
static __always_inline bool ftrace_callback_enter(struct percpu *cpu, unsigned *bit)
{
    *bit = ftrace_context_bit(cpu);
    if (unlikely(cpu->ftrace_recursion & *bit))
        return false;
    cpu->ftrace_recursion |= *bit;
    cpu->preempt_count++;
    barrier();
    return true;
}

static __always_inline void ftrace_callback_exit(struct percpu *cpu, unsigned bit)
{
    barrier();
    cpu->preempt_count--;
    cpu->ftrace_recursion &= ~bit;
}

/* A call the guard turned away: counts it for op (NULL: none), lists it in recursed_functions. */
void ftrace_callback_recursed(struct ftrace_ops *op, unsigned long ip, unsigned long parent_ip);

/*
 * Defines `name`, the direct entry (an ftrace_entry_t) of the op `op`: in entry text, the
 * guard first, then body(cpu, ip, parent_slot, context_bit) inline in the same frame, then
 * the guard's exit. One definition of that order for every direct entry.
 */
#define FTRACE_DEFINE_DIRECT_ENTRY(name, op, body)                                                 \
    FTRACE_DIRECT_ENTRY_TEXT static void name(unsigned long ret_ip, unsigned long *parent_slot)    \
    {                                                                                              \
        unsigned long ip = arch_ftrace_site_of(ret_ip);                                            \
        struct percpu *cpu = this_cpu();                                                           \
        unsigned bit;                                                                              \
        if (unlikely(!ftrace_callback_enter(cpu, &bit))) {                                         \
            ftrace_callback_recursed((op), ip, *parent_slot);                                      \
            return;                                                                                \
        }                                                                                          \
        body(cpu, ip, parent_slot, bit);                                                           \
        ftrace_callback_exit(cpu, bit);                                                            \
    }

#endif
