/*
 * The console dump: the trace buffer printed through printk, as Linux's ftrace_dump, for
 * the `dump` and `cpudump` filter commands and for ftrace_dump_on_oops in a panic report.
 * Events go through the same formatting loop as a read of trace_pipe
 * (trace_iter_print_next), in Linux's latency layout for the events a tracer does not
 * print itself.
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/pseudofs.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <lib/string.h>

#include "trace_internal.h"

/*
 * A dump runs inside a traced function or a panic, where taking the heap lock could
 * deadlock: the iterator, its per-CPU slots and the line buffer are made beforehand, once,
 * and kept. (The function_graph printer still makes its per-reader state on first use.)
 */
#define DUMP_LINE_MAX 8192

static struct trace_iter *dump_iter;
static char *dump_line;
static int dump_running;
static DEFINE_SPINLOCK(dump_prepare_lock);

int ftrace_dump_prepare(void)
{
    struct trace_iter *it;
    int err = 0;

    spin_lock(&dump_prepare_lock);
    if (dump_iter)
        goto out;
    it = trace_iter_open(true, -1);
    dump_line = dump_line ? dump_line : kmalloc(DUMP_LINE_MAX);
    if (!it || !dump_line) {
        trace_iter_close(it);
        err = -ENOMEM;
        goto out;
    }
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        it->head[c] = it->head[c] ? it->head[c] : kmalloc(sizeof(struct rb_record));
        if (!it->head[c]) {
            trace_iter_close(it);
            err = -ENOMEM;
            goto out;
        }
    }
    WRITE_ONCE(dump_iter, it);
out:
    spin_unlock(&dump_prepare_lock);
    return err;
}

/*
 * Linux's dump prints each event in the latency format: comm cut to 8 columns, pid, CPU,
 * the flags, and the time in microseconds. Its mark column is always blank there, since
 * the event being printed is still the next one in the buffer.
 */
static void dump_lat_context(struct seqbuf *s, const struct rb_record *rec)
{
    uint32_t ctx = *(const uint32_t *)rec->data;
    char comm[THREAD_NAME_LEN];
    int pid = trace_record_pid(rec->data);

    if (!trace_opt(TRACE_OPT_CONTEXT_INFO))
        return;
    seq_printf(s, "%8.8s-%-7d %3u", trace_comm_of(pid, comm, sizeof(comm)), pid, rec->cpu);
    trace_print_flags(s, ctx);
    if (trace_clock_is_ns())
        seq_printf(s, " %4lluus : ", (unsigned long long)((rec->ts + 500) / 1000));
    else
        seq_printf(s, " %4llu: ", (unsigned long long)rec->ts);
}

/* An event the tracer does not print itself; a type the dump does not show prints nothing. */
static bool dump_format_default(struct trace_iter *it, struct seqbuf *s)
{
    dump_lat_context(s, &it->rec);
    if (!trace_format_body(s, &it->rec))
        s->len = 0;
    return true;
}

/* printk adds its stamp to every line, as Linux's does; one line at a time fits its buffer. */
static void dump_print_lines(const struct seqbuf *s)
{
    const char *p = s->buf, *end = s->buf + s->len;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

        printk("%.*s\n", (int)n, p);
        p += n + 1;
    }
}

void ftrace_dump(int cpu)
{
    struct trace_iter *it = READ_ONCE(dump_iter);
    unsigned long lines = 0;

    if (!it || __atomic_exchange_n(&dump_running, 1, __ATOMIC_ACQUIRE))
        return;
    /* As Linux: the dump stops tracing, so that what follows does not bury what led here.
     * During a panic the on/off lock may belong to a stopped CPU: switch the buffer only. */
    if (panic_in_progress)
        rb_record_disable(trace_global.buffer);
    else
        trace_set_on(false);

    it->cpu_only = cpu;
    printk("Dumping ftrace buffer:\n");
    if (ftrace_is_dead()) {
        printk("# WARNING: FUNCTION TRACING IS CORRUPTED\n");
        printk("#          MAY BE MISSING FUNCTION EVENTS\n");
    }
    for (;;) {
        struct seqbuf s = {.buf = dump_line, .cap = DUMP_LINE_MAX};
        bool more = trace_iter_print_next(it, &s, dump_format_default);

        /* A printer that outgrew the line buffer got a bigger one: keep it. */
        dump_line = s.buf;
        if (!more)
            break;
        if (!lines++)
            printk("---------------------------------\n");
        dump_print_lines(&s);
    }
    if (!lines)
        printk("   (ftrace buffer empty)\n");
    else
        printk("---------------------------------\n");
    __atomic_store_n(&dump_running, 0, __ATOMIC_RELEASE);
}

/* ---- ftrace_dump_on_oops ---- */

/* /proc/sys/kernel/ftrace_dump_on_oops, as Linux's: 0 off, 2 orig_cpu, else every CPU. */
static int trace_dump_on_oops;

static void trace_dump_on_panic(void)
{
    ftrace_dump(trace_dump_on_oops == TRACE_DUMP_ORIG_CPU ? (int)this_cpu_id() : -1);
}

int trace_dump_on_oops_set(int mode)
{
    if (mode) {
        int err = ftrace_dump_prepare();
        if (err)
            return err;
    }
    WRITE_ONCE(trace_dump_on_oops, mode);
    panic_trace_dump = mode ? trace_dump_on_panic : NULL;
    return 0;
}

static int dump_on_oops_show(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%d\n", READ_ONCE(trace_dump_on_oops));
}

static ssize_t dump_on_oops_store(void *data, const char *buf, size_t len)
{
    int v;
    int err = trace_parse_sysctl_int(buf, len, &v);

    /* Kept as written, as Linux: 2 dumps the panicking CPU's buffer, other non-zero
     * values every CPU's. */
    if (!err)
        err = trace_dump_on_oops_set(v);
    return err ? err : (ssize_t)len;
}

void trace_dump_on_oops_init(void)
{
    struct pfs_node *dir = pfs_mkdir("/proc/sys/kernel");
    if (!dir || !pfs_create_seq(dir, "ftrace_dump_on_oops", 0644, dump_on_oops_show,
                                dump_on_oops_store, NULL))
        printk("trace: cannot create /proc/sys/kernel/ftrace_dump_on_oops\n");
}
