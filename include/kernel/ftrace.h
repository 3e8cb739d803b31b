#ifndef KERNEL_FTRACE_H
#define KERNEL_FTRACE_H

#include <arch/ftrace.h>
#include <arch/regs.h>
#include <kernel/compiler.h>

/*
 * Dynamic ftrace. Every traced function starts with a 5-byte call site; at boot each one
 * becomes a NOP and gets a record. An ftrace_ops asks for a set of functions (its filter
 * and notrace hashes); ftrace then turns exactly the wanted sites into calls, patching
 * them on live CPUs in one batch.
 */

/* Record flags, at Linux's bit positions where Linux has the same meaning. */
#define FTRACE_FL_ENABLED (1u << 31)  /* the site is a call now */
#define FTRACE_FL_REGS (1u << 30)     /* some op wants full pt_regs */
#define FTRACE_FL_REGS_EN (1u << 29)  /* the site calls a regs-saving trampoline now */
#define FTRACE_FL_TRAMP (1u << 28)    /* one op wants it: call that op's trampoline */
#define FTRACE_FL_TRAMP_EN (1u << 27) /* the site calls an op's own trampoline now */
#define FTRACE_FL_IPMODIFY (1u << 26) /* an IPMODIFY op wants it */
#define FTRACE_FL_DISABLED (1u << 25) /* not patchable: bad bytes or no function */
#define FTRACE_REF_MAX ((1u << 20) - 1)

/* One call site: 16 bytes. The name comes from the symbol table (ftrace_rec_name). */
struct dyn_ftrace {
    uint64_t ip;
    uint32_t flags; /* reference count (ops wanting the site) + FTRACE_FL_* */
    uint8_t target; /* what the site calls now (an ftrace_target_id), 0 = NOP */
    uint8_t reserved[3];
};

static inline unsigned ftrace_rec_count(const struct dyn_ftrace *rec)
{
    return rec->flags & FTRACE_REF_MAX;
}

/*
 * A set of functions, as a bitmap over record indices: membership is one bit test and a
 * copy is a memcpy. An empty filter hash means "every function".
 */
struct ftrace_hash {
    uint64_t *bits;
    size_t count; /* number of set bits */
};

struct ftrace_ops;
/*
 * Linux's callback: ip is the traced function's call site, parent_ip its caller. fregs
 * (<arch/ftrace.h>) gives the arguments (ftrace_regs_get_argument), the stack pointer at
 * entry, which points at the return address (ftrace_regs_get_stack_pointer; function_graph
 * swaps what it points at), the instruction pointer, and the full pt_regs of a SAVE_REGS
 * op (ftrace_get_regs; NULL for the others).
 */
typedef void (*ftrace_func_t)(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                              struct ftrace_regs *fregs);
/*
 * An op handler: what an op's own trampoline may call instead of the generic dispatcher,
 * running the callback guard and the op's work in one frame. ret_ip is the return
 * address the site's call pushed (arch_ftrace_site_of gives the site), parent_slot the
 * traced function's return address on its stack. Only for the tracer's own ops
 * (kernel/trace/ftrace_callback.h says what a handler must do).
 */
typedef void (*ftrace_op_handler_t)(unsigned long ret_ip, unsigned long *parent_slot);

#define FTRACE_OPS_FL_SAVE_REGS (1u << 0) /* the callback gets a full, valid pt_regs */
#define FTRACE_OPS_FL_ENABLED (1u << 1)   /* set while registered */
/*
 * The callback may set the frame's ip (ftrace_regs_set_instruction_pointer; needs
 * SAVE_REGS): the traced function's call then goes on there, with its arguments, as a
 * live patch redirects a function. At most one such op per function: registering or
 * re-filtering a second over the same function is EBUSY.
 */
#define FTRACE_OPS_FL_IPMODIFY (1u << 2)
/* Must stay on: /proc/sys/kernel/ftrace_enabled cannot be set to 0 while it is registered,
 * and it cannot be registered while ftrace_enabled is 0 (both EBUSY). */
#define FTRACE_OPS_FL_PERMANENT (1u << 3)
/*
 * Linux's flags for ops written for it, accepted with the same promise: RECURSION asks the
 * core to guard the callback against recursion, which fentros's dispatchers do for every
 * op (an op may still take ftrace_test_recursion_trylock, whose bits are its own);
 * SAVE_REGS_IF_SUPPORTED is SAVE_REGS here (full pt_regs are always supported); RCU asks
 * that the callback run only where RCU is watching: there is no RCU, and no site runs in
 * a state where a callback could not run, so it changes nothing.
 */
#define FTRACE_OPS_FL_RECURSION (1u << 4)
#define FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED (1u << 5)
#define FTRACE_OPS_FL_RCU (1u << 6)
/*
 * At a site several ops want, called after the ops without it (while fewer than
 * FTRACE_MAX_OPS ops are registered). Return probes' op: the function graph core's hooks
 * on one call run in the reverse order of their hooking, and the one that hands return
 * probes every register must run first, before function_graph's own hook has changed any.
 */
#define FTRACE_OPS_FL_CALLED_LAST (1u << 7)

struct ftrace_ops {
    ftrace_func_t func;
    unsigned long flags;
    void *private;
    struct ftrace_hash *filter_hash;  /* NULL or empty: every function */
    struct ftrace_hash *notrace_hash; /* NULL or empty: none */
    /* NULL, or the handler of a plain (not SAVE_REGS) op; see ftrace_op_handler_t. */
    ftrace_op_handler_t handler;
    /* Owned by ftrace while registered. */
    int tramp_slot;
    uint64_t recursion_stopped; /* calls dropped by the recursion guard */
};

/* Records, sorted by ip. */
size_t ftrace_rec_total(void);
struct dyn_ftrace *ftrace_rec(size_t index);
struct dyn_ftrace *ftrace_rec_lookup(unsigned long ip);
long ftrace_rec_index(const struct dyn_ftrace *rec);
const char *ftrace_rec_name(const struct dyn_ftrace *rec);

/* Boot: verify every site and turn it into a NOP. Runs before the other CPUs start. */
void ftrace_init(void);

/*
 * 0, -EBUSY (already registered, as many ops registered as the core holds, a permanent op while
 * ftrace_enabled is off, or an IPMODIFY op on another's function), -EINVAL (IPMODIFY
 * without SAVE_REGS), -ENODEV (ftrace is dead, or died patching the sites).
 */
int register_ftrace_function(struct ftrace_ops *ops);
/*
 * 0, -EINVAL (not registered), -ENODEV (ftrace died patching the sites: the op is
 * unregistered all the same, its callback no longer reachable).
 */
int unregister_ftrace_function(struct ftrace_ops *ops);
/*
 * Installs new hashes for ops (taking ownership of both; NULL = empty) and, if ops is
 * registered, re-patches exactly the sites whose state changes, in one batch. When that
 * fails, ops keeps its old hashes and the new ones are freed.
 */
int ftrace_ops_set_hashes(struct ftrace_ops *ops, struct ftrace_hash *filter,
                          struct ftrace_hash *notrace_hash);
/*
 * Waits until no CPU is inside any op's callback or on its way into one. For a caller
 * that unpublished data its callback reads (set a pointer to NULL) after a register,
 * unregister or ftrace_ops_set_hashes that failed, and so did not wait: once this
 * returns, no callback holds the old data. Thread context; allocates nothing, cannot fail.
 */
void ftrace_synchronize_callbacks(void);
/*
 * Sets ops's handler (NULL: none); if ops is registered, its trampoline calls the new one
 * from now on. The old one, which CPUs already on their way in still run, must serve ops
 * as well.
 */
void ftrace_ops_set_handler(struct ftrace_ops *ops, ftrace_op_handler_t handler);
/* Would ops trace this record? (filter hash membership and notrace exclusion) */
bool ftrace_ops_wants(const struct ftrace_ops *ops, size_t rec_index);

struct ftrace_hash *ftrace_hash_alloc(void);
struct ftrace_hash *ftrace_hash_copy(const struct ftrace_hash *src);
void ftrace_hash_free(struct ftrace_hash *hash);
void ftrace_hash_set(struct ftrace_hash *hash, size_t rec_index);
void ftrace_hash_clear_bit(struct ftrace_hash *hash, size_t rec_index);
static inline bool ftrace_hash_test(const struct ftrace_hash *hash, size_t rec_index)
{
    return hash && hash->count && (hash->bits[rec_index / 64] >> (rec_index % 64)) & 1;
}
static inline bool ftrace_hash_empty(const struct ftrace_hash *hash)
{
    return !hash || hash->count == 0;
}

/*
 * Filter text, as written to set_ftrace_filter: one glob (or index, or !glob) applied to
 * hash. Returns the number of records it matched, or -EINVAL when it matched none.
 */
int ftrace_hash_apply_glob(struct ftrace_hash *hash, const char *token);

/*
 * Linux's filter setters for an op, registered or not. buf holds globs separated by blanks
 * (as set_ftrace_filter takes them, `!glob` removes); reset starts from an empty hash,
 * else the globs add to the current one; a NULL buf with reset clears the filter. EINVAL
 * when a glob matches nothing (the op's hash is then unchanged), ENOMEM, or what
 * re-patching a registered op returns.
 */
int ftrace_set_filter(struct ftrace_ops *ops, const char *buf, int len, int reset);
int ftrace_set_notrace(struct ftrace_ops *ops, const char *buf, int len, int reset);
/*
 * One function by its address (its call site, or any address inside it): added, or with
 * remove taken out (ENOENT when it was not in). EINVAL when no call site is there.
 */
int ftrace_set_filter_ip(struct ftrace_ops *ops, unsigned long ip, int remove, int reset);

/* True once an ftrace bug killed dynamic ftrace for this boot. */
bool ftrace_is_dead(void);
/*
 * The recursion guard of Linux's ftrace_test_recursion_trylock: a bit (>= 0) to pass to
 * unlock, or -1 when this context is already inside it (the call is recorded in
 * recursed_functions). Preemption stays off from lock to unlock.
 */
int ftrace_test_recursion_trylock(unsigned long ip, unsigned long parent_ip);
void ftrace_test_recursion_unlock(int bit);
/* recursed_functions: (ip, parent) of each function the guards turned away, first first. */
size_t ftrace_recursed_functions(unsigned long *ips, unsigned long *parents, size_t max);
void ftrace_recursed_functions_clear(void);

/* /proc/sys/kernel/ftrace_enabled: 0 turns every site into a NOP (ops stay registered). */
int ftrace_set_enabled(bool on);
bool ftrace_get_enabled(void);

struct ftrace_stats {
    size_t records;
    size_t disabled;
    size_t pages; /* pages holding the records */
    uint64_t boot_convert_ns;
    uint64_t batches;
    uint64_t sites_patched;
    uint64_t entry_waits; /* sync rounds repeated for a CPU on its way into a callback */
};
void ftrace_get_stats(struct ftrace_stats *st);

/* function_graph's per-thread shadow return stack: made with every thread, freed with it. */
struct thread;
int ftrace_graph_init_thread(struct thread *t);
void ftrace_graph_free_thread(struct thread *t);
/* Where a hooked return really goes: the unwinder maps return_to_handler back with it. */
unsigned long ftrace_graph_ret_addr(struct thread *t, unsigned long addr, unsigned long *slot);

/*
 * The latency hooks (kernel/trace/latency/preemptirq.c): every interrupt-disabling and
 * preemption-disabling site of the kernel calls them through the inline wrappers of
 * <kernel/irqflags.h>, spin_lock and preempt_disable, after testing one byte. While no
 * latency tracer (irqsoff, preemptoff, preemptirqsoff) and no preemptirq event is on,
 * that byte is 0 and a site costs one load and one predictable not-taken branch. ip is an
 * address inside the function that turned interrupts or preemption off or on, parent_ip
 * that function's caller. They may be called from any context: they do nothing in an NMI
 * and nothing when reached from inside themselves (the tracer's own locks).
 */
extern volatile uint8_t trace_irq_hooks_on;
extern volatile uint8_t trace_preempt_hooks_on;
void trace_hardirqs_off_caller(unsigned long ip, unsigned long parent_ip);
void trace_hardirqs_on_caller(unsigned long ip, unsigned long parent_ip);
/* Preemption: called when the count goes from 0 to 1 (after) and from 1 to 0 (before). */
void trace_preempt_off_caller(unsigned long ip, unsigned long parent_ip);
void trace_preempt_on_caller(unsigned long ip, unsigned long parent_ip);

/*
 * The wakeup tracers' hooks in the scheduler: a wakeup (after sched_wakeup or
 * sched_wakeup_new) and a switch (after sched_switch), called while trace_sched_hooks_on
 * (wakeup or wakeup_rt runs); the scheduler tests the byte inline.
 */
struct thread;
/* Its bits: who wants the hooks (the switch hook serves osnoise and timerlat too). */
#define TRACE_SCHED_HOOKS_WAKEUP 0x1
#define TRACE_SCHED_HOOKS_OSNOISE 0x2
extern volatile uint8_t trace_sched_hooks_on;
void trace_sched_wakeup_latency(struct thread *t);
void trace_sched_switch_latency(struct thread *prev, struct thread *next);

/*
 * The osnoise and timerlat tracers' hooks (kernel/trace/latency/trace_osnoise.c): every
 * interrupt and NMI from its entry to its exit, called while trace_osnoise_hooks_on (one of
 * those tracers runs); the entry code tests the byte inline. desc and number name the
 * interrupt as Linux's irq_noise event does: a device's name and irq, or the name of a
 * local APIC vector (local_timer, reschedule, ...) and the vector.
 */
extern volatile uint8_t trace_osnoise_hooks_on;
void trace_osnoise_irq_entry(void);
void trace_osnoise_irq_exit(const char *desc, int number);
void trace_osnoise_nmi_entry(void);
void trace_osnoise_nmi_exit(void);

/* The address of the code where it is used, and the return address of its function. */
#define FTRACE_THIS_IP                                                                             \
    ({                                                                                             \
        __label__ ftrace_here_;                                                                    \
    ftrace_here_:                                                                                  \
        (unsigned long)&&ftrace_here_;                                                             \
    })
#define FTRACE_CALLER_IP ((unsigned long)__builtin_return_address(0))

#endif
