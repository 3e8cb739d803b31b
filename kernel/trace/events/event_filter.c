/*
 * The event filter language: `prev_pid == 0 && (next_comm ~ "work*" || !(prio < 100))`.
 *
 * A text is checked and compiled once, in process context, into a flat program of
 * predicates with one conditional jump each, so matching a record (in any context, on
 * every event the filter's event writes) is a loop with no recursion, no lock and no
 * allocation.
 *
 * Errors follow Linux 6.1 exactly, because users compare error_log and errno with what
 * they know: the message, the errno (Linux's bracket and quote scan returns its own codes,
 * so `(a == 1` fails with ENOENT, `a == 1)` with EPERM and an open quote with ESRCH) and
 * the caret position. A predicate's errors point one past the offending character, as
 * Linux's do; the scan's and the term separator's point at it.
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/thread.h>
#include <lib/ctype.h>
#include <lib/glob.h>
#include <lib/string.h>

#include "event_filter.h"

enum filter_op { OP_GLOB, OP_NE, OP_EQ, OP_LE, OP_LT, OP_GE, OP_GT, OP_BAND, OP_COUNT };
/* Two-character operators come before their one-character prefixes. */
static const char *const filter_op_text[OP_COUNT] = {"~", "!=", "==", "<=", "<", ">=", ">", "&"};

enum filter_msg {
    MSG_INVALID_OP,
    MSG_TOO_MANY_OPEN,
    MSG_TOO_MANY_CLOSE,
    MSG_MISSING_QUOTE,
    MSG_OPERAND_TOO_LONG,
    MSG_EXPECT_STRING,
    MSG_EXPECT_DIGIT,
    MSG_ILLEGAL_FIELD_OP,
    MSG_FIELD_NOT_FOUND,
    MSG_ILLEGAL_INTVAL,
    MSG_TOO_MANY_PREDS,
    MSG_INVALID_FILTER,
    MSG_INVALID_VALUE,
};

static const char *const filter_msg_text[] = {
    [MSG_INVALID_OP] = "Invalid operator",
    [MSG_TOO_MANY_OPEN] = "Too many '('",
    [MSG_TOO_MANY_CLOSE] = "Too few '('",
    [MSG_MISSING_QUOTE] = "Missing matching quote",
    [MSG_OPERAND_TOO_LONG] = "Operand too long",
    [MSG_EXPECT_STRING] = "Expecting string field",
    [MSG_EXPECT_DIGIT] = "Expecting numeric field",
    [MSG_ILLEGAL_FIELD_OP] = "Illegal operation for field type",
    [MSG_FIELD_NOT_FOUND] = "Field not found",
    [MSG_ILLEGAL_INTVAL] = "Illegal integer value",
    [MSG_TOO_MANY_PREDS] = "Too many terms in predicate expression",
    [MSG_INVALID_FILTER] = "Meaningless filter expression",
    [MSG_INVALID_VALUE] = "Invalid value (did you forget quotes)?",
};

/* How a string predicate compares: a `~` pattern's shape picks the cheapest test. */
enum str_match { MATCH_FULL, MATCH_FRONT, MATCH_MIDDLE, MATCH_END, MATCH_GLOB };

/* Fields every event has besides its own: the CPU it was written on and the writer's name. */
enum pred_source { SRC_RECORD, SRC_CPU, SRC_COMM };

#define FILTER_STR_MAX 256 /* the longest quoted operand, as Linux's MAX_FILTER_STR_VAL */
#define FILTER_NUM_MAX 24  /* digits of a numeric operand, sign and 0x included */
/* Parentheses nest at most this deep: parsing and compiling recurse once per level, on a
 * kernel stack. Linux has no such limit; deeper text is refused as "Too many '('". */
#define FILTER_MAX_DEPTH 32

struct filter_pred {
    uint8_t source;
    uint8_t kind; /* enum event_field_kind, for SRC_RECORD */
    uint8_t op;
    uint8_t match; /* enum str_match */
    bool is_signed;
    bool invert; /* != and !~ */
    uint16_t offset;
    uint16_t size;
    uint16_t pattern_len;
    uint64_t value;
    char *pattern;
};

/*
 * One step of the program: test pred; if its result equals jump_when go to target,
 * else to the next step. A step with pred < 0 ends the match with result.
 */
struct filter_step {
    int16_t pred;
    bool jump_when;
    bool result;
    uint16_t target;
};

struct event_filter {
    char *text;
    unsigned npreds;
    struct filter_pred *preds;
    struct filter_step *prog;
};

/* ---- matching ---- */

static uint64_t load_int(const uint8_t *p, unsigned size, bool is_signed)
{
    switch (size) {
    case 1:
        return is_signed ? (uint64_t)(int64_t) * (const int8_t *)p : *p;
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static bool compare_int(const struct filter_pred *p, uint64_t v)
{
    /* The operand was truncated to the field's size when compiled, as Linux casts it. */
    if (p->is_signed) {
        int64_t a = (int64_t)v, b = (int64_t)p->value;
        switch (p->op) {
        case OP_LT:
            return a < b;
        case OP_LE:
            return a <= b;
        case OP_GT:
            return a > b;
        case OP_GE:
            return a >= b;
        default:
            break;
        }
    } else {
        switch (p->op) {
        case OP_LT:
            return v < p->value;
        case OP_LE:
            return v <= p->value;
        case OP_GT:
            return v > p->value;
        case OP_GE:
            return v >= p->value;
        default:
            break;
        }
    }
    if (p->op == OP_BAND)
        return (v & p->value) != 0;
    return (v == p->value) != p->invert;
}

/* Is pattern inside s[0..len)? */
static bool contains(const char *s, size_t len, const char *pattern, size_t plen)
{
    if (plen == 0)
        return true;
    for (size_t i = 0; i + plen <= len; i++)
        if (memcmp(s + i, pattern, plen) == 0)
            return true;
    return false;
}

/* s holds at most max bytes and need not be NUL-terminated (a full char array). */
static bool compare_string(const struct filter_pred *p, const char *s, size_t max)
{
    size_t len = strnlen(s, max);
    size_t plen = p->pattern_len;
    bool hit;
    switch (p->match) {
    case MATCH_FRONT:
        hit = len >= plen && memcmp(s, p->pattern, plen) == 0;
        break;
    case MATCH_END:
        hit = len >= plen && memcmp(s + len - plen, p->pattern, plen) == 0;
        break;
    case MATCH_MIDDLE:
        hit = contains(s, len, p->pattern, plen);
        break;
    case MATCH_GLOB: {
        char copy[FILTER_STR_MAX + 1];
        if (len > FILTER_STR_MAX)
            len = FILTER_STR_MAX;
        memcpy(copy, s, len);
        copy[len] = '\0';
        hit = glob_match(p->pattern, copy);
        break;
    }
    default:
        hit = len == plen && memcmp(s, p->pattern, plen) == 0;
        break;
    }
    return hit != p->invert;
}

static bool pred_match(const struct filter_pred *p, const uint8_t *rec, size_t rec_len)
{
    if (p->source == SRC_CPU)
        return compare_int(p, (uint64_t)(int64_t)(int)this_cpu_id());
    if (p->source == SRC_COMM) {
        struct thread *t = this_cpu()->current;
        return compare_string(p, t ? t->name : "", t ? sizeof(t->name) : 1);
    }
    if ((size_t)p->offset + p->size > rec_len)
        return false;
    switch (p->kind) {
    case EVENT_FIELD_CHAR_ARRAY:
        /* A char[] of no size (print's buf) is the rest of the record. */
        return compare_string(p, (const char *)rec + p->offset,
                              p->size ? p->size : rec_len - p->offset);
    case EVENT_FIELD_DATA_LOC: {
        uint32_t loc;
        memcpy(&loc, rec + p->offset, 4);
        size_t at = loc & 0xffff, len = loc >> 16;
        if (at > rec_len || len > rec_len - at)
            return false;
        return compare_string(p, (const char *)rec + at, len);
    }
    default:
        return compare_int(p, load_int(rec + p->offset, p->size, p->is_signed));
    }
}

bool event_filter_match(const struct event_filter *filter, const void *record, size_t record_len)
{
    if (!filter)
        return true;
    const struct filter_step *prog = filter->prog;
    unsigned i = 0;
    while (prog[i].pred >= 0) {
        bool r = pred_match(&filter->preds[prog[i].pred], record, record_len);
        i = r == prog[i].jump_when ? prog[i].target : i + 1;
    }
    return prog[i].result;
}

const char *event_filter_text(const struct event_filter *filter) { return filter->text; }

void event_filter_free(struct event_filter *filter)
{
    if (!filter)
        return;
    for (unsigned i = 0; i < filter->npreds; i++)
        kfree(filter->preds[i].pattern);
    kfree(filter->preds);
    kfree(filter->prog);
    kfree(filter->text);
    kfree(filter);
}

/* ---- parsing ---- */

/* The parse tree, in one array: leaves are predicates, inner nodes && and ||. */
enum node_kind { NODE_PRED, NODE_AND, NODE_OR };
struct filter_node {
    uint8_t kind;
    bool negate;
    int16_t left, right; /* children, or for a leaf left = its predicate */
};

struct filter_parser {
    const char *text;
    const struct event_field *fields;
    size_t nfields;
    struct event_filter_error *err;
    struct filter_pred *preds;
    unsigned npreds, max_preds;
    struct filter_node *nodes;
    unsigned nnodes;
    size_t pos;
};

static int parse_fail(struct filter_parser *ps, enum filter_msg msg, size_t pos, int err)
{
    ps->err->message = filter_msg_text[msg];
    ps->err->pos = (unsigned)pos;
    return err;
}

static const struct event_field generic_fields[] = {
    {"int", "CPU", 0, 4, true, EVENT_FIELD_INT},
    {"int", "cpu", 0, 4, true, EVENT_FIELD_INT},
    {"char *", "COMM", 0, 0, false, EVENT_FIELD_CHAR_ARRAY},
    {"char *", "comm", 0, 0, false, EVENT_FIELD_CHAR_ARRAY},
};

static const struct event_field *find_field(struct filter_parser *ps, const char *name, size_t len,
                                            enum pred_source *src)
{
    *src = SRC_RECORD;
    for (size_t i = 0; i < ps->nfields; i++)
        if (strlen(ps->fields[i].name) == len && memcmp(ps->fields[i].name, name, len) == 0)
            return &ps->fields[i];
    for (size_t i = 0; i < EVENT_COMMON_FIELDS; i++)
        if (strlen(event_common_fields[i].name) == len &&
            memcmp(event_common_fields[i].name, name, len) == 0)
            return &event_common_fields[i];
    for (size_t i = 0; i < sizeof(generic_fields) / sizeof(generic_fields[0]); i++)
        if (strlen(generic_fields[i].name) == len &&
            memcmp(generic_fields[i].name, name, len) == 0) {
            *src = i < 2 ? SRC_CPU : SRC_COMM;
            return &generic_fields[i];
        }
    return NULL;
}

/* Base 0 as C writes it (0x hex, 0 octal), the whole text, 64 bits without overflow. */
static bool parse_number(const char *s, bool is_signed, uint64_t *out)
{
    bool negative = false;
    if (*s == '-') {
        if (!is_signed)
            return false;
        negative = true;
        s++;
    } else if (*s == '+') {
        s++;
    }
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit(s[2])) {
        base = 16;
        s += 2;
    } else if (s[0] == '0' && s[1]) {
        base = 8;
        s++;
    }
    if (!*s)
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned d;
        if (isdigit(*s))
            d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (*s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            return false;
        if (d >= base || v > (UINT64_MAX - d) / base)
            return false;
        v = v * base + d;
    }
    if (is_signed) {
        if (negative ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
            return false;
        *out = negative ? (uint64_t)0 - v : v;
    } else {
        *out = v;
    }
    return true;
}

static uint64_t truncate_to(uint64_t v, unsigned size)
{
    return size >= 8 ? v : v & ((1ull << (size * 8)) - 1);
}

/* The shape of a `~` pattern: `abc*`, `*abc`, `*abc*` are plain compares, the rest globs. */
static enum str_match pattern_shape(char *pattern, size_t *len)
{
    size_t n = *len;
    enum str_match m = MATCH_FULL;
    for (size_t i = 0; i < n; i++) {
        if (pattern[i] == '*') {
            if (i == 0) {
                m = MATCH_END;
            } else if (i == n - 1) {
                m = m == MATCH_END ? MATCH_MIDDLE : MATCH_FRONT;
                pattern[i] = '\0';
                n = i;
                break;
            } else {
                return MATCH_GLOB;
            }
        } else if (pattern[i] == '[' || pattern[i] == '?' || pattern[i] == '\\') {
            return MATCH_GLOB;
        }
    }
    if (m == MATCH_END || m == MATCH_MIDDLE) {
        memmove(pattern, pattern + 1, n);
        n--;
        pattern[n] = '\0';
    }
    *len = n;
    return m;
}

/*
 * One predicate at ps->text + at: `field op value`. Returns the characters it took, 0 if
 * no field name starts there (Linux's "Error: (0)" case), or -errno with the error set.
 * Positions in errors are one past the character, as Linux's.
 */
static int parse_pred(struct filter_parser *ps, size_t at, int *pred_index)
{
    const char *str = ps->text + at;
    size_t pos = at + 1;
    size_t i = 0;
    while (isspace(str[i]))
        i++;
    size_t name_at = i;
    while (isalnum(str[i]) || str[i] == '_')
        i++;
    if (i == name_at)
        return 0;
    enum pred_source src;
    const struct event_field *field = find_field(ps, str + name_at, i - name_at, &src);
    /* An array of numbers (a probe's u8 name[]) has no value a predicate could test. */
    if (!field || field->kind == EVENT_FIELD_ARRAY)
        return parse_fail(ps, MSG_FIELD_NOT_FOUND, pos + i, -EINVAL);
    while (isspace(str[i]))
        i++;
    int op;
    for (op = 0; op < OP_COUNT; op++)
        if (strncmp(str + i, filter_op_text[op], strlen(filter_op_text[op])) == 0)
            break;
    if (op == OP_COUNT)
        return parse_fail(ps, MSG_INVALID_OP, pos + i, -EINVAL);
    i += strlen(filter_op_text[op]);
    while (isspace(str[i]))
        i++;
    size_t value_at = i;

    bool is_string = field->kind != EVENT_FIELD_INT;
    struct filter_pred p = {
        .source = (uint8_t)src,
        .kind = (uint8_t)field->kind,
        .op = (uint8_t)op,
        .is_signed = field->is_signed,
        .offset = field->offset,
        .size = field->size,
    };
    if (str[i] == '\'' || str[i] == '"') {
        char quote = str[i];
        if (op != OP_EQ && op != OP_NE && op != OP_GLOB)
            return parse_fail(ps, MSG_ILLEGAL_FIELD_OP, pos + i, -EINVAL);
        if (!is_string)
            return parse_fail(ps, MSG_EXPECT_DIGIT, pos + i, -EINVAL);
        for (i++; str[i] && str[i] != quote; i++)
            ;
        if (!str[i])
            return parse_fail(ps, MSG_MISSING_QUOTE, pos + i, -EINVAL);
        size_t len = i - value_at - 1;
        if (len >= FILTER_STR_MAX)
            return parse_fail(ps, MSG_OPERAND_TOO_LONG, pos + i, -EINVAL);
        p.pattern = kmalloc(len + 1);
        if (!p.pattern)
            return -ENOMEM;
        memcpy(p.pattern, str + value_at + 1, len);
        p.pattern[len] = '\0';
        p.invert = op == OP_NE;
        p.match = MATCH_FULL;
        if (op == OP_GLOB) {
            /* A leading '!' inverts a glob, as in Linux's pattern syntax. */
            if (p.pattern[0] == '!') {
                p.invert = true;
                memmove(p.pattern, p.pattern + 1, len);
                len--;
            }
            p.match = (uint8_t)pattern_shape(p.pattern, &len);
        }
        p.pattern_len = (uint16_t)len;
        i++;
    } else if (isdigit(str[i]) || str[i] == '-') {
        if (is_string)
            return parse_fail(ps, MSG_EXPECT_STRING, pos + i, -EINVAL);
        if (op == OP_GLOB)
            return parse_fail(ps, MSG_ILLEGAL_FIELD_OP, pos + i, -EINVAL);
        if (str[i] == '-')
            i++;
        while (isalnum(str[i]))
            i++;
        size_t len = i - value_at;
        if (len >= FILTER_NUM_MAX)
            return parse_fail(ps, MSG_OPERAND_TOO_LONG, pos + i, -EINVAL);
        char num[FILTER_NUM_MAX];
        memcpy(num, str + value_at, len);
        num[len] = '\0';
        uint64_t v;
        if (!parse_number(num, field->is_signed, &v))
            return parse_fail(ps, MSG_ILLEGAL_INTVAL, pos + value_at, -EINVAL);
        p.value = src == SRC_CPU ? v : truncate_to(v, field->size);
        if (p.is_signed && field->size < 8 && src != SRC_CPU) {
            /* Sign-extend the truncated operand so it compares with the widened field. */
            unsigned shift = 64 - field->size * 8;
            p.value = (uint64_t)((int64_t)(p.value << shift) >> shift);
        }
        p.invert = op == OP_NE;
    } else {
        return parse_fail(ps, MSG_INVALID_VALUE, pos + i, -EINVAL);
    }
    if (ps->npreds == ps->max_preds) {
        kfree(p.pattern);
        return parse_fail(ps, MSG_TOO_MANY_PREDS, at, -ENOSPC);
    }
    *pred_index = (int)ps->npreds;
    ps->preds[ps->npreds++] = p;
    return (int)i;
}

static int new_node(struct filter_parser *ps, enum node_kind kind, bool negate, int left, int right)
{
    struct filter_node *n = &ps->nodes[ps->nnodes];
    n->kind = (uint8_t)kind;
    n->negate = negate;
    n->left = (int16_t)left;
    n->right = (int16_t)right;
    return (int)ps->nnodes++;
}

/*
 * The bracket and quote scan that runs before parsing, with Linux's results: the number
 * of predicates (0 means "nothing to filter"), or the errno and position of a missing
 * quote (ESRCH), a ')' too many (EPERM) or a '(' too many (ENOENT, at the innermost
 * unclosed one).
 */
static int scan_text(struct filter_parser *ps, unsigned *npreds)
{
    const char *s = ps->text;
    size_t n = strlen(s);
    unsigned preds = 0, depth = 0;
    bool in_pred = false;
    char quote = 0;
    size_t last_quote = 0;
    for (size_t i = 0; i < n; i++) {
        if (isspace(s[i]))
            continue;
        if (quote) {
            if (s[i] == quote)
                quote = 0;
            continue;
        }
        if (s[i] == '\'' || s[i] == '"') {
            quote = s[i];
            last_quote = i;
        } else if ((s[i] == '&' || s[i] == '|') && s[i + 1] == s[i]) {
            in_pred = false;
            continue;
        } else if (s[i] == '(') {
            in_pred = false;
            if (++depth > FILTER_MAX_DEPTH)
                return parse_fail(ps, MSG_TOO_MANY_OPEN, i, -EINVAL);
            continue;
        } else if (s[i] == ')') {
            in_pred = false;
            if (depth == 0)
                return parse_fail(ps, MSG_TOO_MANY_CLOSE, i, -EPERM);
            depth--;
            continue;
        }
        if (!in_pred) {
            preds++;
            in_pred = true;
        }
    }
    if (quote)
        return parse_fail(ps, MSG_MISSING_QUOTE, last_quote, -ESRCH);
    if (depth) {
        /* The innermost '(' left open: walk back, counting brackets outside quotes. */
        unsigned closes = 0;
        size_t at = 0;
        for (size_t i = n; i-- > 0;) {
            if (s[i] == ')')
                closes++;
            else if (s[i] == '(' && closes-- == 0) {
                at = i;
                break;
            }
        }
        return parse_fail(ps, MSG_TOO_MANY_OPEN, at, -ENOENT);
    }
    *npreds = preds;
    return 0;
}

/*
 * Builds the tree by precedence: || binds loosest, then &&, then a prefix ! and
 * parentheses. Linux reaches the same grouping with its operator stack; its errors come
 * from the same places: a term not followed by &&, || or ')' is "Too many terms", and an
 * expression that ends where a term should start is "Meaningless".
 */
static int parse_or(struct filter_parser *ps, int *out);

static int parse_term(struct filter_parser *ps, int *out)
{
    bool negate = false;
    for (;;) {
        while (isspace(ps->text[ps->pos]))
            ps->pos++;
        char c = ps->text[ps->pos];
        if (c == '\0')
            return parse_fail(ps, MSG_INVALID_FILTER, ps->pos, -EINVAL);
        if (c == '!' && ps->text[ps->pos + 1] != '=') {
            negate = !negate;
            ps->pos++;
            continue;
        }
        if (c == '(') {
            ps->pos++;
            int err = parse_or(ps, out);
            if (err)
                return err;
            /* parse_or stopped at the matching ')': the scan proved it is there. */
            ps->pos++;
            if (negate)
                ps->nodes[*out].negate = !ps->nodes[*out].negate;
            return 0;
        }
        int pred;
        int len = parse_pred(ps, ps->pos, &pred);
        if (len < 0)
            return len;
        if (len == 0) {
            /* No field name where a term must start: Linux's "Error: (0)" with EPERM. */
            ps->err->message = NULL;
            ps->err->pos = 0;
            return -EPERM;
        }
        ps->pos += (size_t)len;
        *out = new_node(ps, NODE_PRED, negate, pred, -1);
        return 0;
    }
}

/* After a term: &&, ||, ')' or the end, else "Too many terms" (EPERM, as Linux's). */
static int parse_operator(struct filter_parser *ps, char *op)
{
    while (isspace(ps->text[ps->pos]))
        ps->pos++;
    char c = ps->text[ps->pos];
    if (c == '\0' || c == ')') {
        *op = c;
        return 0;
    }
    if ((c == '&' || c == '|') && ps->text[ps->pos + 1] == c) {
        *op = c;
        ps->pos += 2;
        return 0;
    }
    return parse_fail(ps, MSG_TOO_MANY_PREDS, ps->pos, -EPERM);
}

/*
 * Appends right to a chain of kind whose head is *out and last inner node *tail. Chains
 * are built right-deep, a && (b && (c && d)), which keeps the code generator's recursion
 * to the nesting of parentheses however long the chain.
 */
static void chain_append(struct filter_parser *ps, enum node_kind kind, int *out, int *tail,
                         int right)
{
    if (*tail < 0) {
        *out = new_node(ps, kind, false, *out, right);
        *tail = *out;
    } else {
        int node = new_node(ps, kind, false, ps->nodes[*tail].right, right);
        ps->nodes[*tail].right = (int16_t)node;
        *tail = node;
    }
}

static int parse_and(struct filter_parser *ps, int *out, char *op)
{
    int err = parse_term(ps, out);
    int tail = -1;
    while (!err) {
        err = parse_operator(ps, op);
        if (err || *op != '&')
            return err;
        int right;
        err = parse_term(ps, &right);
        if (!err)
            chain_append(ps, NODE_AND, out, &tail, right);
    }
    return err;
}

static int parse_or(struct filter_parser *ps, int *out)
{
    char op;
    int tail = -1;
    int err = parse_and(ps, out, &op);
    while (!err && op == '|') {
        int right;
        err = parse_and(ps, &right, &op);
        if (!err)
            chain_append(ps, NODE_OR, out, &tail, right);
    }
    return err;
}

/* ---- code generation ---- */

struct filter_codegen {
    const struct filter_node *nodes;
    struct filter_step *prog;
    unsigned nsteps;
    int *label_at; /* step index of each label, -1 until placed */
    unsigned nlabels;
};

static unsigned new_label(struct filter_codegen *cg)
{
    cg->label_at[cg->nlabels] = -1;
    return cg->nlabels++;
}

/*
 * Emits steps that jump to label when the node evaluates to jump_when and fall through
 * otherwise; && and || short-circuit. Jump targets hold label numbers until resolved.
 * The right side of a chain is walked in a loop (chains are right-deep), so recursion
 * goes only as deep as the parentheses.
 */
static void gen_cond(struct filter_codegen *cg, int node, bool jump_when, unsigned label)
{
    unsigned first_skip = cg->nlabels;
    for (;;) {
        const struct filter_node *n = &cg->nodes[node];
        if (n->negate)
            jump_when = !jump_when;
        if (n->kind == NODE_PRED) {
            struct filter_step *st = &cg->prog[cg->nsteps++];
            st->pred = n->left;
            st->jump_when = jump_when;
            st->target = (uint16_t)label;
            break;
        }
        /* && jumping on false and || jumping on true pass the label to both sides; the
         * other two jump past the right side when the left decides. */
        if ((n->kind == NODE_AND) != jump_when) {
            gen_cond(cg, n->left, jump_when, label);
        } else {
            unsigned skip = new_label(cg);
            gen_cond(cg, n->left, !jump_when, skip);
        }
        node = n->right;
    }
    /* Every skip label made in this loop lands after the last step of the chain. */
    for (unsigned l = first_skip; l < cg->nlabels; l++)
        if (cg->label_at[l] < 0)
            cg->label_at[l] = (int)cg->nsteps;
}

static int compile(struct event_filter *f, const struct filter_node *nodes, unsigned nnodes,
                   int root)
{
    /* One step per predicate plus the two endings; at most one label per inner node. */
    unsigned max_steps = f->npreds + 2, max_labels = nnodes + 1;
    f->prog = kmalloc(max_steps * sizeof(*f->prog));
    int *labels = kmalloc(max_labels * sizeof(*labels));
    if (!f->prog || !labels) {
        kfree(labels);
        return -ENOMEM;
    }
    struct filter_codegen cg = {.nodes = nodes, .prog = f->prog, .label_at = labels};
    unsigned on_false = new_label(&cg);
    gen_cond(&cg, root, false, on_false);
    f->prog[cg.nsteps++] = (struct filter_step){.pred = -1, .result = true};
    labels[on_false] = (int)cg.nsteps;
    f->prog[cg.nsteps++] = (struct filter_step){.pred = -1, .result = false};
    for (unsigned i = 0; i < cg.nsteps; i++)
        if (f->prog[i].pred >= 0)
            f->prog[i].target = (uint16_t)labels[f->prog[i].target];
    kfree(labels);
    return 0;
}

int event_filter_create(const char *text, const struct event_field *fields, size_t nfields,
                        struct event_filter **out, struct event_filter_error *err)
{
    struct filter_parser ps = {.text = text, .fields = fields, .nfields = nfields, .err = err};
    err->message = NULL;
    err->pos = 0;
    unsigned npreds = 0;
    int ret = scan_text(&ps, &npreds);
    if (ret)
        return ret;
    if (npreds == 0)
        return -EINVAL; /* nothing to filter on: Linux's "Error: (0)" */

    struct event_filter *f = kzalloc(sizeof(*f));
    size_t text_len = strlen(text);
    /* The scan counts terms as Linux does; the tree needs a node per term and operator. */
    ps.max_preds = npreds;
    ps.preds = kzalloc(npreds * sizeof(*ps.preds));
    ps.nodes = kmalloc(2 * npreds * sizeof(*ps.nodes));
    char *copy = kmalloc(text_len + 1);
    if (!f || !ps.preds || !ps.nodes || !copy) {
        ret = -ENOMEM;
        goto fail;
    }
    int root;
    ret = parse_or(&ps, &root);
    if (!ret && ps.text[ps.pos] == ')')
        ret = parse_fail(&ps, MSG_TOO_MANY_CLOSE, ps.pos, -EPERM);
    if (ret)
        goto fail;
    memcpy(copy, text, text_len + 1);
    f->text = copy;
    f->preds = ps.preds;
    f->npreds = ps.npreds;
    ret = compile(f, ps.nodes, ps.nnodes, root);
    kfree(ps.nodes);
    if (ret) {
        event_filter_free(f);
        return ret;
    }
    *out = f;
    return 0;

fail:
    for (unsigned i = 0; i < ps.npreds; i++)
        kfree(ps.preds[i].pattern);
    kfree(ps.preds);
    kfree(ps.nodes);
    kfree(copy);
    kfree(f);
    return ret;
}
