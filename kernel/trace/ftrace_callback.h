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
 * trampoline can instead call the op's handler (struct ftrace_ops), which runs the guard
 * inline itself: one call and one stack frame less on every traced call. A handler lives
 * in entry text (FTRACE_OP_HANDLER_TEXT, or FTRACE_ENTRY_TEXT when the op handlers' page
 * is full), because until the guard has counted it in, only its program counter tells
 * unregistering that the CPU is on its way into the op.
 *
 * Every way in, the dispatchers and each op handler alike, is ftrace_guard_enter, then
 * the callback and ftrace_guard_exit (or, refused, ftrace_callback_recursed).
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

/* One traced call inside the guard. */
struct ftrace_guard {
    struct percpu *cpu;
    unsigned long ip; /* the traced function's call site */
    unsigned bit;     /* this context's bit in cpu->ftrace_recursion */
};

/*
 * Enters the guard for the call whose site's call pushed ret_ip. False when this context
 * is already inside: the call then goes only to ftrace_callback_recursed. The op is not
 * an argument here, so that loading it stays off the path of the calls that go in.
 */
static __always_inline bool ftrace_guard_enter(struct ftrace_guard *gd, unsigned long ret_ip)
{
    struct percpu *cpu = this_cpu();
    gd->cpu = cpu;
    gd->ip = arch_ftrace_site_of(ret_ip);
    gd->bit = ftrace_context_bit(cpu);
    if (unlikely(cpu->ftrace_recursion & gd->bit))
        return false;
    cpu->ftrace_recursion |= gd->bit;
    cpu->preempt_count++;
    /* An interrupt on this CPU sees the count before any of the callback's work. */
    barrier();
    return true;
}

/* A call the guard turned away: counts it for op (NULL: none), lists it in recursed_functions. */
void ftrace_callback_recursed(struct ftrace_ops *op, unsigned long ip, unsigned long parent_ip);

static __always_inline void ftrace_guard_exit(const struct ftrace_guard *gd)
{
    barrier();
    gd->cpu->preempt_count--;
    gd->cpu->ftrace_recursion &= ~gd->bit;
}

#endif
