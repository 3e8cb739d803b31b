/*
 * The function profiler: function_profile_enabled and trace_stat/functionN. Per CPU and
 * per function it counts calls and adds up durations (and their squares, for the
 * variance), through the function graph core, so it works alone or beside any tracer.
 * Counters are per CPU and only touched by their CPU: no locks on the hot path.
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/init.h>
#include <lib/printf.h>
#include <lib/sort.h>
#include <lib/string.h>

#include "trace_internal.h"

struct profile_entry {
    uint64_t hits;
    uint64_t time;
    uint64_t time_squared;
};

static struct profile_entry *profile[MAX_CPUS];
static volatile bool profile_on;

/* Every call counts, a full shadow stack's included; its time comes with the return. */
static bool profile_function_entry(struct fgraph_frame *f, const struct fgraph_thread *g,
                                   struct fgraph_ops *gops)
{
    struct profile_entry *table = profile[this_cpu_id()];
    struct dyn_ftrace *rec;
    if (profile_on && table && (rec = ftrace_rec_lookup(f->func)))
        table[ftrace_rec_index(rec)].hits++;
    return true;
}

static void profile_function_return(const struct fgraph_frame *f, struct fgraph_ret *ret,
                                    struct fgraph_ops *gops)
{
    struct profile_entry *table = profile[this_cpu_id()];
    struct dyn_ftrace *rec;
    if (!profile_on || !table || !(rec = ftrace_rec_lookup(f->func)))
        return;
    uint64_t rettime = fgraph_ret_time(ret);
    uint64_t d = rettime > f->calltime ? rettime - f->calltime : 0;
    struct profile_entry *e = &table[ftrace_rec_index(rec)];
    e->time += d;
    e->time_squared += d * d;
}

static struct fgraph_ops profile_graph_ops = {
    .entryfunc = profile_function_entry,
    .retfunc = profile_function_return,
};

static int profile_enable(void)
{
    size_t n = ftrace_rec_total();
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online)
            continue;
        if (!profile[c])
            profile[c] = kzalloc(n * sizeof(struct profile_entry) + 1);
        if (!profile[c])
            return -ENOMEM;
        /* Enabling starts from zero, as Linux's does. */
        memset(profile[c], 0, n * sizeof(struct profile_entry));
    }
    profile_on = true;
    int err = register_ftrace_graph(&profile_graph_ops);
    if (err)
        profile_on = false;
    return err;
}

static void profile_disable(void)
{
    profile_on = false;
    unregister_ftrace_graph(&profile_graph_ops);
}

int trace_profile_set(bool on)
{
    if (on && !profile_on)
        return profile_enable();
    if (!on && profile_on)
        profile_disable();
    return 0;
}

/* Hits of one function over every CPU (self-tests). */
uint64_t profile_test_hits(unsigned long ip, uint64_t *time)
{
    struct dyn_ftrace *rec = ftrace_rec_lookup(ip);
    uint64_t hits = 0;
    *time = 0;
    for (unsigned c = 0; c < MAX_CPUS && rec; c++) {
        if (!profile[c])
            continue;
        hits += profile[c][ftrace_rec_index(rec)].hits;
        *time += profile[c][ftrace_rec_index(rec)].time;
    }
    return hits;
}

static int show_enabled(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%u\n", profile_on ? 1 : 0);
}

static ssize_t store_enabled(void *data, const char *buf, size_t len)
{
    unsigned long v;
    if (tracefs_parse_ulong(buf, len, &v) != 0)
        return -EINVAL;
    if (v && !profile_on) {
        int err = profile_enable();
        if (err)
            return err;
    } else if (!v && profile_on) {
        profile_disable();
    }
    return len;
}

TRACEFS_FILE(function_profile_enabled, .path = "function_profile_enabled", .mode = 0644,
             .show = show_enabled, .store = store_enabled);

struct profile_row {
    size_t rec;
    struct profile_entry e;
};

static int cmp_time_desc(const void *a, const void *b)
{
    const struct profile_row *x = a, *y = b;
    if (x->e.time != y->e.time)
        return x->e.time > y->e.time ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static int show_stat(struct seqbuf *s, void *data)
{
    unsigned cpu = (unsigned)(uintptr_t)data;
    seq_puts(
        s, "  Function                               Hit    Time            Avg             s^2\n"
           "  --------                               ---    ----            ---             ---\n");
    struct profile_entry *table = profile[cpu];
    if (!table)
        return 0;
    size_t n = ftrace_rec_total(), rows = 0;
    struct profile_row *r = kmalloc(n * sizeof(*r) + 1);
    if (!r)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        /* A copy: the CPU keeps counting while we print. */
        struct profile_entry e = table[i];
        if (!e.hits)
            continue;
        r[rows].rec = i;
        r[rows].e = e;
        rows++;
    }
    sort(r, rows, sizeof(*r), cmp_time_desc);
    for (size_t i = 0; i < rows; i++) {
        const struct profile_entry *e = &r[i].e;
        uint64_t avg = e->time / e->hits;
        uint64_t var = 0;
        if (e->hits > 1) {
            /* Sample variance (sum(x^2) - sum(x) * mean) / (n - 1), divided by 1000 more
             * so that the duration printer's own /1000 leaves us^2, as Linux prints it. */
            uint64_t centred = e->time * avg;
            if (e->time_squared > centred)
                var = (e->time_squared - centred) / (e->hits - 1) / 1000;
        }
        seq_printf(s, "  %-30.30s  %10llu", ftrace_rec_name(ftrace_rec(r[i].rec)),
                   (unsigned long long)e->hits);
        seq_puts(s, "    ");
        trace_graph_print_duration(s, e->time);
        seq_puts(s, "    ");
        trace_graph_print_duration(s, avg);
        seq_puts(s, "    ");
        trace_graph_print_duration(s, var);
        seq_putc(s, '\n');
    }
    kfree(r);
    return 0;
}

static void profile_files_init(void)
{
    char path[40];
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online)
            continue;
        snprintf(path, sizeof(path), "trace_stat/function%u", c);
        tracefs_create(path, 0444, NULL, show_stat, NULL, (void *)(uintptr_t)c);
    }
}
LATE_INITCALL(profile_files_init);
