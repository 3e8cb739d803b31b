/*
 * The tracefs files of dynamic ftrace: available_filter_functions, set_ftrace_filter,
 * set_ftrace_notrace, enabled_functions and dyn_ftrace_total_info, with Linux's formats;
 * and the sysctl /proc/sys/kernel/ftrace_enabled.
 *
 * The listings can run to thousands of lines, so they are not built whole at open: each
 * read generates the next few lines from a cursor over the records, and keeps what did not
 * fit for the next read. Every line is generated once, so a reader that takes the text in
 * small pieces gets the same bytes as one that takes it in one go.
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/init.h>
#include <kernel/mm.h>
#include <kernel/printk.h>
#include <lib/ctype.h>
#include <lib/string.h>

#include "trace_internal.h"

/* Lines are generated in batches of about this many bytes. */
#define FTRACE_LINES_BATCH 2048

struct ftrace_lines;
/* Appends the next line(s) to out and returns true, or returns false at the end. */
typedef bool (*ftrace_lines_fill_fn)(struct ftrace_lines *l, struct seqbuf *out);

struct ftrace_lines {
    ftrace_lines_fill_fn fill;
    struct seqbuf pending; /* generated, not yet returned */
    size_t pending_off;
    size_t next_rec; /* cursor over the records */
    bool done;
    bool failed; /* a batch could not be allocated: every read from then on is -ENOMEM */
};

static void ftrace_lines_init(struct ftrace_lines *l, ftrace_lines_fill_fn fill)
{
    memset(l, 0, sizeof(*l));
    l->fill = fill;
}

static ssize_t ftrace_lines_read(struct ftrace_lines *l, char *buf, size_t len)
{
    size_t copied = 0;

    if (l->failed)
        return -ENOMEM;
    while (copied < len) {
        size_t n;

        if (l->pending_off == l->pending.len) {
            if (l->done)
                break;
            l->pending.len = 0;
            l->pending_off = 0;
            while (!l->done && l->pending.len < FTRACE_LINES_BATCH)
                l->done = !l->fill(l, &l->pending);
            /* A batch that could not be held whole is dropped (its last line may be cut)
             * and the file ends in an error, never in a quietly shorter list. */
            if (l->pending.overflow) {
                l->failed = true;
                l->pending.len = 0;
                return copied ? (ssize_t)copied : -ENOMEM;
            }
            continue;
        }
        n = MIN(len - copied, l->pending.len - l->pending_off);
        memcpy(buf + copied, l->pending.buf + l->pending_off, n);
        l->pending_off += n;
        copied += n;
    }
    return (ssize_t)copied;
}

static void ftrace_lines_free(struct ftrace_lines *l) { seqbuf_free(&l->pending); }

/* ---- available_filter_functions ---- */

static bool ftrace_available_fill(struct ftrace_lines *l, struct seqbuf *out)
{
    size_t total = ftrace_rec_total();

    for (; l->next_rec < total; l->next_rec++) {
        const struct dyn_ftrace *rec = ftrace_rec(l->next_rec);

        if (rec->flags & FTRACE_FL_DISABLED)
            continue;
        seq_printf(out, "%s\n", ftrace_rec_name(rec));
        l->next_rec++;
        return true;
    }
    return false;
}

static int ftrace_available_open(struct pfs_file *f)
{
    /* As Linux: once an ftrace bug killed dynamic ftrace, its function lists are gone. */
    if (ftrace_is_dead())
        return -ENODEV;
    struct ftrace_lines *l = kmalloc(sizeof(*l));

    if (!l)
        return -ENOMEM;
    ftrace_lines_init(l, ftrace_available_fill);
    f->priv = l;
    return 0;
}

static ssize_t ftrace_lines_file_read(struct pfs_file *f, char *buf, size_t len)
{
    return ftrace_lines_read(f->priv, buf, len);
}

static int ftrace_lines_file_release(struct pfs_file *f)
{
    ftrace_lines_free(f->priv);
    kfree(f->priv);
    return 0;
}

static const struct pfs_ops ftrace_available_fops = {
    .open = ftrace_available_open,
    .read = ftrace_lines_file_read,
    .release = ftrace_lines_file_release,
};

TRACEFS_FILE(available_filter_functions, .path = "available_filter_functions", .mode = 0444,
             .ops = &ftrace_available_fops);

/* ---- enabled_functions ---- */

/*
 * Linux 6.1's line: name, reference count, then the R (regs), I (ipmodify) and D (direct)
 * columns. Nothing here calls a function directly, so D stays blank. A site
 * that calls one op's own trampoline names it and the op's callback; a site that calls
 * the list caller names the function that walks the ops.
 */
static void ftrace_enabled_line(struct seqbuf *out, const struct dyn_ftrace *rec)
{
    struct ftrace_ops *op;
    unsigned long func;
    unsigned long tramp = ftrace_rec_tramp_addr(rec, &op, &func);

    seq_printf(out, "%s (%u)%s%s  ", ftrace_rec_name(rec), ftrace_rec_count(rec),
               rec->flags & FTRACE_FL_REGS ? " R" : "  ",
               rec->flags & FTRACE_FL_IPMODIFY ? " I" : "  ");
    if (rec->flags & FTRACE_FL_TRAMP_EN) {
        if (tramp && op)
            seq_printf(out, "\ttramp: 0x%lx (%pS) ->%pS", tramp, (void *)op->func, (void *)func);
        else
            seq_puts(out, "\ttramp: ERROR!");
    } else if (func) {
        seq_printf(out, " ->%pS", (void *)func);
    }
    seq_putc(out, '\n');
}

static bool ftrace_enabled_fill(struct ftrace_lines *l, struct seqbuf *out)
{
    size_t total = ftrace_rec_total();

    for (; l->next_rec < total; l->next_rec++) {
        const struct dyn_ftrace *rec = ftrace_rec(l->next_rec);

        /* As Linux: the sites that are calls now, whatever is about to change. */
        if (!(rec->flags & FTRACE_FL_ENABLED))
            continue;
        ftrace_enabled_line(out, rec);
        l->next_rec++;
        return true;
    }
    return false;
}

static int ftrace_enabled_open(struct pfs_file *f)
{
    struct ftrace_lines *l = kmalloc(sizeof(*l));

    if (!l)
        return -ENOMEM;
    ftrace_lines_init(l, ftrace_enabled_fill);
    f->priv = l;
    return 0;
}

static const struct pfs_ops ftrace_enabled_fops = {
    .open = ftrace_enabled_open,
    .read = ftrace_lines_file_read,
    .release = ftrace_lines_file_release,
};

TRACEFS_FILE(enabled_functions, .path = "enabled_functions", .mode = 0444,
             .ops = &ftrace_enabled_fops);

/* ---- set_ftrace_filter, set_ftrace_notrace ---- */

/*
 * Which hash of which ops a filter file edits. The same code serves set_ftrace_filter
 * and set_ftrace_notrace (the global ops) and the files of other users of function
 * sets (set_graph_function, stack_trace_filter), which keep their sets in an ops too.
 */
struct ftrace_filter_kind {
    bool is_notrace;
    /* set_ftrace_filter's: whose func:cmd probes it takes and lists (NULL: none). */
    struct trace_array *commands;
    const char *empty_text;
    struct ftrace_ops *ops; /* NULL: ftrace_global_ops */
    void (*changed)(void);  /* NULL, or told after a write installed new hashes */
};

static const struct ftrace_filter_kind ftrace_filter_kind_filter = {
    .is_notrace = false,
    .commands = &trace_global,
    .empty_text = "#### all functions enabled ####\n",
};

static const struct ftrace_filter_kind ftrace_filter_kind_notrace = {
    .is_notrace = true,
    .empty_text = "#### no functions disabled ####\n",
};

enum ftrace_filter_phase {
    FTRACE_FILTER_FUNCTIONS,
    FTRACE_FILTER_COMMANDS,
    FTRACE_FILTER_END,
};

/*
 * Per open: a private copy of the hash that writes edit and release installs, as Linux's
 * filter files commit at close. A token cut by the end of a write waits in token[].
 */
struct ftrace_filter_file {
    struct ftrace_lines lines; /* the read cursor; fill finds the file by container_of */
    const struct ftrace_filter_kind *kind;
    struct ftrace_ops *ops;
    struct ftrace_hash *hash;
    enum ftrace_filter_phase phase;
    bool writing;
    bool token_open;
    size_t token_len;
    char token[FTRACE_FILTER_TOKEN_MAX + 1];
};

static struct ftrace_hash *ftrace_ops_hash(const struct ftrace_ops *ops, bool is_notrace)
{
    return is_notrace ? ops->notrace_hash : ops->filter_hash;
}

static bool ftrace_filter_fill(struct ftrace_lines *l, struct seqbuf *out)
{
    struct ftrace_filter_file *ff = container_of(l, struct ftrace_filter_file, lines);
    size_t total = ftrace_rec_total();

    switch (ff->phase) {
    case FTRACE_FILTER_FUNCTIONS:
        if (ftrace_hash_empty(ff->hash)) {
            seq_puts(out, ff->kind->empty_text);
            ff->phase = FTRACE_FILTER_COMMANDS;
            return true;
        }
        for (; l->next_rec < total; l->next_rec++) {
            if (!ftrace_hash_test(ff->hash, l->next_rec))
                continue;
            seq_printf(out, "%s\n", ftrace_rec_name(ftrace_rec(l->next_rec)));
            l->next_rec++;
            return true;
        }
        ff->phase = FTRACE_FILTER_COMMANDS;
        return true;
    case FTRACE_FILTER_COMMANDS:
        /* The probes of filter commands; they have nothing to do with notrace. */
        if (ff->kind->commands)
            ftrace_filter_commands_show(ff->kind->commands, out);
        ff->phase = FTRACE_FILTER_END;
        return true;
    case FTRACE_FILTER_END:
        break;
    }
    return false;
}

static int ftrace_filter_open(struct pfs_file *f)
{
    const struct ftrace_filter_kind *kind = f->data;
    struct ftrace_ops *ops = kind->ops ? kind->ops : ftrace_global_ops;
    bool writing = f->flags & PFS_WRITE;
    struct ftrace_filter_file *ff;

    /* As Linux: after an ftrace bug the filter files do not open at all, for reading
     * either (enabled_functions still does). */
    if (!ops || ftrace_is_dead())
        return -ENODEV;
    ff = kzalloc(sizeof(*ff));
    if (!ff)
        return -ENOMEM;
    ftrace_lines_init(&ff->lines, ftrace_filter_fill);
    ff->kind = kind;
    ff->ops = ops;
    ff->writing = writing;
    /* A reader gets a copy too: what it lists is then the state at open, however slow. */
    if (writing && (f->flags & PFS_TRUNC))
        ff->hash = ftrace_hash_alloc();
    else
        ff->hash = ftrace_hash_copy(ftrace_ops_hash(ops, kind->is_notrace));
    if (!ff->hash) {
        kfree(ff);
        return -ENOMEM;
    }
    f->priv = ff;
    return 0;
}

static ssize_t ftrace_filter_read(struct pfs_file *f, char *buf, size_t len)
{
    struct ftrace_filter_file *ff = f->priv;

    return ftrace_lines_read(&ff->lines, buf, len);
}

static bool ftrace_filter_is_space(char c)
{
    /* A NUL ends a token as a blank does, as in Linux's parser. */
    return isspace((unsigned char)c) || c == '\0';
}

/*
 * Like Linux, one token per call: the return value tells the writer how far it got, and
 * the shell offers the rest again. Text that ends inside a token is taken and kept until
 * the next write (or release) finishes the token.
 */
static ssize_t ftrace_filter_write(struct pfs_file *f, const char *buf, size_t len)
{
    struct ftrace_filter_file *ff = f->priv;
    size_t i = 0;
    int err;

    if (!ff->token_open) {
        while (i < len && ftrace_filter_is_space(buf[i]))
            i++;
        if (i == len)
            return (ssize_t)len;
        ff->token_len = 0;
    }
    while (i < len && !ftrace_filter_is_space(buf[i])) {
        if (ff->token_len == FTRACE_FILTER_TOKEN_MAX) {
            ff->token_open = false;
            ff->token_len = 0;
            return -EINVAL;
        }
        ff->token[ff->token_len++] = buf[i++];
    }
    if (i == len) {
        ff->token_open = true;
        return (ssize_t)len;
    }
    i++; /* the blank that ended the token */
    ff->token[ff->token_len] = '\0';
    ff->token_open = false;
    ff->token_len = 0;
    err = ftrace_filter_apply_token(ff->hash, ff->token, ff->kind->commands);
    return err < 0 ? err : (ssize_t)i;
}

static int ftrace_filter_release(struct pfs_file *f)
{
    struct ftrace_filter_file *ff = f->priv;
    struct ftrace_hash *other;
    int err = 0;

    if (ff->writing) {
        /* An unfinished last token still counts; as in Linux, its error is not reported. */
        if (ff->token_open) {
            ff->token[ff->token_len] = '\0';
            ftrace_filter_apply_token(ff->hash, ff->token, ff->kind->commands);
        }
        /* Installed even after a failed write: `echo nosuch > set_ftrace_filter` clears it. */
        other = ftrace_hash_copy(ftrace_ops_hash(ff->ops, !ff->kind->is_notrace));
        struct ftrace_hash *filter = ff->kind->is_notrace ? other : ff->hash;
        struct ftrace_hash *notrace_hash = ff->kind->is_notrace ? ff->hash : other;
        /* The function graph op follows the global filter with copies of it, made first
         * so that a failure changes neither. */
        struct ftrace_hash *graph_filter = NULL, *graph_notrace = NULL;
        bool global = ff->ops == ftrace_global_ops;
        if (other && global) {
            graph_filter = ftrace_hash_copy(filter);
            graph_notrace = ftrace_hash_copy(notrace_hash);
        }
        if (!other || (global && (!graph_filter || !graph_notrace))) {
            err = -ENOMEM;
            ftrace_hash_free(other);
            ftrace_hash_free(graph_filter);
            ftrace_hash_free(graph_notrace);
        } else {
            err = ftrace_ops_set_hashes(ff->ops, filter, notrace_hash);
            ff->hash = NULL;
            if (global && !err) {
                fgraph_filter_follow(graph_filter, graph_notrace);
            } else {
                ftrace_hash_free(graph_filter);
                ftrace_hash_free(graph_notrace);
            }
            if (ff->kind->changed)
                ff->kind->changed();
        }
    }
    ftrace_hash_free(ff->hash);
    ftrace_lines_free(&ff->lines);
    kfree(ff);
    return err;
}

static const struct pfs_ops ftrace_filter_fops = {
    .open = ftrace_filter_open,
    .read = ftrace_filter_read,
    .write = ftrace_filter_write,
    .release = ftrace_filter_release,
};

TRACEFS_FILE(set_ftrace_filter, .path = "set_ftrace_filter", .mode = 0644,
             .ops = &ftrace_filter_fops, .data = (void *)&ftrace_filter_kind_filter);
TRACEFS_FILE(set_ftrace_notrace, .path = "set_ftrace_notrace", .mode = 0644,
             .ops = &ftrace_filter_fops, .data = (void *)&ftrace_filter_kind_notrace);

static struct pfs_node *filter_file_create(struct pfs_node *dir, const char *path,
                                           struct ftrace_ops *ops, bool is_notrace,
                                           void (*changed)(void), struct trace_array *commands)
{
    struct ftrace_filter_kind *kind = kzalloc(sizeof(*kind));
    if (!kind)
        return NULL;
    kind->is_notrace = is_notrace;
    kind->commands = commands;
    kind->empty_text =
        is_notrace ? ftrace_filter_kind_notrace.empty_text : ftrace_filter_kind_filter.empty_text;
    kind->ops = ops;
    kind->changed = changed;
    struct pfs_node *n = tracefs_create_at(dir ? dir : pfs_mkdir(TRACEFS_ROOT), path, 0644,
                                           &ftrace_filter_fops, NULL, NULL, kind);
    if (n)
        pfs_own_data(n);
    else
        kfree(kind);
    return n;
}

struct pfs_node *ftrace_filter_file_create(const char *path, struct ftrace_ops *ops,
                                           bool is_notrace, void (*changed)(void))
{
    return filter_file_create(NULL, path, ops, is_notrace, changed, NULL);
}

struct pfs_node *ftrace_filter_files_create_in(struct pfs_node *dir, struct ftrace_ops *ops,
                                               struct trace_array *tr)
{
    struct pfs_node *n = filter_file_create(dir, "set_ftrace_filter", ops, false, NULL, tr);
    return n ? filter_file_create(dir, "set_ftrace_notrace", ops, true, NULL, NULL) : NULL;
}

/* ---- dyn_ftrace_total_info ---- */

/*
 * Linux prints the sites converted at boot, the pages holding their records, and the
 * number of separate allocations of those pages ("groups"). Here every usable site is
 * converted and all records live in one contiguous allocation.
 */
static int ftrace_total_info_show(struct seqbuf *s, void *data)
{
    struct ftrace_stats st;

    ftrace_get_stats(&st);
    return seq_printf(s, "%zu pages:%zu groups: %zu\n", st.records - st.disabled, st.pages,
                      st.pages ? (size_t)1 : 0);
}

TRACEFS_FILE(dyn_ftrace_total_info, .path = "dyn_ftrace_total_info", .mode = 0444,
             .show = ftrace_total_info_show);

/* ---- recursed_functions ---- */

#define RECURSED_SHOW_MAX 128

/* Linux's line: the caller, a colon and a tab, the function the guard turned away. */
static int recursed_show(struct seqbuf *s, void *data)
{
    static unsigned long ips[RECURSED_SHOW_MAX], parents[RECURSED_SHOW_MAX];
    size_t n = ftrace_recursed_functions(ips, parents, RECURSED_SHOW_MAX);
    for (size_t i = 0; i < n; i++)
        seq_printf(s, "%pS:\t%pS\n", (void *)parents[i], (void *)ips[i]);
    return 0;
}

/* `echo > recursed_functions` (the open with O_TRUNC) forgets them all, as on Linux. */
static int recursed_open(struct pfs_file *f)
{
    if (f->flags & PFS_TRUNC)
        ftrace_recursed_functions_clear();
    if (!(f->flags & PFS_READ))
        return 0;
    struct seqbuf *s = kzalloc(sizeof(*s));
    if (!s)
        return -ENOMEM;
    recursed_show(s, NULL);
    if (s->overflow) {
        seqbuf_free(s);
        kfree(s);
        return -ENOMEM;
    }
    f->priv = s;
    return 0;
}

static ssize_t recursed_write(struct pfs_file *f, const char *buf, size_t len) { return len; }

static const struct pfs_ops recursed_ops = {.open = recursed_open,
                                            .read = pfs_snapshot_read,
                                            .write = recursed_write,
                                            .release = pfs_snapshot_release};
TRACEFS_FILE(recursed_functions, .path = "recursed_functions", .mode = 0644, .ops = &recursed_ops);

/* ---- /proc/sys/kernel/ftrace_enabled ---- */

/* The int as written, as Linux's sysctl keeps it; any non-zero value means on. */
static int ftrace_enabled_value = 1;

static int ftrace_enabled_show(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%d\n", ftrace_get_enabled() ? ftrace_enabled_value : 0);
}

static ssize_t ftrace_enabled_store(void *data, const char *buf, size_t len)
{
    int v;
    int err = trace_parse_sysctl_int(buf, len, &v);
    if (!err)
        err = ftrace_set_enabled(v != 0);
    if (!err)
        ftrace_enabled_value = v ? v : 1;
    return err ? err : (ssize_t)len;
}

static void ftrace_enabled_file_init(void)
{
    struct pfs_node *dir = pfs_mkdir("/proc/sys/kernel");
    if (!dir || !pfs_create_seq(dir, "ftrace_enabled", 0644, ftrace_enabled_show,
                                ftrace_enabled_store, NULL))
        printk("ftrace: cannot create /proc/sys/kernel/ftrace_enabled\n");
}
LATE_INITCALL(ftrace_enabled_file_init);
