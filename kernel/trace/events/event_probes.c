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
 * The kinds, their functions and the one op that runs them all are ftrace_probe_kinds.h's;
 * a function's word is its probe. The callback reads a probe without a lock; it is freed
 * only once its last function is removed and ftrace has waited for the callbacks that
 * could still see it.
 *
 * An instance's set_ftrace_filter has kinds of its own, switching the event's recording
 * in that instance (its soft mode there).
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/spinlock.h>
#include <lib/string.h>

#include "event_core.h"
#include "ftrace_probe_kinds.h"
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

static struct probe_kind_set *volatile event_probe_sets[EVENT_PROBE_KINDS];
/* Serialises every change of the kinds and of event_probe_ops; the callback takes none. */
static DEFINE_SPINLOCK(event_probe_lock);

static bool kind_enables(int k) { return k <= EVENT_PROBE_ENABLE_COUNT; }
static bool kind_counted(int k)
{
    return k == EVENT_PROBE_ENABLE_COUNT || k == EVENT_PROBE_DISABLE_COUNT;
}

static bool event_on_in(const struct trace_event_call *call, const struct trace_array *tr)
{
    return tr == &trace_global ? trace_event_is_enabled(call)
                               : trace_event_instance_is_enabled(call, tr);
}

static int soft_mode_in(const struct trace_event_call *call, struct trace_array *tr, bool on)
{
    return tr == &trace_global ? trace_event_soft_mode(call, on)
                               : trace_event_instance_soft_mode(call, tr, on);
}

static void event_probe_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                             struct ftrace_regs *fregs)
{
    struct probe_kinds *pk = op->private;
    struct dyn_ftrace *rec = ftrace_rec_lookup(ip);
    if (!rec)
        return;
    long idx = ftrace_rec_index(rec);
    /* The kind made last runs first, as Linux's newest probe op comes first in its list. */
    struct probe_kind_set *sets[EVENT_PROBE_KINDS];
    int kinds[EVENT_PROBE_KINDS], n = 0;
    for (int k = 0; k < EVENT_PROBE_KINDS; k++) {
        struct probe_kind_set *ps = READ_ONCE(pk->sets[k]);
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
        struct probe_kind_set *ps = sets[i];
        int k = kinds[i];
        /* Pairs with the release in probe_kinds_add: the probe is there before the bit. */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        struct event_probe *p = (struct event_probe *)READ_ONCE(ps->words[idx]);
        if (!p)
            continue;
        bool enable = kind_enables(k);
        if (kind_counted(k)) {
            /* As Linux: spent only when the event changes state. */
            long old = READ_ONCE(p->count);
            if (old == 0 || event_on_in(p->target, pk->tr) == enable)
                continue;
            if (old > 0 && !__atomic_compare_exchange_n(&p->count, &old, old - 1, false,
                                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                continue;
        }
        if (pk->tr == &trace_global)
            trace_event_soft_set(p->target, enable);
        else
            trace_event_instance_soft_set(p->target, pk->tr, enable);
    }
}

static struct probe_kinds event_probe_kinds;
static struct ftrace_ops event_probe_ops = {
    .func = event_probe_call, .private = &event_probe_kinds, .tramp_slot = -1};
static struct probe_kinds event_probe_kinds = {.ops = &event_probe_ops,
                                               .lock = &event_probe_lock,
                                               .sets = event_probe_sets,
                                               .nkinds = EVENT_PROBE_KINDS,
                                               .tr = &trace_global};
/* Instances' kinds, by slot: made with an instance's first probe. */
static struct probe_kinds *event_probe_instances[TRACE_INSTANCES_MAX];

/* ---- adding and removing ---- */

/* What a removal hands back: the probes left with no function, for the caller to end. */
struct event_probes_gone {
    struct event_probe **probes;
    size_t n;
};

/* Ends what a removal handed back: their targets leave soft mode in tr, they are freed. */
static void event_probes_end(struct event_probes_gone *gone, struct trace_array *tr)
{
    for (size_t i = 0; i < gone->n; i++) {
        soft_mode_in(gone->probes[i]->target, tr, false);
        kfree(gone->probes[i]);
    }
    kfree(gone->probes);
}

static void event_probe_removed(uintptr_t word, void *ctx)
{
    struct event_probe *p = (struct event_probe *)word;
    struct event_probes_gone *gone = ctx;
    if (p && --p->functions == 0)
        gone->probes[gone->n++] = p;
}

/*
 * glob:enable_event|disable_event:SYS:EVENT[:N]: param is "SYS:EVENT[:N]". The event is
 * looked up first, as Linux does, so a removal naming no event is EINVAL.
 */
static int event_probe_command(struct trace_array *tr, bool enable, const char *glob,
                               const char *param, bool remove)
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
    struct probe_kinds *pk = probe_kinds_in(&event_probe_kinds, event_probe_instances, tr, !remove);
    if (remove) {
        err = -ENODEV; /* an instance with no kind at all */
        if (!pk)
            goto out;
        size_t total = ftrace_rec_total();
        struct event_probes_gone gone = {kmalloc(sizeof(*gone.probes) * (total ? total : 1)), 0};
        err = -ENOMEM;
        if (!gone.probes)
            goto out;
        err = probe_kinds_remove(pk, k, glob, event_probe_removed, &gone);
        event_probes_end(&gone, tr);
        goto out;
    }
    err = -ENOMEM;
    if (!pk)
        goto out;
    err = -EINVAL;
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
    err = soft_mode_in(target, tr, true);
    if (err) {
        kfree(probe);
        goto out;
    }
    size_t added = 0;
    err = probe_kinds_add(pk, k, glob, (uintptr_t)probe, &added);
    probe->functions = (unsigned)added;
    if (err) {
        soft_mode_in(target, tr, false);
        kfree(probe);
    }
out:
    kfree(copy);
    return err;
}

static int event_probe_enable_cmd(struct trace_array *tr, const char *glob, const char *param,
                                  bool remove)
{
    return event_probe_command(tr, true, glob, param, remove);
}

static int event_probe_disable_cmd(struct trace_array *tr, const char *glob, const char *param,
                                   bool remove)
{
    return event_probe_command(tr, false, glob, param, remove);
}

static uint64_t event_probe_newest_below(struct trace_array *tr, uint64_t below)
{
    struct probe_kinds *pk = probe_kinds_in(&event_probe_kinds, event_probe_instances, tr, false);
    return pk ? probe_kinds_newest_below(pk, below) : 0;
}

/* A kind's probes: `func:enable_event:sys:event:unlimited` or `...:count=N`. */
static int event_probe_show_kind(struct trace_array *tr, struct seqbuf *s, uint64_t stamp)
{
    size_t total = ftrace_rec_total();
    struct probe_kinds *pk = probe_kinds_in(&event_probe_kinds, event_probe_instances, tr, false);
    if (!pk)
        return 0;
    spin_lock(pk->lock);
    for (int k = 0; k < EVENT_PROBE_KINDS; k++) {
        struct probe_kind_set *ps = pk->sets[k];
        if (!ps || ps->created != stamp)
            continue;
        for (size_t i = 0; i < total; i++) {
            struct event_probe *p = (struct event_probe *)ps->words[i];
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
    spin_unlock(pk->lock);
    return s->overflow ? -ENOMEM : 0;
}

static int event_probe_instance_clear(struct trace_array *tr)
{
    /* A function has one probe a kind at most: no more probes than this can go. */
    size_t most = EVENT_PROBE_KINDS * (ftrace_rec_total() + 1);
    struct event_probes_gone gone = {kmalloc(sizeof(*gone.probes) * most), 0};
    if (!gone.probes)
        return -ENOMEM;
    int err = probe_kinds_instance_free(event_probe_instances, tr, event_probe_removed, &gone);
    event_probes_end(&gone, tr);
    return err;
}

/* One command lists the kinds of both. */
FTRACE_FILTER_COMMAND(enable_event, .name = "enable_event", .func = event_probe_enable_cmd,
                      .newest_below = event_probe_newest_below, .show_kind = event_probe_show_kind,
                      .instance_clear = event_probe_instance_clear);
FTRACE_FILTER_COMMAND(disable_event, .name = "disable_event", .func = event_probe_disable_cmd);
