/*
 * The function_graph tracer: an entry event when a traced function starts and a return
 * event with its duration when it ends, printed as Linux prints them: a call tree per
 * CPU with durations, overhead marks, leaf calls on one line, task-switch separators and
 * interrupt arrows. set_graph_function limits tracing to the listed functions and what
 * they call; set_graph_notrace suspends it inside the listed ones; max_graph_depth and
 * tracing_thresh cut by depth and duration.
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/init.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "fgraph_inline.h"
#include "trace_graph_record.h"
#include "trace_internal.h"

#define GRAPH_INDENT 2
#define GRAPH_PROCINFO_LENGTH 14

struct graph_tracer_state graph_tracer = {.filter_ops = {.tramp_slot = -1}};

/*
 * Settings change under this lock, and entry_general/return_general are computed under it
 * from the settings as they are then: of two writers, the later one's flags hold
 * everything both wrote.
 */
static DEFINE_SPINLOCK(graph_settings_lock);

static void graph_update_general_locked(void)
{
    bool filters = !ftrace_hash_empty(graph_tracer.filter_ops.filter_hash) ||
                   !ftrace_hash_empty(graph_tracer.filter_ops.notrace_hash);
    WRITE_ONCE(graph_tracer.entry_general,
               graph_tracer.max_depth || graph_tracer.thresh_ns || filters);
    WRITE_ONCE(graph_tracer.return_general,
               graph_tracer.thresh_ns || trace_opt(TRACE_OPT_GRAPH_RETVAL));
}

/* After any setting the recording looks at changed: which of its paths must be general. */
static void graph_update_general(void)
{
    spin_lock(&graph_settings_lock);
    graph_update_general_locked();
    spin_unlock(&graph_settings_lock);
}

/* Sets max_graph_depth (max_depth), tracing_thresh (thresh_ns), or both. */
static void graph_set_limits(const unsigned long *max_depth, const uint64_t *thresh_ns)
{
    spin_lock(&graph_settings_lock);
    if (max_depth)
        WRITE_ONCE(graph_tracer.max_depth, *max_depth);
    if (thresh_ns)
        WRITE_ONCE(graph_tracer.thresh_ns, *thresh_ns);
    graph_update_general_locked();
    spin_unlock(&graph_settings_lock);
}

/* ---- recording (trace_graph_record.h), as an fgraph client ---- */

bool graph_tracer_wants_limited(unsigned long ip, const struct fgraph_thread *g, uint8_t *flags,
                                unsigned depth)
{
    if (g->in_notrace)
        return false;
    if (graph_tracer.max_depth && depth >= graph_tracer.max_depth)
        return false;
    struct ftrace_hash *only = READ_ONCE(graph_tracer.filter_ops.filter_hash);
    struct ftrace_hash *never = READ_ONCE(graph_tracer.filter_ops.notrace_hash);
    struct dyn_ftrace *rec = NULL;
    if (!ftrace_hash_empty(only) || !ftrace_hash_empty(never))
        rec = ftrace_rec_lookup(ip);
    if (rec && ftrace_hash_test(never, ftrace_rec_index(rec))) {
        *flags |= FGRAPH_FRAME_NOTRACE;
        return true;
    }
    if (!ftrace_hash_empty(only)) {
        if (rec && ftrace_hash_test(only, ftrace_rec_index(rec)))
            *flags |= FGRAPH_FRAME_ROOT;
        else if (!g->in_filter)
            return false;
    }
    return true;
}

void graph_record_return_general(struct percpu *cpu, const struct fgraph_frame *f,
                                 struct fgraph_ret *ret)
{
    /* tracing_thresh needs the duration before it may write; otherwise the event's own
     * time stamp is the return time. */
    if (graph_tracer.thresh_ns) {
        uint64_t rettime = fgraph_ret_time(ret);
        uint64_t duration = rettime > f->calltime ? rettime - f->calltime : 0;
        if (duration < graph_tracer.thresh_ns)
            return;
    }
    /* With funcgraph-retval the record carries the value too (8 more bytes). The event's
     * time is the return time every later client sees too. */
    if (trace_opt(TRACE_OPT_GRAPH_RETVAL))
        ret->rettime = graph_write_return(cpu, f, ret->rettime, ret->overrun, ret->retval,
                                          sizeof(struct trace_graph_retval_event));
    else
        ret->rettime = graph_write_return(cpu, f, ret->rettime, ret->overrun, ret->retval,
                                          sizeof(struct trace_graph_ret_event));
}

static bool graph_tracer_entry(struct fgraph_frame *f, const struct fgraph_thread *g,
                               struct fgraph_ops *gops)
{
    return graph_record_entry(this_cpu(), f, g);
}

static void graph_tracer_return(const struct fgraph_frame *f, struct fgraph_ret *ret,
                                struct fgraph_ops *gops)
{
    if (f->flags & FGRAPH_FRAME_NOTRACE)
        return;
    /* Another client may have read the return time already: the same time for both. */
    graph_record_return_general(this_cpu(), f, ret);
}

/*
 * While the tracer is the graph core's only client, the common case, its entry and return
 * run inline in handlers of its own (fgraph_inline.h), in the core's frame: one call and
 * one stack frame less on each side of every traced call.
 */
static __always_inline bool graph_tracer_entry_inline(struct percpu *cpu, struct fgraph_frame *f,
                                                      const struct fgraph_thread *g)
{
    f->users = graph_tracer_ops.users_bit;
    return graph_record_entry(cpu, f, g);
}

FTRACE_OP_HANDLER_TEXT static void graph_tracer_op_handler(unsigned long ret_ip,
                                                           unsigned long *parent_slot)
{
    fgraph_op_handler_body(ret_ip, parent_slot, graph_tracer_entry_inline);
}

/* Frames of other clients (return probes, or taken before the tracer was alone) as well. */
static __always_inline void graph_tracer_return_inline(struct percpu *cpu,
                                                       const struct fgraph_frame *f,
                                                       uint32_t overrun, unsigned long retval)
{
    if (likely(f->users == graph_tracer_ops.users_bit))
        graph_record_return(cpu, f, overrun, retval);
    else
        fgraph_clients_return(cpu, f, overrun, retval);
}

static unsigned long graph_tracer_return_handler(unsigned long sp, unsigned long retval)
{
    return fgraph_return_handler_body(sp, retval, graph_tracer_return_inline);
}

struct fgraph_ops graph_tracer_ops = {
    .entryfunc = graph_tracer_entry,
    .retfunc = graph_tracer_return,
    .op_handler = graph_tracer_op_handler,
    .return_handler = graph_tracer_return_handler,
};

static int graph_init(void)
{
    graph_update_general();
    graph_tracer.active = true;
    int err = register_ftrace_graph(&graph_tracer_ops);
    if (err)
        graph_tracer.active = false;
    return err;
}

static void graph_reset(void)
{
    graph_tracer.active = false;
    unregister_ftrace_graph(&graph_tracer_ops);
}

/* ---- output ---- */

#define GRAPH_MAX_DEPTH_SEEN 64

struct graph_cpu_state {
    int last_pid;
    int depth;
    unsigned long enter_funcs[GRAPH_MAX_DEPTH_SEEN];
};

struct graph_print_state {
    struct graph_cpu_state cpu[MAX_CPUS];
};

static struct graph_print_state *print_state(struct trace_iter *it)
{
    if (!it->tracer_state) {
        struct graph_print_state *st = kzalloc(sizeof(*st));
        if (!st)
            return NULL;
        for (unsigned c = 0; c < MAX_CPUS; c++)
            st->cpu[c].last_pid = -1;
        it->tracer_state = st;
    }
    return it->tracer_state;
}

static unsigned cpu_width(void)
{
    unsigned n = 0;
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (cpu_data(c)->online)
            n = c;
    return n >= 10 ? 2 : 1;
}

static char overhead_mark(uint64_t ns)
{
    if (ns > 1000000000ULL)
        return '$';
    if (ns > 100000000ULL)
        return '@';
    if (ns > 10000000ULL)
        return '*';
    if (ns > 1000000ULL)
        return '#';
    if (ns > 100000ULL)
        return '!';
    if (ns > 10000ULL)
        return '+';
    return ' ';
}

/* Linux's trace_print_graph_duration: at most 7 digits around the point, then " us ". */
void trace_graph_print_duration(struct seqbuf *s, uint64_t ns)
{
    char usecs[24], nsecs[8];
    int len = scnprintf(usecs, sizeof(usecs), "%llu", (unsigned long long)(ns / 1000));
    seq_puts(s, usecs);
    if (len < 7) {
        size_t keep = MIN(sizeof(nsecs) - 3, (size_t)(8 - len)); /* chars incl. the NUL */
        char full[8];
        scnprintf(full, sizeof(full), "%03llu", (unsigned long long)(ns % 1000));
        size_t n = MIN(strlen(full), keep - 1);
        memcpy(nsecs, full, n);
        nsecs[n] = '\0';
        seq_printf(s, ".%s", nsecs);
        len += n + 1;
    }
    seq_puts(s, " us ");
    for (int i = len; i < 8; i++)
        seq_putc(s, ' ');
}

enum graph_fill { FILL_NONE, FILL_FULL, FILL_START, FILL_END };

static void print_duration(struct seqbuf *s, uint64_t ns, enum graph_fill fill)
{
    if (!trace_opt(TRACE_OPT_GRAPH_DURATION) || !trace_opt(TRACE_OPT_CONTEXT_INFO))
        return;
    switch (fill) {
    case FILL_FULL:
        seq_puts(s, "              |  ");
        return;
    case FILL_START:
        seq_puts(s, "  ");
        return;
    case FILL_END:
        seq_puts(s, " |");
        return;
    case FILL_NONE:
        break;
    }
    if (trace_opt(TRACE_OPT_GRAPH_OVERHEAD))
        seq_printf(s, "%c ", overhead_mark(ns));
    else
        seq_puts(s, "  ");
    trace_graph_print_duration(s, ns);
    seq_puts(s, "|  ");
}

static void print_proc(struct seqbuf *s, int pid)
{
    char comm[THREAD_NAME_LEN], buf[THREAD_NAME_LEN];
    strlcpy(comm, trace_comm_of(pid, buf, sizeof(buf)), sizeof(comm));
    comm[7] = '\0';
    char pid_str[12];
    int len = (int)strlen(comm) + scnprintf(pid_str, sizeof(pid_str), "%d", pid) + 1;
    int spaces = len < GRAPH_PROCINFO_LENGTH ? GRAPH_PROCINFO_LENGTH - len : 0;
    for (int i = 0; i < spaces / 2; i++)
        seq_putc(s, ' ');
    seq_printf(s, "%s-%s", comm, pid_str);
    for (int i = 0; i < spaces - spaces / 2; i++)
        seq_putc(s, ' ');
}

static void print_cpu(struct seqbuf *s, unsigned cpu) { seq_printf(s, " %*u) ", cpu_width(), cpu); }

/* Truncated to the microsecond, as Linux's print_graph_abs_time (the context column rounds). */
static void print_abstime(struct seqbuf *s, uint64_t ts)
{
    if (trace_clock_is_ns())
        seq_printf(s, "%5llu.%06llu |  ", (unsigned long long)(ts / 1000000000ULL),
                   (unsigned long long)(ts / 1000 % 1000000));
    else
        seq_printf(s, "%12llu |  ", (unsigned long long)ts);
}

/* Columns before the duration: absolute time, CPU, task. */
static void print_columns(struct seqbuf *s, const struct rb_record *rec, int pid)
{
    if (!trace_opt(TRACE_OPT_CONTEXT_INFO))
        return;
    if (trace_opt(TRACE_OPT_GRAPH_ABSTIME))
        print_abstime(s, rec->ts);
    if (trace_opt(TRACE_OPT_GRAPH_CPU))
        print_cpu(s, rec->cpu);
    if (trace_opt(TRACE_OPT_GRAPH_PROC)) {
        print_proc(s, pid);
        seq_puts(s, " | ");
    }
}

/* A separator when the task on a CPU changes (Linux's verif_pid). */
static void check_pid(struct seqbuf *s, struct graph_cpu_state *cs, unsigned cpu, int pid)
{
    if (cs->last_pid == pid)
        return;
    int prev = cs->last_pid;
    cs->last_pid = pid;
    if (prev == -1)
        return;
    seq_puts(s, " ------------------------------------------\n");
    print_cpu(s, cpu);
    print_proc(s, prev);
    seq_puts(s, " => ");
    print_proc(s, pid);
    seq_puts(s, "\n ------------------------------------------\n\n");
}

static void print_irq_arrow(struct seqbuf *s, const struct rb_record *rec, int pid, bool entry)
{
    if (!trace_opt(TRACE_OPT_GRAPH_IRQS))
        return;
    print_columns(s, rec, pid);
    print_duration(s, 0, FILL_START);
    seq_puts(s, entry ? "==========>" : "<==========");
    print_duration(s, 0, FILL_END);
    seq_putc(s, '\n');
}

static void print_indent(struct seqbuf *s, unsigned depth)
{
    for (unsigned i = 0; i < depth * GRAPH_INDENT; i++)
        seq_putc(s, ' ');
}

/*
 * The return value of a record taken with funcgraph-retval, while the option is on; false
 * when there is none to print. print_retval writes it as Linux 6.5 does: after a leaf's
 * "name();" as a comment "= 0x...", and on a close as a comment "name = 0x..."; an error
 * code (-4095..-1, also as a 32-bit int) in decimal unless funcgraph-retval-hex is on.
 */
static bool retval_of(const struct rb_record *rec, unsigned long *out)
{
    if (!trace_opt(TRACE_OPT_GRAPH_RETVAL) || rec->len < sizeof(struct trace_graph_retval_event))
        return false;
    const struct trace_graph_retval_event *rv = (const void *)rec->data;
    *out = (unsigned long)rv->retval_hi << 32 | rv->retval_lo;
    return true;
}

static void print_retval(struct seqbuf *s, unsigned long func, unsigned long retval, bool leaf)
{
    long err = 0;
    if (retval && !trace_opt(TRACE_OPT_GRAPH_RETVAL_HEX)) {
        /* An int's -EINVAL comes back as 0x00000000ffffffea: sign-extend it first. */
        long v = (retval & (1UL << 31)) && !(retval >> 32) ? (long)(int32_t)retval : (long)retval;
        if (v < 0 && v >= -4095)
            err = v;
    }
    if (leaf) {
        trace_print_sym(s, func, false, false);
        seq_puts(s, "();");
    } else {
        seq_puts(s, "} /* ");
        trace_print_sym(s, func, false, false);
    }
    if (err)
        seq_printf(s, leaf ? " /* = %ld */\n" : " = %ld */\n", err);
    else
        seq_printf(s, leaf ? " /* = 0x%lx */\n" : " = 0x%lx */\n", retval);
}

static uint64_t ret_duration(const struct trace_graph_ret_event *r)
{
    return ((uint64_t)r->duration_hi << 32) | r->duration_lo;
}

static void print_overrun(struct seqbuf *s, const struct trace_graph_ret_event *r)
{
    if (trace_opt(TRACE_OPT_GRAPH_OVERRUN))
        seq_printf(s, " (Overruns: %u)\n", (unsigned)r->overrun);
}

static bool print_entry(struct trace_iter *it, struct seqbuf *s, struct graph_print_state *st)
{
    const struct rb_record *rec = &it->rec;
    const struct trace_graph_ent_event *e = (const void *)rec->data;
    int pid = trace_ctx_pid(e->ctx);
    unsigned depth = e->depth & 0xffff;
    struct graph_cpu_state *cs = &st->cpu[rec->cpu];
    check_pid(s, cs, rec->cpu, pid);
    if (e->depth & GRAPH_ENT_IRQ_FLAG)
        print_irq_arrow(s, rec, pid, true);

    /* A leaf: the very next event of this CPU is this call's own return. */
    const struct rb_record *next = trace_iter_peek_cpu(it, rec->cpu);
    if (next && trace_ctx_type(*(const uint32_t *)next->data) == TRACE_GRAPH_RET) {
        const struct trace_graph_ret_event *r = (const void *)next->data;
        if ((int)trace_ctx_pid(r->ctx) == pid && r->func == e->func &&
            (unsigned)(r->depth & 0x7ff) == depth) {
            struct trace_graph_ret_event ret = *r;
            unsigned long retval;
            bool has_retval = retval_of(next, &retval);
            trace_iter_drop_peeked(it, rec->cpu);
            cs->depth = depth > 0 ? depth - 1 : 0;
            if (depth < GRAPH_MAX_DEPTH_SEEN)
                cs->enter_funcs[depth] = 0;
            print_columns(s, rec, pid);
            print_duration(s, ret_duration(&ret), FILL_NONE);
            print_indent(s, depth);
            if (has_retval) {
                print_retval(s, trace_addr_unpack(e->func), retval, true);
            } else {
                trace_print_sym(s, trace_addr_unpack(e->func), false, false);
                seq_puts(s, "();\n");
            }
            print_overrun(s, &ret);
            if (ret.depth & GRAPH_RET_IRQ_FLAG)
                print_irq_arrow(s, rec, pid, false);
            return true;
        }
    }
    cs->depth = depth;
    if (depth < GRAPH_MAX_DEPTH_SEEN)
        cs->enter_funcs[depth] = e->func;
    print_columns(s, rec, pid);
    print_duration(s, 0, FILL_FULL);
    print_indent(s, depth);
    trace_print_sym(s, trace_addr_unpack(e->func), false, false);
    seq_puts(s, "() {\n");
    return true;
}

static bool print_return(struct trace_iter *it, struct seqbuf *s, struct graph_print_state *st)
{
    const struct rb_record *rec = &it->rec;
    const struct trace_graph_ret_event *r = (const void *)rec->data;
    int pid = trace_ctx_pid(r->ctx);
    unsigned depth = r->depth & 0x7ff;
    struct graph_cpu_state *cs = &st->cpu[rec->cpu];
    check_pid(s, cs, rec->cpu, pid);
    bool matched = depth < GRAPH_MAX_DEPTH_SEEN && cs->enter_funcs[depth] == r->func;
    if (depth < GRAPH_MAX_DEPTH_SEEN)
        cs->enter_funcs[depth] = 0;
    cs->depth = depth > 0 ? depth - 1 : 0;
    print_columns(s, rec, pid);
    print_duration(s, ret_duration(r), FILL_NONE);
    print_indent(s, depth);
    unsigned long retval;
    if (retval_of(rec, &retval)) {
        print_retval(s, trace_addr_unpack(r->func), retval, false);
    } else if (matched && !trace_opt(TRACE_OPT_GRAPH_TAIL)) {
        seq_puts(s, "}\n");
    } else {
        seq_puts(s, "} /* ");
        trace_print_sym(s, trace_addr_unpack(r->func), false, false);
        seq_puts(s, " */\n");
    }
    print_overrun(s, r);
    if (r->depth & GRAPH_RET_IRQ_FLAG)
        print_irq_arrow(s, rec, pid, false);
    return true;
}

/*
 * trace_marker text and trace events inside the graph: a C comment one level deeper than
 * the last call, holding the marker text or the event line ("sched_switch: ..."), as Linux
 * prints them.
 */
static bool print_comment(struct trace_iter *it, struct seqbuf *s, struct graph_print_state *st)
{
    const struct rb_record *rec = &it->rec;
    const struct trace_print_event *p = (const void *)rec->data;
    struct seqbuf event_text = {0};
    const char *text;
    size_t len;
    if (trace_ctx_type(p->ctx) == TRACE_EVENT_FULL) {
        if (!trace_event_print_record(&event_text, rec)) {
            seqbuf_free(&event_text);
            return false;
        }
        text = event_text.buf ? event_text.buf : "";
        len = event_text.len;
    } else {
        text = p->text;
        len = strnlen(p->text, MIN((size_t)p->len, sizeof(p->text)));
    }
    int pid = trace_record_pid(rec->data);
    struct graph_cpu_state *cs = &st->cpu[rec->cpu];
    check_pid(s, cs, rec->cpu, pid);
    print_columns(s, rec, pid);
    print_duration(s, 0, FILL_FULL);
    if (cs->depth > 0)
        print_indent(s, cs->depth + 1);
    while (len && text[len - 1] == '\n')
        len--;
    seq_puts(s, "/* ");
    seq_write(s, text, len);
    seq_puts(s, " */\n");
    seqbuf_free(&event_text);
    return true;
}

static bool graph_print_line(struct trace_iter *it, struct seqbuf *s)
{
    struct graph_print_state *st = print_state(it);
    if (!st)
        return false;
    switch (trace_ctx_type(*(const uint32_t *)it->rec.data)) {
    case TRACE_GRAPH_ENT:
        return print_entry(it, s, st);
    case TRACE_GRAPH_RET:
        return print_return(it, s, st);
    case TRACE_PRINT:
    case TRACE_EVENT_FULL:
        return print_comment(it, s, st);
    default:
        return false;
    }
}

static void graph_print_header(struct trace_iter *it, struct seqbuf *s)
{
    bool ctx = trace_opt(TRACE_OPT_CONTEXT_INFO);
    seq_putc(s, '#');
    if (ctx && trace_opt(TRACE_OPT_GRAPH_ABSTIME))
        seq_puts(s, "     TIME       ");
    if (ctx && trace_opt(TRACE_OPT_GRAPH_CPU))
        seq_puts(s, " CPU");
    if (ctx && trace_opt(TRACE_OPT_GRAPH_PROC))
        seq_puts(s, "  TASK/PID       ");
    if (ctx && trace_opt(TRACE_OPT_GRAPH_DURATION))
        seq_puts(s, "  DURATION   ");
    seq_puts(s, "               FUNCTION CALLS\n");
    seq_putc(s, '#');
    if (ctx && trace_opt(TRACE_OPT_GRAPH_ABSTIME))
        seq_puts(s, "      |         ");
    if (ctx && trace_opt(TRACE_OPT_GRAPH_CPU))
        seq_puts(s, " |  ");
    if (ctx && trace_opt(TRACE_OPT_GRAPH_PROC))
        seq_puts(s, "   |    |        ");
    if (ctx && trace_opt(TRACE_OPT_GRAPH_DURATION))
        seq_puts(s, "   |   |      ");
    seq_puts(s, "               |   |   |   |\n");
}

/* Also called with TRACE_OPT_COUNT once the tracer is current (see trace_set_tracer). */
static void graph_option_changed(unsigned opt, bool on) { graph_update_general(); }

TRACER(function_graph, .name = "function_graph", .init = graph_init, .reset = graph_reset,
       .print_header = graph_print_header, .print_line = graph_print_line,
       .option_changed = graph_option_changed);

/* ---- files ---- */

int fgraph_set_filter_text(bool is_notrace, const char *globs)
{
    struct ftrace_hash *h = ftrace_hash_alloc();
    if (!h)
        return -ENOMEM;
    char tok[128];
    int err = 0;
    for (const char *p = globs; *p;) {
        size_t n = strcspn(p, ", \t");
        if (n && n < sizeof(tok)) {
            memcpy(tok, p, n);
            tok[n] = '\0';
            if (ftrace_filter_apply_token(h, tok, NULL) < 0)
                err = -EINVAL;
        }
        p += n;
        p += strspn(p, ", \t");
    }
    struct ftrace_hash *keep = ftrace_hash_copy(is_notrace ? graph_tracer.filter_ops.filter_hash
                                                           : graph_tracer.filter_ops.notrace_hash);
    if (is_notrace)
        ftrace_ops_set_hashes(&graph_tracer.filter_ops, keep, h);
    else
        ftrace_ops_set_hashes(&graph_tracer.filter_ops, h, keep);
    graph_update_general();
    return err;
}

/* Self-tests set the limits directly, as writing max_graph_depth / tracing_thresh would. */
void graph_test_set_limits(unsigned long max_depth, uint64_t thresh_ns)
{
    graph_set_limits(&max_depth, &thresh_ns);
}

uint64_t tracing_thresh_ns(void) { return READ_ONCE(graph_tracer.thresh_ns); }

static int show_max_depth(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%lu\n", graph_tracer.max_depth);
}

static ssize_t store_max_depth(void *data, const char *buf, size_t len)
{
    unsigned long v;
    if (tracefs_parse_ulong(buf, len, &v) != 0)
        return -EINVAL;
    graph_set_limits(&v, NULL);
    return len;
}

static int show_thresh(struct seqbuf *s, void *data)
{
    return seq_printf(s, "%llu\n", (unsigned long long)(graph_tracer.thresh_ns / 1000));
}

static ssize_t store_thresh(void *data, const char *buf, size_t len)
{
    unsigned long usecs;
    if (tracefs_parse_ulong(buf, len, &usecs) != 0 || usecs > 1000000000UL)
        return -EINVAL;
    uint64_t ns = (uint64_t)usecs * 1000;
    graph_set_limits(NULL, &ns);
    return len;
}

TRACEFS_FILE(max_graph_depth, .path = "max_graph_depth", .mode = 0644, .show = show_max_depth,
             .store = store_max_depth);
TRACEFS_FILE(tracing_thresh, .path = "tracing_thresh", .mode = 0644, .show = show_thresh,
             .store = store_thresh);

static void graph_files_init(void)
{
    ftrace_filter_file_create("set_graph_function", &graph_tracer.filter_ops, false,
                              graph_update_general);
    ftrace_filter_file_create("set_graph_notrace", &graph_tracer.filter_ops, true,
                              graph_update_general);
}
LATE_INITCALL(graph_files_init);
