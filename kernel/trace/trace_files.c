/*
 * The tracing core's files in /sys/kernel/tracing, with Linux's names, semantics and
 * texts: tracers, on/off, the trace and trace_pipe readers, buffer sizes, options,
 * markers, clocks, the CPU mask, the pid filter and the per-CPU directory.
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/init.h>
#include <kernel/smp.h>
#include <kernel/time.h>
#include <lib/ctype.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "trace_internal.h"

/*
 * Files that every trace array has (TRACEFS_FILE's .instance) get a struct trace_file_ref
 * as data: the array, and the CPU of a per_cpu/cpuN/ file (-1 for the rest).
 */
static struct trace_array *ref_tr(void *data) { return ((struct trace_file_ref *)data)->tr; }
static int ref_cpu(void *data) { return ((struct trace_file_ref *)data)->cpu; }

/* Copies a write into a NUL-terminated word without surrounding blanks. */
static int write_word(const char *buf, size_t len, char *out, size_t out_len)
{
    while (len && isspace((unsigned char)*buf)) {
        buf++;
        len--;
    }
    while (len && isspace((unsigned char)buf[len - 1]))
        len--;
    if (len >= out_len)
        return -EINVAL;
    memcpy(out, buf, len);
    out[len] = '\0';
    return 0;
}

/* ---- tracers, tracing_on ---- */

/* Linux registers its tracers in this order and lists the most recent first. */
static const char *const tracer_registration_order[] = {
    "nop",       "function",       "irqsoff", "preemptoff", "preemptirqsoff", "wakeup",
    "wakeup_rt", "function_graph", "hwlat",   "osnoise",    "timerlat",
};

static size_t tracer_rank(const struct tracer *t)
{
    for (size_t i = 0; i < ARRAY_SIZE(tracer_registration_order); i++)
        if (strcmp(t->name, tracer_registration_order[i]) == 0)
            return i;
    return ARRAY_SIZE(tracer_registration_order);
}

static int show_available_tracers(struct seqbuf *s, void *data)
{
    const struct tracer *order[16];
    size_t n = 0;
    bool instance = ref_tr(data) != &trace_global;
    for (const struct tracer *t = __start_tracers; t < __stop_tracers && n < 16; t++)
        if (!instance || t->allow_instances)
            order[n++] = t;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && tracer_rank(order[j]) > tracer_rank(order[j - 1]); j--) {
            const struct tracer *tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    for (size_t i = 0; i < n; i++)
        seq_printf(s, "%s%s", i ? " " : "", order[i]->name);
    return seq_putc(s, '\n');
}

static int show_current_tracer(struct seqbuf *s, void *data)
{
    const struct tracer *t = ref_tr(data)->current;
    return seq_printf(s, "%s\n", t ? t->name : "nop");
}

static ssize_t store_current_tracer(void *data, const char *buf, size_t len)
{
    char name[32];
    if (write_word(buf, len, name, sizeof(name)) != 0)
        return -EINVAL;
    /* After an ftrace bug only nop can run: the others need call sites patched. */
    if (ftrace_is_dead() && strcmp(name, "nop") != 0 && trace_find_tracer(name))
        return -ENODEV;
    int err = trace_array_set_tracer(ref_tr(data), name);
    return err ? err : (ssize_t)len;
}

static int show_tracing_on(struct seqbuf *s, void *data)
{
    struct trace_array *tr = ref_tr(data);
    /* Holding the last boot's trace is not the user's switch (trace_boot_instances.c). */
    bool on = rb_record_is_on(tr->buffer) || (READ_ONCE(tr->last_boot) && tr->tracing_is_on);
    return seq_printf(s, "%d\n", on ? 1 : 0);
}

static ssize_t store_tracing_on(void *data, const char *buf, size_t len)
{
    unsigned long v;
    if (tracefs_parse_ulong(buf, len, &v) != 0)
        return -EINVAL;
    /* Turning tracing on in an instance showing the last boot's trace starts this boot's. */
    if (v)
        trace_array_last_boot_end(ref_tr(data));
    trace_array_set_on(ref_tr(data), v != 0);
    return len;
}

TRACEFS_FILE(available_tracers, .path = "available_tracers", .mode = 0444,
             .show = show_available_tracers, .instance = true);
TRACEFS_FILE(current_tracer, .path = "current_tracer", .mode = 0644, .show = show_current_tracer,
             .store = store_current_tracer, .instance = true);
TRACEFS_FILE(tracing_on, .path = "tracing_on", .mode = 0644, .show = show_tracing_on,
             .store = store_tracing_on, .instance = true);

/* ---- trace, trace_pipe (all CPUs or one) ---- */

struct trace_reader {
    struct trace_iter *iter; /* NULL for a snapshot that was freed when it was opened */
    bool snapshot;           /* a reader of snapshot: its buffer, and its help text */
    bool max_tr;             /* `trace` of a latency tracer: the max (snapshot) buffer */
    struct seqbuf pending;
    size_t pending_off;
    bool header_done;
    bool read_any; /* an event was returned: with tracing off, the end is EOF */
    int cpu;       /* -1: all */
    struct trace_array *tr;
};

static bool tracer_uses_max(struct trace_array *tr)
{
    const struct tracer *t = tr->current;
    return t && t->use_max_tr;
}

static int reader_open(struct pfs_file *f, bool consume)
{
    int cpu = ref_cpu(f->data);
    struct trace_array *tr = ref_tr(f->data);
    /* As Linux: `trace` of a latency tracer is its max buffer, to read and to clear. */
    bool max_tr = !consume && tracer_uses_max(tr);
    if (f->flags & PFS_TRUNC) {
        if (max_tr)
            trace_snapshot_write(tr, cpu, 2);
        else
            trace_array_clear(tr, cpu);
    }
    if (!(f->flags & PFS_READ))
        return 0;
    struct trace_reader *r = kzalloc(sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->cpu = cpu;
    r->tr = tr;
    r->header_done = consume; /* trace_pipe has no header */
    struct ring_buffer *rb = tr->buffer;
    if (max_tr) {
        latency_readers_add(1);
        rb = trace_snapshot_get(tr);
        r->max_tr = true;
    }
    r->iter = rb ? trace_iter_open_buffer(rb, consume, cpu) : NULL;
    if (r->iter)
        r->iter->tr = tr;
    if (!r->iter) {
        if (max_tr) {
            trace_snapshot_put(tr);
            latency_readers_add(-1);
        }
        kfree(r);
        return -ENOMEM;
    }
    if (max_tr)
        r->iter->skip_before = latency_max_time_start();
    f->priv = r;
    return 0;
}

static int trace_open(struct pfs_file *f) { return reader_open(f, false); }
static int trace_pipe_open(struct pfs_file *f) { return reader_open(f, true); }

static int reader_release(struct pfs_file *f)
{
    struct trace_reader *r = f->priv;
    if (r) {
        trace_iter_close(r->iter);
        if (r->snapshot || r->max_tr)
            trace_snapshot_put(r->tr);
        if (r->max_tr)
            latency_readers_add(-1);
        seqbuf_free(&r->pending);
        kfree(r);
    }
    return 0;
}

/* Linux's text in place of the header while the snapshot holds nothing to show. */
static void produce_snapshot_help(struct trace_reader *r)
{
    struct seqbuf *s = &r->pending;
    seq_puts(s, tracing_snapshot_allocated(r->tr) ? "#\n# * Snapshot is allocated *\n#\n"
                                                  : "#\n# * Snapshot is freed *\n#\n");
    seq_puts(s, "# Snapshot commands:\n");
    if (r->cpu < 0) {
        seq_puts(s, "# echo 0 > snapshot : Clears and frees snapshot buffer\n"
                    "# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
                    "#                      Takes a snapshot of the main buffer.\n"
                    "# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n"
                    "#                      (Doesn't have to be '2' works with any number that\n"
                    "#                       is not a '0' or '1')\n");
        return;
    }
    seq_puts(s, "# echo 0 > snapshot : Invalid for per_cpu snapshot file.\n"
                "# echo 1 > snapshot : Not supported with this kernel.\n"
                "#                     Must use main snapshot file to allocate.\n"
                "# echo 2 > snapshot : Clears this cpu's snapshot buffer (but does not allocate)\n"
                "#                      (Doesn't have to be '2' works with any number that\n"
                "#                       is not a '0' or '1')\n");
}

static void produce_header_lines(struct trace_reader *r);

/* The lines are printed with the options of the array read (trace_print_opt). */
static void produce_header(struct trace_reader *r)
{
    struct trace_array *was = trace_printing;
    WRITE_ONCE(trace_printing, r->tr);
    produce_header_lines(r);
    WRITE_ONCE(trace_printing, was);
}

static void produce_header_lines(struct trace_reader *r)
{
    const struct tracer *t = r->tr->current;
    seq_printf(&r->pending, "# tracer: %s\n#\n", t ? t->name : "nop");
    if (ftrace_is_dead())
        seq_puts(&r->pending, "# WARNING: FUNCTION TRACING IS CORRUPTED\n"
                              "#          MAY BE MISSING FUNCTION EVENTS\n");
    if (r->snapshot && (!r->iter || trace_snapshot_empty(r->tr, r->cpu)))
        produce_snapshot_help(r);
    else if (t && t->print_header)
        t->print_header(r->iter, &r->pending);
    else if (trace_print_opt(TRACE_OPT_LATENCY_FORMAT) && r->iter)
        trace_latency_header(r->iter, &r->pending);
    else if (trace_print_opt(TRACE_OPT_CONTEXT_INFO))
        trace_print_func_header_of(r->iter->buffer, &r->pending, -1);
}

/*
 * Formats the next event into pending (empty); false when there is none now. As Linux
 * prints an event into a trace_seq of a page, its text stops at the first piece that
 * would pass TRACE_LINE_MAX, and then ends with "[LINE TOO BIG]" if that still fits, or
 * with no newline at all if it does not (tests/reference/linux-6.1-probe-limits.txt).
 */
static bool produce_event(struct trace_reader *r)
{
    struct trace_array *was = trace_printing;
    WRITE_ONCE(trace_printing, r->tr);
    r->pending.limit = r->pending.len + TRACE_LINE_MAX;
    bool made = r->iter && trace_iter_print_next(r->iter, &r->pending,
                                                 trace_print_opt(TRACE_OPT_LATENCY_FORMAT)
                                                     ? trace_format_latency
                                                     : trace_format_default);
    if (r->pending.full) {
        r->pending.full = false;
        seq_puts(&r->pending, "[LINE TOO BIG]\n");
    }
    r->pending.limit = 0;
    r->pending.full = false;
    WRITE_ONCE(trace_printing, was);
    return made;
}

static ssize_t reader_read(struct pfs_file *f, char *buf, size_t len)
{
    struct trace_reader *r = f->priv;
    size_t done = 0;
    while (done < len) {
        if (r->pending_off < r->pending.len) {
            size_t n = MIN(len - done, r->pending.len - r->pending_off);
            memcpy(buf + done, r->pending.buf + r->pending_off, n);
            r->pending_off += n;
            done += n;
            continue;
        }
        r->pending.len = 0;
        r->pending_off = 0;
        if (!r->header_done) {
            produce_header(r);
            r->header_done = true;
            continue;
        }
        if (produce_event(r)) {
            r->read_any = true;
            continue;
        }
        if (!r->iter || !r->iter->consume || done > 0)
            break;
        if (f->flags & PFS_NONBLOCK)
            return -EAGAIN;
        /* As Linux's tracing_wait_pipe: with tracing off, once something was read,
         * the end of the data is the end of the file. */
        if (r->read_any && !rb_record_is_on(r->tr->buffer))
            break;
        /* trace_pipe blocks until data arrives. Writers cannot wake readers (they run in
         * any context, lock-free), so poll at a rate a person cannot see. */
        int err = pfs_read_wait(f, 10 * NSEC_PER_MSEC);
        if (err)
            return err;
    }
    return (ssize_t)done;
}

static ssize_t discard_write(struct pfs_file *f, const char *buf, size_t len) { return len; }

/*
 * snapshot and per_cpu/cpuN/snapshot: read as `trace` is (never consuming, and never
 * stopping the live buffer: the snapshot does not record), written with a number.
 */
static int snapshot_open(struct pfs_file *f)
{
    int cpu = ref_cpu(f->data);
    struct trace_array *tr = ref_tr(f->data);
    /* A latency tracer owns the snapshot as its max buffer (Linux: EBUSY). */
    if ((f->flags & PFS_READ) && tracer_uses_max(tr))
        return -EBUSY;
    if (!(f->flags & PFS_READ))
        return 0;
    struct trace_reader *r = kzalloc(sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->cpu = cpu;
    r->tr = tr;
    r->snapshot = true;
    struct ring_buffer *rb = trace_snapshot_get(tr);
    if (rb) {
        r->iter = trace_iter_open_buffer(rb, false, cpu);
        if (r->iter)
            r->iter->tr = tr;
        if (!r->iter) {
            trace_snapshot_put(tr);
            kfree(r);
            return -ENOMEM;
        }
    }
    f->priv = r;
    return 0;
}

static ssize_t snapshot_write(struct pfs_file *f, const char *buf, size_t len)
{
    unsigned long value;
    /* As Linux: ERANGE for a number too big, EINVAL for anything else. */
    int err = tracefs_parse_ulong(buf, len, &value);
    if (err)
        return err;
    if (tracer_uses_max(ref_tr(f->data)))
        return -EBUSY;
    err = trace_snapshot_write(ref_tr(f->data), ref_cpu(f->data), value);
    return err ? err : (ssize_t)len;
}

static const struct pfs_ops snapshot_ops = {
    .open = snapshot_open, .read = reader_read, .write = snapshot_write, .release = reader_release};

static const struct pfs_ops trace_ops = {
    .open = trace_open, .read = reader_read, .write = discard_write, .release = reader_release};
static const struct pfs_ops trace_pipe_ops = {
    .open = trace_pipe_open, .read = reader_read, .release = reader_release};

TRACEFS_FILE(trace, .path = "trace", .mode = 0644, .ops = &trace_ops, .instance = true);
TRACEFS_FILE(trace_pipe, .path = "trace_pipe", .mode = 0444, .ops = &trace_pipe_ops,
             .instance = true);
TRACEFS_FILE(snapshot, .path = "snapshot", .mode = 0644, .ops = &snapshot_ops, .instance = true);

/* ---- buffer sizes and per-CPU stats ---- */

static unsigned long buffer_kb_of(struct trace_array *tr, unsigned cpu)
{
    return rb_size(tr->buffer, cpu) / 1024;
}

static int show_buffer_size(struct seqbuf *s, void *data)
{
    int cpu = ref_cpu(data);
    struct trace_array *tr = ref_tr(data);
    if (cpu >= 0)
        return seq_printf(s, "%lu\n", buffer_kb_of(tr, (unsigned)cpu));
    unsigned long size = 0;
    bool same = true, first = true;
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online)
            continue;
        if (!first && buffer_kb_of(tr, c) != size)
            same = false;
        size = buffer_kb_of(tr, c);
        first = false;
    }
    return same ? seq_printf(s, "%lu\n", size) : seq_puts(s, "X\n");
}

static ssize_t store_buffer_size(void *data, const char *buf, size_t len)
{
    unsigned long kb;
    if (tracefs_parse_ulong(buf, len, &kb) != 0)
        return -EINVAL;
    int err = trace_array_resize(ref_tr(data), ref_cpu(data), kb);
    if (err)
        return err;
    return len;
}

static int show_total_size(struct seqbuf *s, void *data)
{
    unsigned long total = 0;
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (cpu_data(c)->online)
            total += buffer_kb_of(ref_tr(data), c);
    return seq_printf(s, "%lu\n", total);
}

TRACEFS_FILE(buffer_size_kb, .path = "buffer_size_kb", .mode = 0644, .show = show_buffer_size,
             .store = store_buffer_size, .instance = true);
TRACEFS_FILE(buffer_total_size_kb, .path = "buffer_total_size_kb", .mode = 0444,
             .show = show_total_size, .instance = true);

/*
 * buffer_percent: how full a CPU's buffer must be before a reader waiting on
 * trace_pipe_raw wakes. Linux 6.1 applies it to splice and poll, and wakes a read() at the
 * first page, whatever the value (tests/reference/linux-6.1-buffer-percent-read.txt):
 * readers here only read, so the value is kept and read back.
 */
static int show_buffer_percent(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%u\n", ref_tr(data)->buffer_percent);
}

static ssize_t store_buffer_percent(void *data, const char *buf, size_t len)
{
    unsigned long percent;
    int err = tracefs_parse_ulong(buf, len, &percent);
    if (err)
        return err;
    if (percent > 100)
        return -EINVAL;
    ref_tr(data)->buffer_percent = (unsigned)percent;
    return len;
}

TRACEFS_FILE(buffer_percent, .path = "buffer_percent", .mode = 0644, .show = show_buffer_percent,
             .store = store_buffer_percent, .instance = true);

/*
 * free_buffer: as Linux's, the release of the file does the work, whether or not anything
 * was written (a recorder holds it open and its death closes it): tracing_on goes off if
 * options/disable_on_free is set, and the buffer shrinks to its fewest pages on every CPU,
 * where buffer_size_kb then reads 7, as on Linux.
 */
static int free_buffer_release(struct pfs_file *f)
{
    struct trace_array *tr = ref_tr(f->data);
    if ((tr->options >> TRACE_OPT_DISABLE_ON_FREE) & 1)
        trace_array_set_on(tr, false);
    /* Linux ignores a failed resize here too: the file has nothing to report it to. */
    trace_buffers_resize(tr, -1, 1);
    return 0;
}

static const struct pfs_ops free_buffer_ops = {.write = discard_write,
                                               .release = free_buffer_release};

TRACEFS_FILE(free_buffer, .path = "free_buffer", .mode = 0200, .ops = &free_buffer_ops,
             .instance = true);

/*
 * timestamp_mode: the buffers record deltas, as Linux 6.1's always show (its hist
 * triggers' common_timestamp does not change the file either). Linux's file has no write,
 * which root's write finds as EINVAL: the file takes writes here to refuse them so.
 */
static int show_timestamp_mode(struct seqbuf *s, void *data)
{
    return seq_puts(s, "[delta] absolute\n");
}

static ssize_t store_timestamp_mode(void *data, const char *buf, size_t len) { return -EINVAL; }

TRACEFS_FILE(timestamp_mode, .path = "timestamp_mode", .mode = 0644, .show = show_timestamp_mode,
             .store = store_timestamp_mode, .instance = true);

static void print_stat_ts(struct seqbuf *s, struct trace_array *tr, const char *label, uint64_t ts)
{
    if (trace_array_clock_is_ns(tr))
        seq_printf(s, "%s: %5llu.%06llu\n", label, (unsigned long long)(ts / 1000000000ULL),
                   (unsigned long long)(ts / 1000 % 1000000));
    else
        seq_printf(s, "%s: %llu\n", label, (unsigned long long)ts);
}

static int show_stats(struct seqbuf *s, void *data)
{
    struct rb_stats st;
    struct trace_array *tr = ref_tr(data);
    rb_get_stats(tr->buffer, (unsigned)ref_cpu(data), &st);
    seq_printf(s, "entries: %lu\n", st.entries);
    seq_printf(s, "overrun: %lu\n", st.overrun);
    seq_printf(s, "commit overrun: %lu\n", st.commit_overrun);
    seq_printf(s, "bytes: %lu\n", st.bytes);
    print_stat_ts(s, tr, "oldest event ts", st.oldest_ts);
    print_stat_ts(s, tr, "now ts", st.now_ts);
    seq_printf(s, "dropped events: %lu\n", st.dropped);
    return seq_printf(s, "read events: %lu\n", st.read);
}

/* ---- options ---- */

static bool option_visible(const struct trace_array *tr, unsigned opt)
{
    const char *owner = trace_option_defs[opt].tracer;
    return !owner || (tr->current && strcmp(owner, tr->current->name) == 0);
}

static int show_trace_options(struct seqbuf *s, void *data)
{
    struct trace_array *tr = ref_tr(data);
    for (unsigned o = 0; o < TRACE_OPT_COUNT; o++)
        if (option_visible(tr, o))
            seq_printf(s, "%s%s\n", trace_array_opt(tr, o) ? "" : "no", trace_option_defs[o].name);
    return 0;
}

int trace_option_by_name(const char *name)
{
    for (unsigned o = 0; o < TRACE_OPT_COUNT; o++)
        if (strcmp(name, trace_option_defs[o].name) == 0)
            return (int)o;
    return -1;
}

static ssize_t store_trace_options(void *data, const char *buf, size_t len)
{
    char word[48];
    if (write_word(buf, len, word, sizeof(word)) != 0)
        return -EINVAL;
    bool on = strncmp(word, "no", 2) != 0;
    int opt = trace_option_by_name(on ? word : word + 2);
    if (opt < 0 && !on)
        opt = trace_option_by_name(word); /* a name that itself starts with "no" */
    if (opt < 0 || !option_visible(ref_tr(data), (unsigned)opt))
        return -EINVAL;
    trace_array_set_option(ref_tr(data), (unsigned)opt, on);
    return len;
}

/* An options/NAME file's data: its array and its option. */
struct option_file {
    struct trace_array *tr;
    unsigned opt;
};

static int show_option_file(struct seqbuf *s, void *data)
{
    const struct option_file *f = data;
    return seq_printf(s, "%d\n", trace_array_opt(f->tr, f->opt) ? 1 : 0);
}

static ssize_t store_option_file(void *data, const char *buf, size_t len)
{
    const struct option_file *f = data;
    unsigned long v;
    if (tracefs_parse_ulong(buf, len, &v) != 0 || v > 1)
        return -EINVAL;
    trace_array_set_option(f->tr, f->opt, v == 1);
    return len;
}

TRACEFS_FILE(trace_options, .path = "trace_options", .mode = 0644, .show = show_trace_options,
             .store = store_trace_options, .instance = true);

int trace_files_create_options(struct trace_array *tr, struct pfs_node *dir)
{
    struct pfs_node *options = pfs_mkdir_at(dir, "options");
    for (unsigned o = 0; o < TRACE_OPT_COUNT && options; o++) {
        struct option_file f = {tr, o};
        if (!pfs_create_seq_copy(options, trace_option_defs[o].name, 0644, show_option_file,
                                 store_option_file, &f, sizeof(f)))
            return -ENOMEM;
    }
    return options ? 0 : -ENOMEM;
}

/* ---- trace_marker, trace_clock, tracing_cpumask, set_ftrace_pid ---- */

/*
 * Linux's name for the marker write: the trace.dat export gives print records its address.
 * As Linux's, one write records at most TRACE_BUF_SIZE bytes and returns what it took: the
 * writer sends the rest again, which becomes a marker of its own.
 */
static ssize_t tracing_mark_write(void *data, const char *buf, size_t len)
{
    size_t cnt = MIN(len, (size_t)TRACE_BUF_SIZE);
    int err = trace_array_print(ref_tr(data), buf, cnt);
    return err ? err : (ssize_t)cnt;
}

TRACEFS_FILE(trace_marker, .path = "trace_marker", .mode = 0220, .store = tracing_mark_write,
             .instance = true);

static int show_trace_clock(struct seqbuf *s, void *data)
{
    for (int i = 0; i < TRACE_CLOCK_COUNT; i++)
        seq_printf(s, i == (int)ref_tr(data)->clock ? "%s[%s]" : "%s%s", i ? " " : "",
                   trace_clock_name(i));
    return seq_putc(s, '\n');
}

static ssize_t store_trace_clock(void *data, const char *buf, size_t len)
{
    char name[32];
    if (write_word(buf, len, name, sizeof(name)) != 0)
        return -EINVAL;
    int err = trace_array_set_clock(ref_tr(data), name);
    return err ? err : (ssize_t)len;
}

TRACEFS_FILE(trace_clock, .path = "trace_clock", .mode = 0644, .show = show_trace_clock,
             .store = store_trace_clock, .instance = true);

static int show_cpumask(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%x\n", ref_tr(data)->cpumask);
}

static ssize_t store_cpumask(void *data, const char *buf, size_t len)
{
    char word[32];
    if (write_word(buf, len, word, sizeof(word)) != 0 || !word[0])
        return -EINVAL;
    uint64_t mask = 0;
    for (const char *p = word; *p; p++) {
        if (*p == ',')
            continue;
        if (!isxdigit((unsigned char)*p) || mask >> 60)
            return -EINVAL;
        mask =
            mask * 16 + (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' : tolower(*p) - 'a' + 10);
    }
    if (mask & ~(uint64_t)cpu_online_mask())
        return -EOVERFLOW;
    trace_array_set_cpumask(ref_tr(data), (uint32_t)mask);
    return len;
}

TRACEFS_FILE(tracing_cpumask, .path = "tracing_cpumask", .mode = 0644, .show = show_cpumask,
             .store = store_cpumask, .instance = true);

/* set_ftrace_pid and set_ftrace_notrace_pid; f->data is the array's pid_refs[which list]. */
static enum trace_pid_list pid_file_list(const struct pfs_file *f)
{
    return (enum trace_pid_list)ref_cpu(f->data);
}

static int pid_open(struct pfs_file *f)
{
    enum trace_pid_list which = pid_file_list(f);
    struct trace_array *tr = ref_tr(f->data);
    if ((f->flags & PFS_WRITE) && (f->flags & PFS_TRUNC))
        trace_array_pids_clear(tr, which);
    if (f->flags & PFS_READ) {
        struct seqbuf *s = kzalloc(sizeof(*s));
        if (!s)
            return -ENOMEM;
        const int *pids = which == TRACE_PIDS_TRACE ? tr->pids : tr->notrace_pids;
        unsigned n = which == TRACE_PIDS_TRACE ? tr->pid_count : tr->notrace_pid_count;
        if (!n)
            seq_puts(s, "no pid\n");
        /* Linux keeps pids in a bitmap: they read back in ascending order. */
        int last = -1;
        for (unsigned k = 0; k < n; k++) {
            int next = 0x7fffffff;
            for (unsigned i = 0; i < n; i++)
                if (pids[i] > last && pids[i] < next)
                    next = pids[i];
            seq_printf(s, "%d\n", next);
            last = next;
        }
        f->priv = s;
    }
    return 0;
}

int trace_parse_next_pid(const char *buf, size_t len, size_t *pos, long max)
{
    size_t i = *pos;
    while (i < len && isspace((unsigned char)buf[i]))
        i++;
    if (i == len) {
        *pos = i;
        return -ENOENT;
    }
    long pid = 0;
    size_t start = i;
    while (i < len && isdigit((unsigned char)buf[i]) && pid < 10000000)
        pid = pid * 10 + (buf[i++] - '0');
    if (i == start || (i < len && !isspace((unsigned char)buf[i])) || pid > max)
        return -EINVAL;
    *pos = i;
    return (int)pid;
}

static ssize_t pid_write(struct pfs_file *f, const char *buf, size_t len)
{
    size_t i = 0;
    int pid;
    while ((pid = trace_parse_next_pid(buf, len, &i, TRACE_CTX_PID_MASK)) >= 0) {
        int err = trace_array_pids_add(ref_tr(f->data), pid_file_list(f), pid);
        if (err)
            return err;
    }
    return pid == -ENOENT ? (ssize_t)len : pid;
}

static const struct pfs_ops pid_ops = {.open = pid_open,
                                       .read = pfs_snapshot_read,
                                       .write = pid_write,
                                       .release = pfs_snapshot_release};
int trace_files_create_pids(struct trace_array *tr, struct pfs_node *dir)
{
    if (!pfs_create(dir, "set_ftrace_pid", 0644, &pid_ops, &tr->pid_refs[TRACE_PIDS_TRACE]) ||
        !pfs_create(dir, "set_ftrace_notrace_pid", 0644, &pid_ops,
                    &tr->pid_refs[TRACE_PIDS_NOTRACE]))
        return -ENOMEM;
    return 0;
}

/* ---- what is created at run time: per-CPU files and one file per option ---- */

int trace_files_create_per_cpu(struct trace_array *tr, struct pfs_node *dir)
{
    char path[64];
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online)
            continue;
        void *cpu = &tr->cpu_refs[c];
        snprintf(path, sizeof(path), "per_cpu/cpu%u/trace", c);
        if (!tracefs_create_at(dir, path, 0644, &trace_ops, NULL, NULL, cpu))
            return -ENOMEM;
        snprintf(path, sizeof(path), "per_cpu/cpu%u/trace_pipe", c);
        if (!tracefs_create_at(dir, path, 0444, &trace_pipe_ops, NULL, NULL, cpu))
            return -ENOMEM;
        snprintf(path, sizeof(path), "per_cpu/cpu%u/snapshot", c);
        if (!tracefs_create_at(dir, path, 0644, &snapshot_ops, NULL, NULL, cpu))
            return -ENOMEM;
        snprintf(path, sizeof(path), "per_cpu/cpu%u/stats", c);
        if (!tracefs_create_at(dir, path, 0444, NULL, show_stats, NULL, cpu))
            return -ENOMEM;
        snprintf(path, sizeof(path), "per_cpu/cpu%u/buffer_size_kb", c);
        if (!tracefs_create_at(dir, path, 0644, NULL, show_buffer_size, store_buffer_size, cpu))
            return -ENOMEM;
        if (trace_pipe_raw_create(tr, dir, c))
            return -ENOMEM;
    }
    return 0;
}

static void trace_files_init(void)
{
    struct pfs_node *root = pfs_mkdir(TRACEFS_ROOT);
    trace_files_create_per_cpu(&trace_global, root);
    trace_files_create_options(&trace_global, root);
    trace_files_create_pids(&trace_global, root);
}
LATE_INITCALL(trace_files_init);
