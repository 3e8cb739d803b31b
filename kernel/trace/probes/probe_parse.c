/*
 * The text of a probe line: `p[:[GRP/]EVENT] SYM[+OFFS][%return] [ARGS]`,
 * `r[MAXACTIVE][:[GRP/]EVENT] SYM[+0] [ARGS]` and `-:[GRP/]EVENT`, and dynamic_events' `f`
 * (Linux 6.5), `t` (Linux 6.10) and `e` lines. Each check, its errno, its error_log message
 * and the word and offset its caret marks follow Linux (6.1, and the later kernels for f and
 * t lines), in Linux's order, so that a line with two faults reports the one Linux reports.
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/symbols.h>
#include <lib/ctype.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_filter.h"
#include "trace_internal.h"
#include "trace_probe.h"

/* ---- words ---- */

int probe_split_words(const char *line, struct probe_words *w)
{
    memset(w, 0, sizeof(*w));
    w->buf = kstrdup(line);
    if (!w->buf)
        return -ENOMEM;
    char *p = w->buf;
    for (;;) {
        while (*p && isspace((unsigned char)*p))
            *p++ = '\0';
        if (!*p)
            break;
        if (w->count == PROBE_MAX_WORDS) {
            /* More words than arguments allowed: the parser reports it. */
            w->count++;
            break;
        }
        w->word[w->count++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
    }
    return 0;
}

void probe_words_free(struct probe_words *w)
{
    kfree(w->buf);
    w->buf = NULL;
}

static unsigned words_stored(const struct probe_words *w)
{
    return w->count > PROBE_MAX_WORDS ? PROBE_MAX_WORDS : w->count;
}

void probe_words_join(const struct probe_words *w, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < words_stored(w) && at + 1 < len; i++)
        at += scnprintf(out + at, len - at, "%s%s", i ? " " : "", w->word[i]);
}

unsigned probe_words_pos(const struct probe_words *w, unsigned word)
{
    unsigned pos = 0;
    for (unsigned i = 0; i < word && i < words_stored(w); i++)
        pos += (unsigned)strlen(w->word[i]) + 1;
    return pos;
}

/* ---- types ---- */

static const struct probe_type probe_types[] = {
    {"u8", "u8", "%u", 1, PROBE_TYPE_UNSIGNED},
    {"u16", "u16", "%u", 2, PROBE_TYPE_UNSIGNED},
    {"u32", "u32", "%u", 4, PROBE_TYPE_UNSIGNED},
    {"u64", "u64", "%Lu", 8, PROBE_TYPE_UNSIGNED},
    {"s8", "s8", "%d", 1, PROBE_TYPE_SIGNED},
    {"s16", "s16", "%d", 2, PROBE_TYPE_SIGNED},
    {"s32", "s32", "%d", 4, PROBE_TYPE_SIGNED},
    {"s64", "s64", "%Ld", 8, PROBE_TYPE_SIGNED},
    {"x8", "u8", "0x%x", 1, PROBE_TYPE_HEX},
    {"x16", "u16", "0x%x", 2, PROBE_TYPE_HEX},
    {"x32", "u32", "0x%x", 4, PROBE_TYPE_HEX},
    {"x64", "u64", "0x%Lx", 8, PROBE_TYPE_HEX},
    {"string", "__data_loc char[]", "\\\"%s\\\"", 4, PROBE_TYPE_STRING},
    {"ustring", "__data_loc char[]", "\\\"%s\\\"", 4, PROBE_TYPE_STRING},
    {"symstr", "__data_loc char[]", "\\\"%s\\\"", 4, PROBE_TYPE_SYMSTR},
    {"symbol", "u64", "%pS", 8, PROBE_TYPE_SYMBOL},
};
#define PROBE_TYPE_DEFAULT "x64"

const struct probe_type *probe_type_find(const char *name)
{
    if (!name)
        name = PROBE_TYPE_DEFAULT;
    if (name[0] == 'b') {
        /* A bitfield b<width>@<offset>/<container>: the container's unsigned type. */
        const char *slash = strchr(name, '/');
        unsigned long bits;
        if (!slash || kstrtoul(slash + 1, 0, &bits))
            return NULL;
        switch (bits) {
        case 8:
            return probe_type_find("u8");
        case 16:
            return probe_type_find("u16");
        case 32:
            return probe_type_find("u32");
        case 64:
            return probe_type_find("u64");
        default:
            return NULL;
        }
    }
    for (size_t i = 0; i < ARRAY_SIZE(probe_types); i++)
        if (strcmp(probe_types[i].name, name) == 0)
            return &probe_types[i];
    return NULL;
}

/* ---- names ---- */

static bool good_name(const char *name)
{
    if (!isalpha((unsigned char)*name) && *name != '_')
        return false;
    while (*++name)
        if (!isalnum((unsigned char)*name) && *name != '_')
            return false;
    return true;
}

static int fail(struct probe_error *e, int err, const char *message, unsigned word, unsigned pos)
{
    e->err = err;
    e->message = message;
    e->word = word;
    e->pos = pos;
    return err;
}

/*
 * [GRP/]EVENT (or GRP.EVENT) at `at` in word `word`, into group and event (each
 * PROBE_MAX_EVENT_NAME + 1 bytes); an empty EVENT after GRP/ is left empty (the caller makes
 * one). Linux's traceprobe_parse_event_name.
 */
static int parse_group_event(const char *text, unsigned word, unsigned at, char *group, char *event,
                             struct probe_error *e)
{
    const char *slash = strchr(text, '/');
    if (!slash)
        slash = strchr(text, '.');
    if (slash) {
        if (slash == text)
            return fail(e, -EINVAL, "Group name is not specified", word, at);
        if ((size_t)(slash - text) + 1 > PROBE_MAX_EVENT_NAME)
            return fail(e, -EINVAL, "Group name is too long", word, at);
        memcpy(group, text, (size_t)(slash - text));
        group[slash - text] = '\0';
        if (!good_name(group))
            return fail(e, -EINVAL, "Group name must follow the same rules as C identifiers", word,
                        at);
        at += (unsigned)(slash - text) + 1;
        text = slash + 1;
    }
    size_t len = strlen(text);
    if (len == 0) {
        if (slash)
            return 0;
        return fail(e, -EINVAL, "Event name is not specified", word, at);
    }
    if (len > PROBE_MAX_EVENT_NAME)
        return fail(e, -EINVAL, "Event name is too long", word, at);
    if (!good_name(text))
        return fail(e, -EINVAL, "Event name must follow the same rules as C identifiers", word, at);
    strcpy(event, text);
    return 0;
}

/* [GRP/]EVENT after "p:" (at `at` in word 0). */
static int parse_event_name(const char *text, unsigned at, struct probe_cmd *cmd,
                            struct probe_error *e)
{
    return parse_group_event(text, 0, at, cmd->group, cmd->event, e);
}

/* ---- fetch arguments ---- */

enum {
    PARSE_RETURN = 1,  /* a return probe: $retval exists */
    PARSE_FENTRY = 2,  /* on a function's entry: $argN exists */
    PARSE_EVENT = 4,   /* an event probe: every $NAME is a field of the attached event */
    PARSE_FPROBE = 8,  /* an fprobe or a tracepoint probe: no %REG */
    PARSE_TPOINT = 16, /* a tracepoint probe: $argN are the tracepoint's arguments */
    PARSE_EXIT = 32,   /* a return probe placed by address: %ip is the return's, but Linux
                        * 6.1 gives it no $retval (nor $argN) */
};
/* A tracepoint probe's flags carry how many arguments its tracepoint has, from this bit. */
#define PARSE_TP_NARGS_SHIFT 8

static int parse_var(const char *var, struct probe_arg *a, unsigned flags, unsigned word,
                     unsigned offs, struct probe_error *e)
{
    if (flags & PARSE_EVENT) {
        /* Looked up in the attached event once it is known (probe_parse_eprobe_args). */
        a->symbol = kstrdup(var);
        if (!a->symbol)
            return fail(e, -ENOMEM, NULL, word, offs);
        a->base = FETCH_FIELD;
        return 0;
    }
    if (strcmp(var, "retval") == 0) {
        if (!(flags & PARSE_RETURN))
            return fail(e, -EINVAL, "$retval is not available on probe", word, offs);
        a->base = FETCH_RETVAL;
        return 0;
    }
    if (strncmp(var, "stack", 5) == 0) {
        /* A tracepoint probe is called by the emitter, not stopped at a function's entry:
         * there is no stack Linux's $stack would mean (its stub's). */
        if (flags & PARSE_TPOINT)
            return fail(e, -EINVAL, "Invalid $-variable specified", word, offs);
        unsigned long n;
        if (var[5] == '\0') {
            a->base = FETCH_STACKP;
            return 0;
        }
        if (!isdigit((unsigned char)var[5]) || kstrtoul(var + 5, 10, &n))
            return fail(e, -EINVAL, "Invalid $-variable specified", word, offs);
        if (n > PROBE_MAX_STACK)
            return fail(e, -EINVAL, "Invalid stack number", word, offs);
        a->base = FETCH_STACK;
        a->param = n;
        return 0;
    }
    if (strcmp(var, "comm") == 0 || strcmp(var, "COMM") == 0) {
        a->base = FETCH_COMM;
        return 0;
    }
    if ((flags & (PARSE_FENTRY | PARSE_RETURN)) == PARSE_FENTRY && strncmp(var, "arg", 3) == 0) {
        unsigned long n;
        if (kstrtoul(var + 3, 10, &n))
            return fail(e, -EINVAL, "Invalid $-variable specified", word, offs);
        if (n == 0 || n > PROBE_MAX_STACK)
            return fail(e, -EINVAL, "Invalid argument number", word, offs);
        a->param = n - 1;
        if (!(flags & PARSE_TPOINT)) {
            a->base = FETCH_ARG;
            return 0;
        }
        /* Known, as Linux knows them from BTF: no argument past the tracepoint's. */
        if (n > flags >> PARSE_TP_NARGS_SHIFT)
            return fail(e, -EINVAL, "Invalid argument number", word, offs);
        a->base = FETCH_TP_ARG;
        return 0;
    }
    return fail(e, -EINVAL, "Invalid $-variable specified", word, offs);
}

/*
 * One fetch expression (Linux's parse_probe_arg): arg is modified in place. offs is where
 * arg starts in its word. Dereferences nest by recursion, innermost first into a->deref.
 */
static int parse_fetch(char *arg, struct probe_arg *a, unsigned flags, unsigned word, unsigned offs,
                       struct probe_error *e)
{
    int err = 0;
    bool found = false;
    switch (arg[0]) {
    case '$':
        err = parse_var(arg + 1, a, flags, word, offs, e);
        found = !err;
        break;
    case '%': {
        /* An event probe has no registers (it fires inside another event's writer), nor
         * has an fprobe in Linux 6.5's syntax; Linux logs both lines. */
        if (flags & (PARSE_EVENT | PARSE_FPROBE)) {
            e->before = "Invalid $-variable specified";
            return fail(e, -EINVAL, "Invalid fetch argument", word, offs);
        }
        int offset = regs_query_register_offset(arg + 1);
        if (offset < 0)
            return fail(e, -EINVAL, "Invalid register name", word, offs);
        /* An entry probe's %ip is Linux's: where its breakpoint would have stopped, not the
         * frame's ip (just after the site's call). */
        if (!(flags & (PARSE_RETURN | PARSE_EXIT)) && arch_regs_offset_is_ip((unsigned)offset))
            a->base = FETCH_PROBE_IP;
        else
            a->base = FETCH_REG;
        a->param = (unsigned long)offset;
        found = true;
        break;
    }
    case '@':
        if (isdigit((unsigned char)arg[1])) {
            unsigned long addr;
            if (kstrtoul(arg + 1, 0, &addr))
                return fail(e, -EINVAL, "Invalid memory address", word, offs);
            a->base = FETCH_IMM;
            a->param = addr;
        } else if (arg[1] == '+') {
            return fail(e, -EINVAL, "File offset is not available with kprobe", word, offs);
        } else {
            a->base = FETCH_SYMBOL;
            a->symbol = kstrdup(arg + 1);
            if (!a->symbol)
                return fail(e, -ENOMEM, NULL, word, offs);
        }
        /* The value at that address, not the address. */
        if (a->nderef == PROBE_MAX_DEREF)
            return fail(e, -EINVAL, "Dereference is too much nested", word, offs);
        a->deref[a->nderef++] = 0;
        found = true;
        break;
    case '+':
    case '-': {
        if (arg[1] == 'u')
            return fail(e, -EINVAL, "User-memory dereference is not available", word, offs);
        char *num = arg[0] == '+' ? arg + 1 : arg;
        char *open = strchr(num, '(');
        long off;
        if (!open)
            return fail(e, -EINVAL, "Dereference needs a brace", word, offs);
        *open = '\0';
        if (kstrtol(num, 0, &off))
            return fail(e, -EINVAL, "Invalid dereference offset", word, offs);
        offs += (unsigned)(open + 1 - num) + (num != arg ? 1 : 0);
        char *inner = open + 1;
        char *close = strrchr(inner, ')');
        if (!close)
            return fail(e, -EINVAL, "Dereference brace is not closed", word,
                        offs + (unsigned)strlen(inner));
        *close = '\0';
        err = parse_fetch(inner, a, flags, word, offs, e);
        if (err)
            return err;
        if (a->base == FETCH_COMM || a->base == FETCH_DATA)
            return fail(e, -EINVAL, "$comm can not be dereferenced", word, offs);
        if (a->nderef == PROBE_MAX_DEREF)
            return fail(e, -EINVAL, "Dereference is too much nested", word, offs);
        a->deref[a->nderef++] = off;
        found = true;
        break;
    }
    case '\\':
        if (arg[1] == '"') {
            size_t len = strlen(arg + 2);
            if (len == 0 || arg[2 + len - 1] != '"')
                return fail(e, -EINVAL, "String is not closed with '\"'", word,
                            offs + 2 + (unsigned)len);
            a->data = kmalloc(len);
            if (!a->data)
                return fail(e, -ENOMEM, NULL, word, offs);
            memcpy(a->data, arg + 2, len - 1);
            a->data[len - 1] = '\0';
            a->base = FETCH_DATA;
        } else {
            unsigned long v;
            long sv;
            if (kstrtoul(arg + 1, 0, &v) == 0) {
                a->param = v;
            } else if (kstrtol(arg + 1, 0, &sv) == 0) {
                a->param = (unsigned long)sv;
            } else {
                return fail(e, -EINVAL, "Invalid immediate value", word, offs + 1);
            }
            a->base = FETCH_IMM;
        }
        found = true;
        break;
    }
    if (!err && !found)
        return fail(e, -EINVAL, "Invalid fetch argument", word, offs);
    return err;
}

/* Linux's bitfield check: b<width>@<offset>/<size>, fitting the container. */
static int parse_bitfield(const char *t, struct probe_arg *a)
{
    char *tail;
    unsigned long width = strtoul(t + 1, &tail, 0);
    if (width == 0 || *tail != '@')
        return -EINVAL;
    const char *at = tail + 1;
    unsigned long offset = strtoul(at, &tail, 0);
    if (tail == at || *tail != '/')
        return -EINVAL;
    unsigned bits = a->type->size * 8u;
    if (width + offset > bits)
        return -EINVAL;
    a->bitfield = true;
    a->bf_lshift = (uint8_t)(bits - (width + offset));
    a->bf_rshift = (uint8_t)(bits - width);
    return 0;
}

/* The part after NAME= (Linux's traceprobe_parse_probe_arg_body). */
static int parse_arg_body(char *body, struct probe_arg *a, size_t *size, unsigned flags,
                          unsigned word, unsigned offset, struct probe_error *e)
{
    size_t len = strlen(body);
    if (len > PROBE_MAX_ARGSTR)
        return fail(e, -EINVAL, "Argument expression is too long", word, offset);
    if (len == 0)
        return fail(e, -EINVAL, "No argument expression", word, offset);
    a->text = kstrdup(body);
    if (!a->text)
        return fail(e, -ENOMEM, NULL, word, offset);

    char *t = strchr(body, ':');
    if (t) {
        *t++ = '\0';
        char *open = strchr(t, '[');
        if (open) {
            *open++ = '\0';
            char *close = strchr(open, ']');
            unsigned long count;
            if (!close)
                return fail(e, -EINVAL, "Array is not closed", word,
                            offset + (unsigned)(open + strlen(open) - body));
            if (close[1] != '\0')
                return fail(e, -EINVAL, "Array has wrong suffix", word,
                            offset + (unsigned)(close + 1 - body));
            *close = '\0';
            if (kstrtoul(open, 0, &count) || count == 0)
                return fail(e, -EINVAL, "Invalid array size", word,
                            offset + (unsigned)(open - body));
            if (count > PROBE_MAX_ARRAY)
                return fail(e, -EINVAL, "Array number is too big", word,
                            offset + (unsigned)(open - body));
            a->count = (unsigned)count;
        }
    }
    unsigned type_pos = offset + (t ? (unsigned)(t - body) : 0);

    /* An event probe's arguments take the type they are given, these too (Linux 6.1). */
    bool string_only =
        !(flags & PARSE_EVENT) &&
        (strcmp(body, "$comm") == 0 || strcmp(body, "$COMM") == 0 || strncmp(body, "\\\"", 2) == 0);
    if (string_only) {
        /* $comm and an immediate string are strings, never arrays: refused without a
         * message, as Linux refuses them. */
        if (a->count || (t && strcmp(t, "string") != 0))
            return fail(e, -EINVAL, NULL, word, offset);
        a->type = probe_type_find("string");
    } else {
        a->type = probe_type_find(t);
    }
    if (!a->type)
        return fail(e, -EINVAL, "Unknown type is specified", word, type_pos);
    /* Counted as soon as the type is known: an argument past the limit is refused before
     * its expression is read, as Linux refuses it. */
    *size += probe_arg_size(a);
    if (*size > PROBE_MAX_ARGS_SIZE)
        return fail(e, -E2BIG, "Event too big (too many fields?)", word, offset);

    int err = parse_fetch(body, a, flags, word, offset, e);
    if (err)
        return err;

    bool deref = a->nderef > 0;
    if (probe_type_is_string(a->type)) {
        if (a->type->kind == PROBE_TYPE_SYMSTR) {
            if (!deref && a->base != FETCH_REG && a->base != FETCH_PROBE_IP &&
                a->base != FETCH_STACK && a->base != FETCH_RETVAL && a->base != FETCH_ARG &&
                a->base != FETCH_TP_ARG && a->base != FETCH_FIELD)
                return fail(e, -EINVAL, "Symbol String doesn't accept data/userdata", word,
                            type_pos);
        } else if (!deref && a->base != FETCH_IMM && a->base != FETCH_COMM &&
                   a->base != FETCH_DATA && a->base != FETCH_FIELD) {
            return fail(e, -EINVAL, "String accepts only memory argument", word, type_pos);
        }
        if (a->count && a->type->kind == PROBE_TYPE_SYMSTR)
            return fail(e, -EINVAL, "String accepts only memory argument", word, type_pos);
        /* A string is read from the address the expression computes (the last
         * dereference's target), an array of strings from the pointers stored there one
         * after the other (probe_fetch.c); symstr formats the value itself. */
        a->memory = a->type->kind == PROBE_TYPE_STRING && deref;
    } else {
        a->memory = deref;
    }
    if (t && t[0] == 'b' && parse_bitfield(t, a))
        return fail(e, -EINVAL, "Invalid bitfield", word, type_pos);
    if (a->count && !a->memory)
        return fail(e, -EINVAL, "String accepts only memory argument", word, type_pos);
    return 0;
}

static const char *const reserved_names[] = {
    "common_type", "common_flags", "common_preempt_count", "common_pid",
    "common_tgid", "__probe_ip",   "__probe_ret_ip",       "__probe_func",
};

static int parse_arg(const char *word_text, struct probe_arg *args, unsigned i, size_t *size,
                     unsigned flags, unsigned word, struct probe_error *e)
{
    struct probe_arg *a = &args[i];
    char *copy = kstrdup(word_text);
    if (!copy)
        return fail(e, -ENOMEM, NULL, word, 0);
    char *body = strchr(copy, '=');
    int err;
    if (body) {
        if (body - copy > PROBE_MAX_ARG_NAME) {
            err = fail(e, -EINVAL, "Argument name is too long", word, 0);
            goto out;
        }
        if (body == copy) {
            err = fail(e, -EINVAL, "Argument name is not specified", word, 0);
            goto out;
        }
        *body++ = '\0';
        a->name = kstrdup(copy);
    } else {
        char name[16];
        snprintf(name, sizeof(name), "arg%u", i + 1);
        a->name = kstrdup(name);
        body = copy;
    }
    if (!a->name) {
        err = fail(e, -ENOMEM, NULL, word, 0);
        goto out;
    }
    if (!good_name(a->name)) {
        err =
            fail(e, -EINVAL, "Argument name must follow the same rules as C identifiers", word, 0);
        goto out;
    }
    bool used = false;
    for (size_t k = 0; k < ARRAY_SIZE(reserved_names); k++)
        used |= strcmp(reserved_names[k], a->name) == 0;
    for (unsigned k = 0; k < i; k++)
        used |= strcmp(args[k].name, a->name) == 0;
    if (used) {
        err = fail(e, -EINVAL, "This argument name is already used", word, 0);
        goto out;
    }
    err = parse_arg_body(body, a, size, flags, word, (unsigned)(body - copy), e);
out:
    kfree(copy);
    return err;
}

void probe_args_free(struct probe_arg *args, unsigned nargs)
{
    if (!args)
        return;
    for (unsigned i = 0; i < nargs; i++) {
        kfree(args[i].name);
        kfree(args[i].text);
        kfree(args[i].symbol);
        kfree(args[i].data);
    }
    kfree(args);
}

void probe_cmd_free(struct probe_cmd *cmd)
{
    probe_args_free(cmd->args, cmd->nargs);
    cmd->args = NULL;
    cmd->nargs = 0;
}

/* ---- the line ---- */

static int parse_delete(const struct probe_words *w, struct probe_cmd *cmd, struct probe_error *e)
{
    const char *name = w->word[0] + 1;
    if (*name != ':')
        return fail(e, -EINVAL, NULL, 0, 0);
    cmd->is_delete = true;
    strcpy(cmd->group, "");
    /* Linux's dyn_event_release splits GRP/ off at a '/' only: "-:GRP.EVENT" (or "-:GRP.")
     * names an event with a '.', which none has. */
    if (!strchr(name + 1, '/') && strchr(name + 1, '.'))
        return fail(e, -ENOENT, NULL, 0, 0);
    return parse_event_name(name + 1, 2, cmd, e);
}

/* SYM[+|-OFFS][%return] or an address, in word 1. */
static int parse_place(const char *text, struct probe_cmd *cmd, unsigned *flags,
                       struct probe_error *e)
{
    unsigned long addr;
    if (kstrtoul(text, 0, &addr) == 0) {
        /* An address stays one (read back, named and removed as such, as Linux's). Linux
         * 6.1 sets its fetch flags only for a symbol: an address has no $argN, and as a
         * return probe no $retval, though its %ip is still where the call returned to. */
        if (cmd->is_return)
            *flags |= PARSE_EXIT;
        snprintf(cmd->symbol, sizeof(cmd->symbol), "0x%lx", addr);
        cmd->by_address = true;
        return 0;
    }
    if (strlen(text) >= sizeof(cmd->symbol))
        return fail(e, -EINVAL, "Invalid probed address or symbol", 1, 0);
    char sym[128];
    strcpy(sym, text);
    char *pct = strchr(sym, '%');
    if (pct) {
        if (strcmp(pct, "%return") != 0)
            return fail(e, -EINVAL, "Invalid probed address suffix", 1, (unsigned)(pct - sym));
        *pct = '\0';
        cmd->is_return = true;
    }
    long offset = 0;
    char *sign = strpbrk(sym, "+-");
    if (sign) {
        if (kstrtol(sign, 0, &offset) || offset < 0 || (unsigned long)offset > 0xffffffffUL)
            return fail(e, -EINVAL, "Invalid probed address or symbol", 1, 0);
        *sign = '\0';
    }
    strcpy(cmd->symbol, sym);
    cmd->offset = (unsigned long)offset;
    if (cmd->is_return)
        *flags |= PARSE_RETURN;
    bool known = sym_address(sym) != 0;
    if (known && offset == 0)
        *flags |= PARSE_FENTRY;
    /* An unknown symbol is reported when the probe is placed, as Linux does. */
    if (known && offset != 0 && cmd->is_return)
        return fail(e, -EINVAL, "Retprobe address must be an function entry", 1, 0);
    return 0;
}

/* Linux's sanitize_event_name: anything but a C identifier's characters is '_'. */
static void make_event_name(struct probe_cmd *cmd, const char *name)
{
    strlcpy(cmd->event, name, sizeof(cmd->event));
    for (char *p = cmd->event; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            *p = '_';
}

/* Points a $FIELD argument at its field: -ENOENT when the event has none of that name. */
static int resolve_field(struct probe_arg *a, const struct event_field *fields, size_t nfields)
{
    if (a->base != FETCH_FIELD)
        return 0;
    for (size_t k = 0; k < nfields; k++) {
        if (strcmp(fields[k].name, a->symbol) == 0) {
            a->field = &fields[k];
            return 0;
        }
    }
    if (strcmp(a->symbol, "comm") != 0 && strcmp(a->symbol, "COMM") != 0)
        return -ENOENT;
    /* No field of that name: the current task's name (as a number, its address). */
    a->base = FETCH_COMM;
    return 0;
}

/*
 * The fetch arguments: count words from word 2, laid out from offset at; an event probe's
 * $FIELDs are looked up in fields as each is parsed, as Linux does.
 */
static int parse_args(const struct probe_words *w, unsigned count, struct probe_cmd *cmd,
                      unsigned flags, size_t at, const struct event_field *fields, size_t nfields,
                      struct probe_error *e)
{
    if (count > PROBE_MAX_ARGS)
        return fail(e, -E2BIG, "Too many arguments are specified", 2, 0);
    cmd->nargs = count;
    if (cmd->nargs) {
        cmd->args = kzalloc(cmd->nargs * sizeof(*cmd->args));
        if (!cmd->args) {
            cmd->nargs = 0;
            return fail(e, -ENOMEM, NULL, 0, 0);
        }
    }
    size_t size = 0;
    for (unsigned i = 0; i < cmd->nargs; i++) {
        int err = parse_arg(w->word[2 + i], cmd->args, i, &size, flags, 2 + i, e);
        if (!err && (flags & PARSE_EVENT)) {
            err = resolve_field(&cmd->args[i], fields, nfields);
            if (err)
                fail(e, err, "Attached event does not have this field", 2 + i, 0);
        }
        if (err) {
            probe_cmd_free(cmd);
            return err;
        }
        cmd->args[i].offset = (uint16_t)at;
        at += probe_arg_size(&cmd->args[i]);
    }
    return 0;
}

/* [MAXACTIVE] between the letter and ':' (or the end of word 0), as Linux reads it. */
static int parse_maxactive(const char *w0, const char *event, struct probe_cmd *cmd,
                           struct probe_error *e)
{
    size_t len = event ? (size_t)(event - (w0 + 1) - 1) : strlen(w0 + 1);
    char num[PROBE_MAX_EVENT_NAME];
    unsigned long maxactive;
    if (len > PROBE_MAX_EVENT_NAME - 1)
        return fail(e, -EINVAL, "Invalid maxactive number", 0, 1);
    memcpy(num, w0 + 1, len);
    num[len] = '\0';
    if (kstrtoul(num, 0, &maxactive) || maxactive == 0 || maxactive > 0xffffffffUL)
        return fail(e, -EINVAL, "Invalid maxactive number", 0, 1);
    if (maxactive > PROBE_MAX_MAXACTIVE)
        return fail(e, -EINVAL, "Maxactive is too big", 0, 1);
    cmd->maxactive = (unsigned)maxactive;
    return 0;
}

/* The first argument word (from word 2) that reads $retval, and where in it. */
static bool find_retval(const struct probe_words *w, unsigned *word, unsigned *pos)
{
    for (unsigned i = 2; i < w->count && i < PROBE_MAX_WORDS; i++) {
        const char *rv = strstr(w->word[i], "$retval");
        if (rv && !isalnum((unsigned char)rv[7]) && rv[7] != '_') {
            *word = i;
            *pos = (unsigned)(rv - w->word[i]);
            return true;
        }
    }
    return false;
}

/*
 * An fprobe's place: SYM[%return], a function's name (looked up when the probe is placed);
 * like Linux 6.5, an argument that reads $retval makes it an exit probe too.
 */
static int parse_fprobe_place(const struct probe_words *w, struct probe_cmd *cmd,
                              struct probe_error *e)
{
    const char *text = w->word[1];
    const char *pct = strchr(text, '%');
    size_t len = pct ? (size_t)(pct - text) : strlen(text);
    if (pct) {
        if (strcmp(pct, "%return") != 0)
            return fail(e, -EINVAL, "Invalid probed address suffix", 1, (unsigned)len);
        cmd->is_return = true;
    }
    if (len >= sizeof(cmd->symbol))
        return fail(e, -EINVAL, "Failed to register probe event", 1, 0);
    memcpy(cmd->symbol, text, len);
    cmd->symbol[len] = '\0';
    unsigned word, pos;
    if (!cmd->is_return && find_retval(w, &word, &pos))
        cmd->is_return = true;
    return 0;
}

typedef int (*probe_place_fn)(const struct probe_words *w, struct probe_cmd *cmd,
                              struct probe_error *e);

/*
 * The head of an f or t line, in Linux's order of checks: [MAXACTIVE], the place (whatever
 * place checks), a maxactive for anything but an exit, then [:[GRP/][EVENT]].
 */
static int parse_fprobe_head(const struct probe_words *w, struct probe_cmd *cmd,
                             probe_place_fn place, struct probe_error *e)
{
    const char *w0 = w->word[0];
    const char *event = strchr(w0 + 1, ':');
    if (event)
        event++;
    int err = 0;
    if (isdigit((unsigned char)w0[1]))
        err = parse_maxactive(w0, event, cmd, e);
    if (!err)
        err = place(w, cmd, e);
    if (!err && cmd->maxactive && !cmd->is_return)
        err = fail(e, -EINVAL, "Maxactive is only for function exit", 0, 1);
    if (!err && event)
        err = parse_event_name(event, (unsigned)(event - w0), cmd, e);
    return err;
}

static int parse_fprobe(const struct probe_words *w, struct probe_cmd *cmd, struct probe_error *e)
{
    cmd->kind = 'f';
    strcpy(cmd->group, "fprobes");
    int err = parse_fprobe_head(w, cmd, parse_fprobe_place, e);
    if (err)
        return err;
    if (!cmd->event[0]) {
        char name[PROBE_MAX_EVENT_NAME + 1];
        snprintf(name, sizeof(name), "%s__%s", cmd->symbol, cmd->is_return ? "exit" : "entry");
        make_event_name(cmd, name);
    }
    unsigned flags = PARSE_FPROBE | (cmd->is_return ? PARSE_RETURN : PARSE_FENTRY);
    return parse_args(w, w->count - 2, cmd, flags, cmd->is_return ? 24 : 16, NULL, 0, e);
}

/*
 * A tracepoint probe's place: the tracepoint's name, which takes no suffix and no character
 * a C identifier has not (Linux checks it since 6.14); an argument that reads $retval is
 * refused where it is (Linux looks for it before anything else).
 */
static int parse_tprobe_place(const struct probe_words *w, struct probe_cmd *cmd,
                              struct probe_error *e)
{
    const char *text = w->word[1];
    const char *pct = strchr(text, '%');
    if (pct)
        return fail(e, -EINVAL, "Invalid probed address suffix", 1, (unsigned)(pct - text));
    for (const char *c = text; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return fail(e, -EINVAL, "Invalid character in tracepoint name", 1,
                        (unsigned)(c - text));
    /* Longer than any name: no tracepoint has it. */
    if (strlen(text) >= sizeof(cmd->symbol))
        return fail(e, -EINVAL, "Tracepoint is not found", 1, 0);
    strcpy(cmd->symbol, text);
    unsigned word, pos;
    if (find_retval(w, &word, &pos))
        return fail(e, -EINVAL, "$retval is not available on probe", word, pos);
    return 0;
}

/* `t[:[GRP/][EVENT]] TRACEPOINT [ARGS]`, in Linux 6.10's order of checks. */
static int parse_tprobe(const struct probe_words *w, struct probe_cmd *cmd, struct probe_error *e)
{
    cmd->kind = 't';
    strcpy(cmd->group, "tracepoints");
    int err = parse_fprobe_head(w, cmd, parse_tprobe_place, e);
    if (err)
        return err;
    if (!cmd->event[0]) {
        /* The tracepoint's name; one that starts with a digit gets a '_' first, as Linux's. */
        char name[PROBE_MAX_EVENT_NAME + 1];
        snprintf(name, sizeof(name), "%s%s", isdigit((unsigned char)cmd->symbol[0]) ? "_" : "",
                 cmd->symbol);
        make_event_name(cmd, name);
    }
    cmd->tracepoint = trace_event_find_tracepoint(cmd->symbol);
    if (!cmd->tracepoint)
        return fail(e, -EINVAL, "Tracepoint is not found", 1, 0);
    unsigned flags = PARSE_FPROBE | PARSE_FENTRY | PARSE_TPOINT |
                     (unsigned)cmd->tracepoint->tp_nargs << PARSE_TP_NARGS_SHIFT;
    return parse_args(w, w->count - 2, cmd, flags, 16, NULL, 0, e);
}

int probe_parse(const struct probe_words *w, struct probe_cmd *cmd, struct probe_error *e)
{
    memset(cmd, 0, sizeof(*cmd));
    memset(e, 0, sizeof(*e));
    if (w->count == 0)
        return -ECANCELED;
    const char *w0 = w->word[0];
    if (w0[0] == '-')
        return parse_delete(w, cmd, e);
    if (w0[0] != 'p' && w0[0] != 'r' && w0[0] != 'f' && w0[0] != 't')
        return -ECANCELED;
    if (w->count < 2)
        return -ECANCELED;
    if (w0[0] == 'f')
        return parse_fprobe(w, cmd, e);
    if (w0[0] == 't')
        return parse_tprobe(w, cmd, e);
    cmd->kind = 'p';
    cmd->is_return = w0[0] == 'r';
    strcpy(cmd->group, "kprobes");

    const char *event = strchr(w0 + 1, ':');
    if (event)
        event++;
    if (isdigit((unsigned char)w0[1])) {
        if (!cmd->is_return)
            return fail(e, -EINVAL, "Maxactive is not for kprobe", 0, 1);
        int err = parse_maxactive(w0, event, cmd, e);
        if (err)
            return err;
    } else if (w0[1] && w0[1] != ':') {
        return -ECANCELED;
    }

    unsigned flags = 0;
    int err = parse_place(w->word[1], cmd, &flags, e);
    if (err)
        return err;

    if (event) {
        err = parse_event_name(event, (unsigned)(event - w0), cmd, e);
        if (err)
            return err;
    }
    if (!cmd->event[0]) {
        char name[PROBE_MAX_EVENT_NAME + 1];
        if (cmd->by_address)
            snprintf(name, sizeof(name), "%c_%s", cmd->is_return ? 'r' : 'p', cmd->symbol);
        else
            snprintf(name, sizeof(name), "%c_%s_%lu", cmd->is_return ? 'r' : 'p', cmd->symbol,
                     cmd->offset);
        make_event_name(cmd, name);
    }
    return parse_args(w, w->count - 2, cmd, flags, cmd->is_return ? 24 : 16, NULL, 0, e);
}

void probe_log_error(const struct probe_words *w, const struct probe_error *e, const char *location)
{
    char command[256];
    probe_words_join(w, command, sizeof(command));
    unsigned pos = probe_words_pos(w, e->word) + e->pos;
    if (e->before)
        trace_error_log(location, e->before, command, pos);
    trace_error_log(location, e->message, command, pos);
}

int probe_parse_eprobe(const struct probe_words *w, struct probe_cmd *cmd, struct probe_error *e,
                       const char *location)
{
    memset(cmd, 0, sizeof(*cmd));
    memset(e, 0, sizeof(*e));
    const char *w0 = w->word[0];
    if (w->count < 2 || w0[0] != 'e')
        return -ECANCELED;
    cmd->kind = 'e';
    strcpy(cmd->group, "eprobes");
    /* As Linux: whatever is between the 'e' and the ':' is ignored. */
    const char *event = strchr(w0 + 1, ':');
    int err = 0;
    if (event) {
        event++;
        err = parse_event_name(event, (unsigned)(event - w0), cmd, e);
    }
    if (err) {
        probe_log_error(w, e, location);
        e->message = NULL;
        return err;
    }
    err = parse_group_event(w->word[1], 1, 0, cmd->attach_system, cmd->attach_event, e);
    if (err)
        probe_log_error(w, e, location);
    if (err || !cmd->attach_system[0] || !cmd->attach_event[0]) {
        /* Linux logs this after whatever the name's own check said. */
        fail(e, -EINVAL, "This requires both group and event name to attach", 1, 0);
        probe_log_error(w, e, location);
        e->message = NULL;
        return -EINVAL;
    }
    if (!cmd->event[0])
        strcpy(cmd->event, cmd->attach_event);
    /* More words than a probe's arguments, its filter included: the words split stop. */
    if (w->count > PROBE_MAX_WORDS) {
        fail(e, -E2BIG, "Too many arguments are specified", 2, 0);
        probe_log_error(w, e, location);
        e->message = NULL;
        return -E2BIG;
    }
    for (unsigned i = 2; i < w->count; i++) {
        if (strcmp(w->word[i], "if") == 0) {
            cmd->filter_word = i;
            break;
        }
    }
    if (cmd->filter_word && cmd->filter_word + 1 >= w->count) {
        fail(e, -EINVAL, "No filter rule after 'if'", w->count, 0);
        probe_log_error(w, e, location);
        e->message = NULL;
        return -EINVAL;
    }
    return 0;
}

int probe_parse_eprobe_args(const struct probe_words *w, struct probe_cmd *cmd,
                            const struct event_field *fields, size_t nfields, struct probe_error *e)
{
    unsigned count = cmd->filter_word ? cmd->filter_word - 2 : w->count - 2;
    return parse_args(w, count, cmd, PARSE_EVENT, 8, fields, nfields, e);
}

int probe_resolve_args(struct probe_arg *args, unsigned nargs)
{
    for (unsigned i = 0; i < nargs; i++) {
        struct probe_arg *a = &args[i];
        if (a->base != FETCH_SYMBOL)
            continue;
        char name[128];
        long off = 0;
        strlcpy(name, a->symbol, sizeof(name));
        char *sign = strpbrk(name, "+-");
        if (sign) {
            if (kstrtol(sign, 0, &off))
                return -ENOENT;
            *sign = '\0';
        }
        uintptr_t addr = sym_data_address(name);
        if (!addr)
            addr = sym_address(name);
        if (!addr)
            return -ENOENT;
        a->param = addr + (unsigned long)off;
    }
    return 0;
}
