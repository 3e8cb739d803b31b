/*
 * Hist triggers, as Linux 6.1's:
 *
 *   hist:keys=K1[,K2,K3][:vals=V1[,V2]][:sort=S1[.descending][,S2]][:size=N][:name=NAME]
 *       [:clock=CLOCK][:pause|:continue|:clear] [if FILTER]
 *
 * Each event the trigger's filter lets through adds one hit, and the values, to the entry
 * of its key in a tracing_map made when the trigger is; the event's `hist` file prints the
 * table sorted, in Linux's text. A key or value is any field of the event (common ones
 * too), common_timestamp, common_cpu; `stacktrace` is a key of the kernel stack. Modifiers:
 * .hex .sym .sym-offset .execname .log2 .buckets=N .usecs. Triggers with the same name share
 * one table (on one event or several).
 *
 * Variables: NAME=EXPR sets NAME in the entry of the event's key, EXPR being a field,
 * common_timestamp[.usecs], a number, $VAR (a variable of this trigger, or of another
 * event's trigger, read in the entry of the same key and used once) or those joined by
 * + - * /. An event whose $references are not all set adds nothing. The action
 * onmatch(SYS.EVENT).SYNTH(PARAMS) (or .trace(SYNTH,PARAMS)) then writes the synthetic
 * event SYNTH with PARAMS ($variables or fields of the event): the wakeup latency of
 * Documentation/trace/histogram.rst.
 *
 * onmax($VAR) and onchange($VAR) keep, per entry, the largest (or last changed) value of a
 * variable with .save(FIELDS) of the event that set it, shown under the entry, or write a
 * synthetic event then (.SYNTH(PARAMS)), or take a snapshot (.snapshot()) when the value
 * is also the largest (or a change) across every entry: the trigger owns the conditional
 * snapshot (trace_snapshot.c) while it is in, and its hist file says which value and key
 * made the last swap.
 */
#include <arch/cpu.h>
#include <arch/unwind.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/spinlock.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>
#include <lib/ctype.h>
#include <lib/printf.h>
#include <lib/sort.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "events/event_filter.h"
#include "hist_trigger.h"
#include "synth_events.h"
#include "trace_hot.h"
#include "trace_internal.h"
#include "tracing_map.h"

/* Linux's TRACING_MAP_KEYS_MAX, TRACING_MAP_VALS_MAX (hitcount included) and
 * TRACING_MAP_SORT_KEYS_MAX. */
#define HIST_KEYS_MAX 3
#define HIST_VALS_MAX 3
#define HIST_SORT_MAX 2
#define HIST_STACK_DEPTH 16 /* Linux's HIST_STACKTRACE_DEPTH */
#define HIST_STRING_MAX 128 /* room for a __data_loc string key, its NUL included */
#define HIST_KEY_MAX (HIST_KEYS_MAX * HIST_STRING_MAX)
#define HIST_COMM_LEN 16
#define HIST_VARS_MAX 16 /* Linux's TRACING_MAP_VARS_MAX */
#define HIST_REFS_MAX 16
#define HIST_EXPR_NODES 8
#define HIST_ACTIONS_MAX 4
#define HIST_PARAMS_MAX 16
#define HIST_STRING_PARAMS_MAX 4 /* strings an action copies, each up to: */
#define HIST_STRING_PARAM_LEN 64

enum hist_field_flag {
    HIST_FL_HEX = 1 << 0,
    HIST_FL_SYM = 1 << 1,
    HIST_FL_SYM_OFFSET = 1 << 2,
    HIST_FL_EXECNAME = 1 << 3,
    HIST_FL_LOG2 = 1 << 4,
    HIST_FL_BUCKETS = 1 << 5,
    HIST_FL_USECS = 1 << 6,
    HIST_FL_TIMESTAMP = 1 << 7,
    HIST_FL_CPU = 1 << 8,
    HIST_FL_HITCOUNT = 1 << 9,
    HIST_FL_STACKTRACE = 1 << 10,
    HIST_FL_STRING = 1 << 11,
};

struct hist_field {
    const struct event_field *field; /* NULL for the special ones (flags say which) */
    unsigned flags;
    unsigned long buckets;
    unsigned offset, size; /* of a key, in the compound key */
};

/* An expression, as a small tree of nodes; node 0 is the root. */
enum hist_expr_op {
    HIST_EXPR_FIELD,
    HIST_EXPR_CONST,
    HIST_EXPR_VAR, /* one of this trigger's variables, set earlier in the same event */
    HIST_EXPR_REF, /* another trigger's variable */
    HIST_EXPR_ADD,
    HIST_EXPR_SUB,
    HIST_EXPR_MUL,
    HIST_EXPR_DIV,
};

struct hist_expr {
    uint8_t op, a, b;
    unsigned idx;
    uint64_t constant;
    struct hist_field field;
};

struct hist_var {
    char *name, *text;
    struct hist_expr nodes[HIST_EXPR_NODES];
    unsigned n_nodes, root;
};

struct hist_ref {
    char *name;
    struct hist_trigger *owner; /* found when the trigger goes in */
    unsigned var;
};

/* onmatch(SYS.EVENT).SYNTH(PARAMS): each param a variable, a reference or a field. */
enum hist_handler { HIST_ON_MATCH, HIST_ON_MAX, HIST_ON_CHANGE };

/*
 * onmatch(SYS.EVENT).SYNTH(PARAMS), onmax($VAR) or onchange($VAR) with .save(FIELDS) or
 * .SYNTH(PARAMS): each param a variable, a reference or a field. onmax and onchange keep,
 * in the entry, the value tracked (sums slot `slot`) and what save() saved after it (the
 * numbers in the slots that follow, the strings in the entry's private data).
 */
struct hist_action {
    uint8_t handler;
    bool save;
    bool snapshot;
    unsigned track_var; /* onmax/onchange: the variable's index */
    unsigned slot;
    char *synth_name;
    struct synth_event *se;
    unsigned n_params;
    struct hist_expr params[HIST_PARAMS_MAX];
    unsigned string_at[HIST_PARAMS_MAX]; /* save(): a string's place in the private data */
};

/*
 * What .snapshot() last swapped for, across every entry: the value, and the key (and the
 * execname, for a key that prints one) of the event whose value it was. Written by the
 * conditional snapshot's update test only, which runs under that snapshot's lock.
 */
struct hist_snapshot {
    bool updated;
    uint64_t value;
    uint64_t key[HIST_KEY_MAX / 8];
    char comm[HIST_COMM_LEN];
};

/*
 * One event's new maximum (or change) of an entry, offered to the conditional snapshot's
 * test once the event is committed: kept per CPU meanwhile (an event of an interrupt in
 * between keeps the better of the two, and its commit makes the offer).
 */
struct hist_snapshot_offer {
    struct hist_trigger *h; /* NULL: none */
    const struct hist_action *a;
    uint64_t value;
    uint64_t key[HIST_KEY_MAX / 8];
    char comm[HIST_COMM_LEN];
    bool has_comm;
};
static struct hist_snapshot_offer hist_offers[MAX_CPUS];

/* The table, shared by the triggers of one name. */
struct hist_table {
    struct tracing_map *map;
    char *name;  /* NULL: this trigger's own */
    char *match; /* what every trigger of the name must have in common */
    unsigned refs;
    struct hist_table *next;
};

struct hist_trigger {
    const struct trace_event_call *call;
    struct trace_array *tr; /* whose trigger: its .snapshot() swaps that array's buffers */
    struct hist_field keys[HIST_KEYS_MAX];
    struct hist_field vals[HIST_VALS_MAX]; /* vals[0]: hitcount */
    unsigned n_keys, n_vals;
    /* Linux's numbering of fields: the values first, then the keys. */
    struct {
        unsigned idx;
        bool descending;
    } sort[HIST_SORT_MAX];
    unsigned n_sort;
    unsigned bits, key_size, attrs;
    bool timestamps;
    bool has_execname;
    char *clock;
    char *name;  /* name=: triggers of one name share a table */
    char *match; /* keys, values and sort, as the trigger file prints them */
    struct hist_table *table;
    volatile bool paused;
    bool quick; /* hist_is_quick: keys and values that are only integer fields */
    struct hist_var vars[HIST_VARS_MAX];
    struct hist_ref refs[HIST_REFS_MAX];
    struct hist_action actions[HIST_ACTIONS_MAX];
    unsigned n_vars, n_refs, n_actions;
    char *actions_text; /* ":onmatch(...)..." as written, for the read-back */
    unsigned var_users; /* triggers whose references read our variables */
    unsigned n_slots;   /* sums, variables, then onmax/onchange's tracking */
    unsigned n_saved_strings;
    bool var_owner;             /* listed in hist_var_owners */
    struct hist_snapshot *snap; /* .snapshot(): set while it owns the conditional snapshot */
};

/* Named tables; changed only from process context, under the lock. */
static DEFINE_SPINLOCK(hist_named_lock);
static struct hist_table *hist_named;
/* Triggers that went in with variables, for $references; under hist_named_lock. */
#define HIST_VAR_OWNERS_MAX 64
static struct hist_trigger *hist_var_owners[HIST_VAR_OWNERS_MAX];

/* ---- error_log ---- */

/* Linux's err_pos: where str first appears in the command, or 0. */
static unsigned hist_errpos(const char *command, const char *str)
{
    const char *found = str && *str ? strstr(command, str) : NULL;
    return found ? (unsigned)(found - command) : 0;
}

static int hist_err(const struct hist_trigger *h, const char *command, const char *message,
                    unsigned pos)
{
    char location[128];
    snprintf(location, sizeof(location), "hist:%s:%s", h->call->system, h->call->name);
    trace_error_log(location, message, command, pos);
    return -EINVAL;
}

/* ---- fields ---- */

static const struct event_field *hist_find_field(const struct trace_event_call *call,
                                                 const char *name)
{
    for (size_t i = 0; i < call->nfields; i++)
        if (strcmp(call->fields[i].name, name) == 0)
            return &call->fields[i];
    for (size_t i = 0; i < EVENT_COMMON_FIELDS; i++)
        if (strcmp(event_common_fields[i].name, name) == 0)
            return &event_common_fields[i];
    return NULL;
}

static const char *hist_field_name(const struct hist_field *f)
{
    if (f->field)
        return f->field->name;
    if (f->flags & HIST_FL_TIMESTAMP)
        return "common_timestamp";
    if (f->flags & HIST_FL_CPU)
        return "common_cpu";
    if (f->flags & HIST_FL_STACKTRACE)
        return "stacktrace";
    return "hitcount";
}

/* Linux's get_hist_field_flags: the one modifier the read-back shows. */
static const char *hist_field_modifier(const struct hist_field *f)
{
    static const struct {
        unsigned flag;
        const char *name;
    } names[] = {
        {HIST_FL_HEX, "hex"},           {HIST_FL_SYM, "sym"},   {HIST_FL_SYM_OFFSET, "sym-offset"},
        {HIST_FL_EXECNAME, "execname"}, {HIST_FL_LOG2, "log2"}, {HIST_FL_BUCKETS, "buckets"},
        {HIST_FL_USECS, "usecs"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (f->flags & names[i].flag)
            return names[i].name;
    return NULL;
}

static void hist_field_print(struct seqbuf *s, const struct hist_field *f)
{
    seq_puts(s, hist_field_name(f));
    const char *modifier = hist_field_modifier(f);
    if (modifier)
        seq_printf(s, ".%s", modifier);
    if (f->flags & HIST_FL_BUCKETS)
        seq_printf(s, "=%lu", f->buckets);
}

/*
 * "name[.modifier]", as Linux's parse_field: the modifier first (an unknown one is "Invalid
 * field modifier"), then the name among the specials and the event's fields.
 */
static int hist_parse_field(struct hist_trigger *h, const char *command, char *text,
                            struct hist_field *out)
{
    char *modifier = text;
    char *name = strsep(&modifier, ".");
    memset(out, 0, sizeof(*out));
    if (modifier) {
        unsigned long buckets;
        if (strcmp(modifier, "hex") == 0)
            out->flags |= HIST_FL_HEX;
        else if (strcmp(modifier, "sym") == 0)
            out->flags |= HIST_FL_SYM;
        else if (strcmp(modifier, "sym-offset") == 0)
            out->flags |= HIST_FL_SYM_OFFSET;
        else if (strcmp(modifier, "execname") == 0)
            out->flags |= HIST_FL_EXECNAME;
        else if (strcmp(modifier, "log2") == 0)
            out->flags |= HIST_FL_LOG2;
        else if (strcmp(modifier, "usecs") == 0)
            out->flags |= HIST_FL_USECS;
        else if (strncmp(modifier, "bucket", 6) == 0) {
            char *n = modifier + 6;
            if (*n == 's')
                n++;
            if (*n != '=')
                return hist_err(h, command, "Invalid field modifier",
                                hist_errpos(command, modifier));
            if (kstrtoul(n + 1, 0, &buckets) || !buckets)
                return hist_err(h, command, "Invalid field modifier", hist_errpos(command, n + 1));
            out->flags |= HIST_FL_BUCKETS;
            out->buckets = buckets;
        } else {
            return hist_err(h, command, "Invalid field modifier", hist_errpos(command, modifier));
        }
    }
    if (strcmp(name, "common_timestamp") == 0) {
        out->flags |= HIST_FL_TIMESTAMP;
        h->timestamps = true;
        return 0;
    }
    if (strcmp(name, "common_cpu") == 0) {
        out->flags |= HIST_FL_CPU;
        return 0;
    }
    if (strcmp(name, "hitcount") == 0) {
        out->flags |= HIST_FL_HITCOUNT;
        return 0;
    }
    out->field = hist_find_field(h->call, name);
    if (!out->field && strcmp(name, "cpu") == 0) {
        out->flags |= HIST_FL_CPU;
        return 0;
    }
    /* As Linux: a field of no size (print's buf[]) is no field for a histogram. */
    if (!out->field || !out->field->size)
        return hist_err(h, command, "Couldn't find field", hist_errpos(command, name));
    if (out->field->kind == EVENT_FIELD_ARRAY)
        return -EINVAL;
    if (out->field->kind != EVENT_FIELD_INT)
        out->flags |= HIST_FL_STRING;
    return 0;
}

/* Variables, expressions and references are not built: refuse what would need them. */
static bool hist_is_expression(const char *text)
{
    size_t len = strlen(text), tail = sizeof(".sym-offset") - 1;
    if (len > tail && strcmp(text + len - tail, ".sym-offset") == 0)
        len -= tail;
    for (size_t i = 0; i < len; i++)
        if (strchr("$+-*/()", text[i]))
            return true;
    return false;
}

/* ---- expressions ---- */

struct hist_expr_parse {
    struct hist_trigger *h;
    const char *command;
    const char *p;
    struct hist_expr *nodes;
    unsigned n, max;
    int err;
    bool param; /* an action's parameter: a string field is one too */
};

static int hist_expr_node(struct hist_expr_parse *ps)
{
    if (ps->n == ps->max) {
        ps->err = hist_err(ps->h, ps->command, "Too many subexpressions (3 max)", 0);
        return -1;
    }
    memset(&ps->nodes[ps->n], 0, sizeof(ps->nodes[0]));
    return (int)ps->n++;
}

/* A variable of this trigger by name, or of another trigger (a reference, added). */
static int hist_expr_name(struct hist_expr_parse *ps, const char *name, struct hist_expr *e)
{
    struct hist_trigger *h = ps->h;
    for (unsigned i = 0; i < h->n_vars; i++)
        if (h->vars[i].name && strcmp(h->vars[i].name, name) == 0) {
            e->op = HIST_EXPR_VAR;
            e->idx = i;
            return 0;
        }
    for (unsigned i = 0; i < h->n_refs; i++)
        if (strcmp(h->refs[i].name, name) == 0) {
            e->op = HIST_EXPR_REF;
            e->idx = i;
            return 0;
        }
    if (h->n_refs == HIST_REFS_MAX || !(h->refs[h->n_refs].name = kstrdup(name)))
        return ps->err = -ENOMEM;
    e->op = HIST_EXPR_REF;
    e->idx = h->n_refs++;
    return 0;
}

static int hist_expr_atom(struct hist_expr_parse *ps)
{
    while (*ps->p == ' ')
        ps->p++;
    const char *start = ps->p;
    bool ref = *start == '$';
    if (ref)
        start++;
    const char *end = start;
    while (isalnum((unsigned char)*end) || *end == '_' || *end == '.' || *end == '=')
        end++;
    /* .sym-offset: its '-' is no minus. */
    if (end - start >= 4 && strncmp(end - 4, ".sym", 4) == 0 && strncmp(end, "-offset", 7) == 0)
        end += 7;
    char token[64];
    if (end == start || (size_t)(end - start) >= sizeof(token)) {
        ps->err = -EINVAL;
        return -1;
    }
    memcpy(token, start, end - start);
    token[end - start] = '\0';
    ps->p = end;
    int n = hist_expr_node(ps);
    if (n < 0)
        return -1;
    struct hist_expr *e = &ps->nodes[n];
    unsigned long number;
    if (ref) {
        if (hist_expr_name(ps, token, e))
            return -1;
    } else if (isdigit((unsigned char)token[0])) {
        if (kstrtoul(token, 0, &number)) {
            ps->err = hist_err(ps->h, ps->command, "Expecting numeric literal",
                               hist_errpos(ps->command, token));
            return -1;
        }
        e->op = HIST_EXPR_CONST;
        e->constant = number;
    } else {
        int err = hist_parse_field(ps->h, ps->command, token, &e->field);
        if (!err && (e->field.flags & HIST_FL_HITCOUNT))
            err = -EINVAL;
        if (!err && !ps->param && (e->field.flags & HIST_FL_STRING))
            err = hist_err(ps->h, ps->command, "String type can not be an operand in expression",
                           hist_errpos(ps->command, token));
        if (err) {
            ps->err = err;
            return -1;
        }
        e->op = HIST_EXPR_FIELD;
    }
    return n;
}

static int hist_expr_binary(struct hist_expr_parse *ps, const char *ops,
                            int (*operand)(struct hist_expr_parse *ps))
{
    int left = operand(ps);
    while (left >= 0) {
        while (*ps->p == ' ')
            ps->p++;
        if (!*ps->p || !strchr(ops, *ps->p))
            break;
        char op = *ps->p++;
        int right = operand(ps);
        if (right < 0)
            return -1;
        int n = hist_expr_node(ps);
        if (n < 0)
            return -1;
        struct hist_expr *e = &ps->nodes[n];
        e->op = op == '+'   ? HIST_EXPR_ADD
                : op == '-' ? HIST_EXPR_SUB
                : op == '*' ? HIST_EXPR_MUL
                            : HIST_EXPR_DIV;
        e->a = (uint8_t)left;
        e->b = (uint8_t)right;
        left = n;
    }
    return left;
}

static int hist_expr_term(struct hist_expr_parse *ps)
{
    return hist_expr_binary(ps, "*/", hist_expr_atom);
}

/* text into nodes; returns the root's index, or -errno. */
static int hist_expr_parse(struct hist_trigger *h, const char *command, const char *text,
                           struct hist_expr *nodes, unsigned max, unsigned *count)
{
    /* One node: an action's parameter, which may be a string field. */
    struct hist_expr_parse ps = {h, command, text, nodes, 0, max, 0, max == 1};
    int root = hist_expr_binary(&ps, "+-", hist_expr_term);
    if (root >= 0 && *ps.p)
        ps.err = -EINVAL;
    *count = ps.n;
    if (ps.err || root < 0)
        return ps.err ? ps.err : -EINVAL;
    return root;
}

/* NAME=EXPR. */
static int hist_parse_variable(struct hist_trigger *h, const char *command, const char *name,
                               const char *expr)
{
    if (h->n_vars == HIST_VARS_MAX)
        return hist_err(h, command, "Too many variables defined", hist_errpos(command, name));
    for (unsigned i = 0; i < h->n_vars; i++)
        if (strcmp(h->vars[i].name, name) == 0)
            return hist_err(h, command, "Variable already defined", hist_errpos(command, name));
    struct hist_var *v = &h->vars[h->n_vars];
    int root = hist_expr_parse(h, command, expr, v->nodes, HIST_EXPR_NODES, &v->n_nodes);
    if (root < 0)
        return root;
    v->root = (unsigned)root;
    v->name = kstrdup(name);
    v->text = kstrdup(expr);
    h->n_vars++;
    return v->name && v->text ? 0 : -ENOMEM;
}

/* ---- actions ---- */

/* onmatch(SYS.EVENT).SYNTH(P1,P2,...) or onmatch(SYS.EVENT).trace(SYNTH,P1,...). */
/* onmax($VAR).save(FIELD,...): the fields of this event, saved with each new maximum. */
static int hist_parse_save(struct hist_trigger *h, const char *command, struct hist_action *a,
                           char *params)
{
    a->save = true;
    while (params) {
        char *param = strsep(&params, ",");
        while (*param == ' ')
            param++;
        if (a->n_params == HIST_PARAMS_MAX)
            return hist_err(h, command, "Too many action params", 0);
        if (strlen(param) < 2)
            return hist_err(h, command, "Invalid action param", hist_errpos(command, param));
        struct hist_expr *e = &a->params[a->n_params];
        memset(e, 0, sizeof(*e));
        int err = hist_parse_field(h, command, param, &e->field);
        if (err)
            return err;
        if (!e->field.field)
            return hist_err(h, command, "Couldn't find param", hist_errpos(command, param));
        e->op = HIST_EXPR_FIELD;
        if (e->field.flags & HIST_FL_STRING) {
            if (h->n_saved_strings == HIST_STRING_PARAMS_MAX)
                return hist_err(h, command, "Too many action params", 0);
            a->string_at[a->n_params] =
                HIST_COMM_LEN + HIST_STRING_PARAM_LEN * h->n_saved_strings++;
        }
        a->n_params++;
    }
    if (!a->n_params)
        return hist_err(h, command, "No params found for save()", 0);
    return 0;
}

static int hist_parse_action(struct hist_trigger *h, const char *command, char *text)
{
    if (h->n_actions == HIST_ACTIONS_MAX)
        return -EINVAL;
    struct hist_action *a = &h->actions[h->n_actions];
    char *p;
    if (strncmp(text, "onmatch(", 8) == 0) {
        a->handler = HIST_ON_MATCH;
        p = text + 8;
        char *event = strsep(&p, ")");
        if (!p)
            return hist_err(h, command, "No closing paren found", hist_errpos(command, event));
        char *system = strsep(&event, ".");
        if (!event)
            return hist_err(h, command, "Missing subsystem", hist_errpos(command, system));
        if (!trace_event_find(system, event))
            return hist_err(h, command, "Invalid subsystem or event name",
                            hist_errpos(command, event));
    } else {
        /* onmax($VAR) or onchange($VAR): VAR a variable of this trigger. */
        a->handler = strncmp(text, "onmax(", 6) == 0 ? HIST_ON_MAX : HIST_ON_CHANGE;
        p = text + (a->handler == HIST_ON_MAX ? 6 : 9);
        char *var = strsep(&p, ")");
        if (!p)
            return hist_err(h, command, "No closing paren found", hist_errpos(command, var));
        if (var[0] != '$')
            return hist_err(h, command, "For onmax(x) or onchange(x), x must be a variable",
                            hist_errpos(command, var));
        unsigned v = 0;
        while (v < h->n_vars && strcmp(h->vars[v].name, var + 1) != 0)
            v++;
        if (v == h->n_vars)
            return hist_err(h, command, "Couldn't find onmax or onchange variable",
                            hist_errpos(command, var + 1));
        a->track_var = v;
    }
    if (*p != '.')
        return hist_err(h, command, "No action found", 0);
    p++;
    char *action = strsep(&p, "(");
    if (!p)
        return hist_err(h, command, "No action found", 0);
    char *params = strsep(&p, ")");
    if (!p || *p)
        return hist_err(h, command, "No closing paren found", hist_errpos(command, params));
    if (a->handler != HIST_ON_MATCH) {
        a->slot = h->n_slots;
        if (strcmp(action, "save") == 0) {
            h->n_actions++;
            int err = hist_parse_save(h, command, a, params);
            h->n_slots += 1 + a->n_params;
            return err;
        }
        h->n_slots += 1;
        if (strcmp(action, "snapshot") == 0) {
            /* As Linux, whatever is between the parentheses is ignored. */
            a->snapshot = true;
            h->n_actions++;
            return 0;
        }
    } else if (strcmp(action, "save") == 0 || strcmp(action, "snapshot") == 0) {
        return hist_err(h, command, "Handler doesn't support action", hist_errpos(command, action));
    }
    bool trace = strcmp(action, "trace") == 0;
    unsigned strings = 0;
    char *synth = trace ? strsep(&params, ",") : action;
    a->se = synth_event_get(synth);
    h->n_actions++; /* from here on, freeing the trigger puts the event */
    if (!a->se)
        return hist_err(h, command, "Couldn't find synthetic event", hist_errpos(command, synth));
    if (!(a->synth_name = kstrdup(synth)))
        return -ENOMEM;
    while (params) {
        char *param = strsep(&params, ",");
        while (*param == ' ')
            param++;
        /* SYS.EVENT.$VAR: a variable qualified by its event; the name is what finds it. */
        char *qualified = strstr(param, ".$");
        if (qualified && strchr(param, '.') < qualified)
            param = qualified + 1;
        if (a->n_params == HIST_PARAMS_MAX)
            return hist_err(h, command, "Too many action params", 0);
        unsigned count;
        int root = hist_expr_parse(h, command, param, &a->params[a->n_params], 1, &count);
        if (root < 0)
            return hist_err(h, command, "Couldn't find param", hist_errpos(command, param));
        const struct hist_expr *e = &a->params[a->n_params];
        bool is_string = e->op == HIST_EXPR_FIELD && (e->field.flags & HIST_FL_STRING);
        if (a->n_params < synth_event_nfields(a->se) &&
            is_string != synth_event_field_is_string(a->se, a->n_params))
            return hist_err(h, command, "Param type doesn't match synthetic event field type",
                            hist_errpos(command, param));
        if (is_string && ++strings > HIST_STRING_PARAMS_MAX)
            return hist_err(h, command, "Too many action params", 0);
        a->n_params++;
    }
    if (a->n_params != synth_event_nfields(a->se))
        return hist_err(h, command, "Param count doesn't match synthetic event field count",
                        hist_errpos(command, synth));
    return 0;
}

static unsigned round_up8(unsigned n) { return (n + 7) & ~7u; }

static int hist_parse_keys(struct hist_trigger *h, const char *command, char *list)
{
    unsigned offset = 0;
    while (list) {
        char *text = strsep(&list, ",");
        if (h->n_keys == HIST_KEYS_MAX)
            return -EINVAL;
        struct hist_field *k = &h->keys[h->n_keys];
        if (strcmp(text, "stacktrace") == 0) {
            memset(k, 0, sizeof(*k));
            k->flags = HIST_FL_STACKTRACE;
            k->size = HIST_STACK_DEPTH * sizeof(uint64_t);
        } else {
            if (hist_is_expression(text))
                return -EINVAL;
            int err = hist_parse_field(h, command, text, k);
            if (err)
                return err;
            if (k->flags & HIST_FL_HITCOUNT)
                return hist_err(h, command, "Couldn't find field", hist_errpos(command, text));
            if (k->flags & HIST_FL_STRING)
                k->size = k->field->kind == EVENT_FIELD_CHAR_ARRAY
                              ? MIN(round_up8(k->field->size + 1), HIST_STRING_MAX)
                              : HIST_STRING_MAX;
            else
                k->size = sizeof(uint64_t);
            h->has_execname |= (k->flags & HIST_FL_EXECNAME) != 0;
        }
        k->offset = offset;
        offset += k->size;
        h->n_keys++;
    }
    h->key_size = offset;
    return 0;
}

static int hist_parse_vals(struct hist_trigger *h, const char *command, char *list)
{
    while (list) {
        char *text = strsep(&list, ",");
        if (strcmp(text, "hitcount") == 0)
            continue;
        if (h->n_vals == HIST_VALS_MAX)
            return -EINVAL;
        if (hist_is_expression(text))
            return -EINVAL;
        struct hist_field *v = &h->vals[h->n_vals];
        int err = hist_parse_field(h, command, text, v);
        if (err)
            return err;
        /* Linux takes a string as a value too (and sums its address); here it adds 0. */
        if (v->flags & HIST_FL_HITCOUNT)
            return -EINVAL;
        h->n_vals++;
    }
    return 0;
}

/* Linux's is_descending. */
static int hist_sort_order(struct hist_trigger *h, const char *command, const char *modifier)
{
    if (!modifier || strcmp(modifier, "ascending") == 0)
        return 0;
    if (strcmp(modifier, "descending") == 0)
        return 1;
    return hist_err(h, command, "Invalid sort modifier", hist_errpos(command, modifier));
}

/* Linux's create_sort_keys: a value or a key, by name, values first. */
static int hist_parse_sort(struct hist_trigger *h, const char *command, char *list)
{
    unsigned i;
    for (i = 0; i < HIST_SORT_MAX; i++) {
        char *text = strsep(&list, ",");
        if (!text)
            break;
        if (!*text)
            return hist_err(h, command, "Empty sort field", hist_errpos(command, "sort="));
        if (i == HIST_SORT_MAX - 1 && list)
            return hist_err(h, command, "Too many sort fields (Max = 2)",
                            hist_errpos(command, "sort="));
        char *modifier = text;
        char *name = strsep(&modifier, ".");
        if (!*name)
            return hist_err(h, command, "Empty sort field", hist_errpos(command, "sort="));
        unsigned idx = 0;
        bool found = strcmp(name, "hitcount") == 0;
        for (unsigned j = 1; !found && j < h->n_vals + h->n_keys; j++) {
            const struct hist_field *f = j < h->n_vals ? &h->vals[j] : &h->keys[j - h->n_vals];
            if (strcmp(name, hist_field_name(f)) == 0) {
                idx = j;
                found = true;
            }
        }
        if (!found)
            return hist_err(h, command, "Sort field must be a key or a val",
                            hist_errpos(command, name));
        int descending = hist_sort_order(h, command, modifier);
        if (descending < 0)
            return descending;
        h->sort[i].idx = idx;
        h->sort[i].descending = descending;
    }
    h->n_sort = i;
    return 0;
}

/* Linux's parse_map_size: a count rounded up to a power of two, 2^7 .. 2^17. */
static int hist_parse_size(const char *text, unsigned *bits)
{
    unsigned long size;
    if (kstrtoul(text, 0, &size) || size == 0 || size > (1ul << TRACING_MAP_BITS_MAX))
        return -EINVAL;
    unsigned b = 0;
    while ((1ul << b) < size)
        b++;
    if (b < TRACING_MAP_BITS_MIN)
        return -EINVAL;
    *bits = b;
    return 0;
}

static void hist_print_match(struct seqbuf *s, const struct hist_trigger *h)
{
    seq_puts(s, "keys=");
    for (unsigned i = 0; i < h->n_keys; i++) {
        if (i)
            seq_putc(s, ',');
        hist_field_print(s, &h->keys[i]);
    }
    seq_puts(s, ":vals=hitcount");
    for (unsigned i = 1; i < h->n_vals; i++) {
        seq_putc(s, ',');
        hist_field_print(s, &h->vals[i]);
    }
    for (unsigned i = 0; i < h->n_vars; i++)
        seq_printf(s, "%c%s=%s", i ? ',' : ':', h->vars[i].name, h->vars[i].text);
    seq_puts(s, ":sort=");
    for (unsigned i = 0; i < h->n_sort; i++) {
        unsigned idx = h->sort[i].idx;
        if (i)
            seq_putc(s, ',');
        if (idx == 0)
            seq_puts(s, "hitcount");
        else
            hist_field_print(s, idx < h->n_vals ? &h->vals[idx] : &h->keys[idx - h->n_vals]);
        if (h->sort[i].descending)
            seq_puts(s, ".descending");
    }
}

/* ---- the table ---- */

struct hist_insert_ctx {
    int pid;
    const char *comm;
};

/* The name for .execname: the thread that made the entry, as Linux's save_comm. */
static void hist_elt_init(void *priv, const void *key, void *ctx)
{
    const struct hist_insert_ctx *c = ctx;
    if (!c)
        return;
    if (c->pid == 0)
        strlcpy(priv, "<idle>", HIST_COMM_LEN);
    else
        strlcpy(priv, c->comm, HIST_COMM_LEN);
}

static void hist_table_put(struct hist_table *t)
{
    if (!t)
        return;
    spin_lock(&hist_named_lock);
    bool last = --t->refs == 0;
    if (last && t->name) {
        for (struct hist_table **link = &hist_named; *link; link = &(*link)->next)
            if (*link == t) {
                *link = t->next;
                break;
            }
    }
    spin_unlock(&hist_named_lock);
    if (!last)
        return;
    tracing_map_free(t->map);
    kfree(t->name);
    kfree(t->match);
    kfree(t);
}

/* The trigger's table: a new one, or the one of its name if the name has one already. */
static int hist_table_get(struct hist_trigger *h, const char *command, const char *name)
{
    if (name) {
        spin_lock(&hist_named_lock);
        for (struct hist_table *t = hist_named; t; t = t->next) {
            if (strcmp(t->name, name) != 0)
                continue;
            bool same = strcmp(t->match, h->match) == 0;
            if (same) {
                t->refs++;
                h->table = t;
            }
            spin_unlock(&hist_named_lock);
            if (!same)
                return hist_err(h, command,
                                "Named hist trigger doesn't match existing named trigger "
                                "(includes variables)",
                                hist_errpos(command, name));
            return 0;
        }
        spin_unlock(&hist_named_lock);
    }
    struct hist_table *t = kzalloc(sizeof(*t));
    if (!t)
        return -ENOMEM;
    t->refs = 1;
    /* After the sums, each variable's value and whether it is set. */
    unsigned private_size = h->has_execname || h->n_saved_strings
                                ? HIST_COMM_LEN + HIST_STRING_PARAM_LEN * h->n_saved_strings
                                : 0;
    /* The sums (hitcount, values) are only added to; variables and tracking after them. */
    t->map = tracing_map_create(h->bits, h->key_size, h->n_vals, h->n_slots, private_size,
                                hist_elt_init);
    t->match = kstrdup(h->match);
    t->name = name ? kstrdup(name) : NULL;
    if (!t->map || !t->match || (name && !t->name)) {
        tracing_map_free(t->map);
        kfree(t->match);
        kfree(t->name);
        kfree(t);
        return -ENOMEM;
    }
    if (name) {
        spin_lock(&hist_named_lock);
        t->next = hist_named;
        hist_named = t;
        spin_unlock(&hist_named_lock);
    }
    h->table = t;
    return 0;
}

/* ---- making one ---- */

void hist_trigger_free(struct hist_trigger *h)
{
    if (!h)
        return;
    spin_lock(&hist_named_lock);
    for (unsigned i = 0; i < HIST_VAR_OWNERS_MAX && h->var_owner; i++)
        if (hist_var_owners[i] == h)
            hist_var_owners[i] = NULL;
    for (unsigned i = 0; i < h->n_refs; i++)
        if (h->refs[i].owner)
            h->refs[i].owner->var_users--;
    spin_unlock(&hist_named_lock);
    for (unsigned i = 0; i < h->n_refs; i++)
        kfree(h->refs[i].name);
    for (unsigned i = 0; i < h->n_vars; i++) {
        kfree(h->vars[i].name);
        kfree(h->vars[i].text);
    }
    for (unsigned i = 0; i < h->n_actions; i++) {
        synth_event_put(h->actions[i].se);
        kfree(h->actions[i].synth_name);
    }
    if (h->snap) {
        /* After this no CPU is inside hist_snapshot_update with our record. */
        tracing_snapshot_cond_disable(h->tr);
        kfree(h->snap);
        /* An offer whose commit came after the trigger was out stays unmade: drop it, so
         * that no later trigger at the same address takes it for its own. */
        for (unsigned c = 0; c < MAX_CPUS; c++)
            if (hist_offers[c].h == h)
                hist_offers[c].h = NULL;
    }
    kfree(h->actions_text);
    hist_table_put(h->table);
    kfree(h->clock);
    kfree(h->name);
    kfree(h->match);
    kfree(h);
}

/* Modifiers that change only how a value is printed, not what is counted. */
#define HIST_FL_DISPLAY (HIST_FL_HEX | HIST_FL_SYM | HIST_FL_SYM_OFFSET | HIST_FL_EXECNAME)

/* A field whose value is the record's integer as it is (hist_value's plainest case). */
static bool hist_field_is_plain(const struct hist_field *f)
{
    return f->field && !(f->flags & ~HIST_FL_DISPLAY);
}

/*
 * Whether h's events can take hist_fire_quick: every key and value a plain integer field of
 * the record, no variables, references or actions. The common two-key trigger is such, and
 * the quick path reads its fields without hist_value's tests or hist_trigger_fire's frame.
 */
static bool hist_is_quick(const struct hist_trigger *h)
{
    if (h->n_vars || h->n_refs || h->n_actions)
        return false;
    for (unsigned i = 0; i < h->n_keys; i++)
        if (!hist_field_is_plain(&h->keys[i]) || h->keys[i].size != 8)
            return false;
    for (unsigned i = 1; i < h->n_vals; i++)
        if (!hist_field_is_plain(&h->vals[i]))
            return false;
    return true;
}

int hist_trigger_create(const struct trace_event_call *call, struct trace_array *tr, char *spec,
                        const char *command, struct hist_trigger **out)
{
    struct hist_trigger *h = kzalloc(sizeof(*h));
    if (!h)
        return -ENOMEM;
    h->call = call;
    h->tr = tr;
    h->bits = TRACING_MAP_BITS_DEFAULT;
    h->n_vals = 1;
    h->vals[0].flags = HIST_FL_HITCOUNT;
    char *keys = NULL, *vals = NULL, *sort = NULL, *name = NULL;
    char *assignments[HIST_VARS_MAX], *action_texts[HIST_ACTIONS_MAX];
    unsigned n_assignments = 0, n_actions_text = 0;
    int err = 0;
    /* Linux's parse_hist_trigger_attrs: ':'-separated, keys required. */
    while (spec && !err) {
        char *part = strsep(&spec, ":");
        char *value = strchr(part, '=');
        if (value)
            value++;
        if (strncmp(part, "onmatch(", 8) == 0 || strncmp(part, "onmax(", 6) == 0 ||
            strncmp(part, "onchange(", 9) == 0) {
            n_actions_text++;
            if (n_actions_text <= HIST_ACTIONS_MAX)
                action_texts[n_actions_text - 1] = part;
            else
                err = -EINVAL;
        } else if (value && !*value)
            err = hist_err(h, command, "Empty assignment", hist_errpos(command, part));
        else if (strncmp(part, "key=", 4) == 0 || strncmp(part, "keys=", 5) == 0)
            keys = value;
        else if (strncmp(part, "val=", 4) == 0 || strncmp(part, "vals=", 5) == 0 ||
                 strncmp(part, "values=", 7) == 0)
            vals = value;
        else if (strncmp(part, "sort=", 5) == 0)
            sort = value;
        else if (strncmp(part, "name=", 5) == 0)
            name = part; /* Linux keeps, and prints, "name=NAME" */
        else if (strncmp(part, "clock=", 6) == 0)
            h->clock = kstrdup(value);
        else if (strncmp(part, "size=", 5) == 0)
            err = hist_parse_size(value, &h->bits);
        else if (value) {
            if (n_assignments < HIST_VARS_MAX)
                assignments[n_assignments++] = part;
            else
                err =
                    hist_err(h, command, "Too many variables defined", hist_errpos(command, part));
        } else if (strcmp(part, "pause") == 0)
            h->attrs |= HIST_ATTR_PAUSE;
        else if (strcmp(part, "cont") == 0 || strcmp(part, "continue") == 0)
            h->attrs |= HIST_ATTR_CONT;
        else if (strcmp(part, "clear") == 0)
            h->attrs |= HIST_ATTR_CLEAR;
        else
            err = -EINVAL;
    }
    if (!err && !keys)
        err = -EINVAL;
    if (!err && vals)
        err = hist_parse_vals(h, command, vals);
    for (unsigned i = 0; i < n_assignments && !err; i++) {
        char *expr = assignments[i];
        char *var = strsep(&expr, "=");
        err = hist_parse_variable(h, command, var, expr);
    }
    if (!err)
        err = hist_parse_keys(h, command, keys);
    if (!err && sort)
        err = hist_parse_sort(h, command, sort);
    else if (!err)
        h->n_sort = 1; /* hitcount, ascending */
    if (!err && name && !(h->name = kstrdup(name)))
        err = -ENOMEM;
    if (!err && n_actions_text) {
        struct seqbuf t = {0};
        for (unsigned i = 0; i < n_actions_text; i++)
            seq_printf(&t, ":%s", action_texts[i]);
        h->actions_text = t.buf && !t.overflow ? kstrdup(t.buf) : NULL;
        seqbuf_free(&t);
        if (!h->actions_text)
            err = -ENOMEM;
    }
    h->n_slots = h->n_vals + 2 * h->n_vars;
    for (unsigned i = 0; i < n_actions_text && !err; i++)
        err = hist_parse_action(h, command, action_texts[i]);
    if (!err && h->timestamps && !h->clock)
        h->clock = kstrdup("global");
    if (!err && h->timestamps && !h->clock)
        err = -ENOMEM;
    if (!err) {
        struct seqbuf s = {0};
        hist_print_match(&s, h);
        h->match = s.buf && !s.overflow ? kstrdup(s.buf) : NULL;
        seqbuf_free(&s);
        if (!h->match)
            err = -ENOMEM;
    }
    if (err) {
        hist_trigger_free(h);
        return err;
    }
    h->paused = (h->attrs & HIST_ATTR_PAUSE) != 0;
    h->quick = hist_is_quick(h);
    *out = h;
    return 0;
}

/* ---- .snapshot() ---- */

static void hist_snapshot_offer(struct hist_trigger *h, const struct hist_action *a, uint64_t v,
                                struct tracing_map_elt *elt)
{
    unsigned long flags = arch_irq_save();
    struct hist_snapshot_offer *o = &hist_offers[this_cpu_id()];
    if (o->h != h || o->a != a || (a->handler == HIST_ON_MAX ? v > o->value : v != o->value)) {
        o->a = a;
        o->value = v;
        memcpy(o->key, tracing_map_key(h->table->map, elt), h->key_size);
        o->has_comm = h->has_execname;
        if (o->has_comm)
            strlcpy(o->comm, tracing_map_private(h->table->map, elt), sizeof(o->comm));
        o->h = h;
    }
    arch_irq_restore(flags);
}

void hist_trigger_post(struct hist_trigger *h)
{
    unsigned long flags = arch_irq_save();
    struct hist_snapshot_offer *o = &hist_offers[this_cpu_id()];
    if (o->h == h) {
        tracing_snapshot_cond(h->tr, o);
        o->h = NULL;
    }
    arch_irq_restore(flags);
}

/* The conditional snapshot's test (under its lock): a swap when the offer is the largest
 * value (onmax) or a change (onchange) across every entry, as Linux's cond_snapshot_update. */
static bool hist_snapshot_update(struct trace_array *tr, void *cond_data)
{
    (void)tr;
    const struct hist_snapshot_offer *o = cond_data;
    struct hist_snapshot *snap = o->h->snap;
    if (!snap || (o->a->handler == HIST_ON_MAX ? o->value <= snap->value : o->value == snap->value))
        return false;
    snap->value = o->value;
    memcpy(snap->key, o->key, o->h->key_size);
    if (o->has_comm)
        strlcpy(snap->comm, o->comm, sizeof(snap->comm));
    snap->updated = true;
    return true;
}

/* A trigger with .snapshot() takes the conditional snapshot (EBUSY if another has it, or
 * a latency tracer; Linux logs nothing for it). */
static int hist_snapshot_own(struct hist_trigger *h)
{
    bool wanted = false;
    for (unsigned i = 0; i < h->n_actions; i++)
        wanted |= h->actions[i].snapshot;
    if (!wanted)
        return 0;
    struct hist_snapshot *snap = kzalloc(sizeof(*snap));
    if (!snap)
        return -ENOMEM;
    int err = tracing_snapshot_cond_enable(h->tr, hist_snapshot_update);
    if (err) {
        kfree(snap);
        return err;
    }
    h->snap = snap;
    return 0;
}

int hist_trigger_activate(struct hist_trigger *h, const char *command)
{
    /* As Linux's hist_register_trigger: timestamps switch the trace clock to the trigger's,
     * that of the trigger's own trace array. */
    if (h->timestamps && trace_array_set_clock(h->tr, h->clock) != 0)
        return hist_err(h, command, "Couldn't set trace_clock", hist_errpos(command, h->clock));
    /* As Linux's create_var: a variable name one of the event's triggers has is taken (in
     * the same trace array: variables are the array's, as Linux's find_var_file). */
    spin_lock(&hist_named_lock);
    const char *taken = NULL;
    for (unsigned i = 0; i < HIST_VAR_OWNERS_MAX && !taken; i++) {
        const struct hist_trigger *o = hist_var_owners[i];
        for (unsigned v = 0; o && o->call == h->call && o->tr == h->tr && v < o->n_vars && !taken;
             v++)
            for (unsigned w = 0; w < h->n_vars && !taken; w++)
                if (strcmp(o->vars[v].name, h->vars[w].name) == 0)
                    taken = h->vars[w].name;
    }
    spin_unlock(&hist_named_lock);
    if (taken)
        return hist_err(h, command, "Variable already defined", hist_errpos(command, taken));
    /* $references: a variable of a trigger already in, by name, in the same trace array. */
    spin_lock(&hist_named_lock);
    unsigned missing = h->n_refs;
    for (unsigned r = 0; r < h->n_refs; r++) {
        for (unsigned i = 0; i < HIST_VAR_OWNERS_MAX && !h->refs[r].owner; i++) {
            struct hist_trigger *o = hist_var_owners[i];
            for (unsigned v = 0; o && o->tr == h->tr && v < o->n_vars; v++)
                if (strcmp(o->vars[v].name, h->refs[r].name) == 0 && o->key_size == h->key_size) {
                    h->refs[r].owner = o;
                    h->refs[r].var = v;
                    o->var_users++;
                    break;
                }
        }
        if (!h->refs[r].owner && missing == h->n_refs)
            missing = r;
    }
    spin_unlock(&hist_named_lock);
    if (missing < h->n_refs)
        return -EINVAL; /* Linux 6.1 logs nothing for it */
    int err = hist_table_get(h, command, h->name);
    if (!err)
        err = hist_snapshot_own(h);
    if (err || !h->n_vars)
        return err;
    spin_lock(&hist_named_lock);
    for (unsigned i = 0; i < HIST_VAR_OWNERS_MAX && !h->var_owner; i++)
        if (!hist_var_owners[i]) {
            hist_var_owners[i] = h;
            h->var_owner = true;
        }
    spin_unlock(&hist_named_lock);
    return h->var_owner ? 0 : -ENOSPC;
}

unsigned hist_trigger_attrs(const struct hist_trigger *h) { return h->attrs; }

bool hist_trigger_uses_time(const struct hist_trigger *h) { return h->timestamps; }

bool hist_trigger_match(const struct hist_trigger *a, const struct hist_trigger *b)
{
    if (!a->name != !b->name || (a->name && strcmp(a->name, b->name) != 0))
        return false;
    if (!a->actions_text != !b->actions_text ||
        (a->actions_text && strcmp(a->actions_text, b->actions_text) != 0))
        return false;
    return strcmp(a->match, b->match) == 0;
}

bool hist_trigger_busy(const struct hist_trigger *h) { return READ_ONCE(h->var_users) != 0; }

void hist_trigger_set_paused(struct hist_trigger *h, bool paused) { WRITE_ONCE(h->paused, paused); }
bool hist_trigger_paused(const struct hist_trigger *h) { return READ_ONCE(h->paused); }

void hist_trigger_clear(struct hist_trigger *h) { tracing_map_clear(h->table->map); }

/* ---- the event path ---- */

/* A field's value as Linux's hist_field_<type>: sign-extended from its size. */
static __always_inline uint64_t hist_read_int(const struct event_field *f, const void *record,
                                              size_t size)
{
    if ((size_t)f->offset + f->size > size)
        return 0;
    const uint8_t *p = (const uint8_t *)record + f->offset;
    switch (f->size) {
    case 1:
        return f->is_signed ? (uint64_t)(int64_t) * (const int8_t *)p : *p;
    /* The builtin: one load each (this file's memcpy calls are not inlined). */
    case 2: {
        uint16_t v;
        __builtin_memcpy(&v, p, 2);
        return f->is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v;
        __builtin_memcpy(&v, p, 4);
        return f->is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    case 8: {
        uint64_t v;
        __builtin_memcpy(&v, p, 8);
        return v;
    }
    }
    return 0;
}

/* The event being counted: its record and its time in the trace clock. */
struct hist_event {
    const void *record;
    size_t size;
    uint64_t ts;
    bool ts_ns; /* the trigger's trace array counts time in ns (.usecs divides it) */
};

static uint64_t hist_timestamp(const struct hist_field *f, const struct hist_event *ev)
{
    /* Rounded, as Linux's ns2usecs and the trace's own time stamps. */
    uint64_t ts = ev->ts;
    if ((f->flags & HIST_FL_USECS) && ev->ts_ns)
        ts = (ts + 500) / 1000;
    return ts;
}

static uint64_t hist_value(const struct hist_field *f, const struct hist_event *ev)
{
    uint64_t v;
    if (f->flags & HIST_FL_TIMESTAMP)
        v = hist_timestamp(f, ev);
    else if (f->flags & HIST_FL_CPU)
        v = this_cpu_id();
    else if (f->flags & HIST_FL_STRING)
        v = 0;
    else
        v = hist_read_int(f->field, ev->record, ev->size);
    if (f->flags & HIST_FL_LOG2) {
        /* Linux's ilog2(roundup_pow_of_two(v)); 0 and 1 both give 0. */
        unsigned b = 0;
        while (b < 63 && (1ull << b) < v)
            b++;
        v = b;
    } else if (f->flags & HIST_FL_BUCKETS) {
        v = v / f->buckets * f->buckets;
    }
    return v;
}

/* An expression's value: refs holds the references' values, vars this event's variables. */
static uint64_t hist_eval(const struct hist_expr *nodes, unsigned n, const struct hist_event *ev,
                          const uint64_t *refs, const uint64_t *vars)
{
    const struct hist_expr *e = &nodes[n];
    switch (e->op) {
    case HIST_EXPR_FIELD:
        return hist_value(&e->field, ev);
    case HIST_EXPR_CONST:
        return e->constant;
    case HIST_EXPR_VAR:
        return vars[e->idx];
    case HIST_EXPR_REF:
        return refs[e->idx];
    }
    uint64_t a = hist_eval(nodes, e->a, ev, refs, vars), b = hist_eval(nodes, e->b, ev, refs, vars);
    switch (e->op) {
    case HIST_EXPR_ADD:
        return a + b;
    case HIST_EXPR_SUB:
        return a - b;
    case HIST_EXPR_MUL:
        return a * b;
    default:
        return b ? a / b : (uint64_t)-1; /* Linux's value for a division by 0 */
    }
}

static void hist_copy_string(char *dst, unsigned room, const struct event_field *f,
                             const void *record, size_t size)
{
    const char *src;
    size_t len;
    if (f->kind == EVENT_FIELD_CHAR_ARRAY) {
        if ((size_t)f->offset + f->size > size)
            return;
        src = (const char *)record + f->offset;
        len = f->size;
    } else {
        uint32_t loc;
        if ((size_t)f->offset + 4 > size)
            return;
        memcpy(&loc, (const char *)record + f->offset, 4);
        if ((loc & 0xffff) + (loc >> 16) > size)
            return;
        src = (const char *)record + (loc & 0xffff);
        len = loc >> 16;
    }
    if (len > room - 1)
        len = room - 1;
    for (size_t i = 0; i < len && src[i]; i++)
        dst[i] = src[i];
}

/* The kernel stack from the code with the tracepoint up, as Linux's starts above the
 * tracing functions. */
static __attribute__((noinline)) void hist_stack(uint64_t *out)
{
    /* The frames of hist_fire_full, event_triggers_run, trace_event_commit_filtered and the
     * emitter (fire_hist, hist_trigger_fire and event_triggers_call jump on, frameless). */
    unsigned skip = 4, n = 0;
    struct unwind_state st;
    unwind_start(&st, this_cpu()->current, arch_frame_pointer(), 0, 0);
    st.strict = true;
    while (n < HIST_STACK_DEPTH && unwind_next(&st)) {
        if (skip) {
            skip--;
            continue;
        }
        out[n++] = st.ret;
    }
}

/* key's entry (made if new, with the current task's pid and name for .execname), its hit
 * counted; NULL when the table is full (counted as a drop). */
static __always_inline struct tracing_map_elt *hist_count(struct hist_trigger *h,
                                                          const uint64_t *key)
{
    struct percpu *cpu = this_cpu();
    struct hist_insert_ctx ctx = {.pid = cpu->current_pid,
                                  .comm = cpu->current ? cpu->current->name : ""};
    struct tracing_map_elt *elt = tracing_map_insert(h->table->map, key, &ctx);
    if (elt)
        tracing_map_add(elt, 0, 1);
    return elt;
}

/* hist_trigger_fire for a quick trigger (hist_is_quick): the same counts, fewer steps. */
__trace_hot_trigger static __noinline bool hist_fire_quick(struct hist_trigger *h,
                                                           const void *record, size_t size)
{
    uint64_t key[HIST_KEY_MAX / 8];
    for (unsigned w = 0; w < h->key_size / 8; w++)
        key[w] = 0;
    for (unsigned i = 0; i < h->n_keys; i++)
        key[h->keys[i].offset / 8] = hist_read_int(h->keys[i].field, record, size);
    struct tracing_map_elt *elt = hist_count(h, key);
    if (!elt)
        return false;
    for (unsigned i = 1; i < h->n_vals; i++)
        tracing_map_add(elt, i, hist_read_int(h->vals[i].field, record, size));
    return false;
}

static __noinline bool hist_fire_full(struct hist_trigger *h, const void *record, size_t size,
                                      uint64_t ts);

__trace_hot_trigger bool hist_trigger_fire(struct hist_trigger *h, const void *record, size_t size,
                                           uint64_t ts)
{
    if (READ_ONCE(h->paused))
        return false;
    if (h->quick)
        return hist_fire_quick(h, record, size);
    return hist_fire_full(h, record, size, ts);
}

/* Every kind of field, variables, references and actions. */
static __noinline bool hist_fire_full(struct hist_trigger *h, const void *record, size_t size,
                                      uint64_t ts)
{
    struct hist_event ev = {record, size, ts, READ_ONCE(h->tr->clock_ns)};
    uint64_t key[HIST_KEY_MAX / 8];
    for (unsigned w = 0; w < h->key_size / 8; w++)
        key[w] = 0;
    for (unsigned i = 0; i < h->n_keys; i++) {
        const struct hist_field *k = &h->keys[i];
        void *slot = (uint8_t *)key + k->offset;
        if (k->flags & HIST_FL_STACKTRACE)
            hist_stack(slot);
        else if (k->flags & HIST_FL_STRING)
            hist_copy_string(slot, k->size, k->field, record, size);
        else
            *(uint64_t *)slot = hist_value(k, &ev);
    }
    /* Other triggers' variables, in their entries of this key: all set, or the event
     * counts for nothing (as Linux's resolve_var_refs). Each is used once. */
    uint64_t refs[HIST_REFS_MAX], vars[HIST_VARS_MAX];
    struct tracing_map_elt *ref_elts[HIST_REFS_MAX];
    for (unsigned r = 0; r < h->n_refs; r++) {
        const struct hist_ref *ref = &h->refs[r];
        const struct hist_trigger *o = ref->owner;
        ref_elts[r] = tracing_map_lookup(o->table->map, key);
        if (!ref_elts[r] || !tracing_map_read(ref_elts[r], o->n_vals + 2 * ref->var + 1))
            return false;
    }
    for (unsigned r = 0; r < h->n_refs; r++) {
        const struct hist_ref *ref = &h->refs[r];
        unsigned slot = ref->owner->n_vals + 2 * ref->var;
        if (!tracing_map_take(ref_elts[r], slot + 1))
            return false; /* another CPU's event used it first */
        refs[r] = tracing_map_read(ref_elts[r], slot);
    }
    struct tracing_map_elt *elt = hist_count(h, key);
    if (!elt)
        return false;
    bool post = false;
    for (unsigned i = 1; i < h->n_vals; i++)
        tracing_map_add(elt, i, hist_value(&h->vals[i], &ev));
    for (unsigned i = 0; i < h->n_vars; i++) {
        const struct hist_var *v = &h->vars[i];
        vars[i] = hist_eval(v->nodes, v->root, &ev, refs, vars);
        tracing_map_set(elt, h->n_vals + 2 * i, vars[i]);
        tracing_map_set(elt, h->n_vals + 2 * i + 1, 1);
    }
    for (unsigned i = 0; i < h->n_actions; i++) {
        const struct hist_action *a = &h->actions[i];
        if (a->handler != HIST_ON_MATCH) {
            /* A new maximum, or a change: kept, with what save() saves (another CPU's
             * update of the same entry at the same moment may mix with it, as on Linux). */
            uint64_t v = vars[a->track_var], old = tracing_map_read(elt, a->slot);
            if (a->handler == HIST_ON_MAX ? v <= old : v == old)
                continue;
            tracing_map_set(elt, a->slot, v);
            if (a->snapshot) {
                hist_snapshot_offer(h, a, v, elt);
                post = true;
                continue;
            }
            if (a->save) {
                char *priv = tracing_map_private(h->table->map, elt);
                for (unsigned p = 0; p < a->n_params; p++) {
                    const struct hist_field *f = &a->params[p].field;
                    if (f->flags & HIST_FL_STRING) {
                        memset(priv + a->string_at[p], 0, HIST_STRING_PARAM_LEN);
                        hist_copy_string(priv + a->string_at[p], HIST_STRING_PARAM_LEN, f->field,
                                         record, size);
                    } else {
                        tracing_map_set(elt, a->slot + 1 + p, hist_value(f, &ev));
                    }
                }
                continue;
            }
        }
        uint64_t params[HIST_PARAMS_MAX];
        char strings[HIST_STRING_PARAMS_MAX][HIST_STRING_PARAM_LEN];
        unsigned n_strings = 0;
        for (unsigned p = 0; p < a->n_params; p++) {
            const struct hist_expr *e = &a->params[p];
            if (e->op == HIST_EXPR_FIELD && (e->field.flags & HIST_FL_STRING)) {
                /* A string goes by address: a NUL-terminated copy of the field. */
                char *copy = strings[n_strings++];
                memset(copy, 0, HIST_STRING_PARAM_LEN);
                hist_copy_string(copy, HIST_STRING_PARAM_LEN, e->field.field, record, size);
                params[p] = (uint64_t)(uintptr_t)copy;
            } else {
                params[p] = hist_eval(e, 0, &ev, refs, vars);
            }
        }
        synth_event_emit(a->se, params);
    }
    return post;
}

/* ---- the files ---- */

void hist_trigger_print_spec(struct seqbuf *s, const struct hist_trigger *h,
                             const char *filter_text)
{
    seq_puts(s, "hist:");
    if (h->name)
        seq_printf(s, "%s:", h->name);
    seq_puts(s, h->match);
    seq_printf(s, ":size=%u", 1u << h->bits);
    if (h->timestamps)
        seq_printf(s, ":clock=%s", h->clock);
    if (h->actions_text)
        seq_puts(s, h->actions_text);
    if (filter_text)
        seq_printf(s, " if %s", filter_text);
    seq_puts(s, READ_ONCE(h->paused) ? " [paused]\n" : " [active]\n");
}

struct hist_sort_entry {
    struct tracing_map_elt *elt;
    const struct hist_trigger *h;
};

static int hist_cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static int hist_cmp_key(const struct hist_trigger *h, const struct hist_field *k, const void *ka,
                        const void *kb)
{
    const uint8_t *a = (const uint8_t *)ka + k->offset, *b = (const uint8_t *)kb + k->offset;
    if (k->flags & HIST_FL_STACKTRACE)
        return 0;
    if (k->flags & HIST_FL_STRING)
        return strcmp((const char *)a, (const char *)b);
    uint64_t va = *(const uint64_t *)a, vb = *(const uint64_t *)b;
    if (k->field && k->field->is_signed && !(k->flags & (HIST_FL_LOG2 | HIST_FL_BUCKETS)))
        return (int64_t)va < (int64_t)vb ? -1 : (int64_t)va > (int64_t)vb;
    return hist_cmp_u64(va, vb);
}

static int hist_cmp_entries(const void *pa, const void *pb)
{
    const struct hist_sort_entry *a = pa, *b = pb;
    const struct hist_trigger *h = a->h;
    const struct tracing_map *map = h->table->map;
    for (unsigned i = 0; i < h->n_sort; i++) {
        unsigned idx = h->sort[i].idx;
        int c = idx < h->n_vals
                    ? hist_cmp_u64(tracing_map_read(a->elt, idx), tracing_map_read(b->elt, idx))
                    : hist_cmp_key(h, &h->keys[idx - h->n_vals], tracing_map_key(map, a->elt),
                                   tracing_map_key(map, b->elt));
        if (c)
            return h->sort[i].descending ? -c : c;
    }
    return a->elt->index < b->elt->index ? -1 : a->elt->index > b->elt->index;
}

/* A key as Linux prints it; comm is the execname of an entry whose key has .execname. */
static void hist_print_key(struct seqbuf *s, const struct hist_trigger *h, const void *key_bytes,
                           const char *comm)
{
    const uint8_t *key = key_bytes;
    bool multiline = false;
    seq_puts(s, "{ ");
    for (unsigned i = 0; i < h->n_keys; i++) {
        const struct hist_field *k = &h->keys[i];
        const char *name = hist_field_name(k);
        const uint8_t *p = key + k->offset;
        uint64_t v = *(const uint64_t *)p;
        char sym[160];
        if (i)
            seq_puts(s, ", ");
        if (k->flags & HIST_FL_STACKTRACE) {
            seq_puts(s, "stacktrace:\n");
            for (unsigned j = 0; j < HIST_STACK_DEPTH && ((const uint64_t *)p)[j]; j++) {
                sym_format(sym, sizeof(sym), ((const uint64_t *)p)[j]);
                seq_printf(s, "%9c%s\n", ' ', sym);
            }
            multiline = true;
        } else if (k->flags & HIST_FL_STRING) {
            seq_printf(s, "%s: %-50s", name, (const char *)p);
        } else if (k->flags & HIST_FL_HEX) {
            seq_printf(s, "%s: %llx", name, (unsigned long long)v);
        } else if (k->flags & (HIST_FL_SYM | HIST_FL_SYM_OFFSET)) {
            uintptr_t start;
            size_t fn_size;
            const char *fn = sym_lookup(v, &start, &fn_size);
            if (k->flags & HIST_FL_SYM_OFFSET)
                sym_format(sym, sizeof(sym), v);
            else if (fn)
                strlcpy(sym, fn, sizeof(sym));
            else
                snprintf(sym, sizeof(sym), "0x%llx", (unsigned long long)v);
            seq_printf(s, "%s: [%llx] %-*s", name, (unsigned long long)v,
                       k->flags & HIST_FL_SYM ? 45 : 55, sym);
        } else if (k->flags & HIST_FL_EXECNAME) {
            seq_printf(s, "%s: %-16s[%10llu]", name, comm ? comm : "", (unsigned long long)v);
        } else if (k->flags & HIST_FL_LOG2) {
            seq_printf(s, "%s: ~ 2^%-2llu", name, (unsigned long long)v);
        } else if (k->flags & HIST_FL_BUCKETS) {
            seq_printf(s, "%s: ~ %llu-%llu", name, (unsigned long long)v,
                       (unsigned long long)(v + k->buckets - 1));
        } else {
            seq_printf(s, "%s: %10llu", name, (unsigned long long)v);
        }
    }
    if (!multiline)
        seq_putc(s, ' ');
    seq_putc(s, '}');
}

/* What onmax and onchange kept in an entry, as Linux's track_data_print. */
static void hist_print_tracking(struct seqbuf *s, const struct hist_trigger *h,
                                const struct tracing_map_elt *elt)
{
    const char *priv = tracing_map_private(h->table->map, elt);
    for (unsigned i = 0; i < h->n_actions; i++) {
        const struct hist_action *a = &h->actions[i];
        /* .snapshot() shows its value once, under the table (hist_print_snapshot). */
        if (a->handler == HIST_ON_MATCH || a->snapshot)
            continue;
        seq_printf(s, a->handler == HIST_ON_MAX ? "\n\tmax: %10llu" : "\n\tchanged: %10llu",
                   (unsigned long long)tracing_map_read(elt, a->slot));
        for (unsigned p = 0; a->save && p < a->n_params; p++) {
            const struct hist_field *f = &a->params[p].field;
            if (f->flags & HIST_FL_STRING)
                seq_printf(s, "  %s: %-32s", f->field->name, priv + a->string_at[p]);
            else
                seq_printf(s, "  %s: %10llu", f->field->name,
                           (unsigned long long)tracing_map_read(elt, a->slot + 1 + p));
        }
    }
}

/* Which value and key made .snapshot()'s last swap, as Linux's track_data_snapshot_print. */
static void hist_print_snapshot(struct seqbuf *s, const struct hist_trigger *h)
{
    const struct hist_snapshot *snap = h->snap;
    if (!snap || !READ_ONCE(snap->updated))
        return;
    for (unsigned i = 0; i < h->n_actions; i++) {
        const struct hist_action *a = &h->actions[i];
        if (!a->snapshot)
            continue;
        seq_puts(s, "\nSnapshot taken (see tracing/snapshot).  Details:\n");
        seq_printf(s, "\ttriggering value { %s($%s) }: %10llu",
                   a->handler == HIST_ON_MAX ? "onmax" : "onchange", h->vars[a->track_var].name,
                   (unsigned long long)snap->value);
        seq_puts(s, "\ttriggered by event with key: ");
        hist_print_key(s, h, snap->key, snap->comm);
        seq_putc(s, '\n');
        return;
    }
}

void hist_trigger_show(struct seqbuf *s, const struct hist_trigger *h, const char *filter_text,
                       unsigned n)
{
    const struct tracing_map *map = h->table->map;
    if (n > 0)
        seq_puts(s, "\n\n");
    seq_puts(s, "# event histogram\n#\n# trigger info: ");
    hist_trigger_print_spec(s, h, filter_text);
    seq_puts(s, "#\n\n");
    size_t max = tracing_map_max_elts(map), count = 0;
    struct tracing_map_elt **elts = kmalloc(max * sizeof(*elts));
    struct hist_sort_entry *entries = kmalloc(max * sizeof(*entries));
    if (elts && entries) {
        count = tracing_map_entries(map, elts, max);
        for (size_t i = 0; i < count; i++)
            entries[i] = (struct hist_sort_entry){elts[i], h};
        sort(entries, count, sizeof(*entries), hist_cmp_entries);
        for (size_t i = 0; i < count; i++) {
            const struct tracing_map_elt *elt = entries[i].elt;
            hist_print_key(s, h, tracing_map_key(map, elt),
                           h->has_execname ? tracing_map_private(map, elt) : NULL);
            seq_printf(s, " hitcount: %10llu", (unsigned long long)tracing_map_read(elt, 0));
            for (unsigned v = 1; v < h->n_vals; v++)
                seq_printf(s, h->vals[v].flags & HIST_FL_HEX ? "  %s: %10llx" : "  %s: %10llu",
                           hist_field_name(&h->vals[v]),
                           (unsigned long long)tracing_map_read(elt, v));
            hist_print_tracking(s, h, elt);
            seq_putc(s, '\n');
        }
    }
    kfree(elts);
    kfree(entries);
    hist_print_snapshot(s, h);
    seq_printf(s, "\nTotals:\n    Hits: %llu\n    Entries: %u\n    Dropped: %llu\n",
               (unsigned long long)tracing_map_hits(map), (unsigned)count,
               (unsigned long long)tracing_map_drops(map));
}
