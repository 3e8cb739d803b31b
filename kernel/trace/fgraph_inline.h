/*
 * The function graph core's entry and return, inline, for building handlers around them.
 *
 * fgraph.c builds its own pair, which serve any set of clients: the only client's entryfunc
 * and retfunc called straight, several through a loop. A client may build a pair of its own
 * around its entry and return made inline (struct fgraph_ops: op_handler, return_handler):
 * while it is the only registered client, the graph op's trampoline and return_to_handler
 * go to those, and a traced call pays for no call into the client and no stack frame of
 * its own on either side. A client that hooks single returns (fgraph_push_return) may
 * build its own regs return handler the same way (fgraph_regs_return_body, struct
 * fgraph_ops: regs_return_handler). The order of the steps lives here once, for all.
 */
#ifndef KERNEL_TRACE_FGRAPH_INLINE_H
#define KERNEL_TRACE_FGRAPH_INLINE_H

#include <arch/ftrace.h>
#include <kernel/compiler.h>
#include <kernel/ftrace.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/thread.h>

#include "ftrace_callback.h"
#include "trace_internal.h"

/* Set once a return did not match its frame: graph tracing has stopped. */
extern volatile bool fgraph_dead;
/* The ftrace op every client's entries come through. */
extern struct ftrace_ops fgraph_ftrace_ops;

/*
 * What a handler's entry shows the clients: the call on frame f; sets f->users to those that
 * want its return, and returns false when none does. The frame has its entry time then.
 */
typedef bool (*fgraph_clients_entry_fn)(struct percpu *cpu, struct fgraph_frame *f,
                                        const struct fgraph_thread *g);
/* What a handler's return shows the clients that wanted f. */
typedef void (*fgraph_clients_return_fn)(struct percpu *cpu, const struct fgraph_frame *f,
                                         uint32_t overrun, unsigned long retval);
/* What a regs hook's handler shows the client that pushed f (fgraph_push_return), with the
 * registers as the function returned them. */
typedef void (*fgraph_client_regs_return_fn)(const struct fgraph_frame *f, uint32_t overrun,
                                             struct pt_regs *regs);

/* The core's own, for any set of clients (fgraph.c). */
bool fgraph_clients_entry(struct percpu *cpu, struct fgraph_frame *f,
                          const struct fgraph_thread *g);
void fgraph_clients_return(struct percpu *cpu, const struct fgraph_frame *f, uint32_t overrun,
                           unsigned long retval);
/* A full shadow stack: the clients see the call on a scratch frame (fgraph.c). */
void fgraph_entry_overflow(struct percpu *cpu, struct fgraph_thread *g, unsigned long ip,
                           unsigned long *parent_slot, uint8_t flags);
/* A return that does not match the top frame: stops graph tracing; the frame to use. */
unsigned fgraph_return_mismatch(struct fgraph_thread *g, unsigned long *slot);

/*
 * The thread whose shadow stack a traced call on this CPU uses: NULL when there is none
 * (early boot, a thread without one) or graph tracing stopped.
 */
static __always_inline struct fgraph_thread *fgraph_current(const struct percpu *cpu)
{
    struct thread *t = cpu->current;
    if (unlikely(!t || !t->trace_state || fgraph_dead))
        return NULL;
    return t->trace_state;
}

/*
 * Pushes the frame of a call of func, whose return address is at parent_slot, onto g: the
 * return is not hooked yet (fgraph_hook_return). NULL when the stack is full; *flags is
 * the frame's context in both cases.
 */
static __always_inline struct fgraph_frame *
fgraph_push_frame(const struct percpu *cpu, struct fgraph_thread *g, unsigned long func,
                  unsigned long *parent_slot, uint8_t *flags)
{
    unsigned idx = g->curr;
    *flags = 0;
    if (unlikely(cpu->irq_depth)) {
        *flags = FGRAPH_FRAME_IN_IRQ;
        if (idx == 0 || !(g->stack[idx - 1].flags & FGRAPH_FRAME_IN_IRQ))
            *flags |= FGRAPH_FRAME_IRQ_ENTRY;
    }
    if (unlikely(idx >= FGRAPH_DEPTH))
        return NULL;
    /*
     * No need to mask interrupts: an interrupt on this CPU pushes its frames above ours
     * and pops them all before it returns (if it switches threads, the others use their
     * own stacks). So claim the slot by raising curr first, then fill it.
     */
    g->curr = idx + 1;
    barrier();
    struct fgraph_frame *f = &g->stack[idx];
    f->ret = *parent_slot;
    f->func = func;
    f->retp = parent_slot;
    f->flags = *flags;
    f->depth = idx;
    return f;
}

/* Drops the top frame f of g, whose return nobody wanted. */
static __always_inline void fgraph_drop_frame(struct fgraph_thread *g, const struct fgraph_frame *f)
{
    barrier();
    g->curr = f->depth;
}

/*
 * The traced function returns to return_to_handler, to the clients in f->users, or with
 * regs to return_to_handler_regs or _partial (arch_ftrace_regs_return_hook), which hand
 * them the registers too.
 */
static __always_inline void fgraph_hook_return(unsigned long *parent_slot)
{
    /* Only once the frame is complete: an interrupt's backtrace maps the hooked slot back
     * through it (ftrace_graph_ret_addr). */
    barrier();
    *parent_slot = (unsigned long)return_to_handler;
}
static __always_inline void fgraph_hook_return_regs(unsigned long *parent_slot, bool partial)
{
    barrier();
    *parent_slot = arch_ftrace_regs_return_hook(partial, *parent_slot);
}

/* fgraph_push_return (trace_internal.h), inline, for a client's op handler. */
static __always_inline bool fgraph_push_return_in(struct fgraph_ops *gops, unsigned long func,
                                                  unsigned long *parent_slot, unsigned long data,
                                                  bool partial)
{
    struct percpu *cpu = this_cpu();
    struct fgraph_thread *g = fgraph_current(cpu);
    if (!g || !gops->push_bit)
        return false;
    uint8_t flags;
    struct fgraph_frame *f = fgraph_push_frame(cpu, g, func, parent_slot, &flags);
    if (!f) {
        g->overrun++;
        return false;
    }
    f->data = data;
    f->users = gops->push_bit;
    fgraph_hook_return_regs(parent_slot, partial);
    return true;
}

/* A traced call's entry: ip called, with its return address at parent_slot. */
static __always_inline void fgraph_entry_in(struct percpu *cpu, unsigned long ip,
                                            unsigned long *parent_slot,
                                            fgraph_clients_entry_fn clients_entry)
{
    struct fgraph_thread *g = fgraph_current(cpu);
    if (!g)
        return;
    uint8_t flags;
    struct fgraph_frame *f = fgraph_push_frame(cpu, g, ip, parent_slot, &flags);
    if (unlikely(!f)) {
        fgraph_entry_overflow(cpu, g, ip, parent_slot, flags);
        return;
    }
    if (!clients_entry(cpu, f, g)) {
        fgraph_drop_frame(g, f);
        return;
    }
    flags = f->flags;
    if (unlikely(flags & (FGRAPH_FRAME_ROOT | FGRAPH_FRAME_NOTRACE))) {
        if (flags & FGRAPH_FRAME_ROOT)
            g->in_filter++;
        if (flags & FGRAPH_FRAME_NOTRACE)
            g->in_notrace++;
    }
    fgraph_hook_return(parent_slot);
}

/*
 * The body of an op handler of the graph op (an ftrace_op_handler_t, in
 * FTRACE_OP_HANDLER_TEXT): the callback guard around the entry. The entry needs no
 * context bit: interrupts nest on the shadow stack by irq_depth.
 */
static __always_inline void fgraph_op_handler_body(unsigned long ret_ip, unsigned long *parent_slot,
                                                   fgraph_clients_entry_fn clients_entry)
{
    struct ftrace_guard gd;
    if (unlikely(!ftrace_guard_enter(&gd, ret_ip))) {
        ftrace_callback_recursed(&fgraph_ftrace_ops, gd.ip, *parent_slot);
        return;
    }
    fgraph_entry_in(gd.cpu, gd.ip, parent_slot, clients_entry);
    ftrace_guard_exit(&gd);
}

/*
 * The first half of every return: the frame of the return whose slot is slot, left in
 * place with preemption off (*idx its index in *g), its filter counts dropped.
 */
static __always_inline const struct fgraph_frame *fgraph_return_begin(struct percpu *cpu,
                                                                      unsigned long *slot,
                                                                      struct fgraph_thread **gp,
                                                                      unsigned *idxp)
{
    /* Only a thread's own entry hooks its returns, so there is a current thread here. */
    struct thread *t = cpu->current;
    struct fgraph_thread *g = t->trace_state;
    if (unlikely(!g || g->curr == 0))
        panic("return_to_handler reached with an empty shadow stack (thread %d)", t->pid);

    cpu->preempt_count++;
    unsigned idx = g->curr - 1;
    if (unlikely(g->stack[idx].retp != slot))
        idx = fgraph_return_mismatch(g, slot);
    /*
     * The clients see the frame in place, before its slot is released: an interrupt meanwhile
     * pushes above it, and may reuse the slot only once curr drops below it.
     */
    const struct fgraph_frame *f = &g->stack[idx];
    uint8_t flags = f->flags;
    if (unlikely(flags & (FGRAPH_FRAME_ROOT | FGRAPH_FRAME_NOTRACE))) {
        if (flags & FGRAPH_FRAME_ROOT)
            g->in_filter--;
        if (flags & FGRAPH_FRAME_NOTRACE)
            g->in_notrace--;
    }
    *gp = g;
    *idxp = idx;
    return f;
}

/* The second half: releases frame idx of g (f) and returns where the return goes. */
static __always_inline unsigned long fgraph_return_end(struct percpu *cpu, struct fgraph_thread *g,
                                                       const struct fgraph_frame *f, unsigned idx)
{
    unsigned long real_ret = f->ret;
    barrier();
    g->curr = idx;
    cpu->preempt_count--;
    return real_ret;
}

/*
 * The body of a return handler (fgraph_return_handler_t), entered from return_to_handler
 * with sp = the return slot + 8 and the function's return value; returns where to go.
 */
static __always_inline unsigned long
fgraph_return_handler_body(unsigned long sp, unsigned long retval,
                           fgraph_clients_return_fn clients_return)
{
    unsigned long *slot = (unsigned long *)(sp - 8);
    struct percpu *cpu = this_cpu();
    struct fgraph_thread *g;
    unsigned idx;
    const struct fgraph_frame *f = fgraph_return_begin(cpu, slot, &g, &idx);
    if (likely(!fgraph_dead))
        clients_return(cpu, f, g->overrun, retval);
    return fgraph_return_end(cpu, g, f, idx);
}

/*
 * The body of a regs return handler (fgraph_regs_return_handler_t), entered from
 * return_to_handler_regs or _partial with the registers as the function returned them.
 * The frame's instruction pointer becomes the real return address before the client sees
 * it, and that address goes back in the return slot before the shadow frame is released,
 * so a backtrace taken meanwhile, in the hooks or in an interrupt, finds the caller there.
 */
static __always_inline void fgraph_regs_return_body(struct pt_regs *regs,
                                                    fgraph_client_regs_return_fn client_return)
{
    unsigned long *slot = (unsigned long *)kernel_stack_pointer(regs) - 1;
    struct percpu *cpu = this_cpu();
    struct fgraph_thread *g;
    unsigned idx;
    const struct fgraph_frame *f = fgraph_return_begin(cpu, slot, &g, &idx);
    /* Most returns have one hook: the frame's own return address is the real one. */
    unsigned long ip = f->ret;
    if (unlikely(arch_ftrace_is_return_hook(ip)))
        ip = ftrace_graph_ret_addr(cpu->current, ip, slot);
    instruction_pointer_set(regs, ip);
    if (likely(!fgraph_dead))
        client_return(f, g->overrun, regs);
    *slot = f->ret;
    fgraph_return_end(cpu, g, f, idx);
}

#endif
