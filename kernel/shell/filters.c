#include <kernel/errno.h>
#include <kernel/mm.h>
#include <lib/ctype.h>
#include <lib/string.h>

#include "shell_internal.h"

/*
 * The line filters. Each is a push-style sink (see struct shell_filter): the shell calls
 * line() as the producer writes, so none of them ever waits for input.
 */

static size_t shell_line_body_len(const char *line, size_t len)
{
    return len && line[len - 1] == '\n' ? len - 1 : len;
}

/* Parses a line count; the whole argument must be a decimal number. */
static bool shell_parse_count(const char *s, unsigned long *out)
{
    return *s && isdigit(*s) && kstrtoul(s, 10, out) == 0;
}

/* ---- grep ---- */

struct grep_state {
    const char *pattern; /* without its anchors; points into argv */
    size_t pattern_len;
    bool anchor_start;
    bool anchor_end;
    bool invert;
    bool count_only;
    bool ignore_case;
    bool reads_files;
    bool name_files; /* several FILE operands: output says which one */
    unsigned long count;
    bool any_selected;
};

static bool grep_equal(const struct grep_state *g, const char *text)
{
    size_t i;

    if (!g->ignore_case)
        return memcmp(text, g->pattern, g->pattern_len) == 0;
    for (i = 0; i < g->pattern_len; i++) {
        if (tolower((unsigned char)text[i]) != tolower((unsigned char)g->pattern[i]))
            return false;
    }
    return true;
}

static bool grep_matches(const struct grep_state *g, const char *line, size_t len)
{
    size_t i;

    if (g->pattern_len > len)
        return false;
    if (g->anchor_start && g->anchor_end)
        return g->pattern_len == len && grep_equal(g, line);
    if (g->anchor_start)
        return grep_equal(g, line);
    if (g->anchor_end)
        return grep_equal(g, line + len - g->pattern_len);
    for (i = 0; i + g->pattern_len <= len; i++) {
        if (grep_equal(g, line + i))
            return true;
    }
    return false;
}

static int grep_start(struct shell_ctx *ctx, void *state, int argc, char **argv, int *files_at)
{
    struct grep_state *g = state;
    const char *pattern;
    int i;

    for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *opt;
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        for (opt = argv[i] + 1; *opt; opt++) {
            if (*opt == 'v')
                g->invert = true;
            else if (*opt == 'c')
                g->count_only = true;
            else if (*opt == 'i')
                g->ignore_case = true;
            else
                return shell_usage(ctx);
        }
    }
    if (i >= argc)
        return shell_usage(ctx);

    pattern = argv[i];
    g->pattern_len = strlen(pattern);
    if (pattern[0] == '^') {
        g->anchor_start = true;
        pattern++;
        g->pattern_len--;
    }
    if (g->pattern_len && pattern[g->pattern_len - 1] == '$') {
        g->anchor_end = true;
        g->pattern_len--;
    }
    g->pattern = pattern;
    *files_at = i + 1;
    g->reads_files = *files_at < argc;
    g->name_files = argc - *files_at > 1;
    return 0;
}

static int grep_line(struct shell_ctx *ctx, void *state, const char *line, size_t len)
{
    struct grep_state *g = state;
    size_t body = shell_line_body_len(line, len);
    const char *name = g->name_files ? shell_filter_input_name(ctx) : NULL;

    if (grep_matches(g, line, body) == g->invert)
        return 0;
    g->count++;
    g->any_selected = true;
    if (g->count_only)
        return 0;
    /* One write per line: a file's write handler may parse each call on its own. */
    if (!name && body < len)
        return shell_write(ctx, line, len);
    return shell_printf(ctx, "%s%s%.*s\n", name ? name : "", name ? ":" : "", (int)body, line);
}

/* With FILE operands each file's count is printed when it ends; finish() covers piped input. */
static int grep_input_end(struct shell_ctx *ctx, void *state)
{
    struct grep_state *g = state;
    unsigned long count = g->count;

    g->count = 0;
    if (!g->count_only)
        return 0;
    if (g->name_files)
        return shell_printf(ctx, "%s:%lu\n", shell_filter_input_name(ctx), count);
    return shell_printf(ctx, "%lu\n", count);
}

static int grep_finish(struct shell_ctx *ctx, void *state)
{
    struct grep_state *g = state;

    if (g->count_only && !g->reads_files)
        shell_printf(ctx, "%lu\n", g->count);
    return g->any_selected ? 0 : 1;
}

static const struct shell_filter grep_filter = {
    .state_size = sizeof(struct grep_state),
    .error_status = 2,
    .start = grep_start,
    .line = grep_line,
    .input_end = grep_input_end,
    .finish = grep_finish,
};

SHELL_FILTER(grep, "grep [-v] [-c] [-i] PATTERN [FILE...]",
             "print lines containing a fixed string (^ and $ anchor it)", grep_filter);

/* ---- head and tail share their option syntax: -n N, -nN, -N ---- */

/* Returns the index of the first operand, or -1 for a bad option. */
static int shell_parse_line_count(int argc, char **argv, unsigned long *count)
{
    int i;

    *count = 10;
    for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0)
            return i + 1;
        if (strcmp(arg, "-n") == 0) {
            if (++i >= argc || !shell_parse_count(argv[i], count))
                return -1;
        } else if (arg[1] == 'n') {
            if (!shell_parse_count(arg + 2, count))
                return -1;
        } else if (!shell_parse_count(arg + 1, count)) {
            return -1;
        }
    }
    return i;
}

struct head_state {
    unsigned long limit;
    unsigned long seen;
};

static int head_start(struct shell_ctx *ctx, void *state, int argc, char **argv, int *files_at)
{
    struct head_state *h = state;
    int first = shell_parse_line_count(argc, argv, &h->limit);

    if (first < 0 || argc - first > 1)
        return shell_usage(ctx);
    *files_at = first;
    return 0;
}

/* Refuses input as soon as it has its lines, which stops `cat trace_pipe` upstream. */
static int head_line(struct shell_ctx *ctx, void *state, const char *line, size_t len)
{
    struct head_state *h = state;
    int err;

    if (h->seen >= h->limit)
        return -EPIPE;
    h->seen++;
    err = shell_write(ctx, line, len);
    if (err)
        return err;
    return h->seen >= h->limit ? -EPIPE : 0;
}

static int head_finish(struct shell_ctx *ctx, void *state)
{
    (void)ctx;
    (void)state;
    return 0;
}

static const struct shell_filter head_filter = {
    .state_size = sizeof(struct head_state),
    .error_status = 1,
    .start = head_start,
    .line = head_line,
    .finish = head_finish,
};

SHELL_FILTER(head, "head [-n N] [FILE]", "print the first N lines (default 10)", head_filter);

struct tail_line {
    char *text;
    size_t len;
};

/*
 * The last lines seen, in a ring of at most limit slots that grows with the input, so a
 * large -n costs memory only when the input is that long.
 */
struct tail_state {
    unsigned long limit;
    struct tail_line *ring;
    size_t cap;
    unsigned long total;
    bool out_of_memory;
};

static int tail_start(struct shell_ctx *ctx, void *state, int argc, char **argv, int *files_at)
{
    struct tail_state *t = state;
    int first = shell_parse_line_count(argc, argv, &t->limit);

    if (first < 0 || argc - first > 1)
        return shell_usage(ctx);
    *files_at = first;
    return 0;
}

static int tail_line(struct shell_ctx *ctx, void *state, const char *line, size_t len)
{
    struct tail_state *t = state;
    size_t slot;
    char *copy;

    (void)ctx;
    if (t->limit == 0)
        return 0;
    slot = (size_t)(t->total % t->limit);
    /* Until the ring is full, slots fill in order, so slot == cap means grow. */
    if (slot >= t->cap) {
        size_t cap = (size_t)MIN((unsigned long)MAX(t->cap * 2, (size_t)16), t->limit);
        struct tail_line *grown = krealloc(t->ring, cap * sizeof(*grown));
        if (!grown) {
            t->out_of_memory = true;
            return -ENOMEM;
        }
        memset(grown + t->cap, 0, (cap - t->cap) * sizeof(*grown));
        t->ring = grown;
        t->cap = cap;
    }
    copy = kmalloc(len + 1);
    if (!copy) {
        t->out_of_memory = true;
        return -ENOMEM;
    }
    memcpy(copy, line, len + 1);
    kfree(t->ring[slot].text);
    t->ring[slot] = (struct tail_line){copy, len};
    t->total++;
    return 0;
}

static int tail_finish(struct shell_ctx *ctx, void *state)
{
    struct tail_state *t = state;
    unsigned long kept = MIN(t->total, t->limit), k;
    int err = 0;
    size_t i;

    for (k = t->total - kept; k < t->total && !err; k++) {
        const struct tail_line *l = &t->ring[k % t->limit];
        err = shell_write(ctx, l->text, l->len);
    }
    for (i = 0; i < t->cap; i++)
        kfree(t->ring[i].text);
    kfree(t->ring);
    if (t->out_of_memory) {
        shell_eprintf(ctx, "tail: %s\n", strerror(ENOMEM));
        return 1;
    }
    return 0;
}

static const struct shell_filter tail_filter = {
    .state_size = sizeof(struct tail_state),
    .error_status = 1,
    .start = tail_start,
    .line = tail_line,
    .finish = tail_finish,
};

SHELL_FILTER(tail, "tail [-n N] [FILE]", "print the last N lines (default 10)", tail_filter);

/* ---- wc ---- */

struct wc_state {
    unsigned long lines;
    bool reads_file;
};

static int wc_start(struct shell_ctx *ctx, void *state, int argc, char **argv, int *files_at)
{
    struct wc_state *w = state;
    bool count_lines = false;
    int i;

    for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (strcmp(argv[i], "-l") != 0)
            return shell_usage(ctx);
        count_lines = true;
    }
    if (!count_lines || argc - i > 1)
        return shell_usage(ctx);
    *files_at = i;
    w->reads_file = i < argc;
    return 0;
}

/* Counts newlines, as wc does: a last line without one is not counted. */
static int wc_line(struct shell_ctx *ctx, void *state, const char *line, size_t len)
{
    struct wc_state *w = state;

    (void)ctx;
    if (len && line[len - 1] == '\n')
        w->lines++;
    return 0;
}

static int wc_input_end(struct shell_ctx *ctx, void *state)
{
    struct wc_state *w = state;

    return shell_printf(ctx, "%lu %s\n", w->lines, shell_filter_input_name(ctx));
}

static int wc_finish(struct shell_ctx *ctx, void *state)
{
    struct wc_state *w = state;

    if (!w->reads_file)
        shell_printf(ctx, "%lu\n", w->lines);
    return 0;
}

static const struct shell_filter wc_filter = {
    .state_size = sizeof(struct wc_state),
    .error_status = 1,
    .start = wc_start,
    .line = wc_line,
    .input_end = wc_input_end,
    .finish = wc_finish,
};

SHELL_FILTER(wc, "wc -l [FILE]", "count lines", wc_filter);
