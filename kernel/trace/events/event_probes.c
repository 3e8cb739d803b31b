/*
 * The event commands of set_ftrace_filter, as Linux 6.1's:
 *
 *   FUNC:enable_event:SYS:EVENT[:N]     FUNC:disable_event:SYS:EVENT[:N]
 *
 * Each call of a matching function switches the event's recording on or off (N times, or
 * without end). The event is in soft mode (`enable` reads `0*`) while a probe aims at it,
 * and a probe that switched it on leaves it on when it goes, as Linux.
 *
 * Linux's kinds: enable or disable, with or without a count, four in all, and a function
 * has at most one probe of a kind, whatever its event (a second is EINVAL: nothing new was
 * added). One write makes one probe, whose count all its functions share. The event is
 * checked before anything else, even for a removal; a removal names the kind only, and is
 * ENODEV when the kind has no probe at all (`!f:enable_event:s:e` does not remove a probe
 * made with a count: `!f:enable_event:s:e:0` does).
 *
 * One ftrace op on the union of the kinds' functions runs them all. A probe's data is read
 * by that callback without a lock; it is freed only after ftrace has waited for the
 * callbacks of the op's previous filter, which no longer holds the probe's functions.
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/spinlock.h>
#include <lib/string.h>

#include "event_core.h"
#include "trace_internal.h"

enum event_probe_kind {
    EVENT_PROBE_ENABLE,
    EVENT_PROBE_ENABLE_COUNT,
    EVENT_PROBE_DISABLE,
    EVENT_PROBE_DISABLE_COUNT,
    EVENT_PROBE_KINDS,
};

/* What one write made: its event, and the count its functions share (-1: unlimited). */
struct event_probe {
    const struct trace_event_call *target;
    volatile long count;
    unsigned functions; /* how many functions still use it */
};

struct event_probe_set {
    struct ftrace_hash *funcs;
    struct event_probe **probes; /* by record index */
    uint64_t created;
};

static struct event_probe_set *volatile event_probe_sets[EVENT_PROBE_KINDS];
/* Serialises every change of the kinds and of event_probe_ops; the callback takes none. */
static DEFINE_SPINLOCK(event_probe_lock);

static bool kind_enables(int k) { return k <= EVENT_PROBE_ENABLE_COUNT; }
static bool kind_counted(int k)
{
    return k == EVENT_PROBE_ENABLE_COUNT || k == EVENT_PROBE_DISABLE_COUNT;
}

static void event_probe_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                             struct ftrace_regs *fregs)
{
    struct dyn_ftrace *rec = ftrace_rec_lookup(ip);
    if (!rec)
        return;
    long idx = ftrace_rec_index(rec);
    /* The kind made last runs first, as Linux's newest probe op comes first in its list. */
    struct event_probe_set *sets[EVENT_PROBE_KINDS];
    int kinds[EVENT_PROBE_KINDS], n = 0;
    for (int k = 0; k < EVENT_PROBE_KINDS; k++) {
        struct event_probe_set *ps = READ_ONCE(event_probe_sets[k]);
        if (!ps || !ftrace_hash_test(ps->funcs, idx))
            continue;
        int at = n++;
        for (; at > 0 && sets[at - 1]->created < ps->created; at--) {
            sets[at] = sets[at - 1];
            kinds[at] = kinds[at - 1];
        }
        sets[at] = ps;
        kinds[at] = k;
    }
    for (int i = 0; i < n; i++) {
        struct event_probe_set *ps = sets[i];
        int k = kinds[i];
        /* Pairs with the release in event_probe_add: the probe is there before the bit. */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        struct event_probe *p = READ_ONCE(ps->probes[idx]);
        if (!p)
            continue;
        bool enable = kind_enables(k);
        if (kind_counted(k)) {
            /* As Linux: spent only when the event changes state. */
            long old = READ_ONCE(p->count);
            if (old == 0 || trace_event_is_enabled(p->target) == enable)
                continue;
            if (old > 0 && !__atomic_compare_exchange_n(&p->count, &old, old - 1, false,
                                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                continue;
        }
        trace_event_soft_set(p->target, enable);
    }
}

static struct ftrace_ops event_probe_ops = {.func = event_probe_call, .tramp_slot = -1};

/* ---- adding and removing ---- */

static void event_probe_set_free(struct event_probe_set *ps)
{
    if (!ps)
        return;
    ftrace_hash_free(ps->funcs);
    kfree(ps->probes);
    kfree(ps);
}

static struct event_probe_set *event_probe_set_alloc(void)
{
    struct event_probe_set *ps = kzalloc(sizeof(*ps));
    if (!ps)
        return NULL;
    ps->funcs = ftrace_hash_alloc();
    size_t total = ftrace_rec_total();
    ps->probes = kzalloc(sizeof(*ps->probes) * (total ? total : 1));
    if (!ps->funcs || !ps->probes) {
        event_probe_set_free(ps);
        return NULL;
    }
    return ps;
}

/* Points the op at the union of the kinds' functions (unregistered when there is none);
 * ftrace then waits for callbacks that may use the old state. Under event_probe_lock. */
static int event_probe_sync_ops(void)
{
    struct ftrace_hash *all = ftrace_hash_alloc();
    size_t total = ftrace_rec_total();
    bool registered = event_probe_ops.flags & FTRACE_OPS_FL_ENABLED;
    int err;

    if (!all)
        return -ENOMEM;
    for (int k = 0; k < EVENT_PROBE_KINDS; k++) {
        struct event_probe_set *ps = event_probe_sets[k];
        for (size_t i = 0; ps && i < total; i++)
            if (ftrace_hash_test(ps->funcs, i))
                ftrace_hash_set(all, i);
    }
    if (ftrace_hash_empty(all)) {
        ftrace_hash_free(all);
        err = registered ? unregister_ftrace_function(&event_probe_ops) : 0;
        ftrace_ops_set_hashes(&event_probe_ops, NULL, NULL);
        return err;
    }
    err = ftrace_ops_set_hashes(&event_probe_ops, all, NULL);
    if (!err && !registered)
        err = register_ftrace_function(&event_probe_ops);
    return err;
}

static int event_probe_add(int k, const char *glob, struct event_probe *probe)
{
    struct ftrace_hash *match = ftrace_hash_alloc();
    size_t total = ftrace_rec_total();
    struct event_probe_set *ps;
    bool created = false;
    int err = 0;

    if (!match)
        return -ENOMEM;
    if (ftrace_hash_apply_glob(match, glob) < 0) {
        ftrace_hash_free(match);
        return -EINVAL;
    }
    spin_lock(&event_probe_lock);
    ps = event_probe_sets[k];
    if (!ps) {
        ps = event_probe_set_alloc();
        if (!ps) {
            err = -ENOMEM;
            goto out;
        }
        created = true;
    }
    for (size_t i = 0; i < total; i++) {
        if (!ftrace_hash_test(match, i) || ftrace_hash_test(ps->funcs, i))
            continue;
        WRITE_ONCE(ps->probes[i], probe);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        ftrace_hash_set(ps->funcs, i);
        probe->functions++;
    }
    /* As Linux: a write that adds no function is an error. */
    if (!probe->functions) {
        err = -EINVAL;
        if (created)
            event_probe_set_free(ps);
        goto out;
    }
    if (created) {
        ps->created = ftrace_probe_stamp();
        WRITE_ONCE(event_probe_sets[k], ps);
    }
    err = event_probe_sync_ops();
    if (err) {
        for (size_t i = 0; i < total; i++) {
            if (ps->probes[i] == probe && ftrace_hash_test(ps->funcs, i)) {
                ftrace_hash_clear_bit(ps->funcs, i);
                WRITE_ONCE(ps->probes[i], NULL);
            }
        }
        probe->functions = 0;
        if (created)
            WRITE_ONCE(event_probe_sets[k], NULL);
        event_probe_sync_ops();
        /* Unpublished, and no callback holds it once this has waited: freed, never
         * leaked, whether or not the sync above worked. */
        if (created) {
            ftrace_synchronize_callbacks();
            event_probe_set_free(ps);
        }
    }
out:
    spin_unlock(&event_probe_lock);
    ftrace_hash_free(match);
    return err;
}

/* Removes glob's functions from kind k (an empty glob or "*": all of them). The probes left
 * with no function are returned in gone (at most total), for the caller to end. */
static int event_probe_remove(int k, const char *glob, struct event_probe **gone, size_t *ngone)
{
    bool every = glob[0] == '\0' || strcmp(glob, "*") == 0;
    struct ftrace_hash *match = NULL;
    size_t total = ftrace_rec_total(), removed = 0;
    int err = 0;

    *ngone = 0;
    if (!every) {
        match = ftrace_hash_alloc();
        if (!match)
            return -ENOMEM;
        ftrace_hash_apply_glob(match, glob);
    }
    spin_lock(&event_probe_lock);
    struct event_probe_set *ps = event_probe_sets[k];
    if (!ps) {
        err = -ENODEV;
        goto out;
    }
    for (size_t i = 0; i < total; i++) {
        if (!ftrace_hash_test(ps->funcs, i) || (!every && !ftrace_hash_test(match, i)))
            continue;
        ftrace_hash_clear_bit(ps->funcs, i);
        removed++;
    }
    if (!removed) {
        err = -EINVAL;
        goto out;
    }
    bool emptied = ftrace_hash_empty(ps->funcs);
    if (emptied)
        WRITE_ONCE(event_probe_sets[k], NULL);
    err = event_probe_sync_ops();
    if (err) {
        /* Nothing waited for the callbacks: the functions go back, nothing is freed. */
        for (size_t i = 0; i < total; i++)
            if (ps->probes[i] && !ftrace_hash_test(ps->funcs, i))
                ftrace_hash_set(ps->funcs, i);
        if (emptied)
            WRITE_ONCE(event_probe_sets[k], ps);
        event_probe_sync_ops();
        goto out;
    }
    /* The callbacks that could see the removed functions are over. */
    for (size_t i = 0; i < total; i++) {
        struct event_probe *p = ps->probes[i];
        if (!p || ftrace_hash_test(ps->funcs, i))
            continue;
        ps->probes[i] = NULL;
        if (--p->functions == 0)
            gone[(*ngone)++] = p;
    }
    if (emptied)
        event_probe_set_free(ps);
out:
    spin_unlock(&event_probe_lock);
    ftrace_hash_free(match);
    return err;
}

/*
 * glob:enable_event|disable_event:SYS:EVENT[:N]: param is "SYS:EVENT[:N]". The event is
 * looked up first, as Linux does, so a removal naming no event is EINVAL.
 */
static int event_probe_command(bool enable, const char *glob, const char *param, bool remove)
{
    if (!param)
        return -EINVAL;
    char *copy = kstrdup(param), *rest = copy;
    if (!copy)
        return -ENOMEM;
    int err = -EINVAL;
    char *system = strsep(&rest, ":");
    if (!rest)
        goto out;
    char *event = strsep(&rest, ":");
    const struct trace_event_call *target = trace_event_find(system, event);
    if (!target || (target->flags & TRACE_EVENT_FL_FTRACE))
        goto out;
    int k = enable ? (rest ? EVENT_PROBE_ENABLE_COUNT : EVENT_PROBE_ENABLE)
                   : (rest ? EVENT_PROBE_DISABLE_COUNT : EVENT_PROBE_DISABLE);
    if (remove) {
        size_t total = ftrace_rec_total(), ngone = 0;
        struct event_probe **gone = kmalloc(sizeof(*gone) * (total ? total : 1));
        err = -ENOMEM;
        if (!gone)
            goto out;
        err = event_probe_remove(k, glob, gone, &ngone);
        for (size_t i = 0; i < ngone; i++) {
            trace_event_soft_mode(gone[i]->target, false);
            kfree(gone[i]);
        }
        kfree(gone);
        goto out;
    }
    long count = -1;
    if (rest) {
        char *number = strsep(&rest, ":");
        unsigned long v;
        if (!*number || kstrtoul(number, 0, &v))
            goto out;
        count = (long)v;
    }
    struct event_probe *probe = kzalloc(sizeof(*probe));
    err = -ENOMEM;
    if (!probe)
        goto out;
    probe->target = target;
    probe->count = count;
    err = trace_event_soft_mode(target, true);
    if (err) {
        kfree(probe);
        goto out;
    }
    err = event_probe_add(k, glob, probe);
    if (err) {
        trace_event_soft_mode(target, false);
        kfree(probe);
    }
out:
    kfree(copy);
    return err;
}

static int event_probe_enable_cmd(const char *glob, const char *param, bool remove)
{
    return event_probe_command(true, glob, param, remove);
}

static int event_probe_disable_cmd(const char *glob, const char *param, bool remove)
{
    return event_probe_command(false, glob, param, remove);
}

static uint64_t event_probe_newest_below(uint64_t below)
{
    uint64_t newest = 0;
    spin_lock(&event_probe_lock);
    for (int k = 0; k < EVENT_PROBE_KINDS; k++) {
        struct event_probe_set *ps = event_probe_sets[k];
        if (ps && ps->created < below && ps->created > newest)
            newest = ps->created;
    }
    spin_unlock(&event_probe_lock);
    return newest;
}

/* A kind's probes: `func:enable_event:sys:event:unlimited` or `...:count=N`. */
static int event_probe_show_kind(struct seqbuf *s, uint64_t stamp)
{
    size_t total = ftrace_rec_total();
    spin_lock(&event_probe_lock);
    for (int k = 0; k < EVENT_PROBE_KINDS; k++) {
        struct event_probe_set *ps = event_probe_sets[k];
        if (!ps || ps->created != stamp)
            continue;
        for (size_t i = 0; i < total; i++) {
            struct event_probe *p = ps->probes[i];
            if (!p || !ftrace_hash_test(ps->funcs, i))
                continue;
            seq_printf(s, "%s:%s:%s:%s", ftrace_rec_name(ftrace_rec(i)),
                       kind_enables(k) ? "enable_event" : "disable_event", p->target->system,
                       p->target->name);
            long count = READ_ONCE(p->count);
            if (count == -1)
                seq_puts(s, ":unlimited\n");
            else
                seq_printf(s, ":count=%ld\n", count);
        }
    }
    spin_unlock(&event_probe_lock);
    return s->overflow ? -ENOMEM : 0;
}

/* One command lists the kinds of both. */
FTRACE_FILTER_COMMAND(enable_event, .name = "enable_event", .func = event_probe_enable_cmd,
                      .newest_below = event_probe_newest_below, .show_kind = event_probe_show_kind);
FTRACE_FILTER_COMMAND(disable_event, .name = "disable_event", .func = event_probe_disable_cmd);
