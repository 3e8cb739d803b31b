/*
 * Function probe kinds: the machinery set_ftrace_filter's commands share, the tracing
 * ones (`func:traceon`, ..., ftrace_commands.c) and the event ones (`func:enable_event`,
 * events/event_probes.c).
 *
 * As in Linux, a client's commands fall into kinds (a command with a count and the same
 * command without one are two); a kind exists while it has functions. Each kind keeps its
 * functions in a hash and, per function, one word of the client's (a count, or a pointer
 * to what the function's probe does). One ftrace op per client, on the union of every
 * kind's functions, runs them all, so probes cost a single trampoline slot however many
 * there are.
 *
 * The op's callback reads the kinds without a lock: sets[k], then the function's bit in
 * its hash, then (after an acquire fence) its word. Edits take the client's lock, write
 * a word before the bit that makes a callback look at it, and free a kind or hand back a
 * word only after ftrace has waited for every callback that could still see it. An edit
 * that fails (for want of memory, or because ftrace cannot patch) leaves the kinds and
 * the op as they were.
 */
#ifndef KERNEL_TRACE_FTRACE_PROBE_KINDS_H
#define KERNEL_TRACE_FTRACE_PROBE_KINDS_H

#include <kernel/ftrace.h>
#include <kernel/spinlock.h>

struct probe_kind_set {
    struct ftrace_hash *funcs;
    uintptr_t *words; /* by record index: the client's word for each function */
    uint64_t created; /* listing order: the kind made last is listed first, as Linux */
};

struct trace_array;

/*
 * A client's kinds in one trace array. The op's private is the probe_kinds, so that its
 * callback finds them, and tr says what the probes act on.
 */
struct probe_kinds {
    struct ftrace_ops *ops;                /* the client's op, its callback lock-free */
    struct spinlock *lock;                 /* serialises every edit of the kinds and ops */
    struct probe_kind_set *volatile *sets; /* one per kind, NULL while it has no function */
    unsigned nkinds;
    struct trace_array *tr;
};

/*
 * The client's kinds in tr: top (its static ones) for the top level; for an instance,
 * instances[its slot], made on the first need (make: the op with top's callback, a lock,
 * empty kinds). NULL for an instance that has none yet, or when memory is short.
 */
struct probe_kinds *probe_kinds_in(struct probe_kinds *top, struct probe_kinds **instances,
                                   struct trace_array *tr, bool make);
/* An instance's kinds emptied (removed(word, ctx) for each function's word, as
 * probe_kinds_remove) and freed, for its rmdir: 0, or the error of a removal that failed
 * (-ENOMEM re-patching), with the client kept. */
int probe_kinds_instance_free(struct probe_kinds **instances, struct trace_array *tr,
                              void (*removed)(uintptr_t word, void *ctx), void *ctx);

/*
 * Adds to kind k the functions of glob not in it yet, each with word; the others keep
 * theirs. 0 with *added (if not NULL) the number added; -EINVAL for a bad glob or when
 * nothing is new (Linux's answer to a command that adds nothing); -ENOMEM; or the op's
 * error, with nothing changed and no callback left that could see word. Thread context.
 */
int probe_kinds_add(struct probe_kinds *pk, unsigned k, const char *glob, uintptr_t word,
                    size_t *added);

/*
 * Removes glob's functions from kind k (an empty glob or "*": all of them, as Linux).
 * Once no callback can see them, removed(word, ctx) runs for each removed function's
 * word, under the client's lock. 0; -ENODEV when the kind has no function (Linux's
 * answer); -EINVAL when glob matches none of them; -ENOMEM or the op's error, with
 * nothing changed and removed never called. Thread context.
 */
int probe_kinds_remove(struct probe_kinds *pk, unsigned k, const char *glob,
                       void (*removed)(uintptr_t word, void *ctx), void *ctx);

/* The stamp of the newest kind made before below, 0 if none: a command's newest_below. */
uint64_t probe_kinds_newest_below(struct probe_kinds *pk, uint64_t below);

#endif
