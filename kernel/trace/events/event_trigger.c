/*
 * Event triggers, as Linux 6.1's: events/SYS/EVENT/trigger takes
 *
 *   [!]traceon|traceoff|snapshot|stacktrace[:N] [if FILTER]
 *   [!]enable_event|disable_event:SYS:EVENT[:N] [if FILTER]
 *
 * and each time the event fires the trigger runs (N times, or without end): turns tracing
 * on or off, takes a snapshot, records a kernel stack, or switches another event's
 * recording; and Linux's hist commands:
 *
 *   [!]hist:keys=...[:...] [if FILTER]          (kernel/trace/hist/hist_trigger.c)
 *   [!]enable_hist|disable_hist:SYS:EVENT[:N] [if FILTER]
 *
 * a histogram of the event's records, and the switch that pauses or continues another
 * event's histograms.
 *
 * An event with triggers is in soft mode: its tracepoint calls the emitter even when the
 * event itself records nothing (`enable` reads `0*`), and the write path's slow check
 * (trace_event_reserve_slow) runs the triggers. Triggers that need no record run there,
 * before it is made; as soon as one trigger has a filter or must run after the record
 * (traceoff, stacktrace), they all run on the record at commit, which for an event that
 * does not record is built in a per-CPU scratch slot instead of the ring buffer.
 *
 * Linux's choices kept here: a second trigger of the same type (traceon and traceoff are
 * one type; enable_event and disable_event one per target event; a hist trigger of the
 * same keys, values, sort and filter) is EEXIST; removing one that is not there succeeds; a
 * `>` write removes only hist, enable_hist and disable_hist triggers; a refused filter is EINVAL
 * with no error_log entry; triggers are listed newest first, but hist triggers oldest first after
 * them.
 *
 * The list of an event's triggers is read without a lock by every CPU that writes the
 * event; edits are serialised by trigger_lock and a removed trigger is freed once those
 * readers have left (trigger_readers).
 *
 * A trace instance has triggers of its own on each event (instances/NAME/events/.../trigger):
 * a list in the event's state there, run by the instance's copy of the record on the write
 * path (event_instances.c); they act on the instance (its tracing_on, snapshot, buffer
 * and event enables).
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/spinlock.h>
#include <lib/ctype.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_files.h"
#include "event_filter.h"
#include "event_trigger.h"
#include "hist/hist_trigger.h"
#include "trace_hot.h"
#include "trace_internal.h"

/* Linux's trigger types: at most one trigger of a type per event (per target event for
 * enable_event/disable_event). */
enum {
    TRIGGER_TYPE_TRACE_ONOFF = 1 << 0,
    TRIGGER_TYPE_SNAPSHOT = 1 << 1,
    TRIGGER_TYPE_STACKTRACE = 1 << 2,
    TRIGGER_TYPE_EVENT_ENABLE = 1 << 3,
    TRIGGER_TYPE_HIST = 1 << 4,
    TRIGGER_TYPE_HIST_ENABLE = 1 << 5,
    TRIGGER_TYPE_EPROBE = 1 << 6, /* an event probe's: never listed, one per probe */
};

struct event_trigger;

struct event_trigger_command {
    const char *name;
    unsigned type;
    bool post;          /* runs after the record is committed (Linux's POST_TRIGGER) */
    bool targets_event; /* SYS:EVENT comes first (enable_event, disable_event) */
    bool needs_record;  /* runs on the record (Linux's EVENT_CMD_FL_NEEDS_REC): hist */
    void (*fire)(struct event_trigger *t, uintptr_t frame);
    /* On the record, before the commit; true asks for fire after the commit too. */
    bool (*fire_record)(struct event_trigger *t, const void *record, size_t size, uint64_t ts);
};

struct event_trigger {
    struct event_trigger *volatile next;
    struct trace_array *tr; /* whose trigger: what it acts on */
    const struct event_trigger_command *cmd;
    volatile long count; /* -1: unlimited */
    struct event_filter *filter;
    char *filter_text; /* after "if ", as written */
    const struct trace_event_call *target;
    struct hist_trigger *hist;       /* the hist command's */
    bool needs_time;                 /* fire_record reads the record's time (ts) */
    trace_event_probe_fn probe_fire; /* an event probe's */
    void *probe_data;
};

static struct sync_readers trigger_readers = SYNC_READERS_INIT;
/* Serialises edits of every event's list; never taken where events fire. */
static DEFINE_SPINLOCK(trigger_lock);

/* ---- what the triggers do ---- */

/* One firing spends one count; -1 is never spent, 0 fires no more. */
static bool trigger_take_count(struct event_trigger *t)
{
    long old = READ_ONCE(t->count);
    do {
        if (old == 0)
            return false;
        if (old < 0)
            return true;
    } while (!__atomic_compare_exchange_n(&t->count, &old, old - 1, false, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    return true;
}

/* As Linux: a count is spent only when tracing really changes. Switching takes a lock an
 * NMI may have interrupted. */
static void trigger_tracing_set(struct event_trigger *t, bool on)
{
    if (this_cpu()->nmi_depth || rb_record_is_on(t->tr->buffer) == on || !trigger_take_count(t))
        return;
    trace_array_set_on(t->tr, on);
}

static void fire_traceon(struct event_trigger *t, uintptr_t frame) { trigger_tracing_set(t, true); }
static void fire_traceoff(struct event_trigger *t, uintptr_t frame)
{
    trigger_tracing_set(t, false);
}

static void fire_snapshot(struct event_trigger *t, uintptr_t frame)
{
    if (trigger_take_count(t))
        tracing_snapshot(t->tr);
}

/* From the committing function's frame up: the emitter first, then the code with the
 * tracepoint, as Linux's starts with trace_event_raw_event_NAME. */
static void fire_stacktrace(struct event_trigger *t, uintptr_t frame)
{
    if (!frame || this_cpu()->nmi_depth || !trigger_take_count(t))
        return;
    trace_array_stack_from_frame(t->tr, frame, 0, 0);
}

/* As Linux: a counted switch is spent only when the target changes state. */
static void fire_event_enable(struct event_trigger *t, bool enable)
{
    bool top = t->tr == &trace_global;
    bool on =
        top ? trace_event_is_enabled(t->target) : trace_event_instance_is_enabled(t->target, t->tr);
    if (t->count >= 0 && on == enable)
        return;
    if (!trigger_take_count(t))
        return;
    if (top)
        trace_event_soft_set(t->target, enable);
    else
        trace_event_instance_soft_set(t->target, t->tr, enable);
}

/* The head of call's trigger list in tr; NULL for an instance that has none yet (made
 * when make is true, NULL then only when memory is short). */
static struct event_trigger *volatile *trigger_head(const struct trace_event_call *call,
                                                    const struct trace_array *tr, bool make)
{
    if (tr == &trace_global)
        return &call->state->triggers;
    struct trace_event_instance_state *ist = trace_event_instance_state(call, tr, make);
    return ist ? &ist->triggers : NULL;
}

static void fire_enable_event(struct event_trigger *t, uintptr_t frame)
{
    fire_event_enable(t, true);
}
static void fire_disable_event(struct event_trigger *t, uintptr_t frame)
{
    fire_event_enable(t, false);
}

/* As Linux's hist_enable_count_trigger: a count is spent at each firing, and every hist
 * trigger of the target is paused or continued. Runs inside the readers' section. */
static void fire_hist_enable(struct event_trigger *t, bool enable)
{
    struct event_trigger *volatile *head = trigger_head(t->target, t->tr, false);
    if (!head || !trigger_take_count(t))
        return;
    for (struct event_trigger *o = __atomic_load_n(head, __ATOMIC_ACQUIRE); o;
         o = __atomic_load_n(&o->next, __ATOMIC_ACQUIRE))
        if (o->hist)
            hist_trigger_set_paused(o->hist, !enable);
}

static void fire_enable_hist(struct event_trigger *t, uintptr_t frame)
{
    fire_hist_enable(t, true);
}
static void fire_disable_hist(struct event_trigger *t, uintptr_t frame)
{
    fire_hist_enable(t, false);
}

__trace_hot_trigger static bool fire_hist(struct event_trigger *t, const void *record, size_t size,
                                          uint64_t ts)
{
    return hist_trigger_fire(t->hist, record, size, ts);
}

/* After the commit: what the record's firing left to do (a snapshot of a new maximum). */
static void fire_hist_post(struct event_trigger *t, uintptr_t frame) { hist_trigger_post(t->hist); }

static bool fire_eprobe(struct event_trigger *t, const void *record, size_t size, uint64_t ts)
{
    t->probe_fire(t->probe_data, record, size);
    return false;
}

static void fire_nothing(struct event_trigger *t, uintptr_t frame) {}

/* Not a command a trigger file takes: event probes attach with it (Linux's eprobe trigger). */
static const struct event_trigger_command eprobe_command = {
    "eprobe", TRIGGER_TYPE_EPROBE, false, false, true, fire_nothing, fire_eprobe};

/* Linux's registration order, which "# Available triggers:" lists. */
static const struct event_trigger_command trigger_commands[] = {
    {"traceon", TRIGGER_TYPE_TRACE_ONOFF, false, false, false, fire_traceon, NULL},
    {"traceoff", TRIGGER_TYPE_TRACE_ONOFF, true, false, false, fire_traceoff, NULL},
    {"snapshot", TRIGGER_TYPE_SNAPSHOT, false, false, false, fire_snapshot, NULL},
    {"stacktrace", TRIGGER_TYPE_STACKTRACE, true, false, false, fire_stacktrace, NULL},
    {"enable_event", TRIGGER_TYPE_EVENT_ENABLE, false, true, false, fire_enable_event, NULL},
    {"disable_event", TRIGGER_TYPE_EVENT_ENABLE, false, true, false, fire_disable_event, NULL},
    {"enable_hist", TRIGGER_TYPE_HIST_ENABLE, false, true, false, fire_enable_hist, NULL},
    {"disable_hist", TRIGGER_TYPE_HIST_ENABLE, false, true, false, fire_disable_hist, NULL},
    {"hist", TRIGGER_TYPE_HIST, false, false, true, fire_hist_post, fire_hist},
};

/* ---- the write path ---- */

void event_triggers_call_uncond(const struct trace_event_call *call)
{
    unsigned reader = sync_read_enter(&trigger_readers);
    for (struct event_trigger *t = __atomic_load_n(&call->state->triggers, __ATOMIC_ACQUIRE); t;
         t = __atomic_load_n(&t->next, __ATOMIC_ACQUIRE))
        t->cmd->fire(t, 0);
    sync_read_exit(&trigger_readers, reader);
}

__trace_hot_trigger unsigned event_triggers_call(const struct trace_event_call *call,
                                                 const void *record, size_t size, uint64_t ts)
{
    return event_triggers_run(&call->state->triggers, record, size, ts);
}

__trace_hot_trigger unsigned event_triggers_run(struct event_trigger *volatile *head,
                                                const void *record, size_t size, uint64_t ts)
{
    unsigned post = 0;
    unsigned reader = sync_read_enter(&trigger_readers);
    for (struct event_trigger *t = __atomic_load_n(head, __ATOMIC_ACQUIRE); t;
         t = __atomic_load_n(&t->next, __ATOMIC_ACQUIRE)) {
        if (t->filter && !event_filter_match(t->filter, record, size))
            continue;
        if (t->cmd->post)
            post |= t->cmd->type;
        else if (t->cmd->needs_record) {
            if (unlikely(ts == EVENT_TRIGGER_TS_NOW) && t->needs_time)
                ts = trace_array_clock_reader(t->tr)();
            if (t->cmd->fire_record(t, record, size, ts))
                post |= t->cmd->type;
        } else
            t->cmd->fire(t, 0);
    }
    sync_read_exit(&trigger_readers, reader);
    return post;
}

void event_triggers_post_call(const struct trace_event_call *call, unsigned types, uintptr_t frame)
{
    event_triggers_post_run(&call->state->triggers, types, frame);
}

void event_triggers_post_run(struct event_trigger *volatile *head, unsigned types, uintptr_t frame)
{
    unsigned reader = sync_read_enter(&trigger_readers);
    for (struct event_trigger *t = __atomic_load_n(head, __ATOMIC_ACQUIRE); t;
         t = __atomic_load_n(&t->next, __ATOMIC_ACQUIRE))
        if ((t->cmd->post || t->cmd->needs_record) && (t->cmd->type & types))
            t->cmd->fire(t, frame);
    sync_read_exit(&trigger_readers, reader);
}

/* ---- adding and removing ---- */

static void trigger_free(struct event_trigger *t)
{
    if (!t)
        return;
    if (t->filter)
        event_filter_free(t->filter);
    kfree(t->filter_text);
    hist_trigger_free(t->hist);
    kfree(t);
}

/* Whose list an edit is about: an event in the top level or in an instance, and the list. */
struct trigger_owner {
    const struct trace_event_call *call;
    struct trace_array *tr;
    struct event_trigger *volatile *head;
};

static void owner_init(struct trigger_owner *o, const struct trace_event_call *call,
                       struct trace_array *tr, bool make)
{
    o->call = call;
    o->tr = tr;
    o->head = trigger_head(call, tr, make);
}

static int owner_soft_mode(const struct trace_event_call *call, struct trace_array *tr, bool on)
{
    return tr == &trace_global ? trace_event_soft_mode(call, on)
                               : trace_event_instance_soft_mode(call, tr, on);
}

/*
 * The event's trigger mode after an edit. A commit must go out of line while any record
 * may be in a scratch slot, so the commit flag is set before the mode that makes such
 * records and cleared only after waiting for their writers. Called with trigger_lock held.
 * An instance's triggers run on every copy the write path makes for it: no mode to keep.
 */
static void trigger_flags_update(const struct trigger_owner *o)
{
    if (o->tr != &trace_global)
        return;
    struct trace_event_state *st = o->call->state;
    bool any = st->triggers != NULL, cond = false;
    for (struct event_trigger *t = st->triggers; t; t = t->next)
        cond |= t->filter || t->cmd->post || t->cmd->needs_record;
    uint8_t mode = !any ? 0 : cond ? TRACE_EVENT_TRIGGERS_COND : TRACE_EVENT_TRIGGERS_UNCOND;
    if (cond)
        __atomic_fetch_or(&st->commit_flags, TRACE_EVENT_COMMIT_TRIGGERS, __ATOMIC_SEQ_CST);
    __atomic_store_n(&st->trigger_flags, mode, __ATOMIC_SEQ_CST);
    if (!cond && (st->commit_flags & TRACE_EVENT_COMMIT_TRIGGERS)) {
        synchronize_readers(&trace_event_scratch_writers);
        __atomic_fetch_and(&st->commit_flags, (uint8_t)~TRACE_EVENT_COMMIT_TRIGGERS,
                           __ATOMIC_SEQ_CST);
    }
}

/* Linux's hist_trigger_match: the same histogram and the same filter. */
static bool trigger_same(const struct event_trigger *a, const struct event_trigger *b)
{
    if (a->cmd->type != b->cmd->type || a->target != b->target || a->probe_data != b->probe_data)
        return false;
    if (!a->hist)
        return true;
    if (!a->filter_text != !b->filter_text ||
        (a->filter_text && strcmp(a->filter_text, b->filter_text) != 0))
        return false;
    return hist_trigger_match(a->hist, b->hist);
}

/* The event enters soft mode with its first trigger, an enable_event's target with it. */
static int trigger_register(const struct trigger_owner *o, struct event_trigger *t)
{
    int err = 0;
    if (!o->head)
        return -ENOMEM;
    t->tr = o->tr;
    if (t->target) {
        err = owner_soft_mode(t->target, o->tr, true);
        if (err)
            return err;
    }
    spin_lock(&trigger_lock);
    for (struct event_trigger *x = *o->head; x; x = x->next) {
        if (trigger_same(x, t)) {
            spin_unlock(&trigger_lock);
            err = -EEXIST;
            goto undo;
        }
    }
    bool first = *o->head == NULL;
    if (t->hist) {
        /* As Linux: hist triggers go at the end, after the others. */
        struct event_trigger *volatile *link = o->head;
        while (*link)
            link = &(*link)->next;
        t->next = NULL;
        __atomic_store_n(link, t, __ATOMIC_RELEASE);
    } else {
        t->next = *o->head;
        __atomic_store_n(o->head, t, __ATOMIC_RELEASE);
    }
    trigger_flags_update(o);
    spin_unlock(&trigger_lock);
    if (first) {
        err = owner_soft_mode(o->call, o->tr, true);
        if (err) {
            spin_lock(&trigger_lock);
            __atomic_store_n(o->head, NULL, __ATOMIC_RELEASE);
            trigger_flags_update(o);
            spin_unlock(&trigger_lock);
            synchronize_readers(&trigger_readers);
            goto undo;
        }
    }
    return 0;
undo:
    if (t->target)
        owner_soft_mode(t->target, o->tr, false);
    return err;
}

/* Takes out the trigger like t (type and target): true if there was one. */
static bool trigger_unregister(const struct trigger_owner *o, const struct event_trigger *t)
{
    struct event_trigger *found = NULL;
    if (!o->head)
        return false;
    spin_lock(&trigger_lock);
    for (struct event_trigger *volatile *link = o->head; *link; link = &(*link)->next) {
        if (trigger_same(*link, t)) {
            found = *link;
            /* Readers on found still reach the rest through its next. */
            __atomic_store_n(link, found->next, __ATOMIC_RELEASE);
            break;
        }
    }
    if (found)
        trigger_flags_update(o);
    bool last = *o->head == NULL;
    spin_unlock(&trigger_lock);
    if (!found)
        return false;
    if (last)
        owner_soft_mode(o->call, o->tr, false);
    synchronize_readers(&trigger_readers);
    if (found->target)
        owner_soft_mode(found->target, o->tr, false);
    trigger_free(found);
    return true;
}

bool trace_event_has_triggers(const struct trace_event_call *call)
{
    /* An instance's triggers keep their event, and their targets, in soft mode there. */
    return call->state->triggers || call->state->soft_users || call->state->probe_users ||
           READ_ONCE(call->state->instance_soft_mask);
}

void trace_event_probe_hold(const struct trace_event_call *call, bool on)
{
    if (on)
        call->state->probe_users++;
    else if (call->state->probe_users)
        call->state->probe_users--;
}

/* Event probes hang on the top level's event: they make an event of their own. */
int trace_event_probe_attach(const struct trace_event_call *call, trace_event_probe_fn fire,
                             void *data, struct event_filter *filter)
{
    struct event_trigger *t = kzalloc(sizeof(*t));
    if (!t) {
        if (filter)
            event_filter_free(filter);
        return -ENOMEM;
    }
    t->cmd = &eprobe_command;
    t->count = -1;
    t->filter = filter;
    t->probe_fire = fire;
    t->probe_data = data;
    struct trigger_owner owner;
    owner_init(&owner, call, &trace_global, true);
    int err = trigger_register(&owner, t);
    if (err)
        trigger_free(t);
    return err;
}

void trace_event_probe_detach(const struct trace_event_call *call, void *data)
{
    struct event_trigger t = {.cmd = &eprobe_command, .probe_data = data};
    struct trigger_owner owner;
    owner_init(&owner, call, &trace_global, false);
    trigger_unregister(&owner, &t);
}

/* ---- parsing: Linux's trigger_process_regex and event_trigger_parse ---- */

static char *skip_blanks(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

/* "[if FILTER]": Linux's set_trigger_filter, with the trigger's event's fields. */
static int trigger_set_filter(const struct trace_event_call *call, struct event_trigger *t,
                              char *text)
{
    char *word = strsep(&text, " \t");
    if (!*word || strcmp(word, "if") != 0 || !text)
        return -EINVAL;
    struct event_filter_error fe = {0};
    int err = event_filter_create(text, call->fields, call->nfields, &t->filter, &fe);
    if (err)
        return err;
    t->filter_text = kstrdup(text);
    return t->filter_text ? 0 : -ENOMEM;
}

/* ":N" (base 0, as kstrtoul); the text after another ':' is ignored, as Linux does. */
static int trigger_parse_count(char *param, struct event_trigger *t)
{
    if (!param)
        return 0;
    char *number = strsep(&param, ":");
    unsigned long v;
    if (!*number || kstrtoul(number, 0, &v))
        return -EINVAL;
    t->count = (long)v;
    return 0;
}

/* The hist trigger like t, or NULL. Under trigger_lock. */
static struct event_trigger *hist_find(const struct trigger_owner *owner,
                                       const struct event_trigger *t)
{
    for (struct event_trigger *o = owner->head ? *owner->head : NULL; o; o = o->next)
        if (trigger_same(o, t))
            return o;
    return NULL;
}

/*
 * hist:SPEC [if FILTER], as Linux's event_hist_trigger_parse: the filter starts at an "if"
 * with a blank on each side; pause, continue and clear act on the histogram like this one,
 * if there is one.
 */
static int trigger_parse_hist(const struct trigger_owner *owner,
                              const struct event_trigger_command *cmd, bool remove, char *rest)
{
    const struct trace_event_call *call = owner->call;
    if (!rest)
        return -EINVAL;
    size_t len = strlen(rest);
    char *command = kmalloc(len + 6);
    struct event_trigger *t = kzalloc(sizeof(*t));
    int err = 0;
    if (!command || !t) {
        err = -ENOMEM;
        goto out;
    }
    snprintf(command, len + 6, "hist:%s", rest);
    t->cmd = cmd;
    t->count = -1;
    char *filter = NULL;
    for (char *p = rest; (p = strstr(p, "if")) != NULL; p++) {
        if (p == rest || p >= rest + len - 3) {
            if (p == rest || isspace((unsigned char)p[-1])) {
                err = -EINVAL;
                goto out;
            }
            continue;
        }
        if (!isspace((unsigned char)p[-1]) || !isspace((unsigned char)p[2]))
            continue;
        p[-1] = '\0';
        filter = p;
        break;
    }
    size_t end = strlen(rest);
    while (end && isspace((unsigned char)rest[end - 1]))
        rest[--end] = '\0';
    err = hist_trigger_create(call, owner->tr, skip_blanks(rest), command, &t->hist);
    if (!err)
        t->needs_time = hist_trigger_uses_time(t->hist);
    if (!err && filter)
        err = trigger_set_filter(call, t, filter);
    if (err)
        goto out;
    if (remove) {
        /* As Linux: not while another trigger's $references read its variables. */
        spin_lock(&trigger_lock);
        struct event_trigger *o = hist_find(owner, t);
        bool busy = o && hist_trigger_busy(o->hist);
        spin_unlock(&trigger_lock);
        if (busy)
            err = -EBUSY;
        else
            trigger_unregister(owner, t);
        goto out;
    }
    unsigned attrs = hist_trigger_attrs(t->hist);
    if (attrs) {
        spin_lock(&trigger_lock);
        struct event_trigger *o = hist_find(owner, t);
        spin_unlock(&trigger_lock);
        /* Edits are one at a time (the control lock): o stays while we use it. */
        if (o && (attrs & HIST_ATTR_CLEAR)) {
            /* Emptied with no event inside it: paused, and the writers waited for. */
            bool paused = hist_trigger_paused(o->hist);
            hist_trigger_set_paused(o->hist, true);
            synchronize_readers(&trigger_readers);
            hist_trigger_clear(o->hist);
            hist_trigger_set_paused(o->hist, paused);
        } else if (o) {
            hist_trigger_set_paused(o->hist, (attrs & HIST_ATTR_PAUSE) != 0);
        }
        if (o)
            goto out;
        /* Linux 6.1 logs nothing for this, nor for EEXIST below. */
        if (attrs & (HIST_ATTR_CONT | HIST_ATTR_CLEAR)) {
            err = -ENOENT;
            goto out;
        }
    }
    spin_lock(&trigger_lock);
    bool exists = hist_find(owner, t) != NULL;
    spin_unlock(&trigger_lock);
    if (exists) {
        err = -EEXIST;
        goto out;
    }
    err = hist_trigger_activate(t->hist, command);
    if (!err)
        err = trigger_register(owner, t);
    if (!err) {
        kfree(command);
        return 0;
    }
out:
    kfree(command);
    trigger_free(t);
    return err;
}

/* `>` on a trigger file: Linux's unreg_all takes out the hist, enable_hist and disable_hist
 * triggers, and only them. */
void trace_event_trigger_truncate_in(const struct trace_event_call *call, struct trace_array *tr)
{
    struct trigger_owner owner;
    owner_init(&owner, call, tr, false);
    if (!owner.head)
        return;
    /* As Linux: nothing goes while a hist trigger's variables are referenced. */
    spin_lock(&trigger_lock);
    bool busy = false;
    for (struct event_trigger *o = *owner.head; o; o = o->next)
        busy |= o->hist && hist_trigger_busy(o->hist);
    spin_unlock(&trigger_lock);
    if (busy)
        return;
    for (;;) {
        spin_lock(&trigger_lock);
        struct event_trigger *h = *owner.head;
        while (h && !(h->cmd->type & (TRIGGER_TYPE_HIST | TRIGGER_TYPE_HIST_ENABLE)))
            h = h->next;
        spin_unlock(&trigger_lock);
        if (!h || !trigger_unregister(&owner, h))
            return;
    }
}

void trace_event_trigger_truncate(const struct trace_event_call *call)
{
    trace_event_trigger_truncate_in(call, &trace_global);
}

int trace_event_hist_show_in(struct seqbuf *s, const struct trace_event_call *call,
                             const struct trace_array *tr)
{
    struct event_trigger *volatile *head = trigger_head(call, tr, false);
    unsigned n = 0;
    /* Under the control lock, which every edit holds: the list stays as it is. */
    for (struct event_trigger *t = head ? *head : NULL; t; t = t->next)
        if (t->hist)
            hist_trigger_show(s, t->hist, t->filter_text, n++);
    return 0;
}

/* The events/SYS/EVENT/hist file (data: its call): each hist trigger's table, oldest first. */
int trace_event_hist_show(struct seqbuf *s, void *data)
{
    return trace_event_hist_show_in(s, data, &trace_global);
}

bool trace_event_instance_triggers_clear(struct trace_array *tr)
{
    /* As Linux's rmdir: every trigger goes; one whose variables another reads goes in a
     * later pass, after that one. */
    for (unsigned pass = 0; pass < 8; pass++) {
        bool left = false;
        for (size_t i = 0; i < trace_event_count(); i++) {
            struct trigger_owner owner;
            owner_init(&owner, trace_event_at(i), tr, false);
            for (bool removed = true; owner.head && removed;) {
                spin_lock(&trigger_lock);
                struct event_trigger *t = *owner.head;
                while (t && t->hist && hist_trigger_busy(t->hist))
                    t = t->next;
                spin_unlock(&trigger_lock);
                removed = t && trigger_unregister(&owner, t);
            }
            left |= owner.head && *owner.head;
        }
        if (!left)
            return true;
    }
    return false;
}

/*
 * What follows the command: for a command without a target, a count if it starts with a
 * digit (then a blank and the filter), else the filter alone; for enable_event and
 * disable_event, SYS:EVENT[:N] up to the first blank, then the filter.
 */
static int trigger_parse(const struct trigger_owner *owner, const struct event_trigger_command *cmd,
                         bool remove, char *rest)
{
    const struct trace_event_call *call = owner->call;
    char *param = NULL, *filter = NULL;
    if (cmd->needs_record)
        return trigger_parse_hist(owner, cmd, remove, rest);
    if (cmd->targets_event && !rest)
        return -EINVAL;
    if (rest) {
        if (!cmd->targets_event && !isdigit((unsigned char)rest[0])) {
            filter = rest;
        } else {
            param = strsep(&rest, " \t");
            if (rest) {
                filter = skip_blanks(rest);
                if (!*filter)
                    filter = NULL;
            }
        }
    }
    struct event_trigger *t = kzalloc(sizeof(*t));
    if (!t)
        return -ENOMEM;
    t->cmd = cmd;
    t->count = -1;
    int err = 0;
    if (cmd->targets_event) {
        char *system = strsep(&param, ":");
        if (!param) {
            err = -EINVAL;
            goto out;
        }
        char *event = strsep(&param, ":");
        t->target = trace_event_find(system, event);
        if (!t->target || (t->target->flags & TRACE_EVENT_FL_FTRACE)) {
            err = -EINVAL;
            goto out;
        }
    }
    if (remove) {
        trigger_unregister(owner, t);
        goto out;
    }
    err = trigger_parse_count(param, t);
    if (!err && filter)
        err = trigger_set_filter(call, t, filter);
    /* As Linux: the snapshot trigger has its spare buffer from the start. */
    if (!err && (cmd->type & TRIGGER_TYPE_SNAPSHOT))
        err = tracing_alloc_snapshot(owner->tr);
    if (!err)
        err = trigger_register(owner, t);
    if (!err)
        return 0;
out:
    trigger_free(t);
    return err;
}

ssize_t trace_event_trigger_store(void *data, const char *buf, size_t len)
{
    return trace_event_trigger_store_in(data, &trace_global, buf, len);
}

ssize_t trace_event_trigger_store_in(const struct trace_event_call *call, struct trace_array *tr,
                                     const char *buf, size_t len)
{
    if (len >= 4096)
        return -EINVAL;
    char *copy = kmalloc(len + 1);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, buf, len);
    copy[len] = '\0';
    size_t end = strlen(copy);
    while (end && isspace((unsigned char)copy[end - 1]))
        copy[--end] = '\0';
    char *next = skip_blanks(copy);
    char *command = strsep(&next, ": \t");
    if (next) {
        next = skip_blanks(next);
        if (!*next)
            next = NULL;
    }
    bool remove = command[0] == '!';
    if (remove)
        command++;
    int err = -EINVAL;
    struct trigger_owner owner;
    owner_init(&owner, call, tr, !remove);
    struct trace_array *log = trace_error_log_use(tr);
    for (size_t i = 0; i < ARRAY_SIZE(trigger_commands); i++) {
        if (strcmp(trigger_commands[i].name, command) == 0) {
            err = trigger_parse(&owner, &trigger_commands[i], remove, next);
            break;
        }
    }
    trace_error_log_use(log);
    kfree(copy);
    return err ? err : (ssize_t)len;
}

int trace_event_trigger_show(struct seqbuf *s, void *data)
{
    return trace_event_trigger_show_in(s, data, &trace_global);
}

int trace_event_trigger_show_in(struct seqbuf *s, const struct trace_event_call *call,
                                const struct trace_array *tr)
{
    struct event_trigger *volatile *head = trigger_head(call, tr, false);
    spin_lock(&trigger_lock);
    struct event_trigger *t = head ? *head : NULL;
    bool listed = false;
    for (struct event_trigger *o = t; o; o = o->next)
        listed |= o->cmd != &eprobe_command;
    /* As Linux: an event probe's trigger is not shown, and alone it leaves the list empty. */
    if (!listed) {
        seq_puts(s, "# Available triggers:\n#");
        for (size_t i = 0; i < ARRAY_SIZE(trigger_commands); i++)
            seq_printf(s, " %s", trigger_commands[i].name);
        seq_putc(s, '\n');
    }
    for (; t; t = t->next) {
        if (t->cmd == &eprobe_command)
            continue;
        if (t->hist) {
            hist_trigger_print_spec(s, t->hist, t->filter_text);
            continue;
        }
        seq_puts(s, t->cmd->name);
        if (t->target)
            seq_printf(s, ":%s:%s", t->target->system, t->target->name);
        long count = READ_ONCE(t->count);
        if (count == -1)
            seq_puts(s, ":unlimited");
        else
            seq_printf(s, ":count=%ld", count);
        if (t->filter_text)
            seq_printf(s, " if %s", t->filter_text);
        seq_putc(s, '\n');
    }
    spin_unlock(&trigger_lock);
    return 0;
}

/* ---- options/stacktrace ---- */

void trace_event_stacktrace_option(bool on)
{
    for (size_t i = 0; i < trace_event_count(); i++) {
        struct trace_event_state *st = trace_event_at(i)->state;
        if (on)
            __atomic_fetch_or(&st->commit_flags, TRACE_EVENT_COMMIT_STACK, __ATOMIC_SEQ_CST);
        else
            __atomic_fetch_and(&st->commit_flags, (uint8_t)~TRACE_EVENT_COMMIT_STACK,
                               __ATOMIC_SEQ_CST);
    }
}
