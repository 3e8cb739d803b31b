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
 *
 * One registered client is called straight, several through a loop over the registered
 * ones. A client may also bring its own op and return handlers, built from this core's
 * entry and return (fgraph_inline.h) around its own inline: while it is alone, the graph
 * op's trampoline and the return hook call those instead of the core's.
 *
 * Return probes hook single calls from their own op (fgraph_push_return). Their returns go
 * through the other hooks, return_to_handler_regs, which saves every register and costs a
 * few dozen instructions more (function_graph's returns never pay for it), or
 * return_to_handler_partial for probes that read only what it saves. Those hooks call the
 * core's ftrace_return_to_handler_regs, or, while one client alone hooks single returns,
 * its own regs return handler, built around the same inline return (fgraph_inline.h).
 * Two hooks on one call (function_graph and a return probe, two return probes) stack two
 * frames on one slot, the later one's return being the earlier one's hook; the regs hook
 * reloads every register before it goes on, so a hook after it sees the return as the
 * function left it, and a partial hook is never pushed above a regs hook
 * (arch_ftrace_regs_return_hook).
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

#include "fgraph_inline.h"
#include "ftrace_callback.h"
#include "trace_hot.h"
#include "trace_internal.h"

/* Registered clients: bit i set while fgraph_clients[i] is registered. */
static volatile unsigned fgraph_users;
/* Slot i's client, bound at its first registration and kept (see struct fgraph_ops). */
static struct fgraph_ops *fgraph_clients[FGRAPH_MAX_CLIENTS];
volatile bool fgraph_dead;
static DEFINE_SPINLOCK(fgraph_lock);
struct ftrace_ops fgraph_ftrace_ops = {.tramp_slot = -1};
/*
 * The registered client while there is exactly one, NULL otherwise: an entry then calls it
 * straight, without the loop over fgraph_users. Set under fgraph_lock with fgraph_users;
 * an entry reads one or the other, never both, so it sees a consistent set of clients.
 */
static struct fgraph_ops *volatile fgraph_only_client;
/*
 * What return_to_handler calls (ftrace_graph.asm): the core's ftrace_return_to_handler, or
 * the only client's return handler (fgraph_inline.h). Set under fgraph_lock with
 * fgraph_only_client, as the graph op's handler is. The core's from the start: return
 * probes hook returns with no client registered.
 */
fgraph_return_handler_t volatile fgraph_return_callee = ftrace_return_to_handler;
/* The clients bound to hook single returns (fgraph_bind_client), by users bit. */
static unsigned fgraph_push_users;
/* Tests only: the regs hooks call the core's handler even for a client alone. */
static bool fgraph_regs_core_forced;
/*
 * What return_to_handler_regs and _partial call: the core's ftrace_return_to_handler_regs,
 * or while one client alone hooks single returns its own regs return handler (a frame such
 * a hook pops was pushed by that client). Set under fgraph_lock when a client binds.
 */
fgraph_regs_return_handler_t volatile fgraph_regs_return_callee = ftrace_return_to_handler_regs;

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

/* Every registered client sees the call, in slot order. */
static __noinline uint8_t fgraph_entry_loop(struct fgraph_frame *f, const struct fgraph_thread *g)
{
    uint8_t want = 0;
    for (unsigned m = READ_ONCE(fgraph_users); m; m &= m - 1) {
        unsigned i = __builtin_ctz(m);
        struct fgraph_ops *gops = fgraph_clients[i];
        if (gops->entryfunc(f, g, gops))
            want |= 1u << i;
    }
    return want;
}

bool fgraph_clients_entry(struct percpu *cpu, struct fgraph_frame *f, const struct fgraph_thread *g)
{
    f->calltime = 0;
    uint8_t want;
    struct fgraph_ops *only = READ_ONCE(fgraph_only_client);
    if (likely(only))
        want = only->entryfunc(f, g, only) ? only->users_bit : 0;
    else
        want = fgraph_entry_loop(f, g);
    if (want && !f->calltime)
        f->calltime = trace_clock_read();
    f->users = want;
    return want;
}

/*
 * The shadow stack is full: the call still goes to the clients, on a scratch frame, so they
 * see it, and it counts as overrun; its return is not hooked.
 */
__noinline void fgraph_entry_overflow(struct percpu *cpu, struct fgraph_thread *g, unsigned long ip,
                                      unsigned long *parent_slot, uint8_t flags)
{
    struct fgraph_frame scratch = {
        .ret = *parent_slot,
        .func = ip,
        .retp = parent_slot,
        .flags = flags | FGRAPH_FRAME_OVERFLOW,
        .depth = FGRAPH_DEPTH,
    };
    fgraph_clients_entry(cpu, &scratch, g);
    g->overrun++;
}

/* From the list dispatcher, when other ops want the same function. */
static void fgraph_entry(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                         struct ftrace_regs *fregs)
{
    fgraph_entry_in(this_cpu(), ip, (unsigned long *)ftrace_regs_get_stack_pointer(fregs),
                    fgraph_clients_entry);
}

/* The core's handler of the graph op, for any set of clients. */
FTRACE_OP_HANDLER_TEXT static void fgraph_op_handler(unsigned long ret_ip,
                                                     unsigned long *parent_slot)
{
    fgraph_op_handler_body(ret_ip, parent_slot, fgraph_clients_entry);
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

/* Under fgraph_lock, after fgraph_push_users changed: the one client that hooks single
 * returns has its own regs return handler called, if it has one. */
static void fgraph_update_regs_callee(void)
{
    unsigned users = fgraph_push_users;
    struct fgraph_ops *only =
        users && !(users & (users - 1)) ? fgraph_clients[__builtin_ctz(users)] : NULL;
    fgraph_regs_return_handler_t own = only ? only->regs_return_handler : NULL;
    __atomic_store_n(&fgraph_regs_return_callee,
                     own && !fgraph_regs_core_forced ? own : ftrace_return_to_handler_regs,
                     __ATOMIC_RELEASE);
}

int fgraph_bind_client(struct fgraph_ops *gops)
{
    spin_lock(&fgraph_lock);
    int err = fgraph_dead ? -ENODEV : fgraph_bind_slot(gops) < 0 ? -EBUSY : 0;
    if (!err) {
        fgraph_push_users |= gops->users_bit;
        /* Before the client's first push: its frames never reach another client's handler. */
        fgraph_update_regs_callee();
        __atomic_store_n(&gops->push_bit, gops->users_bit, __ATOMIC_RELEASE);
    }
    spin_unlock(&fgraph_lock);
    return err;
}

bool fgraph_regs_return_force_core(bool core)
{
    spin_lock(&fgraph_lock);
    bool was_core = fgraph_regs_return_callee == ftrace_return_to_handler_regs;
    fgraph_regs_core_forced = core;
    fgraph_update_regs_callee();
    spin_unlock(&fgraph_lock);
    return was_core;
}

__trace_hot_probe bool fgraph_push_return(struct fgraph_ops *gops, unsigned long func,
                                          unsigned long *parent_slot, unsigned long data,
                                          bool partial)
{
    return fgraph_push_return_in(gops, func, parent_slot, data, partial);
}

/* A frame several clients wanted: each sees its return, in slot order. */
static __noinline void fgraph_return_loop(const struct fgraph_frame *f, struct fgraph_ret *ret)
{
    for (unsigned m = f->users; m; m &= m - 1) {
        struct fgraph_ops *gops = fgraph_clients[__builtin_ctz(m)];
        gops->retfunc(f, ret, gops);
    }
}

static __always_inline void fgraph_clients_see_return(const struct fgraph_frame *f,
                                                      struct fgraph_ret *ret)
{
    unsigned users = f->users;
    if (likely(!(users & (users - 1)))) {
        struct fgraph_ops *gops = fgraph_clients[__builtin_ctz(users)];
        gops->retfunc(f, ret, gops);
    } else {
        fgraph_return_loop(f, ret);
    }
}

void fgraph_clients_return(struct percpu *cpu, const struct fgraph_frame *f, uint32_t overrun,
                           unsigned long retval)
{
    struct fgraph_ret ret = {.rettime = 0, .overrun = overrun, .retval = retval};
    fgraph_clients_see_return(f, &ret);
}

__noinline unsigned fgraph_return_mismatch(struct fgraph_thread *g, unsigned long *slot)
{
    unsigned long irq = arch_irq_save();
    if (!fgraph_dead) {
        fgraph_dead = true;
        report_mismatch(g, slot);
    }
    /* Frames of functions left without returning lie below slot: drop them, if a frame
     * for this slot is further down. If none is, the top frame's record is the damaged
     * one: its return address is still the best there is. */
    unsigned match = g->curr;
    while (match && g->stack[match - 1].retp != slot)
        match--;
    if (match)
        g->curr = match;
    arch_irq_restore(irq);
    return g->curr - 1;
}

/* The core's return handler, for any set of clients. */
unsigned long ftrace_return_to_handler(unsigned long sp, unsigned long retval)
{
    return fgraph_return_handler_body(sp, retval, fgraph_clients_return);
}

/* The core's regs return handler: the client that pushed the frame sees the return. */
static void fgraph_client_regs_return(const struct fgraph_frame *f, uint32_t overrun,
                                      struct pt_regs *regs)
{
    struct fgraph_ret ret = {.overrun = overrun, .retval = regs_return_value(regs), .regs = regs};
    fgraph_clients_see_return(f, &ret);
}

void ftrace_return_to_handler_regs(struct pt_regs *regs)
{
    fgraph_regs_return_body(regs, fgraph_client_regs_return);
}

__trace_hot_probe unsigned long ftrace_graph_ret_addr(struct thread *t, unsigned long addr,
                                                      unsigned long *slot)
{
    struct fgraph_thread *g = t ? t->trace_state : NULL;
    if (!arch_ftrace_is_return_hook(addr) || !g)
        return addr;
    /* Two hooks on one call (a tail call, or function_graph and a return probe) leave two
     * frames on one slot: the later one saved the earlier one's hook as its return; the
     * real address is the earliest one's. */
    for (unsigned i = g->curr; i-- > 0;)
        if (g->stack[i].retp == slot && !arch_ftrace_is_return_hook(g->stack[i].ret))
            return g->stack[i].ret;
    return addr;
}

/* Binds gops to a slot at its first registration; -1 when every slot is taken. */
static int fgraph_bind_slot(struct fgraph_ops *gops)
{
    if (gops->users_bit)
        return __builtin_ctz(gops->users_bit);
    for (int i = 0; i < FGRAPH_MAX_CLIENTS; i++) {
        if (!fgraph_clients[i]) {
            fgraph_clients[i] = gops;
            gops->users_bit = (uint8_t)(1u << i);
            return i;
        }
    }
    return -1;
}

/*
 * Under fgraph_lock, after fgraph_users changed. A CPU already past the old choice finishes
 * with it: a client that just registered may miss that call, one that just left may see it,
 * as with the loop. A client's return handler takes every frame, other clients' included.
 */
static void fgraph_update_only_client(void)
{
    unsigned users = fgraph_users;
    struct fgraph_ops *only =
        users && !(users & (users - 1)) ? fgraph_clients[__builtin_ctz(users)] : NULL;
    bool own = only && only->op_handler && only->return_handler;
    /* The releases order the client's binding before the entries that call it. */
    __atomic_store_n(&fgraph_only_client, only, __ATOMIC_RELEASE);
    __atomic_store_n(&fgraph_return_callee, own ? only->return_handler : ftrace_return_to_handler,
                     __ATOMIC_RELEASE);
    ftrace_ops_set_handler(&fgraph_ftrace_ops, own ? only->op_handler : fgraph_op_handler);
}

/*
 * Copies of the global filter and notrace hashes for the graph op: both, or neither and
 * -ENOMEM. Never a NULL in place of a hash that failed to copy: NULL is the empty filter,
 * every function.
 */
static int fgraph_copy_global_filter(struct ftrace_hash **filter, struct ftrace_hash **notrace_hash)
{
    *filter = ftrace_hash_copy(ftrace_global_ops->filter_hash);
    *notrace_hash = ftrace_hash_copy(ftrace_global_ops->notrace_hash);
    if (*filter && *notrace_hash)
        return 0;
    ftrace_hash_free(*filter);
    ftrace_hash_free(*notrace_hash);
    *filter = *notrace_hash = NULL;
    return -ENOMEM;
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
        bool first = fgraph_users == 0;
        /* The release orders the slot's binding before the bit that makes entries use it. */
        __atomic_fetch_or(&fgraph_users, 1u << slot, __ATOMIC_RELEASE);
        fgraph_update_only_client();
        if (first) {
            /* The graph op follows set_ftrace_filter/notrace, as function tracing does. */
            struct ftrace_hash *filter, *notrace_hash;
            err = fgraph_copy_global_filter(&filter, &notrace_hash);
            if (!err) {
                fgraph_ftrace_ops.func = fgraph_entry;
                ftrace_ops_set_hashes(&fgraph_ftrace_ops, filter, notrace_hash);
                err = register_ftrace_function(&fgraph_ftrace_ops);
            }
            if (err) {
                __atomic_fetch_and(&fgraph_users, ~(1u << slot), __ATOMIC_RELEASE);
                fgraph_update_only_client();
            }
        }
    }
    spin_unlock(&fgraph_lock);
    return err;
}

void unregister_ftrace_graph(struct fgraph_ops *gops)
{
    spin_lock(&fgraph_lock);
    if (fgraph_users & gops->users_bit) {
        __atomic_fetch_and(&fgraph_users, ~(unsigned)gops->users_bit, __ATOMIC_RELEASE);
        fgraph_update_only_client();
        if (fgraph_users == 0)
            unregister_ftrace_function(&fgraph_ftrace_ops);
    }
    spin_unlock(&fgraph_lock);
}

void fgraph_filter_follow(struct ftrace_hash *filter, struct ftrace_hash *notrace_hash)
{
    spin_lock(&fgraph_lock);
    if (fgraph_users) {
        ftrace_ops_set_hashes(&fgraph_ftrace_ops, filter, notrace_hash);
    } else {
        ftrace_hash_free(filter);
        ftrace_hash_free(notrace_hash);
    }
    spin_unlock(&fgraph_lock);
}

int fgraph_filter_changed(void)
{
    struct ftrace_hash *filter, *notrace_hash;
    int err = fgraph_copy_global_filter(&filter, &notrace_hash);
    if (!err)
        fgraph_filter_follow(filter, notrace_hash);
    return err;
}
