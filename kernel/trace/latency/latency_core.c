/*
 * The latency tracers' shared machinery (latency.h): tracing_max_latency, the swap into
 * the max buffer, the events they write, starting and stopping, and Linux's latency
 * output (the header of print_trace_header and the lines of trace_print_lat_context).
 */
#include <arch/cpu.h>
#include <arch/unwind.h>
#include <kernel/errno.h>
#include <kernel/init.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>
#include <lib/string.h>

#include "latency.h"
#include "trace_graph_record.h"

volatile uint64_t latency_max_ns;
struct latency_max latency_max_data;
unsigned long latency_swaps_missed;

/* Open readers of a latency tracer's `trace`: while any reads, no maximum is recorded. */
static volatile int latency_readers;

void latency_readers_add(int delta)
{
    __atomic_add_fetch(&latency_readers, delta, __ATOMIC_SEQ_CST);
}

bool latency_report(uint64_t delta_ns)
{
    /* As Linux stops tracing while `trace` is open: the reader's own sections and any
     * other would replace the maximum it is reading, half swapped. */
    if (READ_ONCE(latency_readers))
        return false;
    uint64_t thresh = tracing_thresh_ns();
    if (thresh)
        return delta_ns >= thresh;
    return delta_ns > latency_max_ns;
}

void latency_update_max(uint64_t delta_ns, uint64_t start_ts, struct thread *task,
                        unsigned long critical_start, unsigned long critical_end, bool all_cpus)
{
    struct latency_max *m = &latency_max_data;
    latency_max_ns = delta_ns;
    m->latency_ns = delta_ns;
    m->time_start = start_ts;
    m->cpu = this_cpu_id();
    m->pid = task ? task->pid : 0;
    if (task && task->is_idle)
        strlcpy(m->comm, "<idle>", sizeof(m->comm));
    else
        strlcpy(m->comm, task ? task->name : "", sizeof(m->comm));
    m->policy = task ? task->policy : 0;
    m->rt_priority = task ? task->rt_priority : 0;
    m->critical_start = critical_start;
    m->critical_end = critical_end;
    if (all_cpus) {
        /* This CPU at once, the others from a cross-CPU call (trace_snapshot.c). */
        if (tracing_snapshot(&trace_global) != 0)
            __atomic_fetch_add(&latency_swaps_missed, 1, __ATOMIC_RELAXED);
        return;
    }
    unsigned long flags = arch_irq_save();
    struct ring_buffer *spare = READ_ONCE(trace_global.snapshot);
    /* A control operation on the snapshot (resize, clock, clear) keeps swaps out. */
    if (!spare || READ_ONCE(trace_global.snapshot_hold) ||
        rb_swap_this_cpu(trace_global.buffer, spare) != 0)
        __atomic_fetch_add(&latency_swaps_missed, 1, __ATOMIC_RELAXED);
    arch_irq_restore(flags);
}

/* A graph entry at depth 0 and its return, of no duration: the section's start or end. */
static uint64_t latency_trace_graph_pair(struct percpu *cpu, unsigned long ip,
                                         unsigned extra_preempt)
{
    struct rb_reservation res;
    struct trace_graph_ent_event *ent = rb_reserve(trace_global.buffer, sizeof(*ent), &res);
    if (!ent)
        return 0;
    ent->ctx = trace_ctx_on(cpu, TRACE_GRAPH_ENT, extra_preempt);
    ent->func = trace_addr_pack(ip);
    ent->depth = 0;
    rb_commit(trace_global.buffer, &res);
    uint64_t ts = res.ts;
    struct trace_graph_ret_event *ret = rb_reserve(trace_global.buffer, sizeof(*ret), &res);
    if (ret) {
        memset(ret, 0, sizeof(*ret));
        ret->ctx = trace_ctx_on(cpu, TRACE_GRAPH_RET, extra_preempt);
        ret->func = trace_addr_pack(ip);
        rb_commit(trace_global.buffer, &res);
    }
    return ts;
}

uint64_t latency_trace_function(unsigned long ip, unsigned long parent_ip, unsigned extra_preempt)
{
    struct percpu *cpu = this_cpu();
    if (!trace_should_record_on(cpu))
        return 0;
    if (trace_opt(TRACE_OPT_DISPLAY_GRAPH))
        return latency_trace_graph_pair(cpu, ip, extra_preempt);
    struct rb_reservation res;
    struct trace_fn_event *ev = rb_reserve(trace_global.buffer, sizeof(*ev), &res);
    if (!ev)
        return 0;
    ev->ctx = trace_ctx_on(cpu, TRACE_FN, extra_preempt);
    ev->ip = trace_addr_pack(ip);
    ev->parent_ip = trace_addr_pack(parent_ip);
    rb_commit(trace_global.buffer, &res);
    return res.ts;
}

/* Whether return address ret lies in the same function as ip. */
static bool same_function(unsigned long ret, unsigned long ip)
{
    uintptr_t a, b;
    size_t size;
    return sym_lookup(ret - 1, &a, &size) && sym_lookup(ip, &b, &size) && a == b;
}

static bool is_probe_frame(unsigned long ret)
{
    uintptr_t start;
    size_t size;
    const char *name = sym_lookup(ret - 1, &start, &size);
    return name && (strncmp(name, "trace_sched_", 12) == 0 || strncmp(name, "latency_", 8) == 0);
}

/*
 * The stack of the code that ended the section: site is an address in the function that
 * turned interrupts or preemption back on; the frames from there up are its callers. With
 * site 0, the stack of a hook's caller (the wakeup tracers' hooks, from the scheduler).
 */
void latency_trace_stack(unsigned long site, unsigned extra_preempt)
{
    struct percpu *cpu = this_cpu();
    if (!trace_should_record_on(cpu))
        return;
    uint32_t calls[TRACE_STACK_MAX];
    unsigned nr = 0;
    struct unwind_state st;
    unwind_start(&st, cpu->current, arch_frame_pointer(), 0, 0);
    bool found = false;
    if (site) {
        /* Past the tracer's own frames: up to the return into the site's function. */
        calls[nr++] = trace_addr_pack(site);
        for (unsigned i = 0; i < 12 && unwind_next(&st); i++)
            if (same_function(st.ret, site)) {
                found = true;
                break;
            }
    } else {
        /* A hook's caller: past the hook and this file's frames (a call may have been a
         * tail call, so they are told by name, not counted). */
        while ((found = unwind_next(&st)) && is_probe_frame(st.ret))
            ;
        if (found && nr < TRACE_STACK_MAX)
            calls[nr++] = trace_addr_pack(st.ret);
    }
    while (found && nr < TRACE_STACK_MAX && unwind_next(&st))
        calls[nr++] = trace_addr_pack(st.ret);
    struct rb_reservation res;
    struct trace_stack_event *ev = rb_reserve(trace_global.buffer, 8 + nr * 4, &res);
    if (!ev)
        return;
    ev->ctx = trace_ctx_on(cpu, TRACE_STACK, extra_preempt);
    ev->nr = nr;
    memcpy(ev->calls, calls, nr * 4);
    rb_commit(trace_global.buffer, &res);
}

/* ---- starting and stopping ---- */

static bool saved_latency_format;
static bool function_trace_registered; /* the function op, or the graph client */
static volatile bool function_trace_as_graph;
static bool (*volatile latency_in_section)(void);

/* Whether this CPU is in a section of the running tracer (none: false). */
static bool in_section(void)
{
    bool (*f)(void) = READ_ONCE(latency_in_section);
    return f && f();
}

/* options/function-trace without display-graph: each function as a function event. */
static void latency_function_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                                  struct ftrace_regs *fregs)
{
    if (in_section())
        latency_trace_function(ip, parent_ip, 1);
}

/* With display-graph: entries and returns, as the function_graph tracer writes them. */
static bool latency_graph_entry(struct fgraph_frame *f, const struct fgraph_thread *g,
                                struct fgraph_ops *gops)
{
    struct percpu *cpu = this_cpu();
    if ((f->flags & FGRAPH_FRAME_OVERFLOW) || !in_section() || !trace_should_record_on(cpu))
        return false;
    struct rb_reservation res;
    struct trace_graph_ent_event *ev = rb_reserve_on(cpu->trace_buffer, sizeof(*ev), &res);
    if (!ev)
        return false;
    ev->ctx = trace_ctx_on(cpu, TRACE_GRAPH_ENT, GRAPH_EXTRA_PREEMPT);
    ev->func = trace_text_pack(f->func);
    ev->depth = f->depth | (f->flags & FGRAPH_FRAME_IRQ_ENTRY) << 13;
    rb_commit_inline(&res);
    f->calltime = res.ts;
    return true;
}

static void latency_graph_return(const struct fgraph_frame *f, struct fgraph_ret *ret,
                                 struct fgraph_ops *gops)
{
    /* As Linux: a return after the section ended is not recorded; nor one of a call
     * entered before the client was unregistered (display-graph turned off). */
    if (!READ_ONCE(function_trace_as_graph) || !in_section())
        return;
    ret->rettime = graph_write_return(this_cpu(), f, ret->rettime, ret->overrun, ret->retval,
                                      sizeof(struct trace_graph_ret_event));
}

static struct fgraph_ops latency_graph_ops = {.entryfunc = latency_graph_entry,
                                              .retfunc = latency_graph_return};

static int latency_register_functions(void)
{
    if (function_trace_registered || !latency_in_section)
        return 0;
    bool graph = trace_opt(TRACE_OPT_DISPLAY_GRAPH);
    int err;
    if (graph) {
        err = register_ftrace_graph(&latency_graph_ops);
    } else {
        ftrace_global_ops->func = latency_function_call;
        ftrace_global_ops->handler = NULL;
        err = register_ftrace_function(ftrace_global_ops);
    }
    if (!err) {
        function_trace_registered = true;
        function_trace_as_graph = graph;
    }
    return err;
}

static void latency_unregister_functions(void)
{
    if (!function_trace_registered)
        return;
    if (function_trace_as_graph)
        unregister_ftrace_graph(&latency_graph_ops);
    else
        unregister_ftrace_function(ftrace_global_ops);
    function_trace_registered = false;
    WRITE_ONCE(function_trace_as_graph, false);
}

int latency_tracer_start(bool (*in_section)(void))
{
    /* trace_set_tracer allocated and cleared the max buffer before its lock. */
    if (!tracing_snapshot_allocated(&trace_global))
        return -ENOMEM;
    latency_max_ns = 0;
    memset(&latency_max_data, 0, sizeof(latency_max_data));
    saved_latency_format = trace_opt(TRACE_OPT_LATENCY_FORMAT);
    trace_set_option(TRACE_OPT_LATENCY_FORMAT, true);
    latency_in_section = in_section;
    if (trace_opt(TRACE_OPT_FUNCTION_TRACE)) {
        int err = latency_register_functions();
        if (err) {
            latency_in_section = NULL;
            trace_set_option(TRACE_OPT_LATENCY_FORMAT, saved_latency_format);
            return err;
        }
    }
    return 0;
}

void latency_tracer_stop(void)
{
    latency_unregister_functions();
    latency_in_section = NULL;
    trace_set_option(TRACE_OPT_LATENCY_FORMAT, saved_latency_format);
}

void latency_option_changed(unsigned opt, bool on)
{
    if (opt == TRACE_OPT_COUNT) {
        /* Once current (trace_set_tracer): an option set while the tracer started may have
         * been missed; the recording is made to match them all again. */
        latency_unregister_functions();
        if (trace_opt(TRACE_OPT_FUNCTION_TRACE))
            latency_register_functions();
    } else if (opt == TRACE_OPT_FUNCTION_TRACE) {
        if (on)
            latency_register_functions();
        else
            latency_unregister_functions();
    } else if (opt == TRACE_OPT_DISPLAY_GRAPH) {
        /* As Linux's irqsoff_display_graph: the other recording, from a clean slate. */
        bool was = function_trace_registered;
        latency_unregister_functions();
        WRITE_ONCE(latency_max_ns, 0); /* sections ending from now on start afresh */
        trace_clear(-1);
        if (was || trace_opt(TRACE_OPT_FUNCTION_TRACE))
            latency_register_functions();
    }
}

bool latency_print_line(struct trace_iter *it, struct seqbuf *s, unsigned graph_cols)
{
    return trace_print_opt(TRACE_OPT_DISPLAY_GRAPH) && trace_graph_print_line(it, s, graph_cols);
}

void latency_print_header_cols(struct trace_iter *it, struct seqbuf *s, unsigned graph_cols)
{
    if (trace_print_opt(TRACE_OPT_DISPLAY_GRAPH))
        trace_graph_print_header(it, s, graph_cols);
    else
        trace_latency_header(it, s);
}

/* ---- tracing_max_latency ---- */

/*
 * Every trace array has the file, as on Linux; the latency tracers run at the top level
 * only, so an instance's value is only what was written to it.
 */
static volatile uint64_t *max_latency_of(void *data)
{
    struct trace_array *tr = ((struct trace_file_ref *)data)->tr;
    return tr == &trace_global ? &latency_max_ns : &tr->max_latency_ns;
}

static int show_max_latency(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%llu\n", (unsigned long long)(*max_latency_of(data) / 1000));
}

static ssize_t store_max_latency(void *data, const char *buf, size_t len)
{
    unsigned long usecs;
    int err = tracefs_parse_ulong(buf, len, &usecs);
    if (err)
        return err;
    if (usecs > UINT64_MAX / 1000)
        return -EINVAL;
    *max_latency_of(data) = (uint64_t)usecs * 1000;
    return len;
}

TRACEFS_FILE(tracing_max_latency, .path = "tracing_max_latency", .mode = 0644,
             .show = show_max_latency, .store = store_max_latency, .instance = true);

/* ---- output ---- */

static unsigned online_cpus(void)
{
    unsigned n = 0;
    for (unsigned c = 0; c < MAX_CPUS; c++)
        n += cpu_data(c)->online;
    return n;
}

/*
 * Linux's get_total_entries over the buffer a latency trace reads: a CPU with entries
 * older than the section (skipped) counts only the rest, in both numbers; the others
 * count their overrun in the total too.
 */
static void latency_count(struct ring_buffer *rb, int cpu_only, uint64_t time_start,
                          unsigned long *entries, unsigned long *total)
{
    *entries = *total = 0;
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online || (cpu_only >= 0 && (int)c != cpu_only))
            continue;
        struct rb_stats st;
        rb_get_stats(rb, c, &st);
        unsigned long skipped = 0;
        if (time_start) {
            struct rb_iter *it = rb_iter_start(rb, c);
            struct rb_record *rec = it ? kmalloc(sizeof(*rec)) : NULL;
            while (rec && rb_iter_peek(it, rec) && rec->ts < time_start) {
                skipped++;
                rb_iter_next(it);
            }
            kfree(rec);
            if (it)
                rb_iter_finish(it);
        }
        unsigned long count = st.entries - MIN(skipped, st.entries);
        *entries += count;
        *total += skipped ? count : count + st.overrun;
    }
}

uint64_t latency_max_time_start(void) { return latency_max_data.time_start; }

bool trace_latency_banner(struct trace_iter *it, struct seqbuf *s)
{
    static const struct latency_max none;
    const struct tracer *t = trace_global.current;
    const struct latency_max *m = t && t->use_max_tr ? &latency_max_data : &none;
    unsigned long entries, total;
    latency_count(it->buffer, it->cpu_only, it->skip_before, &entries, &total);
    /* As Linux: nothing but the tracer's name while there is nothing to show. */
    if (!entries)
        return false;
    seq_printf(s, "# %s latency trace v1.1.5 on %s\n", t ? t->name : "nop", FENTROS_VERSION);
    seq_puts(s, "# --------------------------------------------------------------------\n");
    seq_printf(s,
               "# latency: %llu us, #%lu/%lu, CPU#%u | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:%u)\n",
               (unsigned long long)(m->latency_ns / 1000), entries, total, m->cpu, online_cpus());
    seq_puts(s, "#    -----------------\n");
    seq_printf(s, "#    | task: %.16s-%d (uid:0 nice:0 policy:%d rt_prio:%d)\n", m->comm, m->pid,
               m->policy, m->rt_priority);
    seq_puts(s, "#    -----------------\n");
    if (m->critical_start) {
        bool off = trace_print_opt(TRACE_OPT_SYM_OFFSET),
             addr = trace_print_opt(TRACE_OPT_SYM_ADDR);
        seq_puts(s, "#  => started at: ");
        trace_print_sym(s, m->critical_start, off, addr);
        seq_puts(s, "\n#  => ended at:   ");
        trace_print_sym(s, m->critical_end, off, addr);
        seq_puts(s, "\n#\n");
    }
    seq_puts(s, "#\n");
    return true;
}

void trace_latency_header(struct trace_iter *it, struct seqbuf *s)
{
    if (!trace_print_opt(TRACE_OPT_CONTEXT_INFO) || !trace_latency_banner(it, s))
        return;
    seq_puts(s, "#                    _------=> CPU#            \n"
                "#                   / _-----=> irqs-off/BH-disabled\n"
                "#                  | / _----=> need-resched    \n"
                "#                  || / _---=> hardirq/softirq \n"
                "#                  ||| / _--=> preempt-depth   \n"
                "#                  |||| / _-=> migrate-disable \n"
                "#                  ||||| /     delay           \n"
                "#  cmd     pid     |||||| time  |   caller     \n"
                "#     \\   /        ||||||  \\    |    /       \n");
}

char latency_mark(uint64_t ns)
{
    static const struct {
        uint64_t ns;
        char sym;
    } marks[] = {{1000000000ULL, '$'}, {100000000ULL, '@'}, {10000000ULL, '*'},
                 {1000000ULL, '#'},    {100000ULL, '!'},    {10000ULL, '+'}};
    for (size_t i = 0; i < ARRAY_SIZE(marks); i++)
        if (ns > marks[i].ns)
            return marks[i].sym;
    return ' ';
}

bool trace_format_latency(struct trace_iter *it, struct seqbuf *s)
{
    const struct rb_record *rec = &it->rec;
    unsigned type = trace_ctx_type(*(const uint32_t *)rec->data);
    if (type != TRACE_FN && type != TRACE_STACK && type != TRACE_PRINT && type != TRACE_CTXWAKE &&
        type != TRACE_HWLAT && type != TRACE_OSNOISE && type != TRACE_TIMERLAT &&
        type != TRACE_EVENT_FULL)
        return false;
    if (trace_print_opt(TRACE_OPT_CONTEXT_INFO)) {
        /* The time to the next entry of any CPU decides the mark. */
        uint64_t next_ts = rec->ts;
        bool have_next = false;
        for (unsigned c = 0; c < MAX_CPUS; c++) {
            const struct rb_record *n = trace_iter_peek_cpu(it, c);
            if (n && (!have_next || n->ts < next_ts)) {
                next_ts = n->ts;
                have_next = true;
            }
        }
        if (!have_next)
            next_ts = rec->ts;
        char comm[THREAD_NAME_LEN];
        int pid = trace_record_pid(rec->data);
        seq_printf(s, "%8.8s-%-7d %3u", trace_comm_of(pid, comm, sizeof(comm)), pid, rec->cpu);
        trace_print_flags(s, *(const uint32_t *)rec->data);
        uint64_t base = it->skip_before ? it->skip_before : it->tr->time_start;
        uint64_t abs_ts = rec->ts > base ? rec->ts - base : 0;
        uint64_t rel_ts = next_ts > rec->ts ? next_ts - rec->ts : 0;
        if (trace_array_clock_is_ns(it->tr))
            seq_printf(s, " %4lluus%c: ", (unsigned long long)(abs_ts / 1000),
                       latency_mark(rel_ts / 1000 * 1000));
        else
            seq_printf(s, " %4llu: ", (unsigned long long)abs_ts);
    }
    return trace_format_body(s, rec);
}
