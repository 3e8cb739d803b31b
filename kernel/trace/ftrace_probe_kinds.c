/*
 * Function probe kinds (ftrace_probe_kinds.h): adding and removing a kind's functions,
 * with the op following the union of every kind.
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <lib/string.h>

#include "ftrace_probe_kinds.h"
#include "trace_internal.h"

static void kind_set_free(struct probe_kind_set *ps)
{
    if (!ps)
        return;
    ftrace_hash_free(ps->funcs);
    kfree(ps->words);
    kfree(ps);
}

static struct probe_kind_set *kind_set_alloc(void)
{
    struct probe_kind_set *ps = kzalloc(sizeof(*ps));
    size_t total = ftrace_rec_total();

    if (!ps)
        return NULL;
    ps->funcs = ftrace_hash_alloc();
    ps->words = kzalloc(sizeof(*ps->words) * (total ? total : 1));
    if (!ps->funcs || !ps->words) {
        kind_set_free(ps);
        return NULL;
    }
    return ps;
}

/*
 * Points the op at the union of every kind's functions: registered while there is any,
 * unregistered (never an empty filter, which would mean every function) when there is
 * none. Either way ftrace waits until no CPU is inside the callback with the old state,
 * when it succeeds. Under the client's lock.
 */
static int sync_ops(struct probe_kinds *pk)
{
    struct ftrace_hash *all = ftrace_hash_alloc();
    size_t total = ftrace_rec_total();
    bool registered = pk->ops->flags & FTRACE_OPS_FL_ENABLED;
    int err;

    if (!all)
        return -ENOMEM;
    for (unsigned k = 0; k < pk->nkinds; k++) {
        struct probe_kind_set *ps = pk->sets[k];
        for (size_t i = 0; ps && i < total; i++)
            if (ftrace_hash_test(ps->funcs, i))
                ftrace_hash_set(all, i);
    }
    if (ftrace_hash_empty(all)) {
        ftrace_hash_free(all);
        err = registered ? unregister_ftrace_function(pk->ops) : 0;
        ftrace_ops_set_hashes(pk->ops, NULL, NULL);
        return err;
    }
    err = ftrace_ops_set_hashes(pk->ops, all, NULL);
    if (!err && !registered)
        err = register_ftrace_function(pk->ops);
    return err;
}

int probe_kinds_add(struct probe_kinds *pk, unsigned k, const char *glob, uintptr_t word,
                    size_t *added)
{
    struct ftrace_hash *match = ftrace_hash_alloc();
    struct ftrace_hash *fresh = ftrace_hash_alloc();
    size_t total = ftrace_rec_total(), n = 0;
    struct probe_kind_set *ps;
    bool created = false;
    int err = 0;

    if (!match || !fresh) {
        err = -ENOMEM;
        goto out_free;
    }
    if (ftrace_hash_apply_glob(match, glob) < 0) {
        err = -EINVAL;
        goto out_free;
    }
    spin_lock(pk->lock);
    ps = pk->sets[k];
    if (!ps) {
        ps = kind_set_alloc();
        if (!ps) {
            err = -ENOMEM;
            goto out_unlock;
        }
        created = true;
    }
    for (size_t i = 0; i < total; i++) {
        if (!ftrace_hash_test(match, i) || ftrace_hash_test(ps->funcs, i))
            continue;
        WRITE_ONCE(ps->words[i], word);
        /* Pairs with the callback's acquire: the word is there before the bit. */
        __atomic_thread_fence(__ATOMIC_RELEASE);
        ftrace_hash_set(ps->funcs, i);
        ftrace_hash_set(fresh, i);
        n++;
    }
    if (!n) {
        err = -EINVAL;
        if (created)
            kind_set_free(ps);
        goto out_unlock;
    }
    if (created) {
        ps->created = ftrace_probe_stamp();
        WRITE_ONCE(pk->sets[k], ps);
    }
    err = sync_ops(pk);
    if (err) {
        /* The kind as it was: the new functions out again, a new kind unpublished. */
        for (size_t i = 0; i < total; i++) {
            if (ftrace_hash_test(fresh, i)) {
                ftrace_hash_clear_bit(ps->funcs, i);
                WRITE_ONCE(ps->words[i], 0);
            }
        }
        if (created)
            WRITE_ONCE(pk->sets[k], NULL);
        sync_ops(pk);
        /* Whether or not that sync worked and waited, no callback holds the new words
         * (the caller may free what they point to) or a new kind once this has waited:
         * the kind is freed, never leaked. */
        ftrace_synchronize_callbacks();
        if (created)
            kind_set_free(ps);
    } else if (added) {
        *added = n;
    }
out_unlock:
    spin_unlock(pk->lock);
out_free:
    ftrace_hash_free(match);
    ftrace_hash_free(fresh);
    return err;
}

int probe_kinds_remove(struct probe_kinds *pk, unsigned k, const char *glob,
                       void (*removed)(uintptr_t word, void *ctx), void *ctx)
{
    bool every = glob[0] == '\0' || strcmp(glob, "*") == 0;
    struct ftrace_hash *match = NULL, *gone = ftrace_hash_alloc();
    size_t total = ftrace_rec_total(), n = 0;
    int err = 0;

    if (!gone)
        return -ENOMEM;
    if (!every) {
        match = ftrace_hash_alloc();
        if (!match) {
            ftrace_hash_free(gone);
            return -ENOMEM;
        }
        /* A glob that matches no record leaves match empty, and the removal finds none. */
        ftrace_hash_apply_glob(match, glob);
    }
    spin_lock(pk->lock);
    struct probe_kind_set *ps = pk->sets[k];
    if (!ps) {
        err = -ENODEV;
        goto out;
    }
    for (size_t i = 0; i < total; i++) {
        if (!ftrace_hash_test(ps->funcs, i) || (!every && !ftrace_hash_test(match, i)))
            continue;
        ftrace_hash_clear_bit(ps->funcs, i);
        ftrace_hash_set(gone, i);
        n++;
    }
    if (!n) {
        err = -EINVAL;
        goto out;
    }
    bool emptied = ftrace_hash_empty(ps->funcs);
    if (emptied)
        WRITE_ONCE(pk->sets[k], NULL);
    err = sync_ops(pk);
    if (err) {
        /* Nothing waited for the callbacks: the functions go back, nothing is handed
         * back or freed, and the op is pointed at the kind again. */
        for (size_t i = 0; i < total; i++)
            if (ftrace_hash_test(gone, i))
                ftrace_hash_set(ps->funcs, i);
        if (emptied)
            WRITE_ONCE(pk->sets[k], ps);
        sync_ops(pk);
        goto out;
    }
    /* The callbacks that could see the removed functions are over. */
    for (size_t i = 0; i < total; i++) {
        if (!ftrace_hash_test(gone, i))
            continue;
        if (removed)
            removed(ps->words[i], ctx);
        ps->words[i] = 0;
    }
    if (emptied)
        kind_set_free(ps);
out:
    spin_unlock(pk->lock);
    ftrace_hash_free(match);
    ftrace_hash_free(gone);
    return err;
}

uint64_t probe_kinds_newest_below(struct probe_kinds *pk, uint64_t below)
{
    uint64_t newest = 0;

    spin_lock(pk->lock);
    for (unsigned k = 0; k < pk->nkinds; k++) {
        struct probe_kind_set *ps = pk->sets[k];
        if (ps && ps->created < below && ps->created > newest)
            newest = ps->created;
    }
    spin_unlock(pk->lock);
    return newest;
}

/* An instance's client in one allocation: its kinds, op, lock and sets. */
struct probe_kinds_instance {
    struct probe_kinds pk;
    struct ftrace_ops ops;
    struct spinlock lock;
    struct probe_kind_set *volatile sets[];
};

struct probe_kinds *probe_kinds_in(struct probe_kinds *top, struct probe_kinds **instances,
                                   struct trace_array *tr, bool make)
{
    if (tr == &trace_global)
        return top;
    struct probe_kinds **slot = &instances[tr->instance_slot];
    if (*slot || !make)
        return *slot;
    struct probe_kinds_instance *pi = kzalloc(sizeof(*pi) + top->nkinds * sizeof(pi->sets[0]));
    if (!pi)
        return NULL;
    spin_init(&pi->lock, "probe kinds (instance)");
    pi->ops.func = top->ops->func;
    pi->ops.private = &pi->pk;
    pi->ops.tramp_slot = -1;
    pi->pk = (struct probe_kinds){
        .ops = &pi->ops, .lock = &pi->lock, .sets = pi->sets, .nkinds = top->nkinds, .tr = tr};
    /* Edits are serialised by the tracefs control mutex: nobody makes it meanwhile. */
    *slot = &pi->pk;
    return *slot;
}

int probe_kinds_instance_free(struct probe_kinds **instances, struct trace_array *tr,
                              void (*removed)(uintptr_t word, void *ctx), void *ctx)
{
    struct probe_kinds *pk = instances[tr->instance_slot];
    if (!pk)
        return 0;
    int err = 0;
    for (unsigned k = 0; k < pk->nkinds; k++) {
        int e = pk->sets[k] ? probe_kinds_remove(pk, k, "*", removed, ctx) : 0;
        err = err ? err : e;
    }
    /* A removal that failed (no memory to re-patch) leaves its kind, and the op: the
     * client stays, and the instance with it. */
    if (err)
        return err;
    instances[tr->instance_slot] = NULL;
    kfree(container_of(pk, struct probe_kinds_instance, pk));
    return 0;
}
