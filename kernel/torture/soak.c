/*
 * `soak SECONDS [SEED]`: everything that changes tracing, at once, under load, then the
 * ring buffer's books. While the work load runs on every CPU with the function tracer on:
 *
 *   ops      a private ftrace op registers and unregisters with random filters, and
 *            set_ftrace_filter changes under the function tracer
 *   graph    a private function-graph client comes and goes, and the profiler toggles
 *   events   set_event, an event filter, a system's enable and an event's triggers
 *            change, among them the preemptirq events, which turn the latency hooks of
 *            every interrupt and preemption site on and off (a tracer switch would clear
 *            the books' buffer: the latency tracers are switched among by the fuzzer and
 *            their own tests)
 *   resize   buffer_size_kb changes (resizes keep events or count them lost)
 *   instance an instance is made, traces sched_switch (with a hist trigger of its own on
 *            it) and functions into its own buffer (with a snapshot taken there), is
 *            checked to hold nothing else, and is removed with its trigger, over and over
 *   readers  one thread consumes trace_pipe_raw pages of every CPU, another trace_pipe
 *
 * Then tracing stops, both readers drain the buffer, and per CPU every event the buffer
 * committed must have been read by one of them or reported lost to them, the buffer's own
 * counts must agree, and ftrace, graph tracing and the load must be healthy. The tracefs
 * writes go through the files, as a user's do. `make soak MINUTES=N` runs it.
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/shell.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/work.h>
#include <lib/printf.h>
#include <lib/random.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "trace_internal.h"

#define SOAK_MAX_SECONDS (24 * 3600)
#define SOAK_TRACEFS "/sys/kernel/tracing/"

struct soak_counts {
    unsigned long events[MAX_CPUS]; /* consumed by this reader */
    unsigned long lost[MAX_CPUS];   /* reported lost to this reader */
};

struct soak {
    volatile bool stop;     /* churners end */
    volatile bool draining; /* readers: tracing is off, read until empty, then end */
    uint64_t seed;
    unsigned long ops_rounds, graph_rounds, event_writes, resizes, write_errors;
    unsigned long instance_rounds, instance_records;
    unsigned long raw_pages, text_lines;
    struct soak_counts raw, text;
    char failure[160];
};

static void soak_fail(struct soak *s, const char *what)
{
    if (!s->failure[0])
        strlcpy(s->failure, what, sizeof(s->failure));
}

/* A tracefs write as `echo TEXT > FILE` does it; the errno, or 0. */
static int soak_write(const char *file, const char *text)
{
    char path[96];
    snprintf(path, sizeof(path), SOAK_TRACEFS "%s", file);
    return pfs_write_path(path, text, 0);
}

static void soak_nap(struct soak *s, uint64_t *rng, unsigned max_ms)
{
    uint64_t ms = 1 + xorshift64(rng) % max_ms;
    sleep_ns(ms * NSEC_PER_MSEC);
}

/* ---- ops: a private op, and the function tracer's filter ---- */

static unsigned long soak_op_hits;

static void soak_count(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                       struct ftrace_regs *fregs)
{
    __atomic_fetch_add(&soak_op_hits, 1, __ATOMIC_RELAXED);
}

static const char *const soak_globs[] = {"work_*",   "k*alloc", "*lock*", "sched*",     "kfree",
                                         "thread_*", "*wake*",  "pfs_*",  "glob_match", "*"};

static int soak_ops_main(void *arg)
{
    struct soak *s = arg;
    uint64_t rng = s->seed ^ 0x1111;
    static struct ftrace_ops op = {.func = soak_count};
    while (!READ_ONCE(s->stop)) {
        const char *glob = soak_globs[xorshift64(&rng) % ARRAY_SIZE(soak_globs)];
        struct ftrace_hash *h = ftrace_hash_alloc();
        if (h && ftrace_hash_apply_glob(h, glob) >= 0 && ftrace_ops_set_hashes(&op, h, NULL) == 0) {
            h = NULL; /* the op owns it now */
            if (register_ftrace_function(&op) == 0) {
                soak_nap(s, &rng, 20);
                if (unregister_ftrace_function(&op) != 0)
                    soak_fail(s, "the private op did not unregister");
            }
        }
        ftrace_hash_free(h);
        const char *filter = soak_globs[xorshift64(&rng) % (ARRAY_SIZE(soak_globs) - 1)];
        s->write_errors += soak_write("set_ftrace_filter", filter) != 0;
        s->ops_rounds++;
        soak_nap(s, &rng, 30);
    }
    ftrace_ops_set_hashes(&op, NULL, NULL);
    return 0;
}

/* ---- graph: a private fgraph client and the profiler ---- */

static unsigned long soak_graph_entries, soak_graph_returns;

static bool soak_graph_entry(struct fgraph_frame *f, const struct fgraph_thread *g,
                             struct fgraph_ops *gops)
{
    __atomic_fetch_add(&soak_graph_entries, 1, __ATOMIC_RELAXED);
    return true;
}

static void soak_graph_return(const struct fgraph_frame *f, struct fgraph_ret *ret,
                              struct fgraph_ops *gops)
{
    __atomic_fetch_add(&soak_graph_returns, 1, __ATOMIC_RELAXED);
}

/* A graph client lives as long as the kernel (returns may still come after it leaves). */
static struct fgraph_ops soak_gops = {.entryfunc = soak_graph_entry, .retfunc = soak_graph_return};

static int soak_graph_main(void *arg)
{
    struct soak *s = arg;
    uint64_t rng = s->seed ^ 0x2222;
    while (!READ_ONCE(s->stop)) {
        bool profile = xorshift64(&rng) & 1;
        if (profile)
            trace_profile_set(true);
        if (register_ftrace_graph(&soak_gops) == 0) {
            soak_nap(s, &rng, 25);
            unregister_ftrace_graph(&soak_gops);
        }
        if (profile)
            trace_profile_set(false);
        s->graph_rounds++;
        soak_nap(s, &rng, 25);
    }
    return 0;
}

/* ---- events ---- */

static const char *const soak_set_events[] = {"sched:sched_switch",
                                              "sched:*",
                                              "irq_vectors:*",
                                              "sched:sched_waking",
                                              "",
                                              "*:*",
                                              "preemptirq:*",
                                              "preemptirq:irq_disable preemptirq:preempt_enable"};
static const char *const soak_filters[] = {"prev_pid == 0", "next_comm ~ \"work*\"",
                                           "prev_pid != 1 && next_pid < 100", "0", "1"};

/*
 * Triggers on an event every CPU writes. None turns tracing on or off (traceoff:0 never
 * fires): the books at the end need every CPU recording until tracing stops, and nothing
 * recording after. The events thread takes them all away again before it returns.
 */
#define SOAK_TRIGGER_FILE "events/sched/sched_waking/trigger"
static const char *const soak_triggers[] = {
    "stacktrace:5 if pid != 0",
    "!stacktrace",
    "enable_event:sched:sched_wakeup_new",
    "traceoff:0 if cpu == 0",
    "!traceoff",
    "!enable_event:sched:sched_wakeup_new",
    "snapshot:0",
    "!snapshot",
    "disable_event:irq_vectors:local_timer_entry",
    "!disable_event:irq_vectors:local_timer_entry",
    /* Hist triggers: each write here opens with `>`, which takes them all out again. */
    "hist:keys=pid,common_cpu:vals=prio",
    "hist:keys=stacktrace:size=128",
    "hist:keys=comm:vals=pid:sort=hitcount.descending if pid > 1",
    "disable_hist:sched:sched_waking:3",
    "!hist:keys=stacktrace",
};

static void soak_triggers_remove(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(soak_triggers); i++)
        if (soak_triggers[i][0] == '!')
            soak_write(SOAK_TRIGGER_FILE, soak_triggers[i]);
}

static int soak_events_main(void *arg)
{
    struct soak *s = arg;
    uint64_t rng = s->seed ^ 0x3333;
    while (!READ_ONCE(s->stop)) {
        switch (xorshift64(&rng) % 6) {
        case 0:
            s->write_errors +=
                soak_write("set_event",
                           soak_set_events[xorshift64(&rng) % ARRAY_SIZE(soak_set_events)]) != 0;
            break;
        case 1:
            s->write_errors +=
                soak_write("events/sched/sched_switch/filter",
                           soak_filters[xorshift64(&rng) % ARRAY_SIZE(soak_filters)]) != 0;
            break;
        case 2:
            s->write_errors +=
                soak_write(SOAK_TRIGGER_FILE,
                           soak_triggers[xorshift64(&rng) % ARRAY_SIZE(soak_triggers)]) != 0;
            break;
        case 3:
            /* The latency hooks at every interrupt and preemption site go on and off. */
            s->write_errors +=
                soak_write("events/preemptirq/enable", xorshift64(&rng) & 1 ? "1" : "0") != 0;
            break;
        case 4:
            s->write_errors += soak_write("events/preemptirq/preempt_disable/enable",
                                          xorshift64(&rng) & 1 ? "1" : "0") != 0;
            break;
        default:
            s->write_errors +=
                soak_write("events/irq_vectors/enable", xorshift64(&rng) & 1 ? "1" : "0") != 0;
        }
        s->event_writes++;
        soak_nap(s, &rng, 20);
    }
    soak_triggers_remove();
    return 0;
}

/* ---- resizes ---- */

static int soak_resize_main(void *arg)
{
    struct soak *s = arg;
    uint64_t rng = s->seed ^ 0x4444;
    static const char *const sizes[] = {"8", "16", "64", "300", "1408", "700"};
    while (!READ_ONCE(s->stop)) {
        int err = soak_write("buffer_size_kb", sizes[xorshift64(&rng) % ARRAY_SIZE(sizes)]);
        if (err && err != -ENOMEM)
            soak_fail(s, "a resize failed other than for memory");
        s->resizes++;
        soak_nap(s, &rng, 100);
    }
    return 0;
}

/* ---- instances ---- */

#define SOAK_INSTANCE SOAK_TRACEFS "instances/soak"

static struct trace_array *soak_instance(void)
{
    for (unsigned slot = 0; slot < TRACE_INSTANCES_MAX; slot++) {
        struct trace_array *tr = READ_ONCE(trace_instances[slot]);
        if (tr && strcmp(tr->name, "soak") == 0)
            return tr;
    }
    return NULL;
}

/* What the instance holds: only its own sched_switch and function records (and the
 * markers written to it); false on anything else. Counts what it read. */
static bool soak_instance_clean(struct soak *s, struct trace_array *tr, unsigned switch_id)
{
    struct trace_iter *it = trace_array_iter_open(tr, false, -1);
    if (!it)
        return true; /* no memory to look: nothing learnt */
    bool clean = true;
    while (trace_iter_next(it)) {
        const void *rec = it->rec.data;
        unsigned type = trace_ctx_type(*(const uint32_t *)rec);
        bool own = type == TRACE_FN || type == TRACE_PRINT ||
                   (type == TRACE_EVENT_FULL && *(const uint16_t *)rec == switch_id);
        clean &= own;
        s->instance_records++;
    }
    trace_iter_close(it);
    return clean;
}

static int soak_instance_main(void *arg)
{
    struct soak *s = arg;
    uint64_t rng = s->seed ^ 0x5555;
    const struct trace_event_call *sw = trace_event_find("sched", "sched_switch");
    while (!READ_ONCE(s->stop) && sw) {
        int err = pfs_user_mkdir(NULL, SOAK_INSTANCE);
        if (err) {
            if (err != -ENOMEM)
                soak_fail(s, "an instance mkdir failed other than for memory");
            soak_nap(s, &rng, 20);
            continue;
        }
        s->write_errors += soak_write("instances/soak/set_event", "sched:sched_switch") != 0;
        s->write_errors += soak_write("instances/soak/events/sched/sched_switch/trigger",
                                      "hist:keys=next_pid:vals=prev_prio") != 0;
        s->write_errors += soak_write("instances/soak/set_ftrace_filter", "work_*") != 0;
        s->write_errors += soak_write("instances/soak/current_tracer", "function") != 0;
        s->write_errors += soak_write("instances/soak/trace_marker", "soak") != 0;
        soak_nap(s, &rng, 30);
        if (xorshift64(&rng) & 1)
            s->write_errors += soak_write("instances/soak/snapshot", "1") != 0;
        s->write_errors += soak_write("instances/soak/tracing_on", "0") != 0;
        struct trace_array *tr = soak_instance();
        if (tr && !soak_instance_clean(s, tr, sw->state->id))
            soak_fail(s, "an instance holds a record it did not ask for");
        err = pfs_user_rmdir(NULL, SOAK_INSTANCE);
        if (err)
            soak_fail(s, "an instance rmdir failed");
        s->instance_rounds++;
        soak_nap(s, &rng, 20);
    }
    return 0;
}

/* ---- readers ---- */

static int soak_raw_main(void *arg)
{
    struct soak *s = arg;
    uint8_t *page = kmalloc(PAGE_SIZE);
    struct pfs_file *files[MAX_CPUS] = {0};
    char path[64];
    if (!page) {
        soak_fail(s, "no memory for the raw reader");
        return 0;
    }
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online)
            continue;
        snprintf(path, sizeof(path), SOAK_TRACEFS "per_cpu/cpu%u/trace_pipe_raw", c);
        if (pfs_open(NULL, path, PFS_READ | PFS_NONBLOCK, &files[c]))
            soak_fail(s, "cannot open trace_pipe_raw");
    }
    for (;;) {
        bool draining = READ_ONCE(s->draining), any = false;
        for (unsigned c = 0; c < MAX_CPUS; c++) {
            if (!files[c])
                continue;
            ssize_t n;
            while ((n = pfs_read(files[c], (char *)page, PAGE_SIZE)) == PAGE_SIZE) {
                unsigned long lost;
                s->raw.events[c] += rb_page_events(page, &lost);
                s->raw.lost[c] += lost;
                s->raw_pages++;
                any = true;
                if (!draining)
                    break;
            }
            if (n >= 0 && n != PAGE_SIZE && n != 0)
                soak_fail(s, "trace_pipe_raw returned part of a page");
        }
        if (draining && !any)
            break;
        if (!any)
            sleep_ns(2 * NSEC_PER_MSEC);
    }
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (files[c])
            pfs_close(files[c]);
    kfree(page);
    return 0;
}

/* Reads decimal digits at *p; false if there are none. */
static bool soak_number(const char **p, unsigned long *out)
{
    if (**p < '0' || **p > '9')
        return false;
    unsigned long v = 0;
    while (**p >= '0' && **p <= '9')
        v = v * 10 + (unsigned long)(*(*p)++ - '0');
    *out = v;
    return true;
}

/* trace_pipe's report of events lost on a CPU: "CPU:N [LOST M EVENTS]". */
static bool soak_lost_line(const char *line, unsigned *cpu, unsigned long *lost)
{
    unsigned long c;
    if (strncmp(line, "CPU:", 4) != 0)
        return false;
    line += 4;
    if (!soak_number(&line, &c) || strncmp(line, " [LOST ", 7) != 0)
        return false;
    line += 7;
    if (!soak_number(&line, lost) || strcmp(line, " EVENTS]") != 0)
        return false;
    *cpu = (unsigned)c;
    return true;
}

/* A lost-events line, or an event line, counted by its "[NNN]" CPU column. */
static void soak_text_line(struct soak *s, const char *line)
{
    unsigned cpu;
    unsigned long lost;
    if (soak_lost_line(line, &cpu, &lost)) {
        if (cpu < MAX_CPUS)
            s->text.lost[cpu] += lost;
        return;
    }
    /* The frames of a <stack trace> event (the stacktrace trigger): its first line counted. */
    if (strncmp(line, " => ", 4) == 0)
        return;
    const char *p = line;
    while ((p = strchr(p, '['))) {
        if (p[1] >= '0' && p[1] <= '9' && p[2] >= '0' && p[2] <= '9' && p[3] >= '0' &&
            p[3] <= '9' && p[4] == ']') {
            cpu = (unsigned)((p[1] - '0') * 100 + (p[2] - '0') * 10 + (p[3] - '0'));
            if (cpu < MAX_CPUS) {
                s->text.events[cpu]++;
                s->text_lines++;
                return;
            }
        }
        p++;
    }
    soak_fail(s, "a trace_pipe line without a CPU column");
}

static int soak_text_main(void *arg)
{
    struct soak *s = arg;
    char *buf = kmalloc(PAGE_SIZE);
    char line[512];
    size_t len = 0;
    struct pfs_file *f;
    if (!buf || pfs_open(NULL, SOAK_TRACEFS "trace_pipe", PFS_READ | PFS_NONBLOCK, &f)) {
        soak_fail(s, "cannot read trace_pipe");
        kfree(buf);
        return 0;
    }
    for (;;) {
        bool draining = READ_ONCE(s->draining);
        ssize_t n = pfs_read(f, buf, PAGE_SIZE);
        if (n == -EAGAIN || n == 0) {
            if (draining)
                break;
            sleep_ns(3 * NSEC_PER_MSEC);
            continue;
        }
        if (n < 0) {
            soak_fail(s, "trace_pipe read failed");
            break;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n') {
                if (len < sizeof(line) - 1)
                    line[len++] = buf[i];
                continue;
            }
            line[len] = '\0';
            soak_text_line(s, line);
            len = 0;
        }
    }
    pfs_close(f);
    kfree(buf);
    return 0;
}

/* ---- the command ---- */

static struct thread *soak_start(struct soak *s, int (*fn)(void *), const char *name, unsigned nth)
{
    unsigned ncpus = 0, cpus[MAX_CPUS];
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (cpu_data(c)->online)
            cpus[ncpus++] = c;
    struct thread *t = kthread_create(fn, s, name, cpus[nth % ncpus]);
    if (!t)
        soak_fail(s, "cannot create a soak thread");
    return t;
}

static void soak_join(struct thread *t)
{
    if (t)
        kthread_join(t);
}

static bool soak_books(struct shell_ctx *ctx, struct soak *s, unsigned long *written_total)
{
    bool ok = true;
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online)
            continue;
        struct rb_stats st;
        rb_get_stats(trace_global.buffer, c, &st);
        unsigned long read = s->raw.events[c] + s->text.events[c];
        unsigned long lost = s->raw.lost[c] + s->text.lost[c];
        bool cpu_ok =
            st.entries == 0 && st.read == read && st.overrun == lost && st.written == read + lost;
        shell_printf(ctx,
                     "soak: cpu %u: written %lu = read %lu (pages %lu, lines %lu) + lost %lu "
                     "(overrun %lu, commit overrun %lu): %s\n",
                     c, st.written, read, s->raw.events[c], s->text.events[c], lost, st.overrun,
                     st.commit_overrun, cpu_ok ? "ok" : "MISMATCH");
        *written_total += st.written;
        ok &= cpu_ok;
    }
    return ok;
}

SHELL_COMMAND(soak, "soak SECONDS [SEED]",
              "change tracing every way at once under load, then check the buffer's books")
{
    unsigned long secs, seed = 1;
    if (argc < 2 || argc > 3 || kstrtoul(argv[1], 10, &secs) || secs == 0 ||
        secs > SOAK_MAX_SECONDS || (argc == 3 && kstrtoul(argv[2], 0, &seed)))
        return shell_usage(ctx);
    static struct soak s;
    memset(&s, 0, sizeof(s));
    s.seed = seed ? seed : 1;

    soak_write("tracing_on", "0");
    soak_write("current_tracer", "function");
    soak_write("trace", "");
    soak_write("tracing_on", "1");
    struct work_run *work = work_start(secs * 1000, 1);
    if (!work) {
        shell_eprintf(ctx, "soak: %s\n", strerror(ENOMEM));
        return 1;
    }
    if (work_failed_thread(work))
        soak_fail(&s, "cannot create every work thread");
    struct thread *churn[5] = {
        soak_start(&s, soak_ops_main, "soak/ops", 0),
        soak_start(&s, soak_graph_main, "soak/graph", 1),
        soak_start(&s, soak_events_main, "soak/events", 2),
        soak_start(&s, soak_resize_main, "soak/resize", 3),
        soak_start(&s, soak_instance_main, "soak/instance", 6),
    };
    struct thread *readers[2] = {
        soak_start(&s, soak_raw_main, "soak/raw", 4),
        soak_start(&s, soak_text_main, "soak/text", 5),
    };
    uint64_t end = clock_ns() + secs * NSEC_PER_SEC;
    bool interrupted = false;
    while (clock_ns() < end && !interrupted)
        interrupted = sleep_ns_interruptible(100 * NSEC_PER_MSEC) == -EINTR;

    WRITE_ONCE(s.stop, true);
    for (int i = 0; i < 5; i++)
        soak_join(churn[i]);
    if (interrupted)
        work_stop(work);
    struct work_summary sum;
    work_finish(work, &sum);
    soak_write("tracing_on", "0");
    WRITE_ONCE(s.draining, true);
    for (int i = 0; i < 2; i++)
        soak_join(readers[i]);

    unsigned long written = 0;
    bool books = soak_books(ctx, &s, &written);
    bool ok = books && !s.failure[0] && sum.books_ok && !ftrace_is_dead() && !fgraph_is_dead();
    shell_printf(ctx,
                 "soak: %lu s: %lu events written, all read or counted lost: %s; ops %lu "
                 "rounds (%lu op hits), graph %lu rounds (%lu entries, %lu returns), %lu "
                 "event writes, %lu resizes, %lu instances (%lu records checked), %lu refused "
                 "writes, %lu pages, %lu lines; work %s: %s%s%s\n",
                 secs, written, books ? "yes" : "NO", s.ops_rounds, soak_op_hits, s.graph_rounds,
                 soak_graph_entries, soak_graph_returns, s.event_writes, s.resizes,
                 s.instance_rounds, s.instance_records, s.write_errors, s.raw_pages, s.text_lines,
                 sum.books_ok ? "ok" : "FAILED", ok ? "ok" : "FAILED", s.failure[0] ? ": " : "",
                 s.failure);

    soak_write("current_tracer", "nop");
    soak_write("set_ftrace_filter", "");
    soak_write("set_event", "");
    soak_write("events/sched/sched_switch/filter", "0");
    soak_write("buffer_size_kb", "1408");
    soak_write("tracing_on", "1");
    if (interrupted)
        return 130;
    return ok ? 0 : 1;
}
