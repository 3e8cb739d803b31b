/*
 * Filter text: the globs and commands written to set_ftrace_filter / set_ftrace_notrace,
 * matched against the records the way Linux matches them, so that a filter line copied
 * from a Linux session selects the same functions here.
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/mm.h>
#include <kernel/symbols.h>
#include <lib/ctype.h>
#include <lib/glob.h>
#include <lib/string.h>

#include "trace_internal.h"

/*
 * Most filters are a plain name, prefix, suffix or substring; those are compared
 * directly, and only a real pattern goes through glob_match.
 */
enum ftrace_match_type {
    FTRACE_MATCH_FULL,      /* foo */
    FTRACE_MATCH_PREFIX,    /* foo* */
    FTRACE_MATCH_SUFFIX,    /* *foo */
    FTRACE_MATCH_SUBSTRING, /* *foo* */
    FTRACE_MATCH_GLOB,      /* f*o, f?o, [fg]oo, f\oo */
    FTRACE_MATCH_INDEX,     /* 42: line 42 of available_filter_functions */
};

struct ftrace_glob {
    enum ftrace_match_type type;
    const char *text; /* what is compared: the token minus '!' and the '*' its type implies */
    size_t len;       /* of text; for a prefix or substring, text goes on with the final '*' */
    bool remove;
};

/* The classification is Linux's, character for character: see filter_parse_regex. */
static void ftrace_glob_parse(const char *token, struct ftrace_glob *g)
{
    size_t len, i;

    g->remove = token[0] == '!';
    if (g->remove)
        token++;
    len = strlen(token);
    g->type = FTRACE_MATCH_FULL;
    g->text = token;
    g->len = len;

    if (isdigit((unsigned char)token[0])) {
        g->type = FTRACE_MATCH_INDEX;
        return;
    }
    for (i = 0; i < len; i++) {
        char c = token[i];

        if (c == '*') {
            if (i == 0) {
                g->type = FTRACE_MATCH_SUFFIX;
            } else if (i == len - 1) {
                g->type =
                    g->type == FTRACE_MATCH_SUFFIX ? FTRACE_MATCH_SUBSTRING : FTRACE_MATCH_PREFIX;
                g->len = i;
                break;
            } else {
                /* A '*' inside the word: the whole token, leading '*' included, is a glob. */
                g->type = FTRACE_MATCH_GLOB;
                return;
            }
        } else if (c == '?' || c == '[' || c == '\\') {
            g->type = FTRACE_MATCH_GLOB;
            return;
        }
    }
    if (token[0] == '*') {
        g->text++;
        g->len--;
    }
}

static bool ftrace_str_contains(const char *str, const char *needle, size_t len)
{
    if (len == 0)
        return true;
    for (; (str = strchr(str, needle[0])) != NULL; str++)
        if (strncmp(str, needle, len) == 0)
            return true;
    return false;
}

static bool ftrace_glob_match(const struct ftrace_glob *g, const char *name)
{
    size_t name_len;

    switch (g->type) {
    case FTRACE_MATCH_FULL:
        return strcmp(name, g->text) == 0;
    case FTRACE_MATCH_PREFIX:
        return strncmp(name, g->text, g->len) == 0;
    case FTRACE_MATCH_SUFFIX:
        name_len = strlen(name);
        return name_len >= g->len && memcmp(name + name_len - g->len, g->text, g->len) == 0;
    case FTRACE_MATCH_SUBSTRING:
        return ftrace_str_contains(name, g->text, g->len);
    case FTRACE_MATCH_GLOB:
        return glob_match(g->text, name);
    case FTRACE_MATCH_INDEX:
        break;
    }
    return false;
}

static void ftrace_glob_apply(struct ftrace_hash *hash, const struct ftrace_glob *g, size_t i)
{
    if (g->remove)
        ftrace_hash_clear_bit(hash, i);
    else
        ftrace_hash_set(hash, i);
}

/*
 * The index counts lines of available_filter_functions, which leaves out disabled
 * records. The number is read as Linux 6.1 reads it (simple_strtoul, base 0): "010" is
 * line 8, "0x10" line 16, and "3abc" line 3.
 */
static int ftrace_glob_apply_index(struct ftrace_hash *hash, const struct ftrace_glob *g)
{
    unsigned long line = strtoul(g->text, NULL, 0);
    size_t total = ftrace_rec_total();
    size_t i;

    if (line == 0)
        return -EINVAL;
    for (i = 0; i < total; i++) {
        if (ftrace_rec(i)->flags & FTRACE_FL_DISABLED)
            continue;
        if (--line == 0) {
            ftrace_glob_apply(hash, g, i);
            return 1;
        }
    }
    return -EINVAL;
}

int ftrace_hash_apply_glob(struct ftrace_hash *hash, const char *token)
{
    struct ftrace_glob g;
    size_t total = ftrace_rec_total();
    size_t i;
    bool every;
    int matched = 0;

    ftrace_glob_parse(token, &g);
    if (g.type == FTRACE_MATCH_INDEX)
        return ftrace_glob_apply_index(hash, &g);

    /* "*" and "**" select everything: no need to look a single name up. */
    every = g.len == 0 && g.type != FTRACE_MATCH_FULL && g.type != FTRACE_MATCH_GLOB;
    for (i = 0; i < total; i++) {
        const struct dyn_ftrace *rec = ftrace_rec(i);

        if (rec->flags & FTRACE_FL_DISABLED)
            continue;
        if (!every && !ftrace_glob_match(&g, ftrace_rec_name(rec)))
            continue;
        ftrace_glob_apply(hash, &g, i);
        matched++;
    }
    return matched ? matched : -EINVAL;
}

/* ---- commands: glob:name[:param] ---- */

const struct ftrace_filter_command *ftrace_filter_command_find(const char *name)
{
    const struct ftrace_filter_command *cmd;

    for (cmd = __start_ftrace_commands; cmd < __stop_ftrace_commands; cmd++)
        if (strcmp(cmd->name, name) == 0)
            return cmd;
    return NULL;
}

uint64_t ftrace_probe_stamp(void)
{
    static uint64_t stamp;
    return __atomic_add_fetch(&stamp, 1, __ATOMIC_RELAXED);
}

int ftrace_filter_commands_show(struct trace_array *tr, struct seqbuf *s)
{
    const struct ftrace_filter_command *cmd;
    uint64_t below = UINT64_MAX;
    int err;

    for (;;) {
        const struct ftrace_filter_command *newest = NULL;
        uint64_t newest_stamp = 0;
        for (cmd = __start_ftrace_commands; cmd < __stop_ftrace_commands; cmd++) {
            uint64_t stamp = cmd->newest_below ? cmd->newest_below(tr, below) : 0;
            if (stamp > newest_stamp) {
                newest = cmd;
                newest_stamp = stamp;
            }
        }
        if (!newest)
            break;
        err = newest->show_kind(tr, s, newest_stamp);
        if (err < 0)
            return err;
        below = newest_stamp;
    }
    for (cmd = __start_ftrace_commands; cmd < __stop_ftrace_commands; cmd++) {
        if (!cmd->show)
            continue;
        err = cmd->show(tr, s);
        if (err < 0)
            return err;
    }
    return 0;
}

/*
 * The token is split as Linux splits it: the glob ends at the first ':', the command name
 * at the second, and the parameter is all the rest (it may hold more ':').
 */
int ftrace_filter_commands_clear(struct trace_array *tr)
{
    int err = 0;
    for (const struct ftrace_filter_command *cmd = __start_ftrace_commands;
         cmd < __stop_ftrace_commands; cmd++) {
        int e = cmd->instance_clear ? cmd->instance_clear(tr) : 0;
        err = err ? err : e;
    }
    return err;
}

static int ftrace_filter_run_command(struct trace_array *tr, const char *token)
{
    const struct ftrace_filter_command *cmd;
    char *copy, *glob, *name, *param;
    bool remove;
    int err;

    copy = kstrdup(token);
    if (!copy)
        return -ENOMEM;
    param = copy;
    glob = strsep(&param, ":");
    name = strsep(&param, ":");
    cmd = ftrace_filter_command_find(name);
    if (!cmd) {
        kfree(copy);
        return -EINVAL;
    }
    remove = glob[0] == '!';
    err = cmd->func(tr, remove ? glob + 1 : glob, param, remove);
    kfree(copy);
    return err;
}

int ftrace_filter_apply_token(struct ftrace_hash *hash, const char *token,
                              struct trace_array *commands_tr)
{
    if (!strchr(token, ':'))
        return ftrace_hash_apply_glob(hash, token);
    /* Linux: "hash funcs only work with set_ftrace_filter". */
    if (!commands_tr)
        return -EINVAL;
    return ftrace_filter_run_command(commands_tr, token);
}

/* ---- Linux's setters for an op's hashes ---- */

static struct ftrace_hash *ops_hash_start(const struct ftrace_hash *cur, int reset)
{
    return reset || !cur ? ftrace_hash_alloc() : ftrace_hash_copy(cur);
}

/* Applies each blank-separated glob of buf[0..len) to hash; 0 or the first error. */
static int ops_hash_apply_text(struct ftrace_hash *hash, const char *buf, int len)
{
    char word[128]; /* a glob longer than any function name matches nothing anyway */
    int i = 0;
    while (i < len) {
        while (i < len && isspace((unsigned char)buf[i]))
            i++;
        int start = i;
        while (i < len && buf[i] && !isspace((unsigned char)buf[i]))
            i++;
        if (i == start)
            break;
        if (i - start >= (int)sizeof(word))
            return -EINVAL;
        memcpy(word, buf + start, (size_t)(i - start));
        word[i - start] = '\0';
        int n = ftrace_hash_apply_glob(hash, word);
        if (n < 0)
            return n;
    }
    return 0;
}

static int ops_set_text(struct ftrace_ops *ops, bool is_notrace, const char *buf, int len,
                        int reset)
{
    struct ftrace_hash *cur = is_notrace ? ops->notrace_hash : ops->filter_hash;
    struct ftrace_hash *other = is_notrace ? ops->filter_hash : ops->notrace_hash;
    struct ftrace_hash *hash = ops_hash_start(cur, reset);
    struct ftrace_hash *keep = other ? ftrace_hash_copy(other) : NULL;
    int err = hash && (keep || !other) ? 0 : -ENOMEM;
    if (!err && buf)
        err = ops_hash_apply_text(hash, buf, len < 0 ? (int)strlen(buf) : len);
    if (err) {
        ftrace_hash_free(hash);
        ftrace_hash_free(keep);
        return err;
    }
    if (reset && !buf) {
        /* Cleared: no hash at all, so an op about to be freed leaves nothing behind. */
        ftrace_hash_free(hash);
        hash = NULL;
    }
    return is_notrace ? ftrace_ops_set_hashes(ops, keep, hash)
                      : ftrace_ops_set_hashes(ops, hash, keep);
}

int ftrace_set_filter(struct ftrace_ops *ops, const char *buf, int len, int reset)
{
    return ops_set_text(ops, false, buf, len, reset);
}

int ftrace_set_notrace(struct ftrace_ops *ops, const char *buf, int len, int reset)
{
    return ops_set_text(ops, true, buf, len, reset);
}

int ftrace_set_filter_ip(struct ftrace_ops *ops, unsigned long ip, int remove, int reset)
{
    uintptr_t start;
    if (!sym_lookup(ip, &start, NULL))
        return -EINVAL;
    struct dyn_ftrace *rec = ftrace_rec_lookup(start);
    if (!rec || (rec->flags & FTRACE_FL_DISABLED))
        return -EINVAL;
    size_t idx = (size_t)ftrace_rec_index(rec);
    struct ftrace_hash *hash = ops_hash_start(ops->filter_hash, reset);
    struct ftrace_hash *keep = ops->notrace_hash ? ftrace_hash_copy(ops->notrace_hash) : NULL;
    if (!hash || (ops->notrace_hash && !keep)) {
        ftrace_hash_free(hash);
        ftrace_hash_free(keep);
        return -ENOMEM;
    }
    if (remove) {
        if (!ftrace_hash_test(hash, idx)) {
            ftrace_hash_free(hash);
            ftrace_hash_free(keep);
            return -ENOENT;
        }
        ftrace_hash_clear_bit(hash, idx);
    } else {
        ftrace_hash_set(hash, idx);
    }
    return ftrace_ops_set_hashes(ops, hash, keep);
}
