/*
 * Synthetic events, as Linux 6.1's `synthetic_events`:
 *
 *   NAME TYPE FIELD[; TYPE FIELD ...]     defines events/synthetic/NAME
 *   !NAME                                 removes it (EBUSY while on, or while a hist
 *                                         trigger's action or a trigger uses it)
 *
 * TYPE is one of Linux's integer types (s64 u64 s32 u32 s16 u16 s8 u8 char, unsigned char,
 * int, unsigned int, long, unsigned long, bool, pid_t, gfp_t). Each field takes 8 bytes
 * of the record, after the common fields, as Linux's do, so the format file is Linux's. A
 * synthetic event is made only by a hist trigger's action (onmatch(...).NAME(...)), with
 * the values the trigger computed; it has the other events' files (enable, filter,
 * trigger, hist, format, id).
 *
 * Not built: string fields (char[N], char[]), which Linux stores as text; such a type is
 * "Invalid type".
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <lib/ctype.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "synth_events.h"
#include "trace_internal.h"

#define SYNTH_FIELDS_MAX 64 /* Linux's SYNTH_FIELDS_MAX */
#define SYNTH_EVENTS_MAX 64
#define SYNTH_LINE_MAX 4096
#define SYNTH_NEST_MAX 3 /* a synthetic event's trigger may make another, not forever */

struct synth_event {
    struct trace_event_call call;
    struct trace_event_state state;
    volatile uint8_t enabled;
    char *name;
    char *definition; /* the fields as synthetic_events reads them back */
    struct event_field *fields;
    unsigned nfields;
    char *print_fmt;
    unsigned refs; /* hist triggers' actions that make it */
};

static struct synth_event *synth_events[SYNTH_EVENTS_MAX];
static unsigned synth_nest[MAX_CPUS];

static const struct {
    const char *type;
    uint8_t size;
    bool is_signed;
    const char *fmt;
} synth_types[] = {
    {"s64", 8, true, "%lld"},  {"u64", 8, false, "%llu"},
    {"s32", 4, true, "%d"},    {"u32", 4, false, "%u"},
    {"s16", 2, true, "%d"},    {"u16", 2, false, "%u"},
    {"s8", 1, true, "%d"},     {"u8", 1, false, "%u"},
    {"char", 1, true, "%d"},   {"unsigned char", 1, false, "%u"},
    {"int", 4, true, "%d"},    {"unsigned int", 4, false, "%u"},
    {"long", 8, true, "%ld"},  {"unsigned long", 8, false, "%lu"},
    {"bool", 1, true, "%d"},   {"pid_t", 4, true, "%d"},
    {"gfp_t", 4, false, "%x"},
};

static int synth_type(const char *type)
{
    for (size_t i = 0; i < ARRAY_SIZE(synth_types); i++)
        if (strcmp(synth_types[i].type, type) == 0)
            return (int)i;
    return -1;
}

/* The synth_types index of a field (its type string is one of them). */
static int synth_field_type(const struct event_field *f) { return synth_type(f->type); }

static struct synth_event *synth_find(const char *name)
{
    for (unsigned i = 0; i < SYNTH_EVENTS_MAX; i++)
        if (synth_events[i] && strcmp(synth_events[i]->name, name) == 0)
            return synth_events[i];
    return NULL;
}

static void synth_err(const char *command, const char *message, const char *at)
{
    const char *found = at && *at ? strstr(command, at) : NULL;
    trace_error_log("synthetic_events", message, command, found ? (unsigned)(found - command) : 0);
}

/* ---- the record and its line ---- */

static uint64_t synth_read(const struct event_field *f, const uint8_t *rec, size_t len)
{
    if ((size_t)f->offset + 8 > len)
        return 0;
    uint64_t v;
    memcpy(&v, rec + f->offset, 8);
    switch (f->size) {
    case 1:
        return (uint8_t)v;
    case 2:
        return (uint16_t)v;
    case 4:
        return (uint32_t)v;
    }
    return v;
}

/* "lat=121 pid=91 prio=120", as Linux's print_synth_event. */
static void synth_print(struct seqbuf *s, const struct trace_event_call *call, const void *record,
                        size_t len)
{
    const struct synth_event *se = container_of(call, struct synth_event, call);
    for (unsigned i = 0; i < se->nfields; i++) {
        const struct event_field *f = &se->fields[i];
        uint64_t v = synth_read(f, record, len);
        char fmt[16];
        snprintf(fmt, sizeof(fmt), "%%s=%s%%s", synth_types[synth_field_type(f)].fmt);
        const char *space = i + 1 == se->nfields ? "" : " ";
        if (f->size == 8)
            seq_printf(s, fmt, f->name, (unsigned long long)v, space);
        else
            seq_printf(s, fmt, f->name, (unsigned)v, space);
    }
    seq_putc(s, '\n');
}

void synth_event_emit(struct synth_event *se, const uint64_t *vals)
{
    if (!READ_ONCE(se->enabled))
        return;
    unsigned cpu = this_cpu_id();
    if (synth_nest[cpu] >= SYNTH_NEST_MAX)
        return;
    synth_nest[cpu]++;
    size_t size = sizeof(struct trace_event_common) + 8 * se->nfields;
    struct rb_reservation res;
    uint8_t *rec = trace_event_reserve(&se->call, size, -1, &res);
    if (rec) {
        for (unsigned i = 0; i < se->nfields; i++) {
            const struct event_field *f = &se->fields[i];
            uint64_t v = vals[i];
            /* Each field has its 8 bytes; only its own size of them is the value. */
            memset(rec + f->offset, 0, 8);
            memcpy(rec + f->offset, &v, f->size);
        }
        trace_event_commit(&se->call, rec, size, &res);
    }
    synth_nest[cpu]--;
}

/* ---- defining and removing ---- */

static void synth_free(struct synth_event *se)
{
    if (!se)
        return;
    if (se->fields)
        for (unsigned i = 0; i < se->nfields; i++)
            kfree((char *)se->fields[i].name);
    kfree(se->fields);
    kfree(se->name);
    kfree(se->definition);
    kfree(se->print_fmt);
    kfree(se);
}

static bool synth_good_name(const char *name)
{
    if (!*name || !(isalpha((unsigned char)*name) || *name == '_'))
        return false;
    for (const char *p = name; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return false;
    return true;
}

/* "TYPE NAME" or "unsigned TYPE NAME" into f; the words are in command (for carets). */
static int synth_parse_field(const char *command, char *text, struct event_field *f)
{
    char *words[4];
    unsigned n = 0;
    char *p = text;
    while (n < 4) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        words[n++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
    if (n == 0)
        return 0;
    char type[32];
    const char *name;
    if (strcmp(words[0], "unsigned") == 0) {
        if (n < 3) {
            synth_err(command, "Incomplete type", words[0]);
            return -EINVAL;
        }
        snprintf(type, sizeof(type), "unsigned %s", words[1]);
        name = words[2];
        if (n > 3) {
            synth_err(command, "Invalid field", words[3]);
            return -EINVAL;
        }
    } else {
        if (n < 2) {
            synth_err(command, "Invalid field", words[0]);
            return -EINVAL;
        }
        strlcpy(type, words[0], sizeof(type));
        name = words[1];
        if (n > 2) {
            synth_err(command, "Invalid field", words[2]);
            return -EINVAL;
        }
    }
    if (!synth_good_name(name)) {
        synth_err(command, "Illegal name", name);
        return -EINVAL;
    }
    int t = synth_type(type);
    if (t < 0) {
        synth_err(command, "Invalid type", words[0]);
        return -EINVAL;
    }
    f->type = synth_types[t].type;
    f->name = kstrdup(name);
    f->size = synth_types[t].size;
    f->is_signed = synth_types[t].is_signed;
    f->kind = EVENT_FIELD_INT;
    return f->name ? 1 : -ENOMEM;
}

static char *synth_make_print_fmt(const struct synth_event *se)
{
    struct seqbuf s = {0};
    seq_putc(&s, '"');
    for (unsigned i = 0; i < se->nfields; i++)
        seq_printf(&s, "%s=%s%s", se->fields[i].name,
                   synth_types[synth_field_type(&se->fields[i])].fmt,
                   i + 1 == se->nfields ? "" : ", ");
    seq_putc(&s, '"');
    for (unsigned i = 0; i < se->nfields; i++)
        seq_printf(&s, ", REC->%s", se->fields[i].name);
    char *out = s.buf && !s.overflow ? kstrdup(s.buf) : NULL;
    seqbuf_free(&s);
    return out;
}

static char *synth_make_definition(const struct synth_event *se)
{
    struct seqbuf s = {0};
    for (unsigned i = 0; i < se->nfields; i++)
        seq_printf(&s, "%s%s %s", i ? "; " : "", se->fields[i].type, se->fields[i].name);
    char *out = s.buf && !s.overflow ? kstrdup(s.buf) : kstrdup("");
    seqbuf_free(&s);
    return out;
}

static int synth_create(const char *command, char *text)
{
    char *name = text;
    while (*text && !isspace((unsigned char)*text))
        text++;
    if (*text)
        *text++ = '\0';
    if (!synth_good_name(name)) {
        synth_err(command, "Illegal name", name);
        return -EINVAL;
    }
    if (synth_find(name)) {
        synth_err(command, "Event already exists", name);
        return -EEXIST;
    }
    struct synth_event *se = kzalloc(sizeof(*se));
    struct event_field *fields = kzalloc(SYNTH_FIELDS_MAX * sizeof(*fields));
    int err = 0;
    if (!se || !fields) {
        kfree(fields);
        kfree(se);
        return -ENOMEM;
    }
    se->fields = fields;
    se->name = kstrdup(name);
    while (!err && text) {
        char *part = strsep(&text, ";");
        if (se->nfields == SYNTH_FIELDS_MAX) {
            synth_err(command, "Too many fields", part);
            err = -EINVAL;
            break;
        }
        err = synth_parse_field(command, part, &fields[se->nfields]);
        if (err > 0) {
            fields[se->nfields].offset =
                (uint16_t)(sizeof(struct trace_event_common) + 8 * se->nfields);
            se->nfields++;
            err = 0;
        }
    }
    if (!err && se->nfields == 0) {
        synth_err(command, "Command must be of the form: <name> field[;field] ...", NULL);
        err = -EINVAL;
    }
    if (!err) {
        se->print_fmt = synth_make_print_fmt(se);
        se->definition = synth_make_definition(se);
        if (!se->name || !se->print_fmt || !se->definition)
            err = -ENOMEM;
    }
    unsigned slot = 0;
    while (!err && slot < SYNTH_EVENTS_MAX && synth_events[slot])
        slot++;
    if (!err && slot == SYNTH_EVENTS_MAX)
        err = -ENOSPC;
    if (!err) {
        se->state.enabled = &se->enabled;
        se->call.system = "synthetic";
        se->call.name = se->name;
        se->call.fields = se->fields;
        se->call.nfields = se->nfields;
        se->call.print_fmt = se->print_fmt;
        se->call.print_call = synth_print;
        se->call.state = &se->state;
        err = trace_event_add(&se->call);
    }
    if (err) {
        synth_free(se);
        return err;
    }
    synth_events[slot] = se;
    return 0;
}

static int synth_remove(struct synth_event *se)
{
    if (se->refs)
        return -EBUSY;
    int err = trace_event_remove(&se->call);
    if (err)
        return err;
    for (unsigned i = 0; i < SYNTH_EVENTS_MAX; i++)
        if (synth_events[i] == se)
            synth_events[i] = NULL;
    synth_free(se);
    return 0;
}

static int synth_run_command(char *line)
{
    char *command = kstrdup(line);
    if (!command)
        return -ENOMEM;
    char *text = line;
    while (isspace((unsigned char)*text))
        text++;
    size_t end = strlen(text);
    while (end && isspace((unsigned char)text[end - 1]))
        text[--end] = '\0';
    int err = 0;
    if (!*text) {
        err = 0;
    } else if (*text == '!') {
        struct synth_event *se = synth_find(text + 1);
        err = se ? synth_remove(se) : -ENOENT;
    } else {
        err = synth_create(command, text);
    }
    kfree(command);
    return err;
}

/* ---- for hist triggers ---- */

struct synth_event *synth_event_get(const char *name)
{
    struct synth_event *se = synth_find(name);
    if (se)
        se->refs++;
    return se;
}

void synth_event_put(struct synth_event *se)
{
    if (se)
        se->refs--;
}

unsigned synth_event_nfields(const struct synth_event *se) { return se->nfields; }
const char *synth_event_name(const struct synth_event *se) { return se->name; }

/* ---- the synthetic_events file ---- */

static int synth_file_open(struct pfs_file *f)
{
    if ((f->flags & PFS_WRITE) && (f->flags & PFS_TRUNC)) {
        /* As Linux: every event goes, or none if one of them is busy. */
        for (unsigned i = 0; i < SYNTH_EVENTS_MAX; i++)
            if (synth_events[i] &&
                (synth_events[i]->refs || trace_event_is_registered(&synth_events[i]->call)))
                return -EBUSY;
        for (unsigned i = 0; i < SYNTH_EVENTS_MAX; i++)
            if (synth_events[i]) {
                int err = synth_remove(synth_events[i]);
                if (err)
                    return err;
            }
    }
    if (!(f->flags & PFS_READ))
        return 0;
    struct seqbuf *s = kzalloc(sizeof(*s));
    if (!s)
        return -ENOMEM;
    for (unsigned i = 0; i < SYNTH_EVENTS_MAX; i++)
        if (synth_events[i])
            seq_printf(s, "%s\t%s\n", synth_events[i]->name, synth_events[i]->definition);
    f->priv = s;
    return 0;
}

/* Lines; the first refused one ends the write with its errno, as Linux's. */
static ssize_t synth_file_write(struct pfs_file *f, const char *buf, size_t len)
{
    char *line = kmalloc(SYNTH_LINE_MAX);
    if (!line)
        return -ENOMEM;
    int err = 0;
    size_t at = 0;
    while (!err && at < len) {
        size_t end = at;
        while (end < len && buf[end] != '\n')
            end++;
        if (end - at >= SYNTH_LINE_MAX) {
            err = -EINVAL;
            break;
        }
        memcpy(line, buf + at, end - at);
        line[end - at] = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        err = synth_run_command(line);
        at = end + 1;
    }
    kfree(line);
    return err ? err : (ssize_t)len;
}

static const struct pfs_ops synth_file_ops = {.open = synth_file_open,
                                              .read = pfs_snapshot_read,
                                              .write = synth_file_write,
                                              .release = pfs_snapshot_release};

TRACEFS_FILE(synthetic_events, .path = "synthetic_events", .mode = 0644, .ops = &synth_file_ops);
