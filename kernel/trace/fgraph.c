/*
 * The function graph core. On a traced function's entry (an ftrace op on the global
 * filter), the real return address, the function and the entry time go on the current
 * thread's shadow stack and the registered clients see the frame; if one of them wants
 * the return, the return address on the real stack becomes return_to_handler, otherwise
 * the frame is dropped. When the function returns there, the frame is popped, the clients
 * that wanted it are told, and execution continues at the real return address.
 *
 * Interrupts use the interrupted thread's shadow stack, and nest on it in stack order;
 * a context switch changes threads and so shadow stacks. Frames of functions that never
 * return (a thread that exits inside them) die with the thread. A return whose stack
 * slot is not the one recorded means the shadow stack and the real one disagree: graph
 * tracing stops with a report, and the frame that does match is used so the kernel
 * keeps running.
 */
#include <arch/asm_calls.h>
#include <arch/cpu.h>
#include <arch/ftrace.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>

#include "ftrace_callback.h"
#include "trace_graph_record.h"
#include "trace_internal.h"

/* Registered clients: bit i set while fgraph_clients[i] is registered. */
static volatile unsigned fgraph_users;
/* Slot i's client, bound at its first registration and kept (see struct fgraph_ops). */
static struct fgraph_ops *fgraph_clients[FGRAPH_MAX_CLIENTS];
static volatile bool fgraph_dead;
static DEFINE_SPINLOCK(fgraph_lock);
static struct ftrace_ops fgraph_ftrace_ops = {.tramp_slot = -1};
/*
 * The function_graph tracer's bit in fgraph_users once it is bound (no bit before). While
 * it is the only client, entries and returns run its recording inline
 * (trace_graph_record.h) instead of calling it: one call and one stack frame less on each
 * side of every traced call.
 */
static volatile unsigned fgraph_tracer_bit = ~0u;

bool fgraph_is_dead(void) { return fgraph_dead; }

/*
 * For the test of the mismatch path: damages the shadow frame of the calling traced
 * function (the top frame of this thread, if it is fn's), as a stack overwrite would.
 */
bool fgraph_test_damage_top_frame(unsigned long fn)
{
    struct thread *t = current_thread();
    struct fgraph_thread *g = t ? t->trace_state : NULL;
    if (!g || !g->curr || g->stack[g->curr - 1].func != fn)
        return false;
    g->stack[g->curr - 1].retp -= 8;
    return true;
}

int ftrace_graph_init_thread(struct thread *t)
{
    t->trace_state = kzalloc(sizeof(struct fgraph_thread));
    return t->trace_state ? 0 : -ENOMEM;
}

void ftrace_graph_free_thread(struct thread *t)
{
    kfree(t->trace_state);
    t->trace_state = NULL;
}

/*
 * Shows the clients each call, on frame f; returns the mask of those that want its return.
 * The frame has its entry time when this returns non-zero.
 */
static __always_inline uint8_t fgraph_clients_entry(struct percpu *cpu, unsigned users,
                                                    struct fgraph_frame *f,
                                                    const struct fgraph_thread *g)
{
    if (likely(users == fgraph_tracer_bit))
        return graph_record_entry(cpu, f, g) ? (uint8_t)users : 0;
    f->calltime = 0;
    uint8_t want = 0;
    for (unsigned m = users; m; m &= m - 1) {
        unsigned i = __builtin_ctz(m);
        struct fgraph_ops *gops = fgraph_clients[i];
        if (gops->entryfunc(f, g, gops))
            want |= 1u << i;
    }
    if (want && !f->calltime)
        f->calltime = trace_clock_read();
    return want;
}

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

/* The traced function returns to return_to_handler, to the clients in f->users. */
static __always_inline void fgraph_hook_return(unsigned long *parent_slot)
{
    /* Only once the frame is complete: an interrupt's backtrace maps the hooked slot back
     * through it (ftrace_graph_ret_addr). */
    barrier();
    *parent_slot = (unsigned long)return_to_handler;
}

/*
 * The shadow stack is full: the call still goes to the clients, on a scratch frame, so the
 * profiler counts it, and counts as overrun; its return is not hooked.
 */
static __noinline void fgraph_entry_overflow(struct percpu *cpu, struct fgraph_thread *g,
                                             unsigned users, unsigned long ip,
                                             unsigned long *parent_slot, uint8_t flags)
{
    struct fgraph_frame scratch = {
        .ret = *parent_slot,
        .func = ip,
        .retp = parent_slot,
        .flags = flags | FGRAPH_FRAME_OVERFLOW,
        .depth = FGRAPH_DEPTH,
    };
    fgraph_clients_entry(cpu, users, &scratch, g);
    g->overrun++;
}

/* A traced call's entry: ip called, with its return address at parent_slot. */
static __always_inline void fgraph_entry_body(struct percpu *cpu, unsigned long ip,
                                              unsigned long *parent_slot)
{
    struct fgraph_thread *g = fgraph_current(cpu);
    if (!g)
        return;
    unsigned users = READ_ONCE(fgraph_users);
    uint8_t flags;
    struct fgraph_frame *f = fgraph_push_frame(cpu, g, ip, parent_slot, &flags);
    if (unlikely(!f)) {
        fgraph_entry_overflow(cpu, g, users, ip, parent_slot, flags);
        return;
    }
    uint8_t want = fgraph_clients_entry(cpu, users, f, g);
    if (!want) {
        fgraph_drop_frame(g, f);
        return;
    }
    f->users = want;
    flags = f->flags;
    if (unlikely(flags & (FGRAPH_FRAME_ROOT | FGRAPH_FRAME_NOTRACE))) {
        if (flags & FGRAPH_FRAME_ROOT)
            g->in_filter++;
        if (flags & FGRAPH_FRAME_NOTRACE)
            g->in_notrace++;
    }
    fgraph_hook_return(parent_slot);
}

/* From the list dispatcher, when other ops want the same function. */
static void fgraph_entry(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                         struct ftrace_regs *fregs)
{
    fgraph_entry_body(this_cpu(), ip, (unsigned long *)ftrace_regs_get_stack_pointer(fregs));
}

/*
 * The graph op's handler, which its own trampoline calls: the guard and the entry in one
 * frame. The entry needs no context bit: interrupts nest on the shadow stack by irq_depth.
 */
FTRACE_OP_HANDLER_TEXT static void fgraph_op_handler(unsigned long ret_ip,
                                                     unsigned long *parent_slot)
{
    struct ftrace_guard gd;
    if (unlikely(!ftrace_guard_enter(&gd, ret_ip))) {
        ftrace_callback_recursed(&fgraph_ftrace_ops, gd.ip, *parent_slot);
        return;
    }
    fgraph_entry_body(gd.cpu, gd.ip, parent_slot);
    ftrace_guard_exit(&gd);
}

static void report_mismatch(struct fgraph_thread *g, unsigned long *slot)
{
    char sym[128];
    struct fgraph_frame *top = &g->stack[g->curr - 1];
    sym_format(sym, sizeof(sym), top->func);
    printk("ftrace: function graph return mismatch: expected slot %016lx, got %016lx (from %s, "
           "return to %016lx); graph tracing stopped\n",
           (unsigned long)top->retp, (unsigned long)slot, sym, top->ret);
}

static int fgraph_bind_slot(struct fgraph_ops *gops);

int fgraph_bind_client(struct fgraph_ops *gops)
{
    spin_lock(&fgraph_lock);
    int err = fgraph_dead ? -ENODEV : fgraph_bind_slot(gops) < 0 ? -EBUSY : 0;
    spin_unlock(&fgraph_lock);
    return err;
}

bool fgraph_push_return(struct fgraph_ops *gops, unsigned long func, unsigned long *parent_slot,
                        unsigned long data)
{
    struct percpu *cpu = this_cpu();
    struct fgraph_thread *g = fgraph_current(cpu);
    if (!g || !gops->slot)
        return false;
    uint8_t flags;
    struct fgraph_frame *f = fgraph_push_frame(cpu, g, func, parent_slot, &flags);
    if (!f) {
        g->overrun++;
        return false;
    }
    f->data = data;
    f->users = (uint8_t)(1u << (gops->slot - 1));
    fgraph_hook_return(parent_slot);
    return true;
}

static __noinline void fgraph_clients_return(const struct fgraph_frame *f, uint32_t overrun,
                                             unsigned long retval)
{
    struct fgraph_ret ret = {.rettime = 0, .overrun = overrun, .retval = retval};
    for (unsigned m = f->users; m; m &= m - 1) {
        struct fgraph_ops *gops = fgraph_clients[__builtin_ctz(m)];
        gops->retfunc(f, &ret, gops);
    }
}

/* Entered from return_to_handler with sp = the return slot + 8; returns where to go. */
unsigned long ftrace_return_to_handler(unsigned long sp, unsigned long retval)
{
    unsigned long *slot = (unsigned long *)(sp - 8);
    struct percpu *cpu = this_cpu();
    /* Only a thread's own entry hooks its returns, so there is a current thread here. */
    struct thread *t = cpu->current;
    struct fgraph_thread *g = t->trace_state;
    if (unlikely(!g || g->curr == 0))
        panic("return_to_handler reached with an empty shadow stack (thread %d)", t->pid);

    cpu->preempt_count++;
    if (unlikely(g->stack[g->curr - 1].retp != slot)) {
        unsigned long irq = arch_irq_save();
        if (!fgraph_dead) {
            fgraph_dead = true;
            report_mismatch(g, slot);
        }
        /* Frames of functions left without returning lie below slot: drop them, if a
         * frame for this slot is further down. If none is, the top frame's record is
         * the damaged one: its return address is still the best there is. */
        unsigned match = g->curr;
        while (match && g->stack[match - 1].retp != slot)
            match--;
        if (match)
            g->curr = match;
        arch_irq_restore(irq);
    }
    /*
     * The clients see the frame in place, before its slot is released: an interrupt meanwhile
     * pushes above it, and may reuse the slot only once curr drops below it.
     */
    unsigned idx = g->curr - 1;
    const struct fgraph_frame *f = &g->stack[idx];
    uint8_t flags = f->flags;
    if (flags & FGRAPH_FRAME_ROOT)
        g->in_filter--;
    if (flags & FGRAPH_FRAME_NOTRACE)
        g->in_notrace--;
    if (likely(!fgraph_dead)) {
        if (likely(f->users == fgraph_tracer_bit)) {
            graph_record_return(cpu, f, g->overrun, retval);
        } else {
            fgraph_clients_return(f, g->overrun, retval);
        }
    }
    unsigned long real_ret = f->ret;
    barrier();
    g->curr = idx;
    cpu->preempt_count--;
    return real_ret;
}

unsigned long ftrace_graph_ret_addr(struct thread *t, unsigned long addr, unsigned long *slot)
{
    struct fgraph_thread *g = t ? t->trace_state : NULL;
    if (addr != (unsigned long)return_to_handler || !g)
        return addr;
    /* A tail call leaves two frames on one slot: the inner one saved return_to_handler
     * (the outer one's swap) as its return; the real address is the outer one's. */
    for (unsigned i = g->curr; i-- > 0;)
        if (g->stack[i].retp == slot && g->stack[i].ret != (unsigned long)return_to_handler)
            return g->stack[i].ret;
    return addr;
}

/* Binds gops to a slot at its first registration; -1 when every slot is taken. */
static int fgraph_bind_slot(struct fgraph_ops *gops)
{
    if (gops->slot)
        return gops->slot - 1;
    for (int i = 0; i < FGRAPH_MAX_CLIENTS; i++) {
        if (!fgraph_clients[i]) {
            fgraph_clients[i] = gops;
            gops->slot = i + 1;
            return i;
        }
    }
    return -1;
}

int register_ftrace_graph(struct fgraph_ops *gops)
{
    int err = 0;
    spin_lock(&fgraph_lock);
    int slot = fgraph_dead ? -1 : fgraph_bind_slot(gops);
    if (fgraph_dead) {
        err = -ENODEV;
    } else if (slot < 0) {
        err = -EBUSY;
    } else if (!(fgraph_users & (1u << slot))) {
        if (gops == &graph_tracer_ops)
            WRITE_ONCE(fgraph_tracer_bit, 1u << slot);
        bool first = fgraph_users == 0;
        /* The release orders the slot's binding before the bit that makes entries use it. */
        __atomic_fetch_or(&fgraph_users, 1u << slot, __ATOMIC_RELEASE);
        if (first) {
            /* The graph op follows set_ftrace_filter/notrace, as function tracing does. */
            fgraph_ftrace_ops.func = fgraph_entry;
            fgraph_ftrace_ops.handler = fgraph_op_handler;
            ftrace_ops_set_hashes(&fgraph_ftrace_ops,
                                  ftrace_hash_copy(ftrace_global_ops->filter_hash),
                                  ftrace_hash_copy(ftrace_global_ops->notrace_hash));
            err = register_ftrace_function(&fgraph_ftrace_ops);
            if (err)
                __atomic_fetch_and(&fgraph_users, ~(1u << slot), __ATOMIC_RELEASE);
        }
    }
    spin_unlock(&fgraph_lock);
    return err;
}

void unregister_ftrace_graph(struct fgraph_ops *gops)
{
    spin_lock(&fgraph_lock);
    unsigned bit = gops->slot ? 1u << (gops->slot - 1) : 0;
    if (fgraph_users & bit) {
        __atomic_fetch_and(&fgraph_users, ~bit, __ATOMIC_RELEASE);
        if (fgraph_users == 0)
            unregister_ftrace_function(&fgraph_ftrace_ops);
    }
    spin_unlock(&fgraph_lock);
}

/* The global filter changed (set_ftrace_filter/notrace): the graph op follows it. */
void fgraph_filter_changed(void)
{
    spin_lock(&fgraph_lock);
    if (fgraph_users)
        ftrace_ops_set_hashes(&fgraph_ftrace_ops, ftrace_hash_copy(ftrace_global_ops->filter_hash),
                              ftrace_hash_copy(ftrace_global_ops->notrace_hash));
    spin_unlock(&fgraph_lock);
}
