/*
 * The livepatch core: resolving a patch's functions, the ftrace ops that send their calls
 * on to the new versions, and enabling and disabling patches. Each old function has one
 * op (IPMODIFY is exclusive per function) with a stack of the patches that replace it,
 * newest first; the callback picks the version the calling thread may run.
 */
#include <arch/cpu.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/irqflags.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/string.h>

#include "livepatch_internal.h"

DEFINE_SPINLOCK(klp_lock);

struct klp_ops {
    struct list_node node;
    unsigned long old_addr;
    struct list_node func_stack; /* klp_func.stack_node, newest patch first */
    struct ftrace_ops fops;
};

static struct list_node klp_ops_list = LIST_INIT(klp_ops_list);
struct list_node klp_patches = LIST_INIT(klp_patches);

static struct klp_ops *klp_find_ops(unsigned long old_addr)
{
    struct list_node *pos;
    list_for_each(pos, &klp_ops_list) {
        struct klp_ops *ops = list_entry(pos, struct klp_ops, node);
        if (ops->old_addr == old_addr)
            return ops;
    }
    return NULL;
}

/*
 * Runs at the start of every patched function, with preemption off, in whatever context
 * called it. Interrupts stay off while it reads the stack and the thread's state, so one
 * sync round (every CPU takes an interrupt) is enough to know that no CPU still acts on
 * what it read before.
 */
static notrace void klp_ftrace_handler(unsigned long ip, unsigned long parent_ip,
                                       struct ftrace_ops *fops, struct ftrace_regs *fregs)
{
    struct klp_ops *ops = container_of(fops, struct klp_ops, fops);
    unsigned long flags = local_irq_save();
    struct list_node *top = READ_ONCE(ops->func_stack.next);
    if (top == &ops->func_stack)
        goto out;
    struct klp_func *func = list_entry(top, struct klp_func, stack_node);
    if (READ_ONCE(func->transition)) {
        /* transition is set after every thread's state: read it first. */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (READ_ONCE(this_cpu()->current->patch_state) == KLP_UNPATCHED) {
            struct list_node *below = READ_ONCE(func->stack_node.next);
            if (below == &ops->func_stack)
                goto out; /* the original function */
            func = list_entry(below, struct klp_func, stack_node);
        }
    }
    ftrace_regs_set_instruction_pointer(fregs, (unsigned long)func->new_func);
out:
    local_irq_restore(flags);
}

void klp_func_below(const struct klp_func *func, unsigned long *start, unsigned long *size)
{
    struct klp_ops *ops = klp_find_ops(func->old_func);
    struct list_node *below = func->stack_node.next;
    if (!ops || !func->patched || below == &ops->func_stack) {
        *start = func->old_func;
        *size = func->old_size;
        return;
    }
    const struct klp_func *older = list_entry(below, struct klp_func, stack_node);
    *start = (unsigned long)older->new_func;
    *size = older->new_size;
}

/* Readers (the handler) follow next pointers only: publish a node after it is whole. */
static void klp_stack_push(struct klp_ops *ops, struct klp_func *func)
{
    struct list_node *head = &ops->func_stack, *first = head->next;
    func->stack_node.next = first;
    func->stack_node.prev = head;
    __atomic_store_n(&head->next, &func->stack_node, __ATOMIC_RELEASE);
    first->prev = &func->stack_node;
}

/* The removed node keeps its next pointer, so a handler still on it goes on correctly. */
static void klp_stack_remove(struct klp_func *func)
{
    struct list_node *n = &func->stack_node;
    WRITE_ONCE(n->prev->next, n->next);
    n->next->prev = n->prev;
}

static int klp_patch_func(struct klp_func *func)
{
    struct klp_ops *ops = klp_find_ops(func->old_func);
    if (ops) {
        klp_stack_push(ops, func);
        func->patched = true;
        return 0;
    }
    ops = kzalloc(sizeof(*ops));
    if (!ops)
        return -ENOMEM;
    ops->old_addr = func->old_func;
    list_init(&ops->func_stack);
    ops->fops.func = klp_ftrace_handler;
    ops->fops.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_PERMANENT;
    ops->fops.tramp_slot = -1;
    int err = ftrace_set_filter_ip(&ops->fops, func->old_func, 0, 1);
    if (err) {
        kfree(ops);
        return err;
    }
    klp_stack_push(ops, func);
    err = register_ftrace_function(&ops->fops);
    if (err) {
        ftrace_ops_set_hashes(&ops->fops, NULL, NULL); /* frees the hash */
        kfree(ops);
        return err;
    }
    list_add_tail(&klp_ops_list, &ops->node);
    func->patched = true;
    return 0;
}

static void klp_unpatch_func(struct klp_func *func)
{
    struct klp_ops *ops = klp_find_ops(func->old_func);
    if (!func->patched || !ops)
        return;
    if (ops->func_stack.next == &func->stack_node && func->stack_node.next == &ops->func_stack) {
        /* Waits until no CPU is in the handler; failing needs a dead ftrace, which has
         * already turned the site back into a NOP. */
        int err = unregister_ftrace_function(&ops->fops);
        if (err)
            printk("livepatch: cannot unregister the op of %s: %d\n", func->old_name, err);
        ftrace_ops_set_hashes(&ops->fops, NULL, NULL); /* frees the hash */
        list_remove(&ops->node);
        kfree(ops);
    } else {
        klp_stack_remove(func);
    }
    func->patched = false;
}

void klp_unpatch_objects(struct klp_patch *patch)
{
    struct klp_object *obj;
    struct klp_func *func;
    klp_for_each_object(patch, obj) {
        klp_for_each_func(obj, func)
            klp_unpatch_func(func);
        obj->patched = false;
    }
}

int klp_patch_objects(struct klp_patch *patch)
{
    struct klp_object *obj;
    struct klp_func *func;
    klp_for_each_object(patch, obj) {
        klp_for_each_func(obj, func) {
            int err = klp_patch_func(func);
            if (err) {
                printk("livepatch: failed to patch %s in '%s': %d\n", func->old_name, patch->name,
                       err);
                klp_unpatch_objects(patch);
                return err;
            }
        }
        obj->patched = true;
    }
    return 0;
}

/* Linux's old_sympos: 0 wants the only function of that name, N its N-th copy. */
static int klp_find_symbol(const char *name, unsigned long sympos, unsigned long *addr)
{
    uintptr_t a, found = 0;
    unsigned long count = 0;
    const char *sym;
    for (size_t i = 0; (sym = sym_at(i, &a)); i++) {
        if (strcmp(sym, name) != 0)
            continue;
        count++;
        if ((sympos == 0 && count == 1) || count == sympos)
            found = a;
    }
    if (!count) {
        printk("livepatch: symbol '%s' not found in symbol table\n", name);
        return -EINVAL;
    }
    if (sympos == 0 && count > 1) {
        printk("livepatch: unresolvable ambiguity for symbol '%s': %lu copies\n", name, count);
        return -EINVAL;
    }
    if (!found) {
        printk("livepatch: symbol position %lu for symbol '%s' not found\n", sympos, name);
        return -EINVAL;
    }
    *addr = found;
    return 0;
}

static int klp_init_func(struct klp_object *obj, struct klp_func *func)
{
    if (!func->new_func)
        return -EINVAL;
    if (func->patched)
        return -EBUSY; /* it belongs to a patch in use */
    unsigned long addr;
    int err = klp_find_symbol(func->old_name, func->old_sympos, &addr);
    if (err)
        return err;
    uintptr_t start;
    size_t size;
    if (!ftrace_rec_lookup(addr)) {
        printk("livepatch: %s has no call site to patch\n", func->old_name);
        return -EINVAL;
    }
    func->old_func = addr;
    func->old_size = sym_lookup(addr, &start, &size) ? size : 0;
    func->new_size = sym_lookup((uintptr_t)func->new_func, &start, &size) ? size : 0;
    if (!func->old_size || !func->new_size || start != (uintptr_t)func->new_func)
        return -EINVAL;
    func->obj = obj;
    func->patched = false;
    func->transition = false;
    list_init(&func->stack_node);
    return 0;
}

/* Two entries for one function would stack the patch on itself. */
static bool klp_has_duplicate(struct klp_patch *patch)
{
    struct klp_object *obj, *o2;
    struct klp_func *func, *f2;
    klp_for_each_object(patch, obj)
        klp_for_each_func(obj, func) {
            klp_for_each_object(patch, o2)
                klp_for_each_func(o2, f2) {
                    if (f2 != func && f2->old_func == func->old_func)
                        return true;
                }
        }
    return false;
}

/* A directory name under /sys/kernel/livepatch. */
static bool klp_name_ok(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    return len && len < 64 && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

int klp_init_patch(struct klp_patch *patch)
{
    if (!patch || !klp_name_ok(patch->name) || !patch->objs)
        return -EINVAL;
    if (patch->replace)
        return -EINVAL; /* atomic replace is not supported */
    spin_lock(&klp_lock);
    int err = 0;
    if (patch->initialized) {
        err = -EINVAL;
        goto out;
    }
    struct list_node *pos;
    list_for_each(pos, &klp_patches) {
        if (strcmp(list_entry(pos, struct klp_patch, node)->name, patch->name) == 0) {
            err = -EEXIST;
            goto out;
        }
    }
    struct klp_object *obj;
    struct klp_func *func;
    size_t nfuncs = 0;
    klp_for_each_object(patch, obj) {
        /* There are no modules: every object is the kernel itself. */
        if (obj->name && strcmp(obj->name, "vmlinux") != 0) {
            err = -EINVAL;
            goto out;
        }
        klp_for_each_func(obj, func) {
            err = klp_init_func(obj, func);
            if (err)
                goto out;
            nfuncs++;
        }
        obj->patched = false;
    }
    if (!nfuncs || klp_has_duplicate(patch))
        err = -EINVAL;
    if (err)
        goto out;
    patch->enabled = false;
    patch->forced = false;
    patch->initialized = true;
    list_add_tail(&klp_patches, &patch->node);
out:
    spin_unlock(&klp_lock);
    return err;
}

struct klp_patch *klp_find_patch(const char *name)
{
    struct klp_patch *found = NULL;
    spin_lock(&klp_lock);
    struct list_node *pos;
    list_for_each(pos, &klp_patches) {
        struct klp_patch *p = list_entry(pos, struct klp_patch, node);
        if (p->registered && strcmp(p->name, name) == 0)
            found = p;
    }
    spin_unlock(&klp_lock);
    return found;
}

/* EBUSY while a transition runs, EINVAL when patch is already in the wanted state. */
static int klp_change_check(const struct klp_patch *patch, bool enable)
{
    if (klp_transition_patch)
        return -EBUSY;
    return patch->enabled == enable ? -EINVAL : 0;
}

/* How long the write that starts a transition drives it before leaving it to a worker. */
#define KLP_WRITE_DRIVE_NS (50 * NSEC_PER_MSEC)

static int klp_change(struct klp_patch *patch, bool enable)
{
    if (!patch->initialized)
        return -EINVAL;
    int err = klp_change_begin();
    if (err)
        return err;
    spin_lock(&klp_lock);
    err = klp_change_check(patch, enable);
    spin_unlock(&klp_lock);
    if (!err)
        klp_reap_worker(); /* the last transition's, which has ended */
    spin_lock(&klp_lock);
    err = err ? err : klp_change_check(patch, enable);
    if (!err && enable) {
        klp_init_transition(patch, KLP_PATCHED);
        err = klp_patch_objects(patch);
        if (err) {
            klp_cancel_transition();
        } else {
            patch->enabled = true;
            patch->forced = false;
            klp_start_transition();
        }
    } else if (!err) {
        patch->enabled = false;
        patch->forced = false;
        klp_init_transition(patch, KLP_UNPATCHED);
        klp_start_transition();
    }
    bool done = err || klp_try_complete_transition();
    spin_unlock(&klp_lock);
    /* Most transitions end within a few ticks: a thread only for those that do not. */
    if (!done && !klp_drive(KLP_WRITE_DRIVE_NS))
        klp_start_worker();
    klp_change_end();
    return err;
}

int klp_enable_patch(struct klp_patch *patch) { return klp_change(patch, true); }

int klp_disable_patch(struct klp_patch *patch) { return klp_change(patch, false); }
