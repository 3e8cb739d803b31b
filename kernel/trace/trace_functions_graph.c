/*
 * The function_graph tracer: an entry event when a traced function starts and a return
 * event with its duration when it ends, printed as Linux prints them (trace_graph_output.c,
 * with the columns the funcgraph-* options pick): a call tree per CPU with durations,
 * overhead marks, leaf calls on one line, task-switch separators and interrupt arrows.
 * set_graph_function limits tracing to the listed functions and what they call;
 * set_graph_notrace suspends it inside the listed ones; max_graph_depth and
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

/* ---- output (trace_graph_output.c), with the columns its funcgraph-* options pick ---- */

static unsigned graph_columns(void)
{
    unsigned cols = 0;
    if (trace_opt(TRACE_OPT_GRAPH_ABSTIME))
        cols |= TRACE_GRAPH_COL_ABS_TIME;
    if (trace_opt(TRACE_OPT_GRAPH_CPU))
        cols |= TRACE_GRAPH_COL_CPU;
    if (trace_opt(TRACE_OPT_GRAPH_PROC))
        cols |= TRACE_GRAPH_COL_PROC;
    if (trace_opt(TRACE_OPT_GRAPH_DURATION))
        cols |= TRACE_GRAPH_COL_DURATION;
    if (trace_opt(TRACE_OPT_GRAPH_OVERHEAD))
        cols |= TRACE_GRAPH_COL_OVERHEAD;
    if (trace_opt(TRACE_OPT_GRAPH_IRQS))
        cols |= TRACE_GRAPH_COL_IRQS;
    if (trace_opt(TRACE_OPT_GRAPH_OVERRUN))
        cols |= TRACE_GRAPH_COL_OVERRUN;
    if (trace_opt(TRACE_OPT_GRAPH_TAIL))
        cols |= TRACE_GRAPH_COL_TAIL;
    if (trace_opt(TRACE_OPT_GRAPH_RETVAL))
        cols |= TRACE_GRAPH_COL_RETVAL;
    if (trace_opt(TRACE_OPT_GRAPH_RETVAL_HEX))
        cols |= TRACE_GRAPH_COL_RETVAL_HEX;
    return cols;
}

static bool graph_print_line(struct trace_iter *it, struct seqbuf *s)
{
    return trace_graph_print_line(it, s, graph_columns());
}

static void graph_print_header(struct trace_iter *it, struct seqbuf *s)
{
    trace_graph_print_header(it, s, graph_columns());
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
