/*
 * Self-tests of the tracing core on the real trace array: what trace_pipe consumes and
 * trace does not, trace_marker, tracing_cpumask, set_ftrace_pid, resizing under the
 * function tracer, a reader racing writers on other CPUs, and the accounting of a small
 * buffer in overwrite and in producer/consumer mode.
 *
 * The function tracer is filtered to ftrace_test_target, which only these tests call, so
 * every event they count is one they caused. Each test saves every global setting it
 * touches (tracer, filters, options, clock, sizes, CPU mask, pids, tracing_on) and puts it
 * back, then clears the buffer it filled.
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/selftest.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/string.h>

#include "trace_internal.h"

struct tst_saved {
    const struct tracer *tracer;
    bool on;
    uint64_t options;
    enum trace_clock_id clock;
    uint32_t cpumask;
    unsigned pid_count;
    int pids[ARRAY_SIZE(trace_global.pids)];
    size_t size[MAX_CPUS];
    struct ftrace_hash *filter, *notrace_hash;
};

static volatile unsigned long tst_sink;

static void tst_save(struct tst_saved *s)
{
    s->tracer = trace_global.current;
    s->on = rb_record_is_on(trace_global.buffer);
    s->options = trace_global.options;
    s->clock = trace_global.clock;
    s->cpumask = trace_global.cpumask;
    s->pid_count = trace_global.pid_count;
    memcpy(s->pids, trace_global.pids, sizeof(s->pids));
    for (unsigned c = 0; c < MAX_CPUS; c++)
        s->size[c] = cpu_data(c)->online ? rb_size(trace_global.buffer, c) : 0;
    s->filter = ftrace_hash_copy(ftrace_global_ops->filter_hash);
    s->notrace_hash = ftrace_hash_copy(ftrace_global_ops->notrace_hash);
}

static void tst_restore(struct tst_saved *s)
{
    trace_set_on(false);
    /* The tracer first: leaving the function tracer unregisters the op, so the filter
     * put back below patches nothing that is not wanted. */
    trace_set_tracer(s->tracer ? s->tracer->name : "nop");
    ftrace_ops_set_hashes(ftrace_global_ops, s->filter, s->notrace_hash);
    fgraph_filter_changed();
    for (unsigned o = 0; o < TRACE_OPT_COUNT; o++)
        if (((s->options ^ trace_global.options) >> o) & 1)
            trace_set_option(o, (s->options >> o) & 1);
    if (trace_global.clock != s->clock)
        trace_set_clock(trace_clock_name(s->clock));
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (s->size[c] && rb_size(trace_global.buffer, c) != s->size[c])
            rb_resize(trace_global.buffer, (int)c, s->size[c]);
    WRITE_ONCE(trace_global.pid_count, 0);
    memcpy(trace_global.pids, s->pids, sizeof(s->pids));
    __atomic_store_n(&trace_global.pid_count, s->pid_count, __ATOMIC_RELEASE);
    trace_set_cpumask(s->cpumask);
    trace_clear(-1);
    trace_set_on(s->on);
}

/* The function tracer on ftrace_test_target alone, every CPU and thread recording. */
static bool tst_begin(struct selftest_ctx *t, struct tst_saved *s)
{
    tst_save(s);
    trace_set_on(false);
    struct ftrace_hash *only = ftrace_hash_alloc();
    struct dyn_ftrace *rec = ftrace_rec_lookup((unsigned long)ftrace_test_target);
    EXPECT(only != NULL && rec != NULL);
    if (only && rec)
        ftrace_hash_set(only, ftrace_rec_index(rec));
    EXPECT_EQ(ftrace_ops_set_hashes(ftrace_global_ops, only, NULL), 0);
    /* The function profiler, if it runs, follows the global filter too. */
    fgraph_filter_changed();
    WRITE_ONCE(trace_global.pid_count, 0);
    trace_set_cpumask(cpu_online_mask());
    if (!trace_opt(TRACE_OPT_OVERWRITE))
        trace_set_option(TRACE_OPT_OVERWRITE, true);
    if (!trace_opt(TRACE_OPT_MARKERS))
        trace_set_option(TRACE_OPT_MARKERS, true);
    if (trace_opt(TRACE_OPT_FUNC_STACK_TRACE))
        trace_set_option(TRACE_OPT_FUNC_STACK_TRACE, false);
    int err = trace_set_tracer("function");
    EXPECT_EQ(err, 0);
    trace_clear(-1);
    trace_set_on(true);
    if (err)
        tst_restore(s);
    return err == 0 && rec;
}

static void tst_call_target(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        tst_sink = ftrace_test_target(i, 1, 2);
}

static struct rb_stats tst_stats(unsigned cpu)
{
    struct rb_stats st;
    rb_get_stats(trace_global.buffer, cpu, &st);
    return st;
}

/* Events a reader sees now, per CPU; consume = trace_pipe, else trace. */
static unsigned long tst_read(bool consume, unsigned long *per_cpu, unsigned long *lost)
{
    struct trace_iter *it = trace_iter_open(consume, -1);
    unsigned long n = 0;
    if (!it)
        return 0;
    while (trace_iter_next(it)) {
        n++;
        if (per_cpu)
            per_cpu[it->rec.cpu]++;
    }
    if (lost)
        for (unsigned c = 0; c < MAX_CPUS; c++)
            lost[c] += it->lost[c];
    trace_iter_close(it);
    return n;
}

static bool tst_is_target_event(const struct rb_record *r)
{
    const struct trace_fn_event *ev = (const void *)r->data;
    return trace_ctx_type(ev->ctx) == TRACE_FN &&
           trace_addr_unpack(ev->ip) == (unsigned long)ftrace_test_target;
}

/* A thread pinned to a CPU that calls the target n times once released. */
struct tst_caller {
    unsigned long calls;
    volatile bool *go;
    struct thread *thread;
};

static int tst_caller_main(void *arg)
{
    struct tst_caller *c = arg;
    while (c->go && !READ_ONCE(*c->go))
        sleep_ns(100 * NSEC_PER_USEC);
    tst_call_target(c->calls);
    return 0;
}

static bool tst_caller_start(struct tst_caller *c, unsigned cpu, unsigned long calls,
                             volatile bool *go)
{
    c->calls = calls;
    c->go = go;
    c->thread = kthread_create(tst_caller_main, c, "trace_test", cpu);
    return c->thread != NULL;
}

static unsigned tst_other_cpu(void)
{
    unsigned me = this_cpu_id();
    for (unsigned c = MAX_CPUS; c-- > 0;)
        if (c != me && cpu_data(c)->online)
            return c;
    return me;
}

SELFTEST(trace_pipe_consumes_trace_does_not)
{
    struct tst_saved s;
    if (!tst_begin(t, &s))
        return;
    unsigned cpu = this_cpu_id();
    tst_call_target(10);
    trace_set_on(false);

    unsigned long per_cpu[MAX_CPUS] = {0}, lost[MAX_CPUS] = {0};
    EXPECT_EQ(tst_read(false, per_cpu, NULL), 10);
    EXPECT_EQ(per_cpu[cpu], 10);
    EXPECT_EQ(tst_read(false, NULL, NULL), 10); /* trace left them all in place */
    EXPECT_EQ(tst_stats(cpu).entries, 10);
    EXPECT_EQ(tst_stats(cpu).read, 0);

    EXPECT_EQ(tst_read(true, NULL, lost), 10);
    EXPECT_EQ(lost[cpu], 0);
    EXPECT_EQ(tst_read(false, NULL, NULL), 0);
    EXPECT_EQ(tst_read(true, NULL, NULL), 0);
    struct rb_stats st = tst_stats(cpu);
    EXPECT_EQ(st.entries, 0);
    EXPECT_EQ(st.read, 10);
    EXPECT_EQ(st.overrun, 0);
    EXPECT_EQ(st.bytes, 0);
    tst_restore(&s);
}

SELFTEST(trace_marker_event)
{
    struct tst_saved s;
    if (!tst_begin(t, &s))
        return;
    EXPECT_EQ(trace_print("hello marker\n", 13), 0);
    EXPECT_EQ(trace_print("no newline", 10), 0);

    struct trace_iter *it = trace_iter_open(false, -1);
    EXPECT(it != NULL);
    if (!it) {
        tst_restore(&s);
        return;
    }
    struct seqbuf out = {0};
    unsigned n = 0;
    while (trace_iter_next(it)) {
        const struct trace_print_event *ev = (const void *)it->rec.data;
        EXPECT_EQ(trace_ctx_type(ev->ctx), TRACE_PRINT);
        EXPECT_EQ(trace_ctx_pid(ev->ctx), current_thread()->pid);
        EXPECT(trace_format_default(it, &out));
        n++;
    }
    trace_iter_close(it);
    EXPECT_EQ(n, 2);
    /* One line each, newline added where the text had none, context first. */
    const char *first = out.buf ? strstr(out.buf, ": tracing_mark_write: hello marker\n") : NULL;
    const char *second = out.buf ? strstr(out.buf, ": tracing_mark_write: no newline\n") : NULL;
    EXPECT(first != NULL);
    EXPECT(second != NULL && second > first);
    EXPECT(out.buf && strstr(out.buf, "] ") != NULL);
    seqbuf_free(&out);

    trace_set_option(TRACE_OPT_MARKERS, false);
    EXPECT_EQ(trace_print("refused", 7), -EINVAL);
    trace_set_option(TRACE_OPT_MARKERS, true);
    EXPECT_EQ(tst_read(false, NULL, NULL), 2);
    tst_restore(&s);
}

SELFTEST(trace_cpumask_filters_cpus)
{
    struct tst_saved s;
    if (!tst_begin(t, &s))
        return;
    unsigned me = this_cpu_id(), other = tst_other_cpu();
    struct tst_caller c;

    /* A CPU outside the mask records nothing, however often it calls. */
    trace_set_cpumask(cpu_online_mask() & ~(1u << other));
    EXPECT(tst_caller_start(&c, other, 100, NULL));
    if (c.thread)
        kthread_join(c.thread);
    EXPECT_EQ(tst_stats(other).entries, 0);
    EXPECT_EQ(tst_stats(other).overrun, 0);
    if (other != me) {
        /* The CPUs still in it go on recording. */
        tst_call_target(50);
        EXPECT_EQ(tst_stats(me).entries, 50);
    }

    /* Back in the mask, the same calls show up. */
    trace_set_cpumask(cpu_online_mask());
    EXPECT(tst_caller_start(&c, other, 100, NULL));
    if (c.thread)
        kthread_join(c.thread);
    EXPECT_EQ(tst_stats(other).entries, 100);
    tst_restore(&s);
}

SELFTEST(trace_pid_filters_threads)
{
    struct tst_saved s;
    if (!tst_begin(t, &s))
        return;
    volatile bool go = false;
    struct tst_caller a, b;
    unsigned other = tst_other_cpu();
    EXPECT(tst_caller_start(&a, other, 200, &go));
    EXPECT(tst_caller_start(&b, this_cpu_id(), 300, &go));
    if (!a.thread || !b.thread) {
        go = true;
        if (a.thread)
            kthread_join(a.thread);
        if (b.thread)
            kthread_join(b.thread);
        tst_restore(&s);
        return;
    }
    int pid = a.thread->pid;
    trace_global.pids[0] = pid;
    __atomic_store_n(&trace_global.pid_count, 1, __ATOMIC_RELEASE);
    go = true;
    kthread_join(a.thread);
    kthread_join(b.thread);
    tst_call_target(10); /* this thread is not listed either */
    trace_set_on(false);

    struct trace_iter *it = trace_iter_open(false, -1);
    unsigned long mine = 0, others = 0;
    while (it && trace_iter_next(it)) {
        const struct trace_fn_event *ev = (const void *)it->rec.data;
        if ((int)trace_ctx_pid(ev->ctx) == pid && tst_is_target_event(&it->rec))
            mine++;
        else
            others++;
    }
    trace_iter_close(it);
    EXPECT_EQ(mine, 200);
    EXPECT_EQ(others, 0);

    /* With the list empty again every thread is traced. */
    WRITE_ONCE(trace_global.pid_count, 0);
    trace_set_on(true);
    tst_call_target(10);
    EXPECT_EQ(tst_read(false, NULL, NULL), 210);
    tst_restore(&s);
}

/* Writers on every CPU that call the target until told to stop. */
struct tst_hammer {
    volatile bool stop;
    volatile unsigned long calls[MAX_CPUS];
};

struct tst_hammer_arg {
    struct tst_hammer *h;
    unsigned cpu;
};

static int tst_hammer_main(void *arg)
{
    struct tst_hammer_arg *a = arg;
    while (!READ_ONCE(a->h->stop)) {
        tst_call_target(64);
        a->h->calls[a->cpu] += 64;
        /* Leave the CPU now and then, so the test thread on the same CPU goes on. */
        schedule();
    }
    return 0;
}

SELFTEST(trace_resize_while_tracing)
{
    struct tst_saved s;
    if (!tst_begin(t, &s))
        return;
    static struct tst_hammer h;
    struct tst_hammer_arg args[MAX_CPUS];
    struct thread *threads[MAX_CPUS] = {0};
    memset(&h, 0, sizeof(h));
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online)
            continue;
        args[c] = (struct tst_hammer_arg){&h, c};
        threads[c] = kthread_create(tst_hammer_main, &args[c], "trace_hammer", c);
        EXPECT(threads[c] != NULL);
    }
    static const unsigned long sizes_kb[] = {8, 64, 16, 200, 4, 32};
    for (unsigned i = 0; i < ARRAY_SIZE(sizes_kb); i++) {
        sleep_ns(3 * NSEC_PER_MSEC);
        EXPECT_EQ(trace_resize(-1, sizes_kb[i]), 0);
        for (unsigned c = 0; c < MAX_CPUS; c++)
            if (cpu_data(c)->online)
                EXPECT(rb_size(trace_global.buffer, c) >= sizes_kb[i] * 1024);
    }
    sleep_ns(3 * NSEC_PER_MSEC);
    h.stop = true;
    unsigned long calls = 0;
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (threads[c])
            kthread_join(threads[c]);
        calls += h.calls[c];
    }
    trace_set_on(false);
    EXPECT(calls > 0);

    /* What is left adds up: every event is a whole function event of the target, the
     * lines per CPU match its entries, and no CPU holds more than its pages can. */
    unsigned long per_cpu[MAX_CPUS] = {0};
    struct trace_iter *it = trace_iter_open(false, -1);
    uint64_t last_ts[MAX_CPUS] = {0};
    unsigned long strange = 0, backwards = 0;
    while (it && trace_iter_next(it)) {
        unsigned c = it->rec.cpu;
        per_cpu[c]++;
        strange += !tst_is_target_event(&it->rec);
        backwards += it->rec.ts < last_ts[c];
        last_ts[c] = it->rec.ts;
    }
    trace_iter_close(it);
    EXPECT_EQ(strange, 0);
    EXPECT_EQ(backwards, 0);
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online)
            continue;
        struct rb_stats st = tst_stats(c);
        EXPECT_EQ(per_cpu[c], st.entries);
        EXPECT(st.entries <= rb_size(trace_global.buffer, c) / 16);
        EXPECT(st.bytes >= st.entries * 16);
        EXPECT(st.bytes <= st.entries * 24);
        EXPECT_EQ(st.commit_overrun, 0);
        EXPECT(st.entries + st.overrun <= h.calls[c]);
    }
    tst_restore(&s);
}

/* Writers on other CPUs while this thread consumes: every event is read or lost. */
struct tst_racer {
    struct tst_caller c;
    unsigned cpu;
};

static volatile unsigned tst_writers_left;

static int tst_racer_main(void *arg)
{
    struct tst_caller *c = arg;
    tst_caller_main(c);
    __atomic_fetch_sub(&tst_writers_left, 1, __ATOMIC_RELEASE);
    return 0;
}

SELFTEST(trace_reader_races_writers)
{
    struct tst_saved s;
    if (!tst_begin(t, &s))
        return;
    const unsigned long calls = 20000;
    unsigned me = this_cpu_id();
    /* Four pages a CPU: writers wrap it many times while the reader reads. */
    EXPECT_EQ(rb_resize(trace_global.buffer, -1, 4 * RB_PAGE_DATA_SIZE), 0);

    struct tst_racer racers[MAX_CPUS];
    volatile bool go = false;
    unsigned nwriters = 0;
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        /* Writers on the other CPUs; at one CPU, on this one, between our reads. */
        if (!cpu_data(c)->online || (c == me && cpus_online > 1))
            continue;
        racers[nwriters].cpu = c;
        racers[nwriters].c.calls = calls;
        racers[nwriters].c.go = &go;
        racers[nwriters].c.thread =
            kthread_create(tst_racer_main, &racers[nwriters].c, "trace_racer", c);
        EXPECT(racers[nwriters].c.thread != NULL);
        if (racers[nwriters].c.thread)
            nwriters++;
    }
    tst_writers_left = nwriters;
    go = true;

    struct trace_iter *it = trace_iter_open(true, -1);
    EXPECT(it != NULL);
    unsigned long seen[MAX_CPUS] = {0}, strange = 0, backwards = 0;
    uint64_t last_ts[MAX_CPUS] = {0};
    bool writers_done = false;
    while (it) {
        if (trace_iter_next(it)) {
            unsigned c = it->rec.cpu;
            seen[c]++;
            strange += !tst_is_target_event(&it->rec);
            backwards += it->rec.ts < last_ts[c];
            last_ts[c] = it->rec.ts;
            continue;
        }
        /* Empty: done once the writers were finished before this last look. */
        if (writers_done)
            break;
        writers_done = __atomic_load_n(&tst_writers_left, __ATOMIC_ACQUIRE) == 0;
        if (!writers_done)
            sleep_ns(200 * NSEC_PER_USEC);
    }
    for (unsigned i = 0; i < nwriters; i++)
        kthread_join(racers[i].c.thread);
    EXPECT_EQ(strange, 0);
    EXPECT_EQ(backwards, 0);
    for (unsigned i = 0; i < nwriters; i++) {
        unsigned c = racers[i].cpu;
        struct rb_stats st = tst_stats(c);
        /* Read or overwritten, nothing in between and nothing twice. */
        EXPECT_EQ(seen[c] + (it ? it->lost[c] : 0), calls);
        EXPECT_EQ(st.read, seen[c]);
        EXPECT_EQ(st.overrun, it ? it->lost[c] : 0);
        EXPECT_EQ(st.entries, 0);
        EXPECT(seen[c] > 0);
    }
    trace_iter_close(it);
    tst_restore(&s);
}

SELFTEST(trace_small_buffer_overwrite_accounting)
{
    struct tst_saved s;
    if (!tst_begin(t, &s))
        return;
    unsigned me = this_cpu_id();
    EXPECT_EQ(rb_resize(trace_global.buffer, (int)me, 2 * RB_PAGE_DATA_SIZE), 0);
    const unsigned long calls = 5000;
    tst_call_target(calls);
    trace_set_on(false);
    struct rb_stats st = tst_stats(me);
    EXPECT_EQ(st.entries + st.overrun, calls);
    EXPECT(st.overrun > 0);
    EXPECT(st.entries > 0);
    EXPECT(st.entries <= 2 * RB_PAGE_DATA_SIZE / 16);
    EXPECT_EQ(st.dropped, 0);
    EXPECT_EQ(st.bytes, st.entries * 16);
    unsigned long per_cpu[MAX_CPUS] = {0};
    EXPECT_EQ(tst_read(false, per_cpu, NULL), st.entries);
    EXPECT_EQ(per_cpu[me], st.entries);
    /* trace_pipe reports what was overwritten before the first event it shows. */
    unsigned long lost[MAX_CPUS] = {0};
    EXPECT_EQ(tst_read(true, NULL, lost), st.entries);
    EXPECT_EQ(lost[me], st.overrun);
    tst_restore(&s);
}

SELFTEST(trace_small_buffer_drops_without_overwrite)
{
    struct tst_saved s;
    if (!tst_begin(t, &s))
        return;
    unsigned me = this_cpu_id();
    EXPECT_EQ(rb_resize(trace_global.buffer, (int)me, 2 * RB_PAGE_DATA_SIZE), 0);
    trace_set_option(TRACE_OPT_OVERWRITE, false);
    const unsigned long calls = 5000;
    tst_call_target(calls);
    trace_set_on(false);
    struct rb_stats st = tst_stats(me);
    /* Producer/consumer: the newest events are refused, counted as dropped, and are not
     * part of what was written. */
    EXPECT_EQ(st.entries + st.dropped, calls);
    EXPECT(st.dropped > 0);
    EXPECT(st.entries > 0);
    EXPECT_EQ(st.overrun, 0);
    EXPECT_EQ(tst_read(false, NULL, NULL), st.entries);
    unsigned long lost[MAX_CPUS] = {0};
    EXPECT_EQ(tst_read(true, NULL, lost), st.entries);
    EXPECT_EQ(lost[me], 0);
    tst_restore(&s);
}
