#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/time.h>
#include <lib/ctype.h>
#include <lib/printf.h>
#include <lib/sort.h>
#include <lib/string.h>

#include "shell_internal.h"

#define SHELL_READ_CHUNK 4096

/* The status a command returns when its output was refused with err. */
static int shell_write_failure_status(int err)
{
    if (err == -EINTR)
        return SHELL_STATUS_INTERRUPTED;
    if (err == -EPIPE)
        return 0;
    return 1; /* the executor reports the write error itself */
}

static int shell_command_ptr_cmp(const void *a, const void *b)
{
    const struct shell_command *const *ca = a, *const *cb = b;
    return strcmp((*ca)->name, (*cb)->name);
}

SHELL_COMMAND(help, "help [COMMAND]", "list the commands, or show how to use one")
{
    const struct shell_command *begin = shell_commands_begin(), *cmd;
    size_t count = (size_t)(shell_commands_end() - begin), i, width = 0;
    const struct shell_command **sorted;
    int err = 0;

    if (argc > 2)
        return shell_usage(ctx);
    if (argc == 2) {
        cmd = shell_find_command(argv[1]);
        if (!cmd) {
            shell_eprintf(ctx, "help: no help topics match '%s'\n", argv[1]);
            return 1;
        }
        err = shell_printf(ctx, "usage: %s\n%s\n", cmd->usage, cmd->help);
        return err ? shell_write_failure_status(err) : 0;
    }

    sorted = kmalloc(MAX(count, (size_t)1) * sizeof(*sorted));
    if (!sorted) {
        shell_eprintf(ctx, "help: %s\n", strerror(ENOMEM));
        return 1;
    }
    for (i = 0; i < count; i++) {
        sorted[i] = &begin[i];
        width = MAX(width, strlen(begin[i].name));
    }
    sort(sorted, count, sizeof(*sorted), shell_command_ptr_cmp);
    for (i = 0; i < count && !err; i++)
        err = shell_printf(ctx, "%-*s  %s\n", (int)width, sorted[i]->name, sorted[i]->help);
    kfree(sorted);
    return err ? shell_write_failure_status(err) : 0;
}

static bool shell_echo_is_option(const char *arg)
{
    if (arg[0] != '-' || arg[1] == '\0')
        return false;
    for (arg++; *arg; arg++) {
        if (*arg != 'n')
            return false;
    }
    return true;
}

/* The whole text goes out in one write, so `echo a b > file` is one write call to the file. */
SHELL_COMMAND(echo, "echo [-n] [ARG...]", "print the arguments, separated by spaces")
{
    bool newline = true;
    size_t len = 0, at = 0;
    char *text;
    int i, first, err;

    for (first = 1; first < argc && shell_echo_is_option(argv[first]); first++)
        newline = false;
    for (i = first; i < argc; i++)
        len += strlen(argv[i]) + 1;

    text = kmalloc(len + 1);
    if (!text) {
        shell_eprintf(ctx, "echo: %s\n", strerror(ENOMEM));
        return 1;
    }
    for (i = first; i < argc; i++) {
        size_t arg_len = strlen(argv[i]);
        if (i > first)
            text[at++] = ' ';
        memcpy(text + at, argv[i], arg_len);
        at += arg_len;
    }
    if (newline)
        text[at++] = '\n';
    err = shell_write(ctx, text, at);
    kfree(text);
    return err ? shell_write_failure_status(err) : 0;
}

/* One backslash escape of printf's format at *p (just after the backslash): its byte. */
static char shell_printf_escape(const char **p)
{
    static const char from[] = "\\abfnrtv\"'", to[] = "\\\a\b\f\n\r\t\v\"'";
    const char *s = *p, *hit = *s ? strchr(from, *s) : NULL;
    unsigned v = 0, n = 0;
    if (hit) {
        *p = s + 1;
        return to[hit - from];
    }
    if (*s == 'x' && isxdigit((unsigned char)s[1])) {
        for (s++; n < 2 && isxdigit((unsigned char)*s); n++, s++)
            v = v * 16 + (unsigned)(isdigit((unsigned char)*s) ? *s - '0' : tolower(*s) - 'a' + 10);
        *p = s;
        return (char)v;
    }
    if (*s >= '0' && *s <= '7') {
        for (; n < 3 && *s >= '0' && *s <= '7'; n++, s++)
            v = v * 8 + (unsigned)(*s - '0');
        *p = s;
        return (char)v;
    }
    return '\\'; /* not an escape: the backslash stands for itself */
}

/*
 * printf FORMAT [ARG...]: the format's escapes (\\ \n \t \xHH \NNN ...) and conversions %s,
 * %d, %u, %x, %c and %%, the format used again while arguments remain, as POSIX printf.
 * An escape may make any byte, NUL included: binary writes (trace_marker_raw) come from
 * here. The whole text goes out in one write, as echo's.
 */
SHELL_COMMAND(printf, "printf FORMAT [ARG...]", "print ARGs as FORMAT says (escapes, %s %d %x %c)")
{
    size_t cap = 64, len = 0;
    int next = 2, err;
    char *out;

    if (argc < 2)
        return shell_usage(ctx);
    for (int i = 1; i < argc; i++)
        cap += strlen(argv[i]) + 24;
    cap += strlen(argv[1]) * (size_t)(argc > 2 ? argc - 2 : 1);
    out = kmalloc(cap);
    if (!out) {
        shell_eprintf(ctx, "printf: %s\n", strerror(ENOMEM));
        return 1;
    }
    do {
        int first = next;
        for (const char *p = argv[1]; *p;) {
            if (*p == '\\') {
                p++;
                out[len++] = shell_printf_escape(&p);
                continue;
            }
            if (*p != '%' || !p[1] || !strchr("sduxc%", p[1])) {
                out[len++] = *p++;
                continue;
            }
            char conv = p[1];
            p += 2;
            if (conv == '%') {
                out[len++] = '%';
                continue;
            }
            const char *arg = next < argc ? argv[next++] : "";
            if (conv == 's') {
                size_t n = strlen(arg);
                memcpy(out + len, arg, n);
                len += n;
            } else if (conv == 'c') {
                if (*arg)
                    out[len++] = *arg;
            } else {
                long v = 0;
                if (*arg && kstrtol(arg, 0, &v) != 0)
                    shell_eprintf(ctx, "printf: %s: invalid number\n", arg);
                len += (size_t)snprintf(out + len, 24,
                                        conv == 'd'   ? "%ld"
                                        : conv == 'u' ? "%lu"
                                                      : "%lx",
                                        v);
            }
        }
        if (next == first)
            break; /* the format takes no argument: once */
    } while (next < argc);
    err = shell_write(ctx, out, len);
    kfree(out);
    return err ? shell_write_failure_status(err) : 0;
}

SHELL_COMMAND(cat, "cat [FILE...]", "print the content of files")
{
    int status = 0, i;
    char *buf;

    for (i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1])
            return shell_usage(ctx);
    }
    buf = kmalloc(SHELL_READ_CHUNK);
    if (!buf) {
        shell_eprintf(ctx, "cat: %s\n", strerror(ENOMEM));
        return 1;
    }

    for (i = 1; i < argc; i++) {
        struct pfs_file *f;
        bool stop = false;
        int err = pfs_open(shell_cwd(), argv[i], PFS_READ, &f);

        if (err) {
            shell_eprintf(ctx, "cat: %s: %s\n", argv[i], strerror(-err));
            status = 1;
            continue;
        }
        for (;;) {
            ssize_t n = pfs_read(f, buf, SHELL_READ_CHUNK);
            if (n == 0)
                break;
            /* A blocking read ended by Ctrl-C: stop quietly, as cat killed by SIGINT does. */
            if (n == -EINTR) {
                status = SHELL_STATUS_INTERRUPTED;
                stop = true;
                break;
            }
            if (n < 0) {
                shell_eprintf(ctx, "cat: %s: %s\n", argv[i], strerror((int)-n));
                status = 1;
                break;
            }
            err = shell_write(ctx, buf, (size_t)n);
            if (err) {
                if (err != -EPIPE)
                    status = shell_write_failure_status(err);
                stop = true;
                break;
            }
        }
        pfs_close(f);
        if (stop)
            break;
    }
    kfree(buf);
    return status;
}

/* What ls prints of a node, copied while the control mutex keeps the node alive. */
struct shell_ls_item {
    char *name;
    unsigned mode;
    bool is_dir;
};

struct shell_ls_path {
    int err; /* of the lookup, or -ENOMEM when the listing could not be copied */
    struct shell_ls_item node;
    struct shell_ls_item *children;
    size_t nr_children;
};

static void shell_mode_string(const struct shell_ls_item *item, char out[11])
{
    static const char rwx[] = "rwxrwxrwx";
    int i;

    out[0] = item->is_dir ? 'd' : '-';
    for (i = 0; i < 9; i++)
        out[1 + i] = (item->mode & (0400u >> i)) ? rwx[i] : '-';
    out[10] = '\0';
}

static int shell_ls_entry(struct shell_ctx *ctx, const struct shell_ls_item *item, const char *name,
                          bool long_format)
{
    char mode[11];

    if (!long_format)
        return shell_printf(ctx, "%s\n", name);
    shell_mode_string(item, mode);
    return shell_printf(ctx, "%s %s\n", mode, name);
}

/*
 * Copies what ls shows of path. The output may go to a tracefs file (`ls > set_event`),
 * whose write takes the control mutex, so nothing is printed while it is held here.
 */
static void shell_ls_collect(const char *path, struct shell_ls_path *out)
{
    struct pfs_node *n, *child;
    size_t count = 0;

    pfs_control_lock();
    out->err = pfs_lookup(shell_cwd(), path, &n);
    if (!out->err) {
        out->node = (struct shell_ls_item){NULL, pfs_mode(n), pfs_is_dir(n)};
        while (out->node.is_dir && pfs_child(n, count))
            count++;
        out->children = count ? kzalloc(count * sizeof(*out->children)) : NULL;
        if (count && !out->children)
            out->err = -ENOMEM;
        for (size_t i = 0; !out->err && i < count; i++) {
            child = pfs_child(n, i);
            out->children[i] = (struct shell_ls_item){kstrdup(pfs_name(child)), pfs_mode(child),
                                                      pfs_is_dir(child)};
            out->nr_children = i + 1;
            if (!out->children[i].name)
                out->err = -ENOMEM;
        }
    }
    pfs_control_unlock();
}

static void shell_ls_free(struct shell_ls_path *p)
{
    for (size_t i = 0; i < p->nr_children; i++)
        kfree(p->children[i].name);
    kfree(p->children);
}

/* Files named on the command line come first, then each directory's entries, as GNU ls. */
SHELL_COMMAND(ls, "ls [-l] [PATH...]", "list directory contents")
{
    static char *const dot[] = {".", NULL};
    struct shell_ls_path *listed;
    char *const *paths;
    bool long_format = false, printed = false;
    int first, count, i, status = 0, err = 0;

    for (first = 1; first < argc && argv[first][0] == '-' && argv[first][1]; first++) {
        const char *opt;
        if (strcmp(argv[first], "--") == 0) {
            first++;
            break;
        }
        for (opt = argv[first] + 1; *opt; opt++) {
            if (*opt == 'l')
                long_format = true;
            else if (*opt != '1')
                return shell_usage(ctx);
        }
    }
    paths = first < argc ? argv + first : dot;
    count = first < argc ? argc - first : 1;

    listed = kzalloc((size_t)count * sizeof(*listed));
    if (!listed) {
        shell_eprintf(ctx, "ls: %s\n", strerror(ENOMEM));
        return 1;
    }
    for (i = 0; i < count; i++) {
        shell_ls_collect(paths[i], &listed[i]);
        if (listed[i].err) {
            shell_eprintf(ctx, "ls: cannot access '%s': %s\n", paths[i], strerror(-listed[i].err));
            status = 2;
        }
    }

    for (i = 0; i < count && !err; i++) {
        if (!listed[i].err && !listed[i].node.is_dir) {
            err = shell_ls_entry(ctx, &listed[i].node, paths[i], long_format);
            printed = true;
        }
    }
    for (i = 0; i < count && !err; i++) {
        if (listed[i].err || !listed[i].node.is_dir)
            continue;
        if (count > 1) {
            err = shell_printf(ctx, "%s%s:\n", printed ? "\n" : "", paths[i]);
            printed = true;
        }
        for (size_t j = 0; !err && j < listed[i].nr_children; j++) {
            const struct shell_ls_item *child = &listed[i].children[j];
            err = shell_ls_entry(ctx, child, child->name, long_format);
            printed = true;
        }
    }
    for (i = 0; i < count; i++)
        shell_ls_free(&listed[i]);
    kfree(listed);
    return err ? shell_write_failure_status(err) : status;
}

SHELL_COMMAND(cd, "cd [DIR]", "change the working directory")
{
    const char *path = argc > 1 ? argv[1] : "/";
    int err;

    if (argc > 2) {
        shell_eprintf(ctx, "cd: too many arguments\n");
        return 1;
    }
    err = shell_chdir(path);
    if (err) {
        shell_eprintf(ctx, "cd: %s: %s\n", path, strerror(-err));
        return 1;
    }
    return 0;
}

SHELL_COMMAND(mkdir, "mkdir DIR...", "make directories (a trace instance: mkdir instances/NAME)")
{
    int status = 0;
    if (argc < 2)
        return shell_usage(ctx);
    for (int i = 1; i < argc; i++) {
        int err = pfs_user_mkdir(shell_cwd(), argv[i]);
        if (err) {
            shell_eprintf(ctx, "mkdir: can't create directory '%s': %s\n", argv[i], strerror(-err));
            status = 1;
        }
    }
    return status;
}

SHELL_COMMAND(rmdir, "rmdir DIR...", "remove directories (a trace instance: rmdir instances/NAME)")
{
    int status = 0;
    if (argc < 2)
        return shell_usage(ctx);
    for (int i = 1; i < argc; i++) {
        int err = pfs_user_rmdir(shell_cwd(), argv[i]);
        if (err) {
            shell_eprintf(ctx, "rmdir: '%s': %s\n", argv[i], strerror(-err));
            status = 1;
        }
    }
    return status;
}

SHELL_COMMAND(pwd, "pwd", "print the working directory")
{
    int err;

    (void)argv;
    if (argc > 1)
        return shell_usage(ctx);
    err = shell_printf(ctx, "%s\n", shell_cwd());
    return err ? shell_write_failure_status(err) : 0;
}

static uint64_t shell_saturating_mul(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

static uint64_t shell_saturating_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * "1", "0.25", ".5", "2m", "1.5h": seconds unless suffixed with s, m, h or d. Integer
 * arithmetic only; digits past the ninth decimal are below a nanosecond and dropped.
 */
static int shell_parse_duration(const char *s, uint64_t *ns)
{
    uint64_t whole = 0, frac = 0, unit = 1;
    unsigned frac_digits = 0;
    bool any_digit = false;

    for (; isdigit(*s); s++) {
        whole = shell_saturating_add(shell_saturating_mul(whole, 10), (uint64_t)(*s - '0'));
        any_digit = true;
    }
    if (*s == '.') {
        for (s++; isdigit(*s); s++) {
            if (frac_digits < 9) {
                frac = frac * 10 + (uint64_t)(*s - '0');
                frac_digits++;
            }
            any_digit = true;
        }
    }
    if (!any_digit)
        return -EINVAL;
    switch (*s) {
    case '\0':
    case 's':
        break;
    case 'm':
        unit = 60;
        break;
    case 'h':
        unit = 3600;
        break;
    case 'd':
        unit = 86400;
        break;
    default:
        return -EINVAL;
    }
    if (*s && s[1])
        return -EINVAL;
    for (; frac_digits < 9; frac_digits++)
        frac *= 10;
    *ns = shell_saturating_mul(
        shell_saturating_add(shell_saturating_mul(whole, NSEC_PER_SEC), frac), unit);
    return 0;
}

/* Several operands add up, as with GNU sleep. */
SHELL_COMMAND(sleep, "sleep SECONDS", "wait for a time; fractions such as 0.25 allowed")
{
    uint64_t total = 0;
    int i;

    if (argc < 2)
        return shell_usage(ctx);
    for (i = 1; i < argc; i++) {
        uint64_t ns;
        if (shell_parse_duration(argv[i], &ns)) {
            shell_eprintf(ctx, "sleep: invalid time interval '%s'\n", argv[i]);
            return 1;
        }
        total = shell_saturating_add(total, ns);
    }
    if (shell_interrupted() || sleep_ns_interruptible(total) == -EINTR)
        return SHELL_STATUS_INTERRUPTED;
    return 0;
}
