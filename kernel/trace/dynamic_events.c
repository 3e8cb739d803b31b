/*
 * dynamic_events, as Linux 6.1's: every event made at run time in one list, in the order
 * they were made, and one place to make and remove them. A line is
 *
 *   p|r...                      a kprobe (kernel/trace/probes/, as kprobe_events takes it)
 *   f...                        an fprobe (kernel/trace/probes/trace_kprobe.c)
 *   t...                        a tracepoint probe (the same file)
 *   e...                        an event probe (kernel/trace/probes/trace_eprobe.c)
 *   s:[synthetic/]NAME FIELDS   a synthetic event (as synthetic_events takes NAME FIELDS)
 *   -:[GROUP/]NAME [MATCH]      removes the event NAME (of GROUP, if given)
 *   -:GROUP/ [MATCH]            removes every probe of GROUP, in the order they were made
 *   !KIND:[GROUP/]NAME [MATCH]  the same, the line as it was written to make the event
 *
 * where MATCH, if given, must be the start of the probe's place (an event probe's attached
 * event) and arguments, or all of the synthetic event's fields. `>` removes every event, in the
 * order they were made, up to the first that cannot go.
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/pseudofs.h>
#include <lib/ctype.h>
#include <lib/printf.h>
#include <lib/sort.h>
#include <lib/string.h>

#include "dynamic_events.h"
#include "hist/synth_events.h"
#include "probes/trace_eprobe.h"
#include "probes/trace_kprobe.h"
#include "trace_internal.h"

/* Linux's WRITE_BUFSIZE: no line may be longer. */
#define DYNAMIC_LINE_MAX 4096

static uint64_t next_order = 1;

uint64_t dynamic_event_order(void) { return __atomic_fetch_add(&next_order, 1, __ATOMIC_RELAXED); }

static int dynamic_remove_group(const char *group, const char *match);

/* A removal line, "-:[GROUP/]NAME [MATCH]" or "!KIND:[GROUP/]NAME [MATCH]". */
static int dynamic_remove(char *line)
{
    char kind = line[0] == '!' ? line[1] : 0;
    char *head = strchr(line, ':');
    if (!head || (line[0] == '-' && head != line + 1))
        return -EINVAL;
    head++;
    char *match = head;
    while (*match && !isspace((unsigned char)*match))
        match++;
    if (*match)
        *match++ = '\0';
    while (isspace((unsigned char)*match))
        match++;
    char *name = strchr(head, '/');
    const char *group = NULL;
    if (name) {
        *name++ = '\0';
        group = head;
    } else {
        name = head;
    }
    /* "!KIND:GRP/" too: Linux's release reads what follows the ':' alone. */
    if (group && !*name)
        return dynamic_remove_group(group, match);
    bool eprobe = kind == 'e' || (!kind && eprobe_event_exists(group, name));
    bool synthetic = !eprobe && (kind == 's' || (group && strcmp(group, "synthetic") == 0) ||
                                 (!group && kind != 'p' && kind != 'r' && kind != 'f' &&
                                  kind != 't' && !kprobe_event_exists(NULL, name)));
    if (synthetic) {
        if (group && strcmp(group, "synthetic") != 0)
            return -ENOENT;
        return synth_event_dynamic_remove(name, *match ? match : NULL);
    }
    /* A probe: as kprobe_events' "-:[GROUP/]NAME [SYM[+OFFS] [ARGS]]". */
    size_t size = strlen(name) + strlen(match) + (group ? strlen(group) : 0) + 8;
    char *command = kmalloc(size);
    if (!command)
        return -ENOMEM;
    snprintf(command, size, "-:%s%s%s %s", group ? group : "", group ? "/" : "", name, match);
    int err = eprobe ? eprobe_run_command(command) : kprobe_run_command(command, true);
    kfree(command);
    return err;
}

static int dynamic_run(char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    size_t end = strlen(line);
    while (end && isspace((unsigned char)line[end - 1]))
        line[--end] = '\0';
    if (!*line)
        return 0;
    if (line[0] == '-' || line[0] == '!')
        return dynamic_remove(line);
    if (line[0] == 's' && line[1] == ':')
        return synth_event_dynamic_create(line);
    if (line[0] == 'e')
        return eprobe_run_command(line);
    return kprobe_run_command(line, true);
}

/* ---- the file ---- */

struct dynamic_mark {
    uint64_t order;
    size_t at;
    const struct seqbuf *from;
};

struct dynamic_marks {
    struct dynamic_mark *marks;
    size_t count, cap;
    const struct seqbuf *from;
    bool failed;
};

static void dynamic_mark(void *arg, uint64_t order, size_t at)
{
    struct dynamic_marks *m = arg;
    if (m->count == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 32;
        struct dynamic_mark *grown = krealloc(m->marks, cap * sizeof(*grown));
        if (!grown) {
            m->failed = true;
            return;
        }
        m->marks = grown;
        m->cap = cap;
    }
    m->marks[m->count++] = (struct dynamic_mark){order, at, m->from};
}

static int dynamic_mark_cmp(const void *a, const void *b)
{
    const struct dynamic_mark *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Every kind's lines, each marked with the order its event was made at, sorted by it. */
struct dynamic_listing {
    struct seqbuf kprobes, eprobes, synths;
    struct dynamic_marks m;
};

static int dynamic_list(struct dynamic_listing *l)
{
    memset(l, 0, sizeof(*l));
    l->m.from = &l->kprobes;
    kprobe_show_events_marked(&l->kprobes, dynamic_mark, &l->m);
    l->m.from = &l->eprobes;
    eprobe_show_events_marked(&l->eprobes, dynamic_mark, &l->m);
    l->m.from = &l->synths;
    synth_event_show_dynamic(&l->synths, dynamic_mark, &l->m);
    if (l->m.failed || l->kprobes.overflow || l->eprobes.overflow || l->synths.overflow)
        return -ENOMEM;
    sort(l->m.marks, l->m.count, sizeof(*l->m.marks), dynamic_mark_cmp);
    return 0;
}

static void dynamic_list_free(struct dynamic_listing *l)
{
    kfree(l->m.marks);
    seqbuf_free(&l->kprobes);
    seqbuf_free(&l->eprobes);
    seqbuf_free(&l->synths);
}

/* Runs "-:GROUP/NAME MATCH" through one kind of probe's own removal. */
static int dynamic_remove_one(int (*run)(const char *), const char *group, const char *name,
                              size_t name_len, const char *match)
{
    size_t size = strlen(group) + name_len + strlen(match) + 8;
    char *command = kmalloc(size);
    if (!command)
        return -ENOMEM;
    snprintf(command, size, "-:%s/%.*s %s", group, (int)name_len, name, match);
    int err = run(command);
    kfree(command);
    return err;
}

static int run_kprobe_command(const char *line) { return kprobe_run_command(line, true); }

/*
 * "-:GROUP/ [MATCH]", as Linux's dyn_event_release with an empty name: every probe of the
 * group, of whatever kind, in the order they were made, each through its kind's removal
 * with MATCH; the first that cannot go stops the rest. A synthetic event is never taken
 * (it has a name to match, never an empty one). -ENOENT only if none matched.
 */
static int dynamic_remove_group(const char *group, const char *match)
{
    struct dynamic_listing l;
    int err = dynamic_list(&l);
    if (err) {
        dynamic_list_free(&l);
        return err;
    }
    err = -ENOENT;
    size_t glen = strlen(group);
    for (size_t i = 0; i < l.m.count; i++) {
        const struct seqbuf *from = l.m.marks[i].from;
        if (from == &l.synths)
            continue;
        /* The line as listed: KIND[MAXACTIVE]:GROUP/NAME PLACE... */
        const char *line = from->buf + l.m.marks[i].at;
        const char *g = strchr(line, ':');
        if (!g || strncmp(g + 1, group, glen) != 0 || g[1 + glen] != '/')
            continue;
        const char *name = g + 2 + glen;
        size_t name_len = strcspn(name, " \n");
        /* An event with several places is listed once per place: the first removes it. */
        int one = dynamic_remove_one(from == &l.eprobes ? eprobe_run_command : run_kprobe_command,
                                     group, name, name_len, match);
        if (one == -ENOENT)
            continue;
        err = one;
        if (err)
            break;
    }
    dynamic_list_free(&l);
    return err;
}

static int dynamic_show(struct seqbuf *out)
{
    struct dynamic_listing l;
    int err = dynamic_list(&l);
    for (size_t i = 0; i < l.m.count && !err; i++) {
        const struct seqbuf *from = l.m.marks[i].from;
        const char *line = from->buf + l.m.marks[i].at;
        const char *nl = memchr(line, '\n', from->len - l.m.marks[i].at);
        seq_write(out, line, nl ? (size_t)(nl - line + 1) : from->len - l.m.marks[i].at);
    }
    dynamic_list_free(&l);
    return err;
}

/*
 * `>`, as Linux's dyn_events_release_all: nothing goes while a probe is enabled; then every
 * event in the order it was made, up to the first that cannot go (a synthetic event an
 * event probe is attached to, say).
 */
static int dynamic_release_all(void)
{
    if (kprobe_any_enabled() || eprobe_any_enabled())
        return -EBUSY;
    struct dynamic_listing l;
    int err = dynamic_list(&l);
    for (size_t i = 0; i < l.m.count && !err; i++) {
        const struct seqbuf *from = l.m.marks[i].from;
        uint64_t order = l.m.marks[i].order;
        if (from == &l.kprobes)
            err = kprobe_remove_made_at(order);
        else if (from == &l.eprobes)
            err = eprobe_remove_made_at(order);
        else
            err = synth_event_remove_made_at(order);
    }
    dynamic_list_free(&l);
    return err;
}

static int dynamic_open(struct pfs_file *f)
{
    if ((f->flags & PFS_WRITE) && (f->flags & PFS_TRUNC)) {
        int err = dynamic_release_all();
        if (err)
            return err;
    }
    if (!(f->flags & PFS_READ))
        return 0;
    struct seqbuf *s = kzalloc(sizeof(*s));
    if (!s)
        return -ENOMEM;
    int err = dynamic_show(s);
    if (err) {
        seqbuf_free(s);
        kfree(s);
        return err;
    }
    f->priv = s;
    return 0;
}

static int dynamic_run_line(char *line, void *arg) { return dynamic_run(line); }

int dynamic_events_command(const char *line)
{
    char *copy = kstrdup(line);
    if (!copy)
        return -ENOMEM;
    pfs_control_lock();
    int err = dynamic_run(copy);
    pfs_control_unlock();
    kfree(copy);
    return err;
}

static ssize_t dynamic_write(struct pfs_file *f, const char *buf, size_t len)
{
    int err = pfs_run_lines(buf, len, DYNAMIC_LINE_MAX, dynamic_run_line, NULL);
    return err ? err : (ssize_t)len;
}

static const struct pfs_ops dynamic_events_ops = {.open = dynamic_open,
                                                  .read = pfs_snapshot_read,
                                                  .write = dynamic_write,
                                                  .release = pfs_snapshot_release};

TRACEFS_FILE(dynamic_events, .path = "dynamic_events", .mode = 0644, .ops = &dynamic_events_ops);
