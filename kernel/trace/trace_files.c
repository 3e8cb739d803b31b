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
    for (const struct tracer *t = __start_tracers; t < __stop_tracers && n < 16; t++)
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
    const struct tracer *t = trace_global.current;
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
    int err = trace_set_tracer(name);
    return err ? err : (ssize_t)len;
}

static int show_tracing_on(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%d\n", rb_record_is_on(trace_global.buffer) ? 1 : 0);
}

static ssize_t store_tracing_on(void *data, const char *buf, size_t len)
{
    unsigned long v;
    if (tracefs_parse_ulong(buf, len, &v) != 0)
        return -EINVAL;
    trace_set_on(v != 0);
    return len;
}

TRACEFS_FILE(available_tracers, .path = "available_tracers", .mode = 0444,
             .show = show_available_tracers);
TRACEFS_FILE(current_tracer, .path = "current_tracer", .mode = 0644, .show = show_current_tracer,
             .store = store_current_tracer);
TRACEFS_FILE(tracing_on, .path = "tracing_on", .mode = 0644, .show = show_tracing_on,
             .store = store_tracing_on);

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
};

static bool tracer_uses_max(void)
{
    const struct tracer *t = trace_global.current;
    return t && t->use_max_tr;
}

static int reader_open(struct pfs_file *f, bool consume)
{
    int cpu = (int)(intptr_t)f->data;
    /* As Linux: `trace` of a latency tracer is its max buffer, to read and to clear. */
    bool max_tr = !consume && tracer_uses_max();
    if (f->flags & PFS_TRUNC) {
        if (max_tr)
            trace_snapshot_write(&trace_global, cpu, 2);
        else
            trace_clear(cpu);
    }
    if (!(f->flags & PFS_READ))
        return 0;
    struct trace_reader *r = kzalloc(sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->cpu = cpu;
    r->header_done = consume; /* trace_pipe has no header */
    struct ring_buffer *rb = trace_global.buffer;
    if (max_tr) {
        latency_readers_add(1);
        rb = trace_snapshot_get(&trace_global);
        r->max_tr = true;
    }
    r->iter = rb ? trace_iter_open_buffer(rb, consume, cpu) : NULL;
    if (!r->iter) {
        if (max_tr) {
            trace_snapshot_put(&trace_global);
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
            trace_snapshot_put(&trace_global);
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
    seq_puts(s, tracing_snapshot_allocated(&trace_global) ? "#\n# * Snapshot is allocated *\n#\n"
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

static void produce_header(struct trace_reader *r)
{
    const struct tracer *t = trace_global.current;
    seq_printf(&r->pending, "# tracer: %s\n#\n", t ? t->name : "nop");
    if (ftrace_is_dead())
        seq_puts(&r->pending, "# WARNING: FUNCTION TRACING IS CORRUPTED\n"
                              "#          MAY BE MISSING FUNCTION EVENTS\n");
    if (r->snapshot && (!r->iter || trace_snapshot_empty(&trace_global, r->cpu)))
        produce_snapshot_help(r);
    else if (t && t->print_header)
        t->print_header(r->iter, &r->pending);
    else if (trace_opt(TRACE_OPT_LATENCY_FORMAT) && r->iter)
        trace_latency_header(r->iter, &r->pending);
    else if (trace_opt(TRACE_OPT_CONTEXT_INFO))
        trace_print_func_header_of(r->iter->buffer, &r->pending, -1);
}

/* Formats the next event into pending; false when there is none now. */
static bool produce_event(struct trace_reader *r)
{
    return r->iter &&
           trace_iter_print_next(r->iter, &r->pending,
                                 trace_opt(TRACE_OPT_LATENCY_FORMAT) ? trace_format_latency
                                                                     : trace_format_default);
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
        if (r->read_any && !rb_record_is_on(trace_global.buffer))
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
    int cpu = (int)(intptr_t)f->data;
    /* A latency tracer owns the snapshot as its max buffer (Linux: EBUSY). */
    if ((f->flags & PFS_READ) && tracer_uses_max())
        return -EBUSY;
    if (!(f->flags & PFS_READ))
        return 0;
    struct trace_reader *r = kzalloc(sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->cpu = cpu;
    r->snapshot = true;
    struct ring_buffer *rb = trace_snapshot_get(&trace_global);
    if (rb) {
        r->iter = trace_iter_open_buffer(rb, false, cpu);
        if (!r->iter) {
            trace_snapshot_put(&trace_global);
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
    if (tracer_uses_max())
        return -EBUSY;
    err = trace_snapshot_write(&trace_global, (int)(intptr_t)f->data, value);
    return err ? err : (ssize_t)len;
}

static const struct pfs_ops snapshot_ops = {
    .open = snapshot_open, .read = reader_read, .write = snapshot_write, .release = reader_release};

static const struct pfs_ops trace_ops = {
    .open = trace_open, .read = reader_read, .write = discard_write, .release = reader_release};
static const struct pfs_ops trace_pipe_ops = {
    .open = trace_pipe_open, .read = reader_read, .release = reader_release};

TRACEFS_FILE(trace, .path = "trace", .mode = 0644, .ops = &trace_ops, .data = (void *)-1L);
TRACEFS_FILE(trace_pipe, .path = "trace_pipe", .mode = 0444, .ops = &trace_pipe_ops,
             .data = (void *)-1L);
TRACEFS_FILE(snapshot, .path = "snapshot", .mode = 0644, .ops = &snapshot_ops, .data = (void *)-1L);

/* ---- buffer sizes and per-CPU stats ---- */

static unsigned long buffer_kb_of(unsigned cpu) { return rb_size(trace_global.buffer, cpu) / 1024; }

static int show_buffer_size(struct seqbuf *s, void *data)
{
    int cpu = (int)(intptr_t)data;
    if (cpu >= 0)
        return seq_printf(s, "%lu\n", buffer_kb_of(cpu));
    unsigned long size = 0;
    bool same = true, first = true;
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online)
            continue;
        if (!first && buffer_kb_of(c) != size)
            same = false;
        size = buffer_kb_of(c);
        first = false;
    }
    return same ? seq_printf(s, "%lu\n", size) : seq_puts(s, "X\n");
}

static ssize_t store_buffer_size(void *data, const char *buf, size_t len)
{
    int cpu = (int)(intptr_t)data;
    unsigned long kb;
    if (tracefs_parse_ulong(buf, len, &kb) != 0)
        return -EINVAL;
    int err = trace_resize(cpu, kb);
    if (err)
        return err;
    return len;
}

static int show_total_size(struct seqbuf *s, void *data)
{
    unsigned long total = 0;
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (cpu_data(c)->online)
            total += buffer_kb_of(c);
    return seq_printf(s, "%lu\n", total);
}

TRACEFS_FILE(buffer_size_kb, .path = "buffer_size_kb", .mode = 0644, .show = show_buffer_size,
             .store = store_buffer_size, .data = (void *)-1L);
TRACEFS_FILE(buffer_total_size_kb, .path = "buffer_total_size_kb", .mode = 0444,
             .show = show_total_size);

static void print_stat_ts(struct seqbuf *s, const char *label, uint64_t ts)
{
    if (trace_clock_is_ns())
        seq_printf(s, "%s: %5llu.%06llu\n", label, (unsigned long long)(ts / 1000000000ULL),
                   (unsigned long long)(ts / 1000 % 1000000));
    else
        seq_printf(s, "%s: %llu\n", label, (unsigned long long)ts);
}

static int show_stats(struct seqbuf *s, void *data)
{
    struct rb_stats st;
    rb_get_stats(trace_global.buffer, (unsigned)(intptr_t)data, &st);
    seq_printf(s, "entries: %lu\n", st.entries);
    seq_printf(s, "overrun: %lu\n", st.overrun);
    seq_printf(s, "commit overrun: %lu\n", st.commit_overrun);
    seq_printf(s, "bytes: %lu\n", st.bytes);
    print_stat_ts(s, "oldest event ts", st.oldest_ts);
    print_stat_ts(s, "now ts", st.now_ts);
    seq_printf(s, "dropped events: %lu\n", st.dropped);
    return seq_printf(s, "read events: %lu\n", st.read);
}

/* ---- options ---- */

static bool option_visible(unsigned opt)
{
    const char *owner = trace_option_defs[opt].tracer;
    return !owner || (trace_global.current && strcmp(owner, trace_global.current->name) == 0);
}

static int show_trace_options(struct seqbuf *s, void *data)
{
    for (unsigned o = 0; o < TRACE_OPT_COUNT; o++)
        if (option_visible(o))
            seq_printf(s, "%s%s\n", trace_opt(o) ? "" : "no", trace_option_defs[o].name);
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
    if (opt < 0 || !option_visible((unsigned)opt))
        return -EINVAL;
    trace_set_option((unsigned)opt, on);
    return len;
}

static int show_option_file(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%d\n", trace_opt((unsigned)(uintptr_t)data) ? 1 : 0);
}

static ssize_t store_option_file(void *data, const char *buf, size_t len)
{
    unsigned long v;
    if (tracefs_parse_ulong(buf, len, &v) != 0 || v > 1)
        return -EINVAL;
    trace_set_option((unsigned)(uintptr_t)data, v == 1);
    return len;
}

TRACEFS_FILE(trace_options, .path = "trace_options", .mode = 0644, .show = show_trace_options,
             .store = store_trace_options);

/* ---- trace_marker, trace_clock, tracing_cpumask, set_ftrace_pid ---- */

/* Linux's name for the marker write: the trace.dat export gives print records its address. */
static ssize_t tracing_mark_write(void *data, const char *buf, size_t len)
{
    int err = trace_print(buf, len);
    return err ? err : (ssize_t)len;
}

TRACEFS_FILE(trace_marker, .path = "trace_marker", .mode = 0220, .store = tracing_mark_write);

static int show_trace_clock(struct seqbuf *s, void *data)
{
    for (int i = 0; i < TRACE_CLOCK_COUNT; i++)
        seq_printf(s, i == (int)trace_global.clock ? "%s[%s]" : "%s%s", i ? " " : "",
                   trace_clock_name(i));
    return seq_putc(s, '\n');
}

static ssize_t store_trace_clock(void *data, const char *buf, size_t len)
{
    char name[32];
    if (write_word(buf, len, name, sizeof(name)) != 0)
        return -EINVAL;
    int err = trace_set_clock(name);
    return err ? err : (ssize_t)len;
}

TRACEFS_FILE(trace_clock, .path = "trace_clock", .mode = 0644, .show = show_trace_clock,
             .store = store_trace_clock);

static int show_cpumask(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%x\n", trace_global.cpumask);
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
    trace_set_cpumask((uint32_t)mask);
    return len;
}

TRACEFS_FILE(tracing_cpumask, .path = "tracing_cpumask", .mode = 0644, .show = show_cpumask,
             .store = store_cpumask);

/* set_ftrace_pid and set_ftrace_notrace_pid; f->data is which list. */
static enum trace_pid_list pid_file_list(const struct pfs_file *f)
{
    return (enum trace_pid_list)(uintptr_t)f->data;
}

static int pid_open(struct pfs_file *f)
{
    enum trace_pid_list which = pid_file_list(f);
    if ((f->flags & PFS_WRITE) && (f->flags & PFS_TRUNC))
        trace_pids_clear(which);
    if (f->flags & PFS_READ) {
        struct seqbuf *s = kzalloc(sizeof(*s));
        if (!s)
            return -ENOMEM;
        const int *pids = which == TRACE_PIDS_TRACE ? trace_global.pids : trace_global.notrace_pids;
        unsigned n =
            which == TRACE_PIDS_TRACE ? trace_global.pid_count : trace_global.notrace_pid_count;
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
        int err = trace_pids_add(pid_file_list(f), pid);
        if (err)
            return err;
    }
    return pid == -ENOENT ? (ssize_t)len : pid;
}

static const struct pfs_ops pid_ops = {.open = pid_open,
                                       .read = pfs_snapshot_read,
                                       .write = pid_write,
                                       .release = pfs_snapshot_release};
TRACEFS_FILE(set_ftrace_pid, .path = "set_ftrace_pid", .mode = 0644, .ops = &pid_ops,
             .data = (void *)(uintptr_t)TRACE_PIDS_TRACE);
TRACEFS_FILE(set_ftrace_notrace_pid, .path = "set_ftrace_notrace_pid", .mode = 0644,
             .ops = &pid_ops, .data = (void *)(uintptr_t)TRACE_PIDS_NOTRACE);

/* ---- what is created at run time: per-CPU files and one file per option ---- */

static void trace_files_init(void)
{
    char path[64];
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online)
            continue;
        void *cpu = (void *)(intptr_t)c;
        snprintf(path, sizeof(path), "per_cpu/cpu%u/trace", c);
        tracefs_create(path, 0644, &trace_ops, NULL, NULL, cpu);
        snprintf(path, sizeof(path), "per_cpu/cpu%u/trace_pipe", c);
        tracefs_create(path, 0444, &trace_pipe_ops, NULL, NULL, cpu);
        snprintf(path, sizeof(path), "per_cpu/cpu%u/snapshot", c);
        tracefs_create(path, 0644, &snapshot_ops, NULL, NULL, cpu);
        snprintf(path, sizeof(path), "per_cpu/cpu%u/stats", c);
        tracefs_create(path, 0444, NULL, show_stats, NULL, cpu);
        snprintf(path, sizeof(path), "per_cpu/cpu%u/buffer_size_kb", c);
        tracefs_create(path, 0644, NULL, show_buffer_size, store_buffer_size, cpu);
    }
    for (unsigned o = 0; o < TRACE_OPT_COUNT; o++) {
        snprintf(path, sizeof(path), "options/%s", trace_option_defs[o].name);
        tracefs_create(path, 0644, NULL, show_option_file, store_option_file, (void *)(uintptr_t)o);
    }
}
LATE_INITCALL(trace_files_init);
