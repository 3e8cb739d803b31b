/*
 * Synthetic events, as Linux 6.1's `synthetic_events`:
 *
 *   NAME TYPE FIELD[; TYPE FIELD ...]     defines events/synthetic/NAME
 *   !NAME                                 removes it (EBUSY while on, or while a hist
 *                                         trigger's action or a trigger uses it)
 *
 * TYPE is one of Linux's integer types (s64 u64 s32 u32 s16 u16 s8 u8 char, unsigned char,
 * int, unsigned int, long, unsigned long, bool, pid_t, gfp_t), each taking 8 bytes of the
 * record after the common fields, or a string: `char NAME[N]` (N up to 256, in a slot of
 * 256 bytes) or `char NAME[]` (a __data_loc string after the fixed part), all as Linux's,
 * so the format file is Linux's. Linux's older form without ';' between fields is taken
 * too. A synthetic event is made only by a hist trigger's action (onmatch(...).NAME(...)),
 * with the values the trigger computed; it has the other events' files (enable, filter,
 * trigger, hist, format, id).
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
#define SYNTH_NEST_MAX 3      /* a synthetic event's trigger may make another, not forever */
#define SYNTH_STRING_MAX 256  /* Linux's MAX_FILTER_STR_VAL: char[N] up to it */
#define SYNTH_STRING_SLOT 256 /* what a char[N] takes of the record (Linux's STR_VAR_LEN_MAX) */

struct synth_event {
    struct trace_event_call call;
    struct trace_event_state state;
    volatile uint8_t enabled;
    char *name;
    char *definition; /* the fields as synthetic_events reads them back */
    struct event_field *fields;
    unsigned nfields;
    char *print_fmt;
    unsigned refs;       /* hist triggers' actions that make it */
    unsigned fixed_size; /* the record without its dynamic strings */
    uint64_t order;      /* dynamic_event_order() when made: both files list by it */
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

/* "lat=121 pid=91 comm=sh", as Linux's print_synth_event. */
static void synth_print(struct seqbuf *s, const struct trace_event_call *call, const void *record,
                        size_t len)
{
    const struct synth_event *se = container_of(call, struct synth_event, call);
    for (unsigned i = 0; i < se->nfields; i++) {
        const struct event_field *f = &se->fields[i];
        const char *space = i + 1 == se->nfields ? "" : " ";
        if (f->kind == EVENT_FIELD_CHAR_ARRAY) {
            const char *str = (size_t)f->offset + SYNTH_STRING_SLOT <= len
                                  ? (const char *)record + f->offset
                                  : "";
            seq_printf(s, "%s=%.*s%s", f->name, SYNTH_STRING_SLOT, str, space);
            continue;
        }
        if (f->kind == EVENT_FIELD_DATA_LOC) {
            uint32_t loc = (size_t)f->offset + 4 <= len
                               ? *(const uint32_t *)((const uint8_t *)record + f->offset)
                               : 0;
            seq_printf(s, "%s=%s%s", f->name, trace_event_get_str(record, len, loc), space);
            continue;
        }
        uint64_t v = synth_read(f, record, len);
        char fmt[16];
        snprintf(fmt, sizeof(fmt), "%%s=%s%%s", synth_types[synth_field_type(f)].fmt);
        if (f->size == 8)
            seq_printf(s, fmt, f->name, (unsigned long long)v, space);
        else
            seq_printf(s, fmt, f->name, (unsigned)v, space);
    }
    seq_putc(s, '\n');
}

bool synth_event_field_is_string(const struct synth_event *se, unsigned i)
{
    return se->fields[i].kind != EVENT_FIELD_INT;
}

/* A string value is the address of its text (NUL-terminated, or bounded by max). */
static size_t synth_strlen(const uint64_t v, size_t max)
{
    const char *str = (const char *)(uintptr_t)v;
    size_t n = 0;
    while (str && n < max && str[n])
        n++;
    return n;
}

void synth_event_emit(struct synth_event *se, const uint64_t *vals)
{
    if (!READ_ONCE(se->enabled))
        return;
    unsigned cpu = this_cpu_id();
    if (synth_nest[cpu] >= SYNTH_NEST_MAX)
        return;
    synth_nest[cpu]++;
    size_t size = se->fixed_size;
    for (unsigned i = 0; i < se->nfields; i++)
        if (se->fields[i].kind == EVENT_FIELD_DATA_LOC)
            size += synth_strlen(vals[i], SYNTH_STRING_MAX - 1) + 1;
    struct rb_reservation res;
    uint8_t *rec = trace_event_reserve(&se->call, size, -1, &res);
    if (rec) {
        size_t data = se->fixed_size;
        for (unsigned i = 0; i < se->nfields; i++) {
            const struct event_field *f = &se->fields[i];
            uint64_t v = vals[i];
            if (f->kind == EVENT_FIELD_CHAR_ARRAY) {
                size_t n = synth_strlen(v, SYNTH_STRING_SLOT - 1);
                memset(rec + f->offset, 0, SYNTH_STRING_SLOT);
                memcpy(rec + f->offset, (const char *)(uintptr_t)v, n);
            } else if (f->kind == EVENT_FIELD_DATA_LOC) {
                size_t n = synth_strlen(v, SYNTH_STRING_MAX - 1);
                memcpy(rec + data, (const char *)(uintptr_t)v, n);
                rec[data + n] = '\0';
                uint64_t loc = (uint32_t)((n + 1) << 16 | data);
                memcpy(rec + f->offset, &loc, 8);
                data += n + 1;
            } else {
                /* Each field has its 8 bytes; only its own size of them is the value. */
                memset(rec + f->offset, 0, 8);
                memcpy(rec + f->offset, &v, f->size);
            }
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

/* The next word of *p (blanks and ';' between words), or NULL. */
static char *synth_word(char **p)
{
    char *w = *p;
    while (*w && (isspace((unsigned char)*w) || *w == ';'))
        w++;
    if (!*w)
        return NULL;
    char *end = w;
    while (*end && !isspace((unsigned char)*end) && *end != ';')
        end++;
    *p = *end ? end + 1 : end;
    *end = '\0';
    return w;
}

/*
 * The next field of *p into f: "TYPE NAME", "unsigned TYPE NAME", "char NAME[N]" or
 * "char NAME[]" (Linux also takes the old form, without ';' between fields). Returns 1 for
 * a field, 0 at the end, or -errno with the error logged.
 */
static int synth_parse_field(const char *command, char **p, struct event_field *f)
{
    char *word = synth_word(p);
    if (!word)
        return 0;
    char type[32];
    const char *first = word;
    if (strcmp(word, "unsigned") == 0) {
        char *rest = synth_word(p);
        if (!rest) {
            synth_err(command, "Incomplete type", first);
            return -EINVAL;
        }
        snprintf(type, sizeof(type), "unsigned %s", rest);
    } else {
        strlcpy(type, word, sizeof(type));
    }
    char *name = synth_word(p);
    if (!name) {
        /* As Linux: "unsigned" wants two more words. */
        bool is_unsigned = strncmp(type, "unsigned ", 9) == 0;
        synth_err(command, is_unsigned ? "Incomplete type" : "Invalid field", first);
        return -EINVAL;
    }
    /* "char comm[16]" (or "char[16] comm"): the array part belongs to the type. */
    char spec[8] = "";
    char *array = strchr(name, '[');
    if (!array)
        array = strchr(type, '[');
    if (array) {
        strlcpy(spec, array, sizeof(spec));
        *array = '\0';
    }
    if (!synth_good_name(name)) {
        synth_err(command, "Illegal name", name);
        return -EINVAL;
    }
    if (spec[0]) {
        /* Strings: char[N] of at most SYNTH_STRING_MAX, or char[] of any length. */
        unsigned long n = 0;
        size_t len = strlen(spec);
        bool is_char = strcmp(type, "char") == 0;
        bool ok = is_char && len >= 2 && len <= 5 && spec[len - 1] == ']';
        if (ok && len > 2) {
            spec[len - 1] = '\0';
            ok = !kstrtoul(spec + 1, 10, &n) && n > 0 && n <= SYNTH_STRING_MAX;
        }
        if (!ok) {
            synth_err(command, is_char ? "Invalid array specification" : "Invalid type",
                      is_char ? name : first);
            return -EINVAL;
        }
        f->type = n ? "char[]" : "__data_loc char[]";
        f->size = n ? (uint16_t)n : 8;
        f->is_signed = true;
        f->kind = n ? EVENT_FIELD_CHAR_ARRAY : EVENT_FIELD_DATA_LOC;
    } else {
        int t = synth_type(type);
        if (t < 0) {
            synth_err(command, "Invalid type", first);
            return -EINVAL;
        }
        f->type = synth_types[t].type;
        f->size = synth_types[t].size;
        f->is_signed = synth_types[t].is_signed;
        f->kind = EVENT_FIELD_INT;
    }
    f->name = kstrdup(name);
    return f->name ? 1 : -ENOMEM;
}

/* The bytes a field takes in the record: 8, or a static string's slot. */
static unsigned synth_slot(const struct event_field *f)
{
    return f->kind == EVENT_FIELD_CHAR_ARRAY ? SYNTH_STRING_SLOT : 8;
}

static char *synth_make_print_fmt(const struct synth_event *se)
{
    struct seqbuf s = {0};
    seq_putc(&s, '"');
    for (unsigned i = 0; i < se->nfields; i++) {
        const struct event_field *f = &se->fields[i];
        seq_printf(&s, "%s=%s%s", f->name,
                   f->kind != EVENT_FIELD_INT ? "%s" : synth_types[synth_field_type(f)].fmt,
                   i + 1 == se->nfields ? "" : ", ");
    }
    seq_putc(&s, '"');
    for (unsigned i = 0; i < se->nfields; i++)
        seq_printf(&s, se->fields[i].kind == EVENT_FIELD_DATA_LOC ? ", __get_str(%s)" : ", REC->%s",
                   se->fields[i].name);
    char *out = s.buf && !s.overflow ? kstrdup(s.buf) : NULL;
    seqbuf_free(&s);
    return out;
}

static char *synth_make_definition(const struct synth_event *se)
{
    struct seqbuf s = {0};
    for (unsigned i = 0; i < se->nfields; i++) {
        const struct event_field *f = &se->fields[i];
        seq_puts(&s, i ? "; " : "");
        if (f->kind == EVENT_FIELD_CHAR_ARRAY)
            seq_printf(&s, "char[%u] %s", f->size, f->name);
        else if (f->kind == EVENT_FIELD_DATA_LOC)
            seq_printf(&s, "char[] %s", f->name);
        else
            seq_printf(&s, "%s %s", f->type, f->name);
    }
    char *out = s.buf && !s.overflow ? kstrdup(s.buf) : kstrdup("");
    seqbuf_free(&s);
    return out;
}

/* Whether an empty field (only blanks before a ';') comes before a field that is not. */
static bool synth_first_field_empty(const char *text)
{
    bool seen_empty = false, blank = true;
    for (const char *p = text;; p++) {
        if (*p == ';' || !*p) {
            if (blank && *p == ';')
                seen_empty = true;
            else if (!blank && seen_empty)
                return true;
            if (!*p)
                return false;
            blank = true;
        } else if (!isspace((unsigned char)*p)) {
            blank = false;
        }
    }
}

static int synth_create(const char *command, char *text)
{
    char *name = text;
    while (*text && !isspace((unsigned char)*text))
        text++;
    if (*text)
        *text++ = '\0';
    /* As Linux: a name with a ';', no fields, or an empty field before another is not the
     * form <name> field[;field] ... at all. */
    bool no_fields = true;
    for (char *p = text; *p; p++)
        no_fields &= isspace((unsigned char)*p) || *p == ';';
    if (!*name || strchr(name, ';') || no_fields || synth_first_field_empty(text)) {
        synth_err(command, "Command must be of the form: <name> field[;field] ...", NULL);
        return -EINVAL;
    }
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
    unsigned offset = sizeof(struct trace_event_common);
    for (;;) {
        struct event_field f = {0};
        int got = synth_parse_field(command, &text, &f);
        if (got <= 0) {
            err = got;
            break;
        }
        if (se->nfields == SYNTH_FIELDS_MAX) {
            kfree((char *)f.name);
            synth_err(command, "Too many fields", NULL);
            err = -EINVAL;
            break;
        }
        f.offset = (uint16_t)offset;
        offset += synth_slot(&f);
        fields[se->nfields++] = f;
    }
    se->fixed_size = offset;
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
    se->order = dynamic_event_order();
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
        /* As Linux: the name is what counts; fields after it are not compared. */
        char *name = text + 1;
        strsep(&text, " \t");
        struct synth_event *se = synth_find(name);
        err = se ? synth_remove(se) : -ENOENT;
    } else {
        err = synth_create(command, text);
    }
    kfree(command);
    return err;
}

/* ---- dynamic_events: s: lines ---- */

/* The events in the order they were made, as Linux lists them: n of them into out. */
static unsigned synth_in_order(struct synth_event *out[SYNTH_EVENTS_MAX])
{
    unsigned n = 0;
    for (unsigned i = 0; i < SYNTH_EVENTS_MAX; i++)
        if (synth_events[i]) {
            unsigned j = n++;
            for (; j > 0 && out[j - 1]->order > synth_events[i]->order; j--)
                out[j] = out[j - 1];
            out[j] = synth_events[i];
        }
    return n;
}

/*
 * The fields of a removal line in the form the definition reads back ("char NAME[N]" as
 * "char[N] NAME", blanks collapsed, empty fields dropped), to compare with it.
 */
static char *synth_normal_fields(const char *text)
{
    struct seqbuf s = {0};
    char *copy = kstrdup(text);
    char *rest = copy;
    unsigned n = 0;
    while (rest) {
        char *field = strsep(&rest, ";");
        char *words[4];
        unsigned nw = 0;
        for (char *w; nw < 4 && (w = synth_word(&field));)
            words[nw++] = w;
        if (!nw)
            continue;
        seq_puts(&s, n++ ? "; " : "");
        char *bracket = nw == 2 ? strchr(words[1], '[') : NULL;
        if (bracket && strcmp(words[0], "char") == 0) {
            *bracket = '\0';
            seq_printf(&s, "char[%s %s", bracket + 1, words[1]);
        } else {
            for (unsigned i = 0; i < nw; i++)
                seq_printf(&s, i ? " %s" : "%s", words[i]);
        }
    }
    char *out = !copy || s.overflow ? NULL : kstrdup(s.buf ? s.buf : "");
    kfree(copy);
    seqbuf_free(&s);
    return out;
}

int synth_event_dynamic_create(const char *line)
{
    char *command = kstrdup(line);
    char *text = kstrdup(line + 2); /* after "s:" */
    int err = 0;
    if (!command || !text) {
        err = -ENOMEM;
        goto out;
    }
    /* As Linux's check_command: a name, a type and a field name at least before any ';'. */
    unsigned words = 0;
    for (const char *p = text; *p && *p != ';'; p++)
        words += !isspace((unsigned char)*p) && (p == text || isspace((unsigned char)p[-1]));
    if (words < 3) {
        synth_err(command, "Command must be of the form: <name> field[;field] ...", NULL);
        err = -EINVAL;
        goto out;
    }
    /* As Linux: a group other than "synthetic" is not an s: line at all. */
    char *name = text, *slash = NULL;
    for (char *p = text; *p && !isspace((unsigned char)*p); p++)
        if (*p == '/') {
            slash = p;
            break;
        }
    if (slash) {
        *slash = '\0';
        if (strcmp(text, "synthetic") != 0) {
            synth_err(command,
                      "Command must be of the form: s or -:[synthetic/]<name> field[;field] ...",
                      NULL);
            err = -EINVAL;
            goto out;
        }
        name = slash + 1;
    }
    size_t end = strlen(name);
    while (end && isspace((unsigned char)name[end - 1]))
        name[--end] = '\0';
    err = synth_create(command, name);
out:
    kfree(text);
    kfree(command);
    return err;
}

int synth_event_dynamic_remove(const char *name, const char *fields)
{
    struct synth_event *se = synth_find(name);
    if (!se)
        return -ENOENT;
    if (fields) {
        /* As Linux: fields given must be the event's, all of them. */
        char *given = synth_normal_fields(fields);
        if (!given)
            return -ENOMEM;
        bool same = strcmp(given, se->definition) == 0;
        kfree(given);
        if (!same)
            return -ENOENT;
    }
    return synth_remove(se);
}

int synth_event_remove_made_at(uint64_t order)
{
    for (unsigned i = 0; i < SYNTH_EVENTS_MAX; i++)
        if (synth_events[i] && synth_events[i]->order == order)
            return synth_remove(synth_events[i]);
    return 0;
}

void synth_event_show_dynamic(struct seqbuf *s, dynamic_event_mark_fn mark, void *arg)
{
    struct synth_event *order[SYNTH_EVENTS_MAX];
    unsigned n = synth_in_order(order);
    for (unsigned i = 0; i < n; i++) {
        if (mark)
            mark(arg, order[i]->order, s->len);
        seq_printf(s, "s:synthetic/%s\t%s\n", order[i]->name, order[i]->definition);
    }
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
    struct synth_event *order[SYNTH_EVENTS_MAX];
    unsigned n = synth_in_order(order);
    for (unsigned i = 0; i < n; i++)
        seq_printf(s, "%s\t%s\n", order[i]->name, order[i]->definition);
    f->priv = s;
    return 0;
}

static int synth_run_line(char *line, void *arg) { return synth_run_command(line); }

/* Lines; the first refused one ends the write with its errno, as Linux's. */
static ssize_t synth_file_write(struct pfs_file *f, const char *buf, size_t len)
{
    int err = pfs_run_lines(buf, len, SYNTH_LINE_MAX, synth_run_line, NULL);
    return err ? err : (ssize_t)len;
}

static const struct pfs_ops synth_file_ops = {.open = synth_file_open,
                                              .read = pfs_snapshot_read,
                                              .write = synth_file_write,
                                              .release = pfs_snapshot_release};

TRACEFS_FILE(synthetic_events, .path = "synthetic_events", .mode = 0644, .ops = &synth_file_ops);
