#ifndef KERNEL_FTRACE_FILTER_H
#define KERNEL_FTRACE_FILTER_H

#include <kernel/ftrace.h>
#include <kernel/pseudofs.h>

/*
 * The text written to set_ftrace_filter and set_ftrace_notrace: whitespace-separated
 * tokens, each a glob (see ftrace_hash_apply_glob) or, in set_ftrace_filter only, a
 * command `glob:name[:param]` such as `schedule:traceoff:3`.
 */

/* The longest token a filter file accepts; a longer one fails its write with -EINVAL. */
#define FTRACE_FILTER_TOKEN_MAX 512

/*
 * A filter command, registered by linker section with FTRACE_FILTER_COMMAND.
 *
 * func() gets the glob without its leading '!' (remove tells whether there was one), and
 * param is the text after the second ':' (NULL when there is none, "" for a trailing ':').
 * A removal ignores param. Returns 0 or -errno; a glob that matches nothing, or a removal
 * that finds no probe, is -EINVAL.
 *
 * show() (optional) appends the command's probes to a read of set_ftrace_filter, one line
 * each, after the functions: `schedule:traceoff:count=3`, `kfree:dump:unlimited`.
 */
struct ftrace_filter_command {
    const char *name;
    int (*func)(const char *glob, const char *param, bool remove);
    int (*show)(struct seqbuf *s);
};

#define FTRACE_FILTER_COMMAND(id, ...)                                                       \
    static const struct ftrace_filter_command ftrace_filter_command_##id __used              \
        __section(".ftrace_commands") __aligned(8) = {__VA_ARGS__}

/*
 * Applies one token to hash: a glob edits it, a command (allowed when `commands`, that
 * is for set_ftrace_filter) goes to its handler and leaves hash alone. Returns 0 or a
 * positive count on success, -EINVAL for a glob that matched nothing, an unknown
 * command, or a command where commands are not allowed.
 */
int ftrace_filter_apply_token(struct ftrace_hash *hash, const char *token, bool commands);

/* The registered command called name, or NULL. */
const struct ftrace_filter_command *ftrace_filter_command_find(const char *name);

/* Appends every command's probes, as a read of set_ftrace_filter lists them. */
int ftrace_filter_commands_show(struct seqbuf *s);

/*
 * From the core, for enabled_functions: what rec's site calls now. Returns the address of
 * the trampoline it calls (0 for a NOP). *op is the op whose own trampoline that is, NULL
 * for a list caller; *func is the function the trampoline hands the call to: the op's
 * callback for an op's trampoline, the dispatcher that walks the ops for a list caller.
 */
unsigned long ftrace_rec_tramp_addr(const struct dyn_ftrace *rec, struct ftrace_ops **op,
                                    unsigned long *func);

/*
 * A filter file (path under /sys/kernel/tracing) editing ops' filter or notrace hash with
 * set_ftrace_filter's syntax and commit-at-close semantics, without commands. ops need
 * not be registered: an unregistered ops is a place to keep a function set.
 */
struct pfs_node;
/* The global filter changed: the function graph op takes a fresh copy of it. */
void fgraph_filter_changed(void);
struct pfs_node *ftrace_filter_file_create(const char *path, struct ftrace_ops *ops,
                                           bool is_notrace);

#endif
