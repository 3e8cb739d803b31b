/*
 * The tracefs files of trace events, with Linux 6.1's names, contents and errors:
 * events/ (enable, header_page, header_event, a folder per system with enable and filter,
 * a folder per event with enable, format, id and filter), available_events, set_event,
 * set_event_pid, set_event_notrace_pid, saved_cmdlines, saved_cmdlines_size, saved_tgids.
 *
 * Turning an event on or off writes its enabled byte: no code is patched and no other CPU
 * is stopped.
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <kernel/tracefs.h>
#include <lib/ctype.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_files.h"
#include "event_trigger.h"
#include "trace_internal.h"

/* Serialises every change of enabled bytes, pid lists and filters made from the files. */
static DEFINE_SPINLOCK(event_files_lock);

/* ---- enabling ---- */

static bool any_event_enabled(void)
{
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        if (trace_event_is_enabled(c) || READ_ONCE(c->state->instance_mask))
            return true;
    }
    return false;
}

bool trace_event_is_emitting(const struct trace_event_call *call)
{
    volatile uint8_t *b = call->state->enabled;
    return b && (*b & TRACE_EVENT_ON_EMIT);
}

bool trace_event_is_enabled(const struct trace_event_call *call)
{
    volatile uint8_t *b = call->state->enabled;
    return b && (*b & TRACE_EVENT_ON_RECORD);
}

bool trace_event_is_registered(const struct trace_event_call *call)
{
    volatile uint8_t *b = call->state->enabled;
    return b && (*b & (TRACE_EVENT_ON_RECORD | TRACE_EVENT_ON_TRIGGER));
}

bool trace_event_in_soft_mode(const struct trace_event_call *call)
{
    volatile uint8_t *b = call->state->enabled;
    return b && (*b & TRACE_EVENT_ON_TRIGGER);
}

void trace_event_set_bit(volatile uint8_t *b, uint8_t bit, bool on)
{
    if (on)
        __atomic_fetch_or(b, bit, __ATOMIC_RELEASE);
    else
        __atomic_fetch_and(b, (uint8_t)~bit, __ATOMIC_RELEASE);
}

static DEFINE_SPINLOCK(follow_lock);

/*
 * sched_process_fork and sched_process_free run their emitters for the fork-following
 * options even while the events are off: options/event-fork keeps set_event_pid up to
 * date, options/function-fork the function tracer's pid lists.
 */
void trace_event_update_follow(void)
{
    unsigned long irq = spin_lock_irqsave(&follow_lock);
    bool events = trace_opt(TRACE_OPT_EVENT_FORK) &&
                  READ_ONCE(trace_event_pids[TRACE_EVENT_PIDS_TRACE].count);
    bool functions = trace_opt(TRACE_OPT_FUNCTION_FORK) &&
                     (trace_global.pid_count | trace_global.notrace_pid_count);
    /* The instances' own options and lists (their handlers test each array's option). */
    unsigned reader = sync_read_enter(&trace_instance_writers);
    for (unsigned slot = 0; slot < TRACE_INSTANCES_MAX; slot++) {
        struct trace_array *tr = READ_ONCE(trace_instances[slot]);
        if (!tr)
            continue;
        events = events ||
                 (trace_array_opt(tr, TRACE_OPT_EVENT_FORK) &&
                  READ_ONCE(trace_event_instance_pid_list(slot, TRACE_EVENT_PIDS_TRACE)->count));
        functions = functions || (trace_array_opt(tr, TRACE_OPT_FUNCTION_FORK) &&
                                  (tr->pid_count | tr->notrace_pid_count));
    }
    sync_read_exit(&trace_instance_writers, reader);
    trace_event_set_bit(&trace_event_on_sched_process_fork, TRACE_EVENT_ON_FOLLOW, events);
    trace_event_set_bit(&trace_event_on_sched_process_free, TRACE_EVENT_ON_FOLLOW, events);
    trace_event_set_bit(&trace_event_on_sched_process_fork, TRACE_EVENT_ON_FOLLOW_FUNCTIONS,
                        functions);
    trace_event_set_bit(&trace_event_on_sched_process_free, TRACE_EVENT_ON_FOLLOW_FUNCTIONS,
                        functions);
    spin_unlock_irqrestore(&follow_lock, irq);
}

/* While any event is on, each context switch refreshes saved_cmdlines. */
void trace_event_cmdlines_update(void)
{
    trace_event_set_bit(&trace_event_on_sched_switch, TRACE_EVENT_ON_CMDLINE, any_event_enabled());
}

static void enable_locked(const struct trace_event_call *call, bool on)
{
    if (!call->state->enabled)
        return;
    trace_event_set_bit(call->state->enabled, TRACE_EVENT_ON_RECORD, on);
    trace_event_cmdlines_update();
}

void trace_event_save_cmdlines_for_tracer(bool on)
{
    trace_event_set_bit(&trace_event_on_sched_switch, TRACE_EVENT_ON_CMDLINE_TRACER, on);
    /* The thread starting the tracer may run until tracing stops without a switch. */
    if (on)
        trace_event_save_cmdline(current_thread()->pid, current_thread()->name);
}

/*
 * An event made at run time may have work to do first (a kprobe patches its site): its
 * reg runs outside the lock, before the byte goes on and after it goes off.
 */
int trace_event_enable(const struct trace_event_call *call, bool on)
{
    if (call->flags & TRACE_EVENT_FL_FTRACE)
        return -EINVAL;
    bool was_registered = trace_event_is_emitting(call);
    if (call->reg && on && !was_registered) {
        int err = call->reg(call, true);
        if (err)
            return err;
    }
    unsigned long irq = spin_lock_irqsave(&event_files_lock);
    enable_locked(call, on);
    spin_unlock_irqrestore(&event_files_lock, irq);
    /* In soft mode an event turned off stays registered, soft-disabled (Linux's `0*`). */
    if (call->reg && !on && was_registered && !trace_event_is_emitting(call))
        return call->reg(call, false);
    return 0;
}

int trace_event_soft_mode(const struct trace_event_call *call, bool on)
{
    struct trace_event_state *st = call->state;
    /* trace_marker's writes reach print's triggers whatever its state: nothing to turn on. */
    if (call->flags & TRACE_EVENT_FL_MARKER)
        return 0;
    if (!st->enabled || (call->flags & TRACE_EVENT_FL_FTRACE))
        return -EINVAL;
    if (on) {
        if (st->soft_users++)
            return 0;
        if (call->reg && !trace_event_is_emitting(call)) {
            int err = call->reg(call, true);
            if (err) {
                st->soft_users--;
                return err;
            }
        }
        /* The write path's slow check first: it is what reads the soft-disabled state. */
        trace_event_soft_mode_count(true);
        trace_event_set_bit(st->enabled, TRACE_EVENT_ON_TRIGGER, true);
        return 0;
    }
    if (!st->soft_users || --st->soft_users)
        return 0;
    /*
     * Leaving soft mode, a soft-disabled event goes off and a recording one stays on. A
     * writer that saw the trigger bit just before it went may find the slow check gone too
     * and record that one event: nothing waits for writers between the two tests.
     */
    trace_event_set_bit(st->enabled, TRACE_EVENT_ON_TRIGGER, false);
    trace_event_soft_mode_count(false);
    if (call->reg && !trace_event_is_emitting(call))
        return call->reg(call, false);
    return 0;
}

void trace_event_soft_set(const struct trace_event_call *call, bool record)
{
    volatile uint8_t *b = call->state->enabled;
    if (b && (*b & TRACE_EVENT_ON_TRIGGER))
        trace_event_set_bit(b, TRACE_EVENT_ON_RECORD, record);
}

static bool event_on_in(const struct trace_event_call *c, const struct trace_array *tr)
{
    return tr == &trace_global ? trace_event_is_registered(c)
                               : trace_event_instance_is_enabled(c, tr);
}

static int event_enable_in(const struct trace_event_call *c, struct trace_array *tr, bool on)
{
    return tr == &trace_global ? trace_event_enable(c, on) : trace_event_instance_enable(c, tr, on);
}

char trace_events_enable_state(const char *system, const struct trace_array *tr)
{
    bool some_on = false, some_off = false;
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        if ((c->flags & TRACE_EVENT_FL_FTRACE) || (system && strcmp(c->system, system) != 0))
            continue;
        if (event_on_in(c, tr))
            some_on = true;
        else
            some_off = true;
    }
    return some_on && some_off ? 'X' : some_on ? '1' : '0';
}

int trace_events_enable_system(const char *system, struct trace_array *tr, bool on)
{
    int err = 0;
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        if (!(c->flags & TRACE_EVENT_FL_FTRACE) && (!system || strcmp(c->system, system) == 0)) {
            int e = event_enable_in(c, tr, on);
            err = err ? err : e;
        }
    }
    return err;
}

int trace_event_parse_enable(const char *buf, size_t len, bool *on)
{
    unsigned long v;
    int err = tracefs_parse_ulong(buf, len, &v);
    if (err)
        return err;
    if (v > 1)
        return -EINVAL;
    *on = v;
    return 0;
}

/* As Linux: `0*` soft-disabled, `1*` recording in soft mode. */
static int show_event_enable(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%c%s\n", trace_event_is_enabled(data) ? '1' : '0',
                      trace_event_in_soft_mode(data) ? "*" : "");
}

static ssize_t store_event_enable(void *data, const char *buf, size_t len)
{
    bool on;
    int err = trace_event_parse_enable(buf, len, &on);
    if (!err)
        err = trace_event_enable(data, on);
    return err ? err : (ssize_t)len;
}

static int show_system_enable(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%c\n", trace_events_enable_state(data, &trace_global));
}

static ssize_t store_system_enable(void *data, const char *buf, size_t len)
{
    bool on;
    int err = trace_event_parse_enable(buf, len, &on);
    if (!err)
        err = trace_events_enable_system(data, &trace_global, on);
    return err ? err : (ssize_t)len;
}

int trace_event_show_format(struct seqbuf *s, void *data)
{
    trace_event_print_format(s, data);
    return 0;
}

int trace_event_show_id(struct seqbuf *s, void *data)
{
    const struct trace_event_call *call = data;
    return seq_printf(s, "%u\n", call->state->id);
}

/* ---- filters (the language itself: event_filter.h) ---- */

static int show_event_filter(struct seqbuf *s, void *data)
{
    const struct trace_event_call *call = data;
    struct event_filter *f = call->state->filter;
    if (!f)
        return seq_puts(s, "none\n");
    return seq_printf(s, "%s\n", event_filter_text(f));
}

int trace_event_show_system_filter(struct seqbuf *s, void *data)
{
    return seq_puts(s, "### global filter ###\n"
                       "# Use this to set filters for multiple events.\n"
                       "# Only events with the given fields will be affected.\n"
                       "# If no events are modified, an error message will be displayed here\n");
}

/* ---- header_page, header_event ---- */

static int show_header_page(struct seqbuf *s, void *data)
{
    return seq_printf(s,
                      "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                      "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
                      "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                      "\tfield: char data;\toffset:16;\tsize:%u;\tsigned:1;\n",
                      RB_PAGE_DATA_SIZE);
}

static int show_header_event(struct seqbuf *s, void *data)
{
    return seq_puts(s, "# compressed entry header\n"
                       "\ttype_len    :    5 bits\n"
                       "\ttime_delta  :   27 bits\n"
                       "\tarray       :   32 bits\n"
                       "\n"
                       "\tpadding     : type == 29\n"
                       "\ttime_extend : type == 30\n"
                       "\ttime_stamp : type == 31\n"
                       "\tdata max type_len  == 28\n");
}

static int show_events_enable(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%c\n",
                      trace_events_enable_state(NULL, ((struct trace_file_ref *)data)->tr));
}

static ssize_t store_events_enable(void *data, const char *buf, size_t len)
{
    bool on;
    int err = trace_event_parse_enable(buf, len, &on);
    if (!err)
        err = trace_events_enable_system(NULL, ((struct trace_file_ref *)data)->tr, on);
    return err ? err : (ssize_t)len;
}

TRACEFS_FILE(events_enable, .path = "events/enable", .mode = 0644, .show = show_events_enable,
             .store = store_events_enable, .instance = true);
TRACEFS_FILE(events_header_page, .path = "events/header_page", .mode = 0444,
             .show = show_header_page, .instance = true);
TRACEFS_FILE(events_header_event, .path = "events/header_event", .mode = 0444,
             .show = show_header_event, .instance = true);

/* ---- available_events ---- */

static int show_available_events(struct seqbuf *s, void *data)
{
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        if (!(c->flags & TRACE_EVENT_FL_FTRACE))
            seq_printf(s, "%s:%s\n", c->system, c->name);
    }
    return 0;
}
TRACEFS_FILE(available_events, .path = "available_events", .mode = 0444,
             .show = show_available_events);

/* ---- set_event ---- */

/*
 * One word of set_event, as Linux reads it: "SYSTEM:EVENT" (either side empty or "*"
 * meaning any) or a bare word matching a system or an event by name. Only whole names
 * and "*" match; ftrace's own events cannot be enabled. -EINVAL if nothing matched.
 */
int trace_events_set_word(char *word, struct trace_array *tr, bool on)
{
    const char *match = word, *system = NULL, *event = NULL;
    char *colon = strchr(word, ':');
    if (colon) {
        *colon = '\0';
        match = NULL;
        system = word;
        event = colon + 1;
        if (!*system || strcmp(system, "*") == 0)
            system = NULL;
        if (!*event || strcmp(event, "*") == 0)
            event = NULL;
    }
    int found = 0, err = 0;
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        if (c->flags & TRACE_EVENT_FL_FTRACE)
            continue;
        if (match && strcmp(match, c->name) != 0 && strcmp(match, c->system) != 0)
            continue;
        if (system && strcmp(system, c->system) != 0)
            continue;
        if (event && strcmp(event, c->name) != 0)
            continue;
        int e = event_enable_in(c, tr, on);
        err = err ? err : e;
        found++;
    }
    return err ? err : found ? 0 : -EINVAL;
}

struct event_text_file {
    struct seqbuf text; /* what a read returns, made at open */
};

ssize_t trace_event_text_read(struct pfs_file *f, char *buf, size_t len)
{
    struct event_text_file *t = f->priv;
    if (!t || f->pos >= t->text.len)
        return 0;
    size_t n = MIN(len, t->text.len - f->pos);
    memcpy(buf, t->text.buf + f->pos, n);
    return (ssize_t)n;
}

int trace_event_text_release(struct pfs_file *f)
{
    struct event_text_file *t = f->priv;
    if (t) {
        seqbuf_free(&t->text);
        kfree(t);
    }
    return 0;
}

int trace_event_text_open(struct pfs_file *f, int (*show)(struct seqbuf *s, void *data))
{
    if (!(f->flags & PFS_READ))
        return 0;
    struct event_text_file *t = kzalloc(sizeof(*t));
    if (!t)
        return -ENOMEM;
    show(&t->text, f->data);
    f->priv = t;
    return 0;
}

static int show_set_event(struct seqbuf *s, void *data)
{
    const struct trace_array *tr = ((struct trace_file_ref *)data)->tr;
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        if (event_on_in(c, tr))
            seq_printf(s, "%s:%s\n", c->system, c->name);
    }
    return 0;
}

static int set_event_open(struct pfs_file *f)
{
    /* As Linux: `>` turns every event off when the file opens, whatever is written. */
    if ((f->flags & PFS_WRITE) && (f->flags & PFS_TRUNC))
        trace_events_enable_system(NULL, ((struct trace_file_ref *)f->data)->tr, false);
    return trace_event_text_open(f, show_set_event);
}

static ssize_t set_event_write(struct pfs_file *f, const char *buf, size_t len)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && isspace((unsigned char)buf[i]))
            i++;
        size_t start = i;
        while (i < len && !isspace((unsigned char)buf[i]))
            i++;
        if (i == start)
            break;
        char word[128];
        if (i - start >= sizeof(word))
            return -EINVAL;
        memcpy(word, buf + start, i - start);
        word[i - start] = '\0';
        bool on = word[0] != '!';
        int err =
            trace_events_set_word(on ? word : word + 1, ((struct trace_file_ref *)f->data)->tr, on);
        if (err)
            return err;
    }
    return (ssize_t)len;
}

static const struct pfs_ops set_event_ops = {.open = set_event_open,
                                             .read = trace_event_text_read,
                                             .write = set_event_write,
                                             .release = trace_event_text_release};
TRACEFS_FILE(set_event, .path = "set_event", .mode = 0644, .ops = &set_event_ops, .instance = true);

/* ---- set_event_pid, set_event_notrace_pid ---- */

static DEFINE_SPINLOCK(event_pids_lock);

static bool pids_contains(const struct trace_event_pids *l, int pid)
{
    for (unsigned i = 0; i < l->count; i++)
        if (l->pids[i] == pid)
            return true;
    return false;
}

/* Appends under event_pids_lock; the write path reads count and pids without it. */
static int pids_add_locked(struct trace_event_pids *l, int pid)
{
    if (pids_contains(l, pid))
        return 0;
    unsigned n = l->count; /* read once: a count is only changed under the lock */
    if (n >= TRACE_EVENT_PIDS_MAX)
        return -ENOSPC;
    l->pids[n] = pid;
    __atomic_store_n(&l->count, n + 1, __ATOMIC_RELEASE);
    return 0;
}

static void pids_remove_locked(struct trace_event_pids *l, int pid)
{
    unsigned n = l->count;
    for (unsigned i = 0; i < n && n <= TRACE_EVENT_PIDS_MAX; i++) {
        if (l->pids[i] != pid)
            continue;
        /* The last pid takes its place: a racing reader sees one or the other. */
        l->pids[i] = l->pids[n - 1];
        __atomic_store_n(&l->count, n - 1, __ATOMIC_RELEASE);
        return;
    }
}

void trace_event_pids_empty(struct trace_event_pids *l)
{
    unsigned long irq = spin_lock_irqsave(&event_pids_lock);
    __atomic_store_n(&l->count, 0, __ATOMIC_RELEASE);
    spin_unlock_irqrestore(&event_pids_lock, irq);
}

/*
 * options/event-fork in each array that has it on: a child of a thread in its
 * set_event_pid joins it, a freed thread leaves it. Under event_pids_lock, with the
 * instances held against removal.
 */
static void follow_each(int parent, int child)
{
    if (trace_opt(TRACE_OPT_EVENT_FORK)) {
        struct trace_event_pids *l = &trace_event_pids[TRACE_EVENT_PIDS_TRACE];
        if (parent < 0)
            pids_remove_locked(l, child);
        else if (pids_contains(l, parent))
            pids_add_locked(l, child);
    }
    unsigned reader = sync_read_enter(&trace_instance_writers);
    for (unsigned slot = 0; slot < TRACE_INSTANCES_MAX; slot++) {
        struct trace_array *tr = READ_ONCE(trace_instances[slot]);
        if (!tr || !trace_array_opt(tr, TRACE_OPT_EVENT_FORK))
            continue;
        struct trace_event_pids *l = trace_event_instance_pid_list(slot, TRACE_EVENT_PIDS_TRACE);
        if (parent < 0)
            pids_remove_locked(l, child);
        else if (pids_contains(l, parent))
            pids_add_locked(l, child);
    }
    sync_read_exit(&trace_instance_writers, reader);
}

void trace_event_pids_follow(int parent, int child)
{
    unsigned long irq = spin_lock_irqsave(&event_pids_lock);
    follow_each(parent, child);
    spin_unlock_irqrestore(&event_pids_lock, irq);
    trace_event_pids_changed();
}

void trace_event_pids_forget(int pid)
{
    unsigned long irq = spin_lock_irqsave(&event_pids_lock);
    follow_each(-1, pid);
    spin_unlock_irqrestore(&event_pids_lock, irq);
    /* The list stays non-empty-checked: an emptied list would trace everyone again,
     * which is Linux's rule too (an empty set_event_pid filters nothing). */
    trace_event_pids_changed();
}

/* After a change of the list of f: the write path's checks follow. */
static void pids_changed(const struct trace_event_pids_file *f)
{
    if (f->tr == &trace_global)
        trace_event_pids_changed();
    else
        trace_event_instance_pids_changed(f->tr);
}

static int show_pids(struct seqbuf *s, void *data)
{
    const struct trace_event_pids *l = ((const struct trace_event_pids_file *)data)->list;
    int last = -1;
    for (;;) {
        int next = -1;
        for (unsigned i = 0; i < l->count; i++)
            if (l->pids[i] > last && (next < 0 || l->pids[i] < next))
                next = l->pids[i];
        if (next < 0)
            break;
        seq_printf(s, "%d\n", next);
        last = next;
    }
    return 0;
}

static int pids_open(struct pfs_file *f)
{
    const struct trace_event_pids_file *pf = f->data;
    struct trace_event_pids *l = pf->list;
    if ((f->flags & PFS_WRITE) && (f->flags & PFS_TRUNC)) {
        unsigned long irq = spin_lock_irqsave(&event_pids_lock);
        __atomic_store_n(&l->count, 0, __ATOMIC_RELEASE);
        spin_unlock_irqrestore(&event_pids_lock, irq);
        pids_changed(pf);
    }
    return trace_event_text_open(f, show_pids);
}

/* Whole write or nothing, as Linux builds the new list before it replaces the old. */
static ssize_t pids_write(struct pfs_file *f, const char *buf, size_t len)
{
    int parsed[TRACE_EVENT_PIDS_MAX];
    unsigned n = 0;
    size_t i = 0;
    int pid;
    /* Linux's pid limit (PID_MAX_LIMIT) for event pids: they name threads, not contexts. */
    while ((pid = trace_parse_next_pid(buf, len, &i, 4194304)) >= 0) {
        if (n == ARRAY_SIZE(parsed))
            return -ENOSPC;
        parsed[n++] = pid;
    }
    if (pid != -ENOENT)
        return pid;
    const struct trace_event_pids_file *pf = f->data;
    struct trace_event_pids *l = pf->list;
    unsigned long irq = spin_lock_irqsave(&event_pids_lock);
    unsigned fresh = 0;
    for (unsigned k = 0; k < n; k++)
        fresh += !pids_contains(l, parsed[k]);
    int err = l->count + fresh > TRACE_EVENT_PIDS_MAX ? -ENOSPC : 0;
    for (unsigned k = 0; !err && k < n; k++)
        pids_add_locked(l, parsed[k]);
    spin_unlock_irqrestore(&event_pids_lock, irq);
    pids_changed(pf);
    return err ? err : (ssize_t)len;
}

const struct pfs_ops trace_event_pids_ops = {.open = pids_open,
                                             .read = trace_event_text_read,
                                             .write = pids_write,
                                             .release = trace_event_text_release};
static const struct trace_event_pids_file top_pids_files[2] = {
    {&trace_event_pids[TRACE_EVENT_PIDS_TRACE], &trace_global},
    {&trace_event_pids[TRACE_EVENT_PIDS_NOTRACE], &trace_global},
};
TRACEFS_FILE(set_event_pid, .path = "set_event_pid", .mode = 0644, .ops = &trace_event_pids_ops,
             .data = (void *)&top_pids_files[TRACE_EVENT_PIDS_TRACE]);
TRACEFS_FILE(set_event_notrace_pid, .path = "set_event_notrace_pid", .mode = 0644,
             .ops = &trace_event_pids_ops,
             .data = (void *)&top_pids_files[TRACE_EVENT_PIDS_NOTRACE]);

/* ---- saved_cmdlines, saved_cmdlines_size, saved_tgids ---- */

static int show_saved_cmdlines(struct seqbuf *s, void *data)
{
    trace_cmdlines_show(s, (uintptr_t)data);
    return 0;
}

static int show_cmdlines_size(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%u\n", trace_cmdlines_size());
}

static ssize_t store_cmdlines_size(void *data, const char *buf, size_t len)
{
    unsigned long v;
    int err = tracefs_parse_ulong(buf, len, &v);
    if (!err)
        err = trace_cmdlines_resize(v);
    return err ? err : (ssize_t)len;
}

TRACEFS_FILE(saved_cmdlines, .path = "saved_cmdlines", .mode = 0444, .show = show_saved_cmdlines,
             .data = (void *)0);
TRACEFS_FILE(saved_tgids, .path = "saved_tgids", .mode = 0444, .show = show_saved_cmdlines,
             .data = (void *)1);
TRACEFS_FILE(saved_cmdlines_size, .path = "saved_cmdlines_size", .mode = 0644,
             .show = show_cmdlines_size, .store = store_cmdlines_size);

/* ---- events/SYSTEM/EVENT/ ---- */

/* events/SYSTEM, or events/SYSTEM/NAME with name: each directory found, or made by
 * tracefs_create_dir, so that tracing sees the name of every one an event adds. */
static struct pfs_node *event_dir(const char *system, const char *name)
{
    struct pfs_node *dir = tracefs_dir(system, pfs_mkdir(TRACEFS_ROOT "/events"));
    return name ? tracefs_dir(name, dir) : dir;
}

static void create_system_files(const char *system)
{
    struct pfs_node *dir = event_dir(system, NULL);
    tracefs_create_at(dir, "enable", 0644, NULL, show_system_enable, store_system_enable,
                      (void *)system);
    tracefs_create_at(dir, "filter", 0644, NULL, trace_event_show_system_filter,
                      trace_event_store_system_filter, (void *)system);
}

/* The trigger file: as a text file, but `>` first takes the hist triggers out, as Linux's. */
static int trigger_file_open(struct pfs_file *f)
{
    if ((f->flags & PFS_WRITE) && (f->flags & PFS_TRUNC))
        trace_event_trigger_truncate(f->data);
    return trace_event_text_open(f, trace_event_trigger_show);
}

static ssize_t trigger_file_write(struct pfs_file *f, const char *buf, size_t len)
{
    return trace_event_trigger_store(f->data, buf, len);
}

static const struct pfs_ops trigger_file_ops = {
    .open = trigger_file_open,
    .read = trace_event_text_read,
    .write = trigger_file_write,
    .release = trace_event_text_release,
};

/* The event's own files; the system's are made by the caller. */
static int create_event_files(const struct trace_event_call *c)
{
    void *call = (void *)c;
    struct pfs_node *dir = event_dir(c->system, c->name);
    if (!dir)
        return -ENOMEM;
    int made = 0, want = 2;
    made +=
        tracefs_create_at(dir, "format", 0444, NULL, trace_event_show_format, NULL, call) != NULL;
    made += tracefs_create_at(dir, "id", 0444, NULL, trace_event_show_id, NULL, call) != NULL;
    /* As Linux: every event has a hist file; ftrace's own have no enable or filter, and
     * only print (trace_marker's) has triggers. */
    want++;
    made += tracefs_create_at(dir, "hist", 0444, NULL, trace_event_hist_show, NULL, call) != NULL;
    if (!(c->flags & TRACE_EVENT_FL_FTRACE) || (c->flags & TRACE_EVENT_FL_MARKER)) {
        want++;
        made +=
            tracefs_create_at(dir, "trigger", 0644, &trigger_file_ops, NULL, NULL, call) != NULL;
    }
    if (!(c->flags & TRACE_EVENT_FL_FTRACE)) {
        want += 2;
        made += tracefs_create_at(dir, "enable", 0644, NULL, show_event_enable, store_event_enable,
                                  call) != NULL;
        made += tracefs_create_at(dir, "filter", 0644, NULL, show_event_filter,
                                  trace_event_store_filter, call) != NULL;
    }
    return made == want ? 0 : -ENOMEM;
}

void trace_event_files_init(void)
{
    const char *last_system = NULL;
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        if (!(c->flags & TRACE_EVENT_FL_FTRACE) &&
            (!last_system || strcmp(last_system, c->system) != 0)) {
            /* Sorted by system: the first event of each makes its folder's files. */
            create_system_files(c->system);
            last_system = c->system;
        }
        create_event_files(c);
    }
}

/* How many events other than skip belong to system. */
static size_t system_events(const char *system, const struct trace_event_call *skip)
{
    size_t n = 0;
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        n += c != skip && strcmp(c->system, system) == 0;
    }
    return n;
}

int trace_event_files_create(const struct trace_event_call *call)
{
    /* The system's files point at the name of the event that made them: its first. */
    if (system_events(call->system, call) == 0)
        create_system_files(call->system);
    int err = create_event_files(call);
    if (!err)
        trace_event_instances_add_call(call);
    return err;
}

static struct pfs_node *events_node(const char *system, const char *name)
{
    char path[200];
    struct pfs_node *n;
    if (name)
        snprintf(path, sizeof(path), TRACEFS_ROOT "/events/%s/%s", system, name);
    else
        snprintf(path, sizeof(path), TRACEFS_ROOT "/events/%s", system);
    return pfs_lookup(NULL, path, &n) ? NULL : n;
}

/* Removes every file of dir, then dir: -EBUSY (nothing removed) if one is open. */
static int remove_dir(struct pfs_node *dir)
{
    struct pfs_node *child;
    for (size_t i = 0; (child = pfs_child(dir, i)) != NULL; i++)
        if (pfs_is_open(child))
            return -EBUSY;
    while ((child = pfs_child(dir, 0)) != NULL) {
        int err = pfs_remove(child);
        if (err)
            return err;
    }
    return pfs_remove(dir);
}

int trace_event_files_remove(const struct trace_event_call *call)
{
    /* The event's folder may be missing (its creation ran out of memory) while its
     * system's, made first, is there: that goes all the same with the system's last event. */
    struct pfs_node *dir = events_node(call->system, call->name);
    bool last = system_events(call->system, call) == 0;
    struct pfs_node *sys = last ? events_node(call->system, NULL) : NULL;
    if (!dir && !sys)
        return -ENOENT;
    /* Nothing goes unless all can: an open file of the event in any trace array keeps
     * it, and so does one of its system's when it is the last (the system's enable and
     * filter files name the system by the first event's string). */
    if ((dir && pfs_tree_is_open(dir)) || trace_event_instances_call_busy(call))
        return -EBUSY;
    if (sys) {
        struct pfs_node *child;
        for (size_t i = 0; (child = pfs_child(sys, i)) != NULL; i++)
            if (!pfs_is_dir(child) && pfs_is_open(child))
                return -EBUSY;
    }
    trace_event_instances_remove_call(call);
    int err = dir ? remove_dir(dir) : 0;
    if (err || !sys)
        return err;
    return remove_dir(sys);
}
