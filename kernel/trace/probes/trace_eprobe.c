/*
 * Event probes, as Linux 6.1's: `e[:[GRP/][EVENT]] SYS.EVENT [ARGS] [if FILTER]` in
 * dynamic_events makes an event (group "eprobes", named as the attached event by default)
 * that fires with another event, recording what its arguments fetch from that event's
 * record: `$FIELD`, dereferences `+OFFS($FIELD)`, and what a kprobe's arguments may fetch
 * without registers (@SYM, @ADDR, \IMM, \"STRING", $comm).
 *
 * While the event probe is enabled it hangs on the attached event as a trigger the trigger
 * file does not show (trace_event_probe_attach), so the attached event runs in soft mode:
 * its writer builds its record even when it records nothing, and the probe reads the
 * fields from it. Its own record is written inside that writer, before the attached
 * event's record is committed; the ring buffer nests writers on a CPU as interrupts do.
 * The filter, if any, is the attached event's and decides whether the probe fires.
 *
 * Only regular and synthetic events can be attached to (not ftrace's own, not probes), as on
 * Linux. An event probe holds its attached event from its making to its removal, so a
 * synthetic event cannot go while one is made on it.
 *
 * Changes run under the pseudo file system's control lock (every tracefs write holds it),
 * so the list needs no lock of its own; the writers read only the event itself.
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/pseudofs.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "trace_eprobe.h"
#include "trace_internal.h"
#include "trace_probe.h"

#define EPROBE_LOG "event_probe"

struct eprobe_event {
    struct eprobe_event *next; /* creation order */
    struct probe_event pe;
    const struct trace_event_call *target;
    char target_system[PROBE_MAX_EVENT_NAME + 1];
    char target_name[PROBE_MAX_EVENT_NAME + 1];
    char *filter_text; /* after "if", as written; NULL: none */
    uint64_t order;
};

static struct eprobe_event *eprobes;

/* ---- firing ---- */

/* From the attached event's writer, with its record; any context. */
static void eprobe_fire(void *data, const void *record, size_t size)
{
    struct eprobe_event *ev = data;
    if (!(ev->pe.enabled & TRACE_EVENT_ON_EMIT))
        return;
    struct probe_ctx ctx = {.record = record, .record_len = size};
    probe_event_write(&ev->pe, &ctx, NULL, 0, false);
}

static void eprobe_print(struct seqbuf *s, const struct trace_event_call *call, const void *record,
                         size_t len)
{
    const struct eprobe_event *ev = container_of(call, struct eprobe_event, pe.call);
    seq_printf(s, "(%s.%s)", ev->target_system, ev->target_name);
    probe_print_args(s, ev->pe.args, ev->pe.nargs, record, len);
    seq_putc(s, '\n');
}

/* The event's reg: attached while it is enabled (or in soft mode for its own triggers). */
static int eprobe_reg(const struct trace_event_call *call, bool on)
{
    struct eprobe_event *ev = container_of(call, struct eprobe_event, pe.call);
    if (!on) {
        trace_event_probe_detach(ev->target, ev);
        return 0;
    }
    struct event_filter *filter = NULL;
    if (ev->filter_text) {
        struct event_filter_error fe = {0};
        int err = event_filter_create(ev->filter_text, ev->target->fields, ev->target->nfields,
                                      &filter, &fe);
        if (err)
            return err;
    }
    return trace_event_probe_attach(ev->target, eprobe_fire, ev, filter);
}

/* ---- making and removing ---- */

static struct eprobe_event *find_eprobe(const char *group, const char *name)
{
    for (struct eprobe_event *ev = eprobes; ev; ev = ev->next)
        if ((!group || !*group || strcmp(ev->pe.group, group) == 0) &&
            strcmp(ev->pe.name, name) == 0)
            return ev;
    return NULL;
}

static void free_eprobe(struct eprobe_event *ev)
{
    probe_event_release(&ev->pe);
    kfree(ev->filter_text);
    kfree(ev);
}

/* The words after "if", joined by blanks: the filter as Linux keeps it. */
static char *filter_text(const struct probe_words *w, unsigned first)
{
    size_t len = 1;
    for (unsigned i = first; i < w->count; i++)
        len += strlen(w->word[i]) + 1;
    char *text = kmalloc(len);
    if (!text)
        return NULL;
    size_t at = 0;
    for (unsigned i = first; i < w->count; i++)
        at += scnprintf(text + at, len - at, "%s%s", i > first ? " " : "", w->word[i]);
    return text;
}

/* Checks the filter against the attached event's fields; logs as the filter file does. */
static int check_filter(const struct trace_event_call *target, const char *text)
{
    struct event_filter *filter;
    struct event_filter_error fe = {0};
    int err = event_filter_create(text, target->fields, target->nfields, &filter, &fe);
    if (err) {
        if (fe.message)
            trace_error_log("event filter parse error", fe.message, text, fe.pos);
        return err;
    }
    event_filter_free(filter);
    return 0;
}

/* Takes the arguments from cmd; e says why it was refused. */
static int new_eprobe(struct probe_cmd *cmd, const struct trace_event_call *target, char *filter,
                      struct probe_error *e)
{
    struct eprobe_event *ev = kzalloc(sizeof(*ev));
    if (!ev) {
        kfree(filter);
        return -ENOMEM;
    }
    strlcpy(ev->target_system, target->system, sizeof(ev->target_system));
    strlcpy(ev->target_name, target->name, sizeof(ev->target_name));
    ev->target = target;
    int err = probe_event_init(&ev->pe, cmd, PROBE_HEAD_NONE, eprobe_print, eprobe_reg);
    if (err) {
        kfree(filter);
        kfree(ev);
        return err;
    }
    ev->filter_text = filter;
    trace_event_probe_hold(target, true);
    ev->order = dynamic_event_order();
    struct eprobe_event **tail = &eprobes;
    while (*tail)
        tail = &(*tail)->next;
    *tail = ev;
    return 0;
}

/* An e line, in Linux's order of checks: names, attached event, filter, arguments, EEXIST. */
static int create_eprobe(const struct probe_words *w, struct probe_cmd *cmd, struct probe_error *e)
{
    int err = probe_parse_eprobe(w, cmd, e, EPROBE_LOG);
    if (err)
        return err;
    const struct trace_event_call *target = trace_event_find(cmd->attach_system, cmd->attach_event);
    if (!target || (target->flags & (TRACE_EVENT_FL_FTRACE | TRACE_EVENT_FL_PROBE))) {
        *e = (struct probe_error){-ENODEV, "Attached event does not exist", 1, 0, NULL};
        return -ENODEV;
    }
    char *filter = NULL;
    if (cmd->filter_word) {
        filter = filter_text(w, cmd->filter_word + 1);
        if (!filter)
            return -ENOMEM;
        err = check_filter(target, filter);
        if (err) {
            kfree(filter);
            return err;
        }
    }
    err = probe_parse_eprobe_args(w, cmd, target->fields, target->nfields, e);
    if (!err && probe_resolve_args(cmd->args, cmd->nargs)) {
        /* An unknown @SYM: refused without an error_log line, as Linux does. */
        e->message = NULL;
        err = -ENOENT;
    }
    if (!err && trace_event_find(cmd->group, cmd->event)) {
        *e = (struct probe_error){
            -EEXIST, "Given group/event name is already used by another event", 0, 0, NULL};
        err = -EEXIST;
    }
    if (err) {
        kfree(filter);
        return err;
    }
    return new_eprobe(cmd, target, filter, e);
}

static int delete_eprobe(struct eprobe_event *ev)
{
    if (trace_event_is_emitting(&ev->pe.call))
        return -EBUSY;
    int err = trace_event_remove(&ev->pe.call);
    if (err)
        return err;
    trace_event_probe_hold(ev->target, false);
    for (struct eprobe_event **pp = &eprobes; *pp; pp = &(*pp)->next) {
        if (*pp == ev) {
            *pp = ev->next;
            break;
        }
    }
    free_eprobe(ev);
    return 0;
}

/*
 * "-:[GRP/]EVENT SYS.EVENT [ARGS]": the attached event (SYS/EVENT as well) and then, in
 * order, the first arguments as the read-back shows them.
 */
static bool eprobe_matches(const struct eprobe_event *ev, char *const *words, unsigned count)
{
    if (count == 0)
        return true;
    const char *sep = strchr(words[0], '/');
    if (!sep)
        sep = strchr(words[0], '.');
    if (!sep || strlen(ev->target_system) != (size_t)(sep - words[0]) ||
        strncmp(ev->target_system, words[0], (size_t)(sep - words[0])) != 0 ||
        strcmp(ev->target_name, sep + 1) != 0 || count - 1 > ev->pe.nargs)
        return false;
    for (unsigned i = 1; i < count; i++) {
        const struct probe_arg *a = &ev->pe.args[i - 1];
        size_t nlen = strlen(a->name);
        if (strncmp(words[i], a->name, nlen) != 0 || words[i][nlen] != '=' ||
            strcmp(words[i] + nlen + 1, a->text) != 0)
            return false;
    }
    return true;
}

/* "-:GRP/ [SYS.EVENT [ARGS]]": each event probe of the group that matches, as Linux's
 * removal of a group; the first that cannot go stops the rest. -ENOENT if none matched. */
static int delete_eprobe_group(const char *group, char *const *words, unsigned count)
{
    int err = -ENOENT;
    for (struct eprobe_event *ev = eprobes, *next; ev; ev = next) {
        next = ev->next;
        if (strcmp(ev->pe.group, group) != 0 || !eprobe_matches(ev, words, count))
            continue;
        err = delete_eprobe(ev);
        if (err)
            break;
    }
    return err;
}

int eprobe_run_command(const char *line)
{
    ASSERT(pfs_control_held());
    struct probe_words w;
    int err = probe_split_words(line, &w);
    if (err)
        return err;
    struct probe_cmd cmd;
    struct probe_error e = {0};
    if (w.count && w.word[0][0] == '-') {
        err = probe_parse(&w, &cmd, &e);
        if (!err && !cmd.event[0]) {
            err = delete_eprobe_group(cmd.group, &w.word[1], w.count - 1);
        } else if (!err) {
            struct eprobe_event *ev = find_eprobe(cmd.group, cmd.event);
            err = ev && eprobe_matches(ev, &w.word[1], w.count - 1) ? delete_eprobe(ev) : -ENOENT;
        }
        e.message = NULL;
    } else {
        err = create_eprobe(&w, &cmd, &e);
    }
    if (err == -ECANCELED) {
        err = -EINVAL;
    } else if (err && e.message) {
        probe_log_error(&w, &e, EPROBE_LOG);
    }
    probe_cmd_free(&cmd);
    probe_words_free(&w);
    return err;
}

bool eprobe_event_exists(const char *group, const char *name)
{
    return find_eprobe(group, name) != NULL;
}

bool eprobe_any_enabled(void)
{
    for (struct eprobe_event *ev = eprobes; ev; ev = ev->next)
        if (trace_event_is_emitting(&ev->pe.call))
            return true;
    return false;
}

int eprobe_remove_made_at(uint64_t order)
{
    ASSERT(pfs_control_held());
    for (struct eprobe_event *ev = eprobes; ev; ev = ev->next)
        if (ev->order == order)
            return delete_eprobe(ev);
    return 0;
}

void eprobe_show_events_marked(struct seqbuf *s, dynamic_event_mark_fn mark, void *arg)
{
    for (const struct eprobe_event *ev = eprobes; ev; ev = ev->next) {
        if (mark)
            mark(arg, ev->order, s->len);
        seq_printf(s, "e:%s/%s %s.%s", ev->pe.group, ev->pe.name, ev->target_system,
                   ev->target_name);
        /* Linux 6.1 does not show the filter. */
        probe_show_args(s, ev->pe.args, ev->pe.nargs);
        seq_putc(s, '\n');
    }
}
