/*
 * Dynamic ftrace: call-site records, ops, and turning "which ops want which functions"
 * into the exact set of sites to rewrite.
 *
 * A site's wanted state follows from the registered ops: no op -> NOP; one op -> a call
 * to that op's own trampoline; several -> a call to the list caller, which checks each
 * op's hashes. Any op wanting pt_regs makes it the regs-saving variant. Every change
 * (register, unregister, new filter) recomputes all records, collects the sites whose
 * bytes differ into one batch, verifies every one of them, and patches the batch with
 * three sync rounds.
 *
 * Callbacks run with preemption off and counted in per CPU (ftrace_callback.h); unregistering waits
 * until every CPU has been seen outside callbacks after the op became unreachable, so
 * when it returns nobody is, or will be, inside that op.
 *
 * An op's own trampoline calls the op without looking at its hashes: only sites the op
 * wants call it. That holds only if a trampoline slot never serves a new op while some
 * CPU is still on its way in from a site of the slot's previous op (between the call
 * and ftrace_guard_enter; an op's handler is entry text as a whole). Such a CPU
 * is never preempted there and is seen there by the sync round's interrupt, so
 * unregistering repeats the round until every CPU was once found elsewhere
 * (wait_for_callbacks); a CPU found elsewhere after the sites changed
 * can only reach the trampolines the sites call now. A call in flight while an op's
 * filter changes reaches that same op: it entered while the op still wanted it.
 */
#include <arch/asm_calls.h>
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
#include <kernel/synchronize.h>
#include <kernel/time.h>
#include <lib/sort.h>
#include <lib/string.h>

#include "ftrace_callback.h"
#include "trace_internal.h"

#define FTRACE_MAX_OPS 32

/* What a site calls, as stored in dyn_ftrace.target. */
enum ftrace_target_id {
    TARGET_NOP = 0,
    TARGET_LIST = 1,
    TARGET_LIST_REGS = 2,
    TARGET_TRAMP_BASE = 3, /* + 2 * slot (+ 1 for the regs variant) */
};

static struct dyn_ftrace *records;
static size_t nr_records;
static size_t record_pages;
static size_t nr_disabled;
static uint64_t boot_convert_ns;
static uint64_t nr_batches, nr_sites_patched;
static volatile bool ftrace_dead;

/* Serialises every change of ops, hashes and sites. */
static DEFINE_SPINLOCK(ftrace_lock);

/* Registered ops, read locklessly by the list dispatcher. */
static struct ftrace_ops *volatile active_ops[FTRACE_MAX_OPS];
/* The op each trampoline slot serves, read locklessly by its trampoline. */
static struct ftrace_ops *volatile tramp_ops[ARCH_FTRACE_TRAMP_SLOTS];
/*
 * What each slot's plain trampoline calls: its op's handler, or the slot's stub to
 * the generic dispatcher. Set before any site calls the slot, reset when its op goes
 * (ftrace_tramp.asm).
 */
unsigned long volatile ftrace_tramp_callee[ARCH_FTRACE_TRAMP_SLOTS];
/* Sync rounds repeated because a CPU was on its way into a callback (wait_for_callbacks). */
static uint64_t entry_waits;

/* The filter state the tracefs files edit; tracers register with these hashes. */
static struct ftrace_ops global_ops = {.tramp_slot = -1};
struct ftrace_ops *ftrace_global_ops = &global_ops;

/* The callback guard's bits are in struct percpu (ftrace_callback.h); these are the ops'. */
struct ftrace_cpu_state {
    unsigned op_recursion; /* a bit per context, for ftrace_test_recursion_trylock */
} __cacheline_aligned;
static struct ftrace_cpu_state cpu_state[MAX_CPUS];

bool ftrace_is_dead(void) { return ftrace_dead; }
size_t ftrace_rec_total(void) { return nr_records; }
struct dyn_ftrace *ftrace_rec(size_t index) { return index < nr_records ? &records[index] : NULL; }
long ftrace_rec_index(const struct dyn_ftrace *rec) { return rec - records; }

struct dyn_ftrace *ftrace_rec_lookup(unsigned long ip)
{
    size_t lo = 0, hi = nr_records;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (records[mid].ip == ip)
            return &records[mid];
        if (records[mid].ip < ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *ftrace_rec_name(const struct dyn_ftrace *rec)
{
    const char *name = sym_lookup(rec->ip, NULL, NULL);
    return name ? name : "(unknown)";
}

/* ---- hashes ---- */

static size_t hash_words(void) { return (nr_records + 63) / 64; }

struct ftrace_hash *ftrace_hash_alloc(void)
{
    struct ftrace_hash *h = kzalloc(sizeof(*h));
    if (!h)
        return NULL;
    h->bits = kzalloc(hash_words() * sizeof(uint64_t) + 8);
    if (!h->bits) {
        kfree(h);
        return NULL;
    }
    return h;
}

struct ftrace_hash *ftrace_hash_copy(const struct ftrace_hash *src)
{
    struct ftrace_hash *h = ftrace_hash_alloc();
    if (h && src) {
        memcpy(h->bits, src->bits, hash_words() * sizeof(uint64_t));
        h->count = src->count;
    }
    return h;
}

void ftrace_hash_free(struct ftrace_hash *hash)
{
    if (!hash)
        return;
    kfree(hash->bits);
    kfree(hash);
}

void ftrace_hash_set(struct ftrace_hash *hash, size_t i)
{
    uint64_t bit = 1ULL << (i % 64);
    if (!(hash->bits[i / 64] & bit)) {
        hash->bits[i / 64] |= bit;
        hash->count++;
    }
}

void ftrace_hash_clear_bit(struct ftrace_hash *hash, size_t i)
{
    uint64_t bit = 1ULL << (i % 64);
    if (hash->bits[i / 64] & bit) {
        hash->bits[i / 64] &= ~bit;
        hash->count--;
    }
}

bool ftrace_ops_wants(const struct ftrace_ops *ops, size_t i)
{
    if (records[i].flags & FTRACE_FL_DISABLED)
        return false;
    if (ftrace_hash_test(ops->notrace_hash, i))
        return false;
    return ftrace_hash_empty(ops->filter_hash) || ftrace_hash_test(ops->filter_hash, i);
}

/* ---- callbacks: entered from the trampolines ---- */

/* ---- recursed_functions: where the guard turned a call away ---- */

#define RECURSED_MAX 128

static struct {
    unsigned long ip, parent_ip;
} recursed[RECURSED_MAX];
static unsigned recursed_count; /* entries claimed; a slot's ip is set last */

/* Lock-free, any context: each function once, up to RECURSED_MAX of them. */
static __noinline void record_recursion(unsigned long ip, unsigned long parent_ip)
{
    unsigned n = __atomic_load_n(&recursed_count, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n && i < RECURSED_MAX; i++)
        if (__atomic_load_n(&recursed[i].ip, __ATOMIC_RELAXED) == ip)
            return;
    unsigned i = __atomic_fetch_add(&recursed_count, 1, __ATOMIC_RELAXED);
    if (i >= RECURSED_MAX) {
        __atomic_store_n(&recursed_count, RECURSED_MAX, __ATOMIC_RELAXED);
        return;
    }
    recursed[i].parent_ip = parent_ip;
    __atomic_store_n(&recursed[i].ip, ip, __ATOMIC_RELEASE);
}

size_t ftrace_recursed_functions(unsigned long *ips, unsigned long *parents, size_t max)
{
    unsigned n = __atomic_load_n(&recursed_count, __ATOMIC_ACQUIRE);
    size_t out = 0;
    for (unsigned i = 0; i < n && i < RECURSED_MAX && out < max; i++) {
        unsigned long ip = __atomic_load_n(&recursed[i].ip, __ATOMIC_ACQUIRE);
        if (!ip)
            continue;
        ips[out] = ip;
        parents[out++] = recursed[i].parent_ip;
    }
    return out;
}

void ftrace_recursed_functions_clear(void)
{
    __atomic_store_n(&recursed_count, 0, __ATOMIC_RELEASE);
    for (unsigned i = 0; i < RECURSED_MAX; i++)
        __atomic_store_n(&recursed[i].ip, 0, __ATOMIC_RELEASE);
}

/* ---- the recursion guard ops call themselves (ops without FTRACE_OPS_FL_RECURSION) ---- */

int ftrace_test_recursion_trylock(unsigned long ip, unsigned long parent_ip)
{
    struct percpu *cpu = this_cpu();
    struct ftrace_cpu_state *st = &cpu_state[cpu->cpu];
    unsigned bit = ftrace_context_bit(cpu);
    if (st->op_recursion & bit) {
        record_recursion(ip, parent_ip);
        return -1;
    }
    st->op_recursion |= bit;
    cpu->preempt_count++;
    barrier();
    return (int)__builtin_ctz(bit);
}

void ftrace_test_recursion_unlock(int bit)
{
    struct percpu *cpu = this_cpu();
    barrier();
    cpu->preempt_count--;
    cpu_state[cpu->cpu].op_recursion &= ~(1u << bit);
}

void ftrace_callback_recursed(struct ftrace_ops *op, unsigned long ip, unsigned long parent_ip)
{
    if (op)
        op->recursion_stopped++;
    record_recursion(ip, parent_ip);
}

FTRACE_ENTRY_TEXT void ftrace_tramp_dispatch(unsigned long ret_ip, unsigned long *parent_slot,
                                             int slot, struct pt_regs *regs)
{
    struct ftrace_guard gd;
    bool entered = ftrace_guard_enter(&gd, ret_ip);
    struct ftrace_ops *op = READ_ONCE(tramp_ops[slot]);
    if (unlikely(!entered)) {
        ftrace_callback_recursed(op, gd.ip, *parent_slot);
        return;
    }
    /* The slot is empty once its op is unregistered, while a CPU may still come in from
     * a site that called it; and a SAVE_REGS op never runs without its pt_regs, even
     * from a plain trampoline a batch is moving away from. */
    if (likely(op) && (regs || !(op->flags & FTRACE_OPS_FL_SAVE_REGS))) {
        struct ftrace_regs fregs = {.regs = regs, .parent_slot = parent_slot};
        op->func(gd.ip, *parent_slot, op, &fregs);
    }
    ftrace_guard_exit(&gd);
}

FTRACE_ENTRY_TEXT void ftrace_list_dispatch(unsigned long ret_ip, unsigned long *parent_slot,
                                            int slot, struct pt_regs *regs)
{
    struct ftrace_guard gd;
    if (unlikely(!ftrace_guard_enter(&gd, ret_ip))) {
        ftrace_callback_recursed(NULL, gd.ip, *parent_slot);
        return;
    }
    struct dyn_ftrace *rec = ftrace_rec_lookup(gd.ip);
    if (rec) {
        size_t idx = rec - records;
        /* Read once, as Linux's trampoline does: a graph op among them swaps the slot for
         * return_to_handler, and the ops after it must still see the real caller. */
        unsigned long parent_ip = *parent_slot;
        struct ftrace_regs fregs = {.regs = regs, .parent_slot = parent_slot};
        for (int i = 0; i < FTRACE_MAX_OPS; i++) {
            struct ftrace_ops *op = READ_ONCE(active_ops[i]);
            /* While a batch moves a site to the regs-saving caller, the old plain caller
             * can already see a newly registered op that wants regs: skip it there. */
            if (!op || (!regs && (op->flags & FTRACE_OPS_FL_SAVE_REGS)))
                continue;
            if (ftrace_ops_wants(op, idx))
                op->func(gd.ip, parent_ip, op, &fregs);
        }
    }
    ftrace_guard_exit(&gd);
}

/*
 * Callbacks are a read side (kernel/synchronize.h) whose marker is the guard's context
 * bits (ftrace_callback.h). A CPU in entry text may already have taken an op from a site
 * or a trampoline slot before the guard counted it in: there it is asked again.
 */
static bool ftrace_cpu_in_callback(const struct sync_read_side *side, unsigned cpu)
{
    return READ_ONCE(cpu_data(cpu)->ftrace_recursion) != 0;
}

static const struct sync_read_side ftrace_callbacks = {
    .cpu_inside = ftrace_cpu_in_callback,
    .unmarked = arch_ftrace_in_entry,
};

/*
 * After an op became unreachable (no site calls it, its slot is empty): wait until no CPU
 * can still be inside its callback or on its way in.
 */
static void wait_for_callbacks(void) { entry_waits += synchronize_read_side(&ftrace_callbacks); }

void ftrace_synchronize_callbacks(void)
{
    spin_lock(&ftrace_lock);
    wait_for_callbacks();
    spin_unlock(&ftrace_lock);
}

/* ---- computing and applying site states ---- */

static unsigned long target_addr(unsigned target)
{
    if (target == TARGET_LIST || target == TARGET_LIST_REGS)
        return arch_ftrace_list_addr(target == TARGET_LIST_REGS);
    unsigned t = target - TARGET_TRAMP_BASE;
    return arch_ftrace_tramp_addr(t / 2, t % 2);
}

static void site_bytes(const struct dyn_ftrace *rec, unsigned target, uint8_t out[5])
{
    if (target == TARGET_NOP)
        memcpy(out, arch_ftrace_nop, 5);
    else
        arch_ftrace_call_insn(out, rec->ip, target_addr(target));
}

static bool target_is_regs(unsigned target)
{
    return target == TARGET_LIST_REGS ||
           (target >= TARGET_TRAMP_BASE && (target - TARGET_TRAMP_BASE) % 2 == 1);
}

/* ftrace_enabled: off, every site is a NOP whatever the ops want. Under ftrace_lock. */
static bool ftrace_enabled = true;

/* The wanted target and flags of record i under the registered ops. */
static unsigned wanted_state(size_t i, uint32_t *flags_out)
{
    unsigned count = 0;
    bool regs = false, ipmodify = false;
    struct ftrace_ops *only = NULL;
    for (int k = 0; k < FTRACE_MAX_OPS; k++) {
        struct ftrace_ops *op = active_ops[k];
        if (!op || !ftrace_ops_wants(op, i))
            continue;
        count++;
        only = op;
        regs |= (op->flags & FTRACE_OPS_FL_SAVE_REGS) != 0;
        ipmodify |= (op->flags & FTRACE_OPS_FL_IPMODIFY) != 0;
    }
    uint32_t flags = count | (ipmodify ? FTRACE_FL_IPMODIFY : 0);
    unsigned target = TARGET_NOP;
    if (!ftrace_enabled) {
        *flags_out = flags;
        return TARGET_NOP;
    }
    if (count == 1 && only->tramp_slot >= 0) {
        target = TARGET_TRAMP_BASE + 2 * only->tramp_slot + (regs ? 1 : 0);
        flags |= FTRACE_FL_TRAMP;
    } else if (count >= 1) {
        /* Several ops, or one that got no trampoline slot: the list caller serves them. */
        target = regs ? TARGET_LIST_REGS : TARGET_LIST;
    }
    if (regs)
        flags |= FTRACE_FL_REGS;
    *flags_out = flags;
    return target;
}

static uint32_t enabled_bits(unsigned target)
{
    uint32_t f = 0;
    if (target != TARGET_NOP)
        f |= FTRACE_FL_ENABLED;
    if (target_is_regs(target))
        f |= FTRACE_FL_REGS_EN;
    if (target >= TARGET_TRAMP_BASE)
        f |= FTRACE_FL_TRAMP_EN;
    return f;
}

static void print_insn(const char *label, const uint8_t *b)
{
    printk("%s%02x:%02x:%02x:%02x:%02x\n", label, b[0], b[1], b[2], b[3], b[4]);
}

/* Linux's ftrace_bug(): describe the site, then stop dynamic ftrace for this boot. */
static void ftrace_bug(const struct dyn_ftrace *rec, const uint8_t *expected, unsigned new_target)
{
    char sym[128];
    uint8_t actual[5];
    sym_format(sym, sizeof(sym), rec->ip);
    printk("------------[ ftrace bug ]------------\n");
    printk("ftrace failed to modify \n");
    printk("[<%016lx>] %s\n", (unsigned long)rec->ip, sym);
    if (arch_text_read(rec->ip, actual, 5) == 0)
        print_insn(" actual:   ", actual);
    else
        printk(" actual:   [FAULT] %016lx\n", (unsigned long)rec->ip);
    print_insn(" expected: ", expected);
    if (rec->target == TARGET_NOP)
        printk("Setting ftrace call site to call ftrace function\n");
    else if (new_target == TARGET_NOP)
        printk("Setting ftrace call site to NOP\n");
    else
        printk("Updating ftrace call site to call a different ftrace function\n");
    printk("ftrace record flags: %x\n", rec->flags);
    printk(" (%u)%s\n", ftrace_rec_count(rec), rec->flags & FTRACE_FL_REGS_EN ? " R" : "");
    if (new_target != TARGET_NOP)
        printk(" expected tramp: %lx\n", target_addr(new_target));
    ftrace_dead = true;
    printk("ftrace: dynamic ftrace disabled until reboot\n");
}

/*
 * The batch's scratch arrays, one entry per record, made once at boot: the records never
 * grow, so patching needs no allocation and an unregister cannot fail for want of memory.
 * Used only under ftrace_lock.
 */
static struct text_poke_site *patch_batch;
static uint8_t *patch_targets;
static uint32_t *patch_flags;
static size_t *patch_index;

static bool alloc_patch_scratch(size_t n)
{
    n = n ? n : 1;
    patch_batch = kmalloc(sizeof(*patch_batch) * n);
    patch_targets = kmalloc(n);
    patch_flags = kmalloc(sizeof(*patch_flags) * n);
    patch_index = kmalloc(sizeof(*patch_index) * n);
    return patch_batch && patch_targets && patch_flags && patch_index;
}

/*
 * Brings every site to the state the registered ops want, in one batch. Called with
 * ftrace_lock held. It needs no memory (the scratch arrays are made at boot), so its only
 * failure is a site that fails verification: then nothing is written, ftrace dies and it
 * returns -ENODEV. An error from it therefore always means ftrace_dead.
 */
static int update_sites(void)
{
    struct text_poke_site *batch = patch_batch;
    uint8_t *targets = patch_targets;
    uint32_t *new_flags = patch_flags;
    size_t *index_of = patch_index;
    size_t n = 0;
    for (size_t i = 0; i < nr_records; i++) {
        struct dyn_ftrace *rec = &records[i];
        if (rec->flags & FTRACE_FL_DISABLED)
            continue;
        uint32_t flags;
        unsigned target = wanted_state(i, &flags);
        targets[i] = target;
        new_flags[i] = flags;
        if (target == rec->target)
            continue;
        struct text_poke_site *s = &batch[n];
        s->ip = rec->ip;
        site_bytes(rec, rec->target, s->old);
        site_bytes(rec, target, s->new);
        index_of[n] = i;
        n++;
    }

    size_t bad = 0;
    int err = arch_text_poke_batch(batch, n, &bad);
    if (err) {
        ftrace_bug(&records[index_of[bad]], batch[bad].old, targets[index_of[bad]]);
        err = -ENODEV;
    } else {
        for (size_t i = 0; i < nr_records; i++) {
            struct dyn_ftrace *rec = &records[i];
            if (rec->flags & FTRACE_FL_DISABLED)
                continue;
            rec->target = targets[i];
            rec->flags = new_flags[i] | enabled_bits(targets[i]);
        }
        if (n) {
            nr_batches++;
            nr_sites_patched += n;
        }
    }
    return err;
}

/*
 * A slot is free when no op has it. No site calls a free slot's trampolines: every batch
 * that succeeds moves all of them, and one that fails kills ftrace, so nothing registers
 * again to be given the slot.
 */
static bool slot_is_free(unsigned slot) { return !tramp_ops[slot]; }

/*
 * Whether ops, with these hashes, would share a function with another registered
 * IPMODIFY op. Under ftrace_lock.
 */
static bool ipmodify_conflict(const struct ftrace_ops *ops, struct ftrace_hash *filter,
                              struct ftrace_hash *notrace_hash)
{
    if (!(ops->flags & FTRACE_OPS_FL_IPMODIFY))
        return false;
    struct ftrace_ops want = *ops;
    want.filter_hash = filter;
    want.notrace_hash = notrace_hash;
    for (int k = 0; k < FTRACE_MAX_OPS; k++) {
        const struct ftrace_ops *other = active_ops[k];
        if (!other || other == ops || !(other->flags & FTRACE_OPS_FL_IPMODIFY))
            continue;
        for (size_t i = 0; i < nr_records; i++)
            if (ftrace_ops_wants(&want, i) && ftrace_ops_wants(other, i))
                return true;
    }
    return false;
}

/*
 * The slot's op is gone: a CPU still coming in from one of its sites finds no op in the
 * generic dispatcher. One already past the trampoline's load of its callee is in entry text,
 * and wait_for_callbacks, which the caller runs next, waits for it.
 */
static void release_slot(unsigned slot)
{
    WRITE_ONCE(ftrace_tramp_callee[slot], arch_ftrace_dispatch_stub[slot]);
    WRITE_ONCE(tramp_ops[slot], NULL);
}

/* What the plain trampoline of ops's slot calls: its handler, or the generic dispatcher. */
static unsigned long tramp_callee_of(const struct ftrace_ops *ops, int slot)
{
    bool own_handler = ops->handler && !(ops->flags & FTRACE_OPS_FL_SAVE_REGS);
    return own_handler ? (unsigned long)ops->handler : arch_ftrace_dispatch_stub[slot];
}

void ftrace_ops_set_handler(struct ftrace_ops *ops, ftrace_op_handler_t handler)
{
    spin_lock(&ftrace_lock);
    ops->handler = handler;
    /* A CPU already past its trampoline's load goes on into the old handler, so the old
     * one must still serve ops; both are entry text. */
    if ((ops->flags & FTRACE_OPS_FL_ENABLED) && ops->tramp_slot >= 0)
        WRITE_ONCE(ftrace_tramp_callee[ops->tramp_slot], tramp_callee_of(ops, ops->tramp_slot));
    spin_unlock(&ftrace_lock);
}

int register_ftrace_function(struct ftrace_ops *ops)
{
    spin_lock(&ftrace_lock);
    int err = 0;
    if (ftrace_dead) {
        err = -ENODEV;
        goto out;
    }
    if (ops->flags & FTRACE_OPS_FL_ENABLED) {
        err = -EBUSY;
        goto out;
    }
    if (ops->flags & FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED)
        ops->flags |= FTRACE_OPS_FL_SAVE_REGS;
    if ((ops->flags & FTRACE_OPS_FL_PERMANENT) && !ftrace_enabled) {
        err = -EBUSY;
        goto out;
    }
    if ((ops->flags & FTRACE_OPS_FL_IPMODIFY) && !(ops->flags & FTRACE_OPS_FL_SAVE_REGS)) {
        err = -EINVAL; /* the new ip goes through pt_regs */
        goto out;
    }
    if (ipmodify_conflict(ops, ops->filter_hash, ops->notrace_hash)) {
        err = -EBUSY;
        goto out;
    }
    int slot = -1, pos = -1;
    /* Every trampoline slot taken (slot stays -1): the op still registers, and its sites
     * call the list caller, which looks the site up and calls every op that wants it. */
    for (int s = 0; s < ARCH_FTRACE_TRAMP_SLOTS && slot < 0; s++)
        if (slot_is_free(s))
            slot = s;
    /* The list caller calls ops in active_ops order: CALLED_LAST takes the last free place. */
    for (int k = 0; k < FTRACE_MAX_OPS && pos < 0; k++) {
        int at = (ops->flags & FTRACE_OPS_FL_CALLED_LAST) ? FTRACE_MAX_OPS - 1 - k : k;
        if (!active_ops[at])
            pos = at;
    }
    /* FTRACE_MAX_OPS ops registered: no room in active_ops. */
    if (pos < 0) {
        err = -EBUSY;
        goto out;
    }
    ops->tramp_slot = slot;
    ops->recursion_stopped = 0;
    if (slot >= 0) {
        WRITE_ONCE(ftrace_tramp_callee[slot], tramp_callee_of(ops, slot));
        WRITE_ONCE(tramp_ops[slot], ops);
    }
    WRITE_ONCE(active_ops[pos], ops);
    ops->flags |= FTRACE_OPS_FL_ENABLED;
    err = update_sites();
    if (err) {
        WRITE_ONCE(active_ops[pos], NULL);
        if (slot >= 0)
            release_slot(slot);
        ops->flags &= ~FTRACE_OPS_FL_ENABLED;
        wait_for_callbacks();
    }
out:
    spin_unlock(&ftrace_lock);
    return err;
}

int unregister_ftrace_function(struct ftrace_ops *ops)
{
    spin_lock(&ftrace_lock);
    int err = 0;
    if (!(ops->flags & FTRACE_OPS_FL_ENABLED)) {
        err = -EINVAL;
        goto out;
    }
    for (int k = 0; k < FTRACE_MAX_OPS; k++)
        if (active_ops[k] == ops)
            WRITE_ONCE(active_ops[k], NULL);
    /* With ftrace dead the sites stay as they are, so the trampoline keeps its op:
     * clearing the slot below is what makes the callback unreachable anyway. */
    if (!ftrace_dead)
        err = update_sites();
    if (ops->tramp_slot >= 0)
        release_slot((unsigned)ops->tramp_slot);
    wait_for_callbacks();
    ops->flags &= ~FTRACE_OPS_FL_ENABLED;
    ops->tramp_slot = -1;
out:
    spin_unlock(&ftrace_lock);
    return err;
}

int ftrace_set_enabled(bool on)
{
    spin_lock(&ftrace_lock);
    int err = 0;
    if (on == ftrace_enabled)
        goto out;
    if (ftrace_dead) {
        err = -ENODEV;
        goto out;
    }
    if (!on) {
        for (int k = 0; k < FTRACE_MAX_OPS; k++) {
            const struct ftrace_ops *op = active_ops[k];
            if (op && (op->flags & FTRACE_OPS_FL_PERMANENT)) {
                err = -EBUSY;
                goto out;
            }
        }
    }
    ftrace_enabled = on;
    err = update_sites();
    if (!on)
        wait_for_callbacks();
out:
    spin_unlock(&ftrace_lock);
    return err;
}

bool ftrace_get_enabled(void) { return READ_ONCE(ftrace_enabled); }

int ftrace_ops_set_hashes(struct ftrace_ops *ops, struct ftrace_hash *filter,
                          struct ftrace_hash *notrace_hash)
{
    spin_lock(&ftrace_lock);
    struct ftrace_hash *old_filter = ops->filter_hash, *old_notrace = ops->notrace_hash;
    if ((ops->flags & FTRACE_OPS_FL_ENABLED) && ipmodify_conflict(ops, filter, notrace_hash)) {
        spin_unlock(&ftrace_lock);
        ftrace_hash_free(filter);
        ftrace_hash_free(notrace_hash);
        return -EBUSY;
    }
    WRITE_ONCE(ops->filter_hash, filter);
    WRITE_ONCE(ops->notrace_hash, notrace_hash);
    int err = 0;
    if (ops->flags & FTRACE_OPS_FL_ENABLED) {
        if (ftrace_dead)
            err = -ENODEV;
        else
            err = update_sites();
        if (err) {
            /* The sites did not change: neither does the op (its own trampoline trusts
             * that its sites are the ones its hashes want). */
            WRITE_ONCE(ops->filter_hash, old_filter);
            WRITE_ONCE(ops->notrace_hash, old_notrace);
            old_filter = filter;
            old_notrace = notrace_hash;
        }
        /* The list dispatcher may still be reading the hashes about to be freed. */
        wait_for_callbacks();
    }
    ftrace_hash_free(old_filter);
    ftrace_hash_free(old_notrace);
    spin_unlock(&ftrace_lock);
    return err;
}

void ftrace_get_stats(struct ftrace_stats *st)
{
    st->records = nr_records;
    st->disabled = nr_disabled;
    st->pages = record_pages;
    st->boot_convert_ns = boot_convert_ns;
    st->batches = nr_batches;
    st->sites_patched = nr_sites_patched;
    st->entry_waits = entry_waits;
}

/* ---- boot ---- */

static int cmp_ulong(const void *a, const void *b)
{
    unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
    return x < y ? -1 : x > y;
}

static void report_bad_site(unsigned long ip, const char *why, const uint8_t *bytes)
{
    char sym[128];
    sym_format(sym, sizeof(sym), ip);
    if (bytes)
        printk("ftrace: site %s (%016lx) %s: %02x:%02x:%02x:%02x:%02x; left alone\n", sym, ip, why,
               bytes[0], bytes[1], bytes[2], bytes[3], bytes[4]);
    else
        printk("ftrace: site %016lx %s; left alone\n", ip, why);
}

void ftrace_init(void)
{
    uint64_t start = clock_ns();
    for (unsigned slot = 0; slot < ARCH_FTRACE_TRAMP_SLOTS; slot++)
        release_slot(slot);
    size_t n = (size_t)(__stop_mcount_loc - __start_mcount_loc);
    /* The table is in rodata; sort a copy inside the record pages instead. */
    record_pages = (n * sizeof(struct dyn_ftrace) + PAGE_SIZE - 1) / PAGE_SIZE;
    uint64_t phys = page_alloc_n(record_pages ? record_pages : 1);
    if (!phys) {
        printk("ftrace: no memory for %zu records; dynamic ftrace disabled\n", n);
        ftrace_dead = true;
        return;
    }
    records = phys_to_virt(phys);
    printk("ftrace: allocating %zu entries in %zu pages\n", n, record_pages);

    unsigned long *ips = kmalloc(n * sizeof(*ips));
    ASSERT(ips);
    memcpy(ips, __start_mcount_loc, n * sizeof(*ips));
    sort(ips, n, sizeof(*ips), cmp_ulong);

    unsigned long fentry = arch_ftrace_fentry_addr();
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned long ip = ips[i];
        if (kept && records[kept - 1].ip == ip)
            continue;
        struct dyn_ftrace *rec = &records[kept++];
        memset(rec, 0, sizeof(*rec));
        rec->ip = ip;
        uint8_t actual[5], expected[5];
        arch_ftrace_call_insn(expected, ip, fentry);
        uintptr_t fn_start;
        if (arch_text_read(ip, actual, 5) != 0) {
            report_bad_site(ip, "cannot be read", NULL);
            rec->flags = FTRACE_FL_DISABLED;
        } else if (!sym_lookup(ip, &fn_start, NULL)) {
            report_bad_site(ip, "lies in no function", actual);
            rec->flags = FTRACE_FL_DISABLED;
        } else if (memcmp(actual, expected, 5) != 0) {
            report_bad_site(ip, "is not a call to __fentry__", actual);
            rec->flags = FTRACE_FL_DISABLED;
        } else {
            /* Interrupts stay off during the write inside poke: a tick must not run a
             * site while it is half rewritten. */
            arch_text_poke_early(ip, arch_ftrace_nop, 5);
        }
        if (rec->flags & FTRACE_FL_DISABLED)
            nr_disabled++;
    }
    nr_records = kept;
    kfree(ips);
    if (!alloc_patch_scratch(nr_records)) {
        printk("ftrace: no memory to patch %zu sites; dynamic ftrace disabled\n", nr_records);
        ftrace_dead = true;
        return;
    }
    boot_convert_ns = clock_ns() - start;
    printk("ftrace: %zu sites converted to NOPs in %llu.%03llu ms (%zu disabled)\n",
           nr_records - nr_disabled, (unsigned long long)(boot_convert_ns / 1000000),
           (unsigned long long)(boot_convert_ns / 1000 % 1000), nr_disabled);
}

unsigned long ftrace_rec_tramp_addr(const struct dyn_ftrace *rec, struct ftrace_ops **op,
                                    unsigned long *func)
{
    unsigned target = READ_ONCE(rec->target);
    *op = NULL;
    *func = 0;
    if (target == TARGET_NOP)
        return 0;
    if (target == TARGET_LIST || target == TARGET_LIST_REGS) {
        *func = (unsigned long)ftrace_list_dispatch;
        return target_addr(target);
    }
    struct ftrace_ops *owner = READ_ONCE(tramp_ops[(target - TARGET_TRAMP_BASE) / 2]);
    *op = owner;
    *func = owner ? (unsigned long)owner->func : 0;
    return target_addr(target);
}
