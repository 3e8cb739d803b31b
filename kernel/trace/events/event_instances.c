/*
 * Trace events in trace instances (instances/NAME/events/, set_event): each instance turns
 * events on for itself, and a record of such an event is copied into the buffer of every
 * instance it is on in.
 *
 * An event keeps one emitter and one record: the top level's path is unchanged while no
 * instance has any event on. An instance's enable sets a bit per instance slot in the
 * event's instance_mask and TRACE_EVENT_ON_INSTANCE in its enabled byte; the write path's
 * slow check (TRACE_EVENT_SLOW_INSTANCES) then builds the record even where the top level
 * records nothing (in the scratch slot, as for triggers), and the commit's out-of-line path
 * (TRACE_EVENT_COMMIT_INSTANCES) copies it into each instance's buffer on this CPU. No lock
 * on that path: the copy reserves and commits on the instance's own lock-free buffer, and an
 * instance's removal waits for the copies under way (trace_instance_writers).
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/synchronize.h>
#include <kernel/tracefs.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_files.h"
#include "event_trigger.h"
#include "trace_internal.h"

/* Serialises the instance bits of enabled bytes, masks and commit flags, and the making
 * of the per-instance state tables. */
static DEFINE_SPINLOCK(instance_events_lock);

/*
 * Each instance's set_event_pid and set_event_notrace_pid, by slot; instances_with_pids
 * has a bit for each slot with a list that is not empty (the write path then keeps the
 * other pid of each record it builds, for the copy to test).
 */
static struct trace_event_pids instance_pids[TRACE_INSTANCES_MAX][2];
volatile uint32_t trace_event_instances_with_pids;

struct trace_event_pids *trace_event_instance_pid_list(unsigned slot, int which)
{
    return &instance_pids[slot][which];
}

void trace_event_instance_pids_changed(struct trace_array *tr)
{
    struct trace_event_pids *l = instance_pids[tr->instance_slot];
    uint32_t bit = 1u << tr->instance_slot;
    if (READ_ONCE(l[0].count) | READ_ONCE(l[1].count))
        __atomic_fetch_or(&trace_event_instances_with_pids, bit, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_and(&trace_event_instances_with_pids, ~bit, __ATOMIC_SEQ_CST);
    trace_event_update_follow();
}

static bool pid_listed(const struct trace_event_pids *l, int pid)
{
    unsigned n = __atomic_load_n(&l->count, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++)
        if (READ_ONCE(l->pids[i]) == pid)
            return true;
    return false;
}

static bool pid_allowed(const struct trace_event_pids *l, int pid)
{
    if (pid < 0 || pid_listed(&l[TRACE_EVENT_PIDS_NOTRACE], pid))
        return false;
    return !READ_ONCE(l[TRACE_EVENT_PIDS_TRACE].count) ||
           pid_listed(&l[TRACE_EVENT_PIDS_TRACE], pid);
}

bool trace_event_instance_pids_allow(unsigned slot, int pid, int other_pid)
{
    if (!((READ_ONCE(trace_event_instances_with_pids) >> slot) & 1))
        return true;
    const struct trace_event_pids *l = instance_pids[slot];
    return pid_allowed(l, pid) || pid_allowed(l, other_pid);
}

bool trace_event_instance_is_enabled(const struct trace_event_call *call,
                                     const struct trace_array *tr)
{
    return (READ_ONCE(call->state->instance_mask) >> tr->instance_slot) & 1;
}

bool trace_event_instance_in_soft_mode(const struct trace_event_call *call,
                                       const struct trace_array *tr)
{
    return (READ_ONCE(call->state->instance_soft_mask) >> tr->instance_slot) & 1;
}

struct trace_event_instance_state *trace_event_instance_state(const struct trace_event_call *call,
                                                              const struct trace_array *tr,
                                                              bool make)
{
    struct trace_event_state *st = call->state;
    struct trace_event_instance_state *table = __atomic_load_n(&st->per_instance, __ATOMIC_ACQUIRE);
    if (!table && make) {
        struct trace_event_instance_state *fresh = kzalloc(TRACE_INSTANCES_MAX * sizeof(*fresh));
        if (!fresh)
            return NULL;
        unsigned long irq = spin_lock_irqsave(&instance_events_lock);
        table = st->per_instance;
        if (!table)
            __atomic_store_n(&st->per_instance, table = fresh, __ATOMIC_RELEASE);
        spin_unlock_irqrestore(&instance_events_lock, irq);
        if (table != fresh)
            kfree(fresh);
    }
    return table ? &table[tr->instance_slot] : NULL;
}

void trace_event_instance_states_free(const struct trace_event_call *call)
{
    struct trace_event_state *st = call->state;
    if (!st->per_instance)
        return;
    /* The event is gone from every instance: no trigger is left, and once the writers
     * that could still run a filter have left, none is read. */
    synchronize_readers(&trace_event_filter_readers);
    for (unsigned slot = 0; slot < TRACE_INSTANCES_MAX; slot++)
        event_filter_free(st->per_instance[slot].filter);
    kfree(st->per_instance);
    st->per_instance = NULL;
}

/*
 * Sets slot's bits of call: rec (recording there) and soft (in soft mode there) to 0 or
 * 1, or leaves them (-1), keeping what the write path reads in step: while any instance
 * needs the emitter, the enabled byte's instance bit, the out-of-line commit and the slow
 * check are on. Process context.
 */
static void instance_bits_update(const struct trace_event_call *call, unsigned slot, int rec,
                                 int soft)
{
    struct trace_event_state *st = call->state;
    uint32_t bit = 1u << slot;
    unsigned long irq = spin_lock_irqsave(&instance_events_lock);
    /* Only the soft mask is ours alone: a trigger flips other instances' recording bits
     * from any context (trace_event_instance_soft_set), so this one changes by itself. */
    bool was = (READ_ONCE(st->instance_mask) | st->instance_soft_mask) != 0;
    bool now = rec > 0 || soft > 0 ||
               ((READ_ONCE(st->instance_mask) & (rec == 0 ? ~bit : ~0u)) |
                (st->instance_soft_mask & (soft == 0 ? ~bit : ~0u))) != 0;
    if (now && !was) {
        /* The slow check and the out-of-line commit first: an emitter that sees the byte's
         * bit must not take the inline path into the top level's buffer. */
        trace_event_instance_count(true);
        __atomic_fetch_or(&st->commit_flags, TRACE_EVENT_COMMIT_INSTANCES, __ATOMIC_SEQ_CST);
    }
    if (rec > 0)
        __atomic_fetch_or(&st->instance_mask, bit, __ATOMIC_SEQ_CST);
    else if (rec == 0)
        __atomic_fetch_and(&st->instance_mask, ~bit, __ATOMIC_SEQ_CST);
    if (soft > 0)
        __atomic_fetch_or(&st->instance_soft_mask, bit, __ATOMIC_SEQ_CST);
    else if (soft == 0)
        __atomic_fetch_and(&st->instance_soft_mask, ~bit, __ATOMIC_SEQ_CST);
    if (now != was)
        trace_event_set_bit(st->enabled, TRACE_EVENT_ON_INSTANCE, now);
    spin_unlock_irqrestore(&instance_events_lock, irq);
    trace_event_cmdlines_update();
    if (was && !now) {
        /*
         * A record built in the scratch slot for instances must still commit out of line:
         * the flag goes once those writers have left. As with soft mode, a writer that saw
         * the bit just before it went may find the slow check gone and record one event at
         * the top level; nothing waits for the inline writers.
         */
        synchronize_readers(&trace_event_scratch_writers);
        __atomic_fetch_and(&st->commit_flags, (uint8_t)~TRACE_EVENT_COMMIT_INSTANCES,
                           __ATOMIC_SEQ_CST);
        trace_event_instance_count(false);
    }
}

/* An event made at run time may have work to do before it is emitted and after (reg). */
static int instance_reg(const struct trace_event_call *call, bool was_emitting, bool on)
{
    if (!call->reg || was_emitting == trace_event_is_emitting(call))
        return 0;
    return call->reg(call, on);
}

int trace_event_instance_enable(const struct trace_event_call *call, struct trace_array *tr,
                                bool on)
{
    struct trace_event_state *st = call->state;
    if ((call->flags & TRACE_EVENT_FL_FTRACE) || !st->enabled)
        return -EINVAL;
    if (trace_event_instance_is_enabled(call, tr) == on)
        return 0;
    if (on)
        trace_array_last_boot_end(tr);
    bool was_emitting = trace_event_is_emitting(call);
    if (on && call->reg && !was_emitting) {
        int err = call->reg(call, true);
        if (err)
            return err;
    }
    instance_bits_update(call, tr->instance_slot, on, -1);
    return on ? 0 : instance_reg(call, was_emitting, false);
}

int trace_event_instance_soft_mode(const struct trace_event_call *call, struct trace_array *tr,
                                   bool on)
{
    if (call->flags & TRACE_EVENT_FL_MARKER)
        return 0; /* trace_marker's writes reach print's triggers whatever its state */
    if ((call->flags & TRACE_EVENT_FL_FTRACE) || !call->state->enabled)
        return -EINVAL;
    struct trace_event_instance_state *ist = trace_event_instance_state(call, tr, on);
    if (!ist)
        return on ? -ENOMEM : 0;
    bool was_emitting = trace_event_is_emitting(call);
    if (on) {
        trace_array_last_boot_end(tr);
        if (ist->soft_users++)
            return 0;
        if (call->reg && !was_emitting) {
            int err = call->reg(call, true);
            if (err) {
                ist->soft_users--;
                return err;
            }
        }
        instance_bits_update(call, tr->instance_slot, -1, 1);
        return 0;
    }
    if (!ist->soft_users || --ist->soft_users)
        return 0;
    instance_bits_update(call, tr->instance_slot, -1, 0);
    return instance_reg(call, was_emitting, false);
}

void trace_event_instance_soft_set(const struct trace_event_call *call,
                                   const struct trace_array *tr, bool record)
{
    /* In soft mode the emitter runs for this instance already: the recording bit alone
     * changes, with no bookkeeping to keep in step. */
    uint32_t bit = 1u << tr->instance_slot;
    if (!(READ_ONCE(call->state->instance_soft_mask) & bit))
        return;
    if (record)
        __atomic_fetch_or(&call->state->instance_mask, bit, __ATOMIC_RELEASE);
    else
        __atomic_fetch_and(&call->state->instance_mask, ~bit, __ATOMIC_RELEASE);
}

void trace_event_instance_pids_empty(struct trace_array *tr)
{
    struct trace_event_pids *l = instance_pids[tr->instance_slot];
    trace_event_pids_empty(&l[0]);
    trace_event_pids_empty(&l[1]);
    trace_event_instance_pids_changed(tr);
}

void trace_event_instance_disable_all(struct trace_array *tr)
{
    /* Its pid lists empty (fork following may still add to them until the instance is
     * out of reach: the removal empties them again then, for the next in the slot). */
    trace_event_instance_pids_empty(tr);
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        if (trace_event_instance_is_enabled(c, tr))
            trace_event_instance_enable(c, tr, false);
        trace_event_instance_filter_install(c, tr, NULL);
    }
}

void trace_event_instances_write(const struct trace_event_call *call, const void *record,
                                 size_t size, int other_pid, uintptr_t frame)
{
    unsigned cpu = sync_read_enter(&trace_instance_writers);
    struct trace_event_state *st = call->state;
    int pid = ((const struct trace_event_common *)record)->pid;
    uint32_t mask = READ_ONCE(st->instance_mask) | READ_ONCE(st->instance_soft_mask);
    while (mask) {
        unsigned slot = (unsigned)__builtin_ctz(mask);
        mask &= mask - 1;
        struct trace_array *tr = READ_ONCE(trace_instances[slot]);
        /* As Linux: a record its pid lists leave out runs no trigger either. */
        if (!tr || !trace_event_instance_pids_allow(slot, pid, other_pid))
            continue;
        struct trace_event_instance_state *ist = trace_event_instance_state(call, tr, false);
        unsigned post = 0;
        if (ist && READ_ONCE(ist->triggers))
            post = event_triggers_run(&ist->triggers, record, size, EVENT_TRIGGER_TS_NOW);
        /* Read after the triggers: an enable_event among them may have just changed it. */
        bool recording = (READ_ONCE(st->instance_mask) >> slot) & 1;
        /* The caller is inside trace_event_filter_readers: the filter stays. */
        struct event_filter *filter = ist ? READ_ONCE(ist->filter) : NULL;
        if (recording && ((READ_ONCE(tr->cpumask) >> cpu) & 1) &&
            (!filter || event_filter_match(filter, record, size))) {
            struct rb_reservation res;
            void *copy = rb_reserve(tr->buffer, (unsigned)size, &res);
            if (copy) {
                memcpy(copy, record, size);
                rb_commit(tr->buffer, &res);
                if ((READ_ONCE(tr->options) >> TRACE_OPT_STACKTRACE) & 1)
                    trace_array_stack_from_frame(tr, frame, 0, 0);
            }
        }
        if (post)
            event_triggers_post_run(&ist->triggers, post, frame);
    }
    sync_read_exit(&trace_instance_writers, cpu);
}

/* ---- the files ---- */

/* What an instance's enable or filter file is about: the instance, and its event or its
 * system. */
struct instance_event_file {
    struct trace_array *tr;
    const struct trace_event_call *call; /* NULL: a system's enable */
    char system[64];
};

/* As the top level's: `0*` soft-disabled, `1*` recording in soft mode. */
static int show_instance_enable(struct seqbuf *s, void *data)
{
    const struct instance_event_file *f = data;
    if (f->call)
        return seq_printf(s, "%d%s\n", trace_event_instance_is_enabled(f->call, f->tr) ? 1 : 0,
                          trace_event_instance_in_soft_mode(f->call, f->tr) ? "*" : "");
    return seq_printf(s, "%c\n", trace_events_enable_state(f->system, f->tr));
}

static ssize_t store_instance_enable(void *data, const char *buf, size_t len)
{
    const struct instance_event_file *f = data;
    bool on;
    int err = trace_event_parse_enable(buf, len, &on);
    if (!err)
        err = f->call ? trace_event_instance_enable(f->call, f->tr, on)
                      : trace_events_enable_system(f->system, f->tr, on);
    return err ? err : (ssize_t)len;
}

static int show_instance_filter(struct seqbuf *s, void *data)
{
    const struct instance_event_file *f = data;
    if (!f->call)
        return trace_event_show_system_filter(s, NULL);
    struct event_filter *filter = trace_event_instance_filter(f->call, f->tr);
    return filter ? seq_printf(s, "%s\n", event_filter_text(filter)) : seq_puts(s, "none\n");
}

static ssize_t store_instance_filter(void *data, const char *buf, size_t len)
{
    const struct instance_event_file *f = data;
    if (f->call)
        return trace_event_store_filter_in(f->call, f->tr, buf, len);
    return trace_event_store_system_filter_in(f->system, f->tr, buf, len);
}

/* An event's trigger file in an instance: as the top level's (`>` first takes the hist
 * triggers out), on the instance's triggers. */
static int show_instance_triggers(struct seqbuf *s, void *data)
{
    const struct instance_event_file *f = data;
    return trace_event_trigger_show_in(s, f->call, f->tr);
}

static int instance_trigger_open(struct pfs_file *f)
{
    const struct instance_event_file *ief = f->data;
    if ((f->flags & PFS_WRITE) && (f->flags & PFS_TRUNC))
        trace_event_trigger_truncate_in(ief->call, ief->tr);
    return trace_event_text_open(f, show_instance_triggers);
}

static ssize_t instance_trigger_write(struct pfs_file *f, const char *buf, size_t len)
{
    const struct instance_event_file *ief = f->data;
    return trace_event_trigger_store_in(ief->call, ief->tr, buf, len);
}

static const struct pfs_ops instance_trigger_ops = {
    .open = instance_trigger_open,
    .read = trace_event_text_read,
    .write = instance_trigger_write,
    .release = trace_event_text_release,
};

static int show_instance_hist(struct seqbuf *s, void *data)
{
    const struct instance_event_file *f = data;
    return trace_event_hist_show_in(s, f->call, f->tr);
}

/* An event's trigger and hist files (ftrace's own have hist only, but print). */
static int create_trigger_files(struct trace_array *tr, struct pfs_node *dir,
                                const struct trace_event_call *c)
{
    struct instance_event_file f = {.tr = tr, .call = c};
    if (!pfs_create_seq_copy(dir, "hist", 0444, show_instance_hist, NULL, &f, sizeof(f)))
        return -ENOMEM;
    if ((c->flags & TRACE_EVENT_FL_FTRACE) && !(c->flags & TRACE_EVENT_FL_MARKER))
        return 0;
    struct instance_event_file *copy = kmalloc(sizeof(*copy));
    if (!copy)
        return -ENOMEM;
    *copy = f;
    struct pfs_node *n = pfs_create(dir, "trigger", 0644, &instance_trigger_ops, copy);
    if (!n) {
        kfree(copy);
        return -ENOMEM;
    }
    pfs_own_data(n);
    return 0;
}

/* The enable and filter files of an event (call) or a system (call NULL) in dir. */
static int create_files(struct trace_array *tr, struct pfs_node *dir,
                        const struct trace_event_call *call, const char *system)
{
    struct instance_event_file f = {.tr = tr, .call = call};
    strlcpy(f.system, system, sizeof(f.system));
    if (!dir ||
        !pfs_create_seq_copy(dir, "enable", 0644, show_instance_enable, store_instance_enable, &f,
                             sizeof(f)) ||
        !pfs_create_seq_copy(dir, "filter", 0644, show_instance_filter, store_instance_filter, &f,
                             sizeof(f)))
        return -ENOMEM;
    return 0;
}

/* One event's folder in tr's events/ (and its system's enable, if the system is new); each
 * directory made by tracefs_create_dir, as at the top level. */
static int create_event_files(struct trace_array *tr, struct pfs_node *dir,
                              const struct trace_event_call *c)
{
    struct pfs_node *sys = tracefs_dir(c->system, tracefs_dir("events", dir));
    struct pfs_node *n;
    bool new_system =
        !(c->flags & TRACE_EVENT_FL_FTRACE) && sys && pfs_lookup_at(sys, "enable", &n) != 0;
    if (new_system && create_files(tr, sys, NULL, c->system))
        return -ENOMEM;
    struct pfs_node *event_dir = tracefs_dir(c->name, sys);
    if (!event_dir ||
        !tracefs_create_at(event_dir, "format", 0444, NULL, trace_event_show_format, NULL,
                           (void *)c) ||
        !tracefs_create_at(event_dir, "id", 0444, NULL, trace_event_show_id, NULL, (void *)c) ||
        create_trigger_files(tr, event_dir, c))
        return -ENOMEM;
    if (c->flags & TRACE_EVENT_FL_FTRACE)
        return 0;
    return create_files(tr, event_dir, c, c->system);
}

/* set_event_pid and set_event_notrace_pid of the instance, on its slot's lists. */
static int create_pid_files(struct trace_array *tr, struct pfs_node *dir)
{
    static const char *const names[2] = {"set_event_pid", "set_event_notrace_pid"};
    for (int which = 0; which < 2; which++) {
        struct trace_event_pids_file *f = kmalloc(sizeof(*f));
        if (!f)
            return -ENOMEM;
        *f = (struct trace_event_pids_file){&instance_pids[tr->instance_slot][which], tr};
        struct pfs_node *n = pfs_create(dir, names[which], 0644, &trace_event_pids_ops, f);
        if (!n) {
            kfree(f);
            return -ENOMEM;
        }
        pfs_own_data(n);
    }
    return 0;
}

int trace_event_instance_files_create(struct trace_array *tr, struct pfs_node *dir)
{
    int err = create_pid_files(tr, dir);
    if (err)
        return err;
    for (size_t i = 0; i < trace_event_count(); i++) {
        int err = create_event_files(tr, dir, trace_event_at(i));
        if (err)
            return err;
    }
    return 0;
}

void trace_event_instances_add_call(const struct trace_event_call *call)
{
    for (unsigned slot = 0; slot < TRACE_INSTANCES_MAX; slot++) {
        struct trace_array *tr = trace_instances[slot];
        /* A folder that could not be made leaves the event out of that instance. */
        if (tr && create_event_files(tr, tr->dir, call))
            printk("trace instances: no memory for %s:%s in %s\n", call->system, call->name,
                   tr->name);
    }
}

/* tr's folder of an event (name) or of a system (name NULL), or NULL. */
static struct pfs_node *instance_events_node(struct trace_array *tr, const char *system,
                                             const char *name)
{
    char path[192];
    struct pfs_node *n;
    snprintf(path, sizeof(path), name ? "events/%s/%s" : "events/%s", system, name);
    return pfs_lookup_at(tr->dir, path, &n) ? NULL : n;
}

bool trace_event_instances_call_busy(const struct trace_event_call *call)
{
    for (unsigned slot = 0; slot < TRACE_INSTANCES_MAX; slot++) {
        struct trace_array *tr = trace_instances[slot];
        struct pfs_node *dir = tr ? instance_events_node(tr, call->system, call->name) : NULL;
        if (dir && pfs_tree_is_open(dir))
            return true;
    }
    return false;
}

void trace_event_instances_remove_call(const struct trace_event_call *call)
{
    for (unsigned slot = 0; slot < TRACE_INSTANCES_MAX; slot++) {
        struct trace_array *tr = trace_instances[slot];
        if (!tr)
            continue;
        struct pfs_node *dir = instance_events_node(tr, call->system, call->name);
        if (dir && pfs_remove_tree(dir))
            continue;
        /* The system's folder goes with its last event (its enable and filter files are
         * all that is left), as the top level's does; one held open stays until the next
         * removal. The event's own folder may be missing (no memory to make it). */
        struct pfs_node *sys = instance_events_node(tr, call->system, NULL);
        bool events_left = false;
        struct pfs_node *child;
        for (size_t i = 0; sys && (child = pfs_child(sys, i)) != NULL; i++)
            events_left |= pfs_is_dir(child);
        if (sys && !events_left)
            pfs_remove_tree(sys);
    }
}
