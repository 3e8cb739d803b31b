/*
 * The filter commands of set_ftrace_filter: `func:traceon[:N]`, `func:traceoff[:N]`,
 * `func:stacktrace[:N]`, `func:snapshot[:N]`, `func:dump` and `func:cpudump`, with Linux
 * 6.1's semantics (the dumps themselves are in trace_dump.c, the snapshot in
 * trace_snapshot.c).
 *
 * As in Linux, a command with a count and the same command without one are two separate
 * probe kinds: `!f:traceoff` removes the unlimited probe and `!f:traceoff:0` the counted
 * one. The kinds, their functions and the one op that runs them all are
 * ftrace_probe_kinds.h's; a counted kind's word per function is its count.
 *
 * An instance's set_ftrace_filter takes the same commands, with kinds of its own; its
 * probes switch the instance's tracing_on, record stacks in its buffer and take its
 * snapshot (dump and cpudump dump the top level's buffer, as Linux's ftrace_dump does).
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/spinlock.h>
#include <lib/string.h>

#include "ftrace_probe_kinds.h"
#include "trace_internal.h"

enum probe_kind {
    PROBE_TRACEON,
    PROBE_TRACEON_COUNT,
    PROBE_TRACEOFF,
    PROBE_TRACEOFF_COUNT,
    PROBE_STACKTRACE,
    PROBE_STACKTRACE_COUNT,
    PROBE_SNAPSHOT,
    PROBE_SNAPSHOT_COUNT,
    PROBE_DUMP,
    PROBE_CPUDUMP,
    PROBE_KINDS,
};

typedef void (*probe_fire_fn)(struct trace_array *tr, long *count, unsigned long ip,
                              unsigned long parent_ip, unsigned long *parent_slot);

struct probe_kind_def {
    const char *cmd;
    bool counted; /* has a count per function, shown as count=N */
    probe_fire_fn fire;
};

static struct probe_kind_set *volatile probe_sets[PROBE_KINDS];
/* Serialises every change of the kinds and of probe_ops; the callback takes no lock. */
static DEFINE_SPINLOCK(probe_lock);

static void probe_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                       struct ftrace_regs *fregs);
static struct probe_kinds probe_kinds;
static struct ftrace_ops probe_ops = {
    .func = probe_call, .private = &probe_kinds, .tramp_slot = -1};
static struct probe_kinds probe_kinds = {.ops = &probe_ops,
                                         .lock = &probe_lock,
                                         .sets = probe_sets,
                                         .nkinds = PROBE_KINDS,
                                         .tr = &trace_global};
/* Instances' kinds, by slot: made with an instance's first probe. */
static struct probe_kinds *probe_kinds_instances[TRACE_INSTANCES_MAX];
/* A counted kind's word is its count, fired on in place. */
_Static_assert(sizeof(long) == sizeof(uintptr_t), "a count fits a probe kind's word");

/* ---- what the probes do ---- */

static bool tracing_is_on(struct trace_array *tr) { return rb_record_is_on(tr->buffer); }

static void probe_traceon(struct trace_array *tr, long *count, unsigned long ip,
                          unsigned long parent_ip, unsigned long *parent_slot)
{
    if (!tracing_is_on(tr))
        trace_array_set_on(tr, true);
}

static void probe_traceoff(struct trace_array *tr, long *count, unsigned long ip,
                           unsigned long parent_ip, unsigned long *parent_slot)
{
    if (tracing_is_on(tr))
        trace_array_set_on(tr, false);
}

/*
 * A count is spent only when the state really changes. CPUs racing here may all switch
 * tracing (the second switch is a no-op), but they all store the same old - 1, so the
 * count drops once.
 */
static void probe_onoff_count(struct trace_array *tr, long *count, bool on)
{
    long old = READ_ONCE(*count);

    if (old <= 0)
        return;
    /* The count must be read before the state it is compared with. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (tracing_is_on(tr) == on)
        return;
    trace_array_set_on(tr, on);
    /* The new state must be visible before the new count. */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    WRITE_ONCE(*count, old - 1);
}

static void probe_traceon_count(struct trace_array *tr, long *count, unsigned long ip,
                                unsigned long parent_ip, unsigned long *parent_slot)
{
    probe_onoff_count(tr, count, true);
}

static void probe_traceoff_count(struct trace_array *tr, long *count, unsigned long ip,
                                 unsigned long parent_ip, unsigned long *parent_slot)
{
    probe_onoff_count(tr, count, false);
}

/* The frame pointer the trampoline saved beside parent_slot is the traced function's
 * caller's frame (arch_ftrace_caller_frame). */
static void probe_stacktrace(struct trace_array *tr, long *count, unsigned long ip,
                             unsigned long parent_ip, unsigned long *parent_slot)
{
    if (tracing_is_on(tr))
        trace_array_stack_from(tr, ip, parent_slot, 1);
}

/*
 * Only while tracing is on, and only as many as counted. As in Linux, only 0 stops it: the
 * count -1 that `func:stacktrace:` gives keeps going down.
 */
static void probe_stacktrace_count(struct trace_array *tr, long *count, unsigned long ip,
                                   unsigned long parent_ip, unsigned long *parent_slot)
{
    long old;

    do {
        if (!tracing_is_on(tr))
            return;
        old = READ_ONCE(*count);
        if (old == 0)
            return;
    } while (!__atomic_compare_exchange_n(count, &old, old - 1, false, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    trace_array_stack_from(tr, ip, parent_slot, 1);
}

static void probe_snapshot(struct trace_array *tr, long *count, unsigned long ip,
                           unsigned long parent_ip, unsigned long *parent_slot)
{
    tracing_snapshot(tr);
}

/* As Linux: whether tracing is on or not, each hit while the count is above 0 takes one. */
static void probe_snapshot_count(struct trace_array *tr, long *count, unsigned long ip,
                                 unsigned long parent_ip, unsigned long *parent_slot)
{
    long old = READ_ONCE(*count);

    do {
        if (old <= 0)
            return;
    } while (!__atomic_compare_exchange_n(count, &old, old - 1, false, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    tracing_snapshot(tr);
}

static void probe_dump(struct trace_array *tr, long *count, unsigned long ip,
                       unsigned long parent_ip, unsigned long *parent_slot)
{
    long old = READ_ONCE(*count);

    do {
        if (old <= 0)
            return;
    } while (!__atomic_compare_exchange_n(count, &old, old - 1, false, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    ftrace_dump(-1);
}

/* Linux 6.1 gives cpudump no count: it dumps on every hit (mostly an empty buffer, since
 * a dump turns tracing off). */
static void probe_cpudump(struct trace_array *tr, long *count, unsigned long ip,
                          unsigned long parent_ip, unsigned long *parent_slot)
{
    ftrace_dump((int)this_cpu_id());
}

static const struct probe_kind_def probe_defs[PROBE_KINDS] = {
    [PROBE_TRACEON] = {"traceon", false, probe_traceon},
    [PROBE_TRACEON_COUNT] = {"traceon", true, probe_traceon_count},
    [PROBE_TRACEOFF] = {"traceoff", false, probe_traceoff},
    [PROBE_TRACEOFF_COUNT] = {"traceoff", true, probe_traceoff_count},
    [PROBE_STACKTRACE] = {"stacktrace", false, probe_stacktrace},
    [PROBE_STACKTRACE_COUNT] = {"stacktrace", true, probe_stacktrace_count},
    [PROBE_SNAPSHOT] = {"snapshot", false, probe_snapshot},
    [PROBE_SNAPSHOT_COUNT] = {"snapshot", true, probe_snapshot_count},
    [PROBE_DUMP] = {"dump", true, probe_dump},
    [PROBE_CPUDUMP] = {"cpudump", false, probe_cpudump},
};

static void probe_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                       struct ftrace_regs *fregs)
{
    unsigned long *parent_slot = (unsigned long *)ftrace_regs_get_stack_pointer(fregs);
    struct probe_kinds *pk = op->private;
    struct dyn_ftrace *rec;

    /* Switching tracing and printing take locks an NMI may have interrupted. */
    if (this_cpu()->nmi_depth)
        return;
    rec = ftrace_rec_lookup(ip);
    if (!rec)
        return;
    long idx = ftrace_rec_index(rec);
    for (int k = 0; k < PROBE_KINDS; k++) {
        struct probe_kind_set *ps = READ_ONCE(pk->sets[k]);

        if (!ps || !ftrace_hash_test(ps->funcs, idx))
            continue;
        /* Pairs with the release in probe_kinds_add: the count is there before the bit. */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        probe_defs[k].fire(pk->tr, probe_defs[k].counted ? (long *)&ps->words[idx] : NULL, ip,
                           parent_ip, parent_slot);
    }
}

/* ---- adding and removing probes ---- */

static int probe_add(struct trace_array *tr, enum probe_kind k, const char *glob, long count)
{
    struct probe_kinds *pk = probe_kinds_in(&probe_kinds, probe_kinds_instances, tr, true);
    return pk ? probe_kinds_add(pk, k, glob, (uintptr_t)count, NULL) : -ENOMEM;
}

static int probe_remove(struct trace_array *tr, enum probe_kind k, const char *glob)
{
    struct probe_kinds *pk = probe_kinds_in(&probe_kinds, probe_kinds_instances, tr, false);
    /* As a kind with no function: Linux's answer to a removal of nothing. */
    return pk ? probe_kinds_remove(pk, k, glob, NULL, NULL) : -ENODEV;
}

/*
 * The count as Linux reads it: the text up to the next ':' in base 0 (so 010 is 8); an
 * empty one (`func:cmd:`) is -1, which a traceon/traceoff count never fires on.
 */
static int probe_parse_count(const char *param, long *count)
{
    char number[32];
    size_t n = strcspn(param, ":");
    unsigned long v;
    int err;

    if (n == 0) {
        *count = -1;
        return 0;
    }
    if (n >= sizeof(number))
        return -EINVAL;
    memcpy(number, param, n);
    number[n] = '\0';
    err = kstrtoul(number, 0, &v);
    if (err)
        return err;
    *count = (long)v;
    return 0;
}

/* traceon, traceoff and stacktrace: the kind is the counted one when a parameter is given. */
static int probe_command(struct trace_array *tr, enum probe_kind unlimited, const char *glob,
                         const char *param, bool remove)
{
    enum probe_kind k = param ? (enum probe_kind)(unlimited + 1) : unlimited;
    long count = 0;
    int err;

    if (remove)
        return probe_remove(tr, k, glob);
    if (param) {
        err = probe_parse_count(param, &count);
        if (err)
            return err;
    }
    return probe_add(tr, k, glob, count);
}

static int probe_traceon_cmd(struct trace_array *tr, const char *glob, const char *param,
                             bool remove)
{
    return probe_command(tr, PROBE_TRACEON, glob, param, remove);
}

static int probe_traceoff_cmd(struct trace_array *tr, const char *glob, const char *param,
                              bool remove)
{
    return probe_command(tr, PROBE_TRACEOFF, glob, param, remove);
}

static int probe_stacktrace_cmd(struct trace_array *tr, const char *glob, const char *param,
                                bool remove)
{
    return probe_command(tr, PROBE_STACKTRACE, glob, param, remove);
}

/* As Linux, setting the command up allocates the snapshot it will take (and a removal
 * leaves it allocated). */
static int probe_snapshot_cmd(struct trace_array *tr, const char *glob, const char *param,
                              bool remove)
{
    long count;

    if (!remove) {
        /* A bad count is refused before anything is allocated. */
        int err = param ? probe_parse_count(param, &count) : 0;
        if (!err)
            err = tracing_alloc_snapshot(tr);
        if (err)
            return err;
    }
    return probe_command(tr, PROBE_SNAPSHOT, glob, param, remove);
}

/* dump dumps once whatever the parameter says; both dumps must not allocate when they fire. */
static int probe_dump_command(struct trace_array *tr, enum probe_kind k, const char *glob,
                              bool remove)
{
    int err;

    if (remove)
        return probe_remove(tr, k, glob);
    err = ftrace_dump_prepare();
    return err ? err : probe_add(tr, k, glob, 1);
}

static int probe_dump_cmd(struct trace_array *tr, const char *glob, const char *param, bool remove)
{
    return probe_dump_command(tr, PROBE_DUMP, glob, remove);
}

static int probe_cpudump_cmd(struct trace_array *tr, const char *glob, const char *param,
                             bool remove)
{
    return probe_dump_command(tr, PROBE_CPUDUMP, glob, remove);
}

/* The newest kind made before below, for the listing (ftrace_filter_commands_show). */
static uint64_t probe_newest_below(struct trace_array *tr, uint64_t below)
{
    struct probe_kinds *pk = probe_kinds_in(&probe_kinds, probe_kinds_instances, tr, false);
    return pk ? probe_kinds_newest_below(pk, below) : 0;
}

/* A kind's probes: `func:cmd:unlimited` or `func:cmd:count=N`. */
static int probe_show_kind(struct trace_array *tr, struct seqbuf *s, uint64_t stamp)
{
    size_t total = ftrace_rec_total();
    struct probe_kinds *pk = probe_kinds_in(&probe_kinds, probe_kinds_instances, tr, false);
    if (!pk)
        return 0;

    spin_lock(pk->lock);
    for (int k = 0; k < PROBE_KINDS; k++) {
        struct probe_kind_set *ps = pk->sets[k];
        const struct probe_kind_def *def = &probe_defs[k];
        if (!ps || ps->created != stamp)
            continue;
        for (size_t i = 0; i < total; i++) {
            if (!ftrace_hash_test(ps->funcs, i))
                continue;
            seq_printf(s, "%s:%s", ftrace_rec_name(ftrace_rec(i)), def->cmd);
            if (def->counted)
                seq_printf(s, ":count=%ld\n", (long)READ_ONCE(ps->words[i]));
            else
                seq_puts(s, ":unlimited\n");
        }
    }
    spin_unlock(pk->lock);
    return s->overflow ? -ENOMEM : 0;
}

static int probe_instance_clear(struct trace_array *tr)
{
    return probe_kinds_instance_free(probe_kinds_instances, tr, NULL, NULL);
}

/* One command lists every kind, whatever its command. */
FTRACE_FILTER_COMMAND(traceon, .name = "traceon", .func = probe_traceon_cmd,
                      .newest_below = probe_newest_below, .show_kind = probe_show_kind,
                      .instance_clear = probe_instance_clear);
FTRACE_FILTER_COMMAND(traceoff, .name = "traceoff", .func = probe_traceoff_cmd);
FTRACE_FILTER_COMMAND(stacktrace, .name = "stacktrace", .func = probe_stacktrace_cmd);
FTRACE_FILTER_COMMAND(snapshot, .name = "snapshot", .func = probe_snapshot_cmd);
FTRACE_FILTER_COMMAND(dump, .name = "dump", .func = probe_dump_cmd);
FTRACE_FILTER_COMMAND(cpudump, .name = "cpudump", .func = probe_cpudump_cmd);

/* For the self-tests: the count of func under cmd (counted kinds), or -ENOENT. */
long ftrace_probe_count(const char *cmd, const char *func)
{
    long result = -ENOENT;

    spin_lock(&probe_lock);
    for (int k = 0; k < PROBE_KINDS; k++) {
        struct probe_kind_set *ps = probe_sets[k];
        if (!ps || !probe_defs[k].counted || strcmp(probe_defs[k].cmd, cmd) != 0)
            continue;
        for (size_t i = 0; i < ftrace_rec_total(); i++)
            if (ftrace_hash_test(ps->funcs, i) && strcmp(ftrace_rec_name(ftrace_rec(i)), func) == 0)
                result = (long)READ_ONCE(ps->words[i]);
    }
    spin_unlock(&probe_lock);
    return result;
}
