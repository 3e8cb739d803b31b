/*
 * The function_graph tracer's recording, inline: its fgraph client functions and its own
 * op and return handlers (trace_functions_graph.c) run it.
 */
#ifndef KERNEL_TRACE_TRACE_GRAPH_RECORD_H
#define KERNEL_TRACE_TRACE_GRAPH_RECORD_H

#include "ring_buffer_write.h"
#include "trace_internal.h"

#define GRAPH_RET_IRQ_FLAG (1u << 11)
#define GRAPH_ENT_IRQ_FLAG (1u << 16)

/*
 * The graph core calls its clients with preemption off, which the context word must not
 * show, as Linux's does not show its own.
 */
#define GRAPH_EXTRA_PREEMPT 1

/* What the recording looks at; trace_functions_graph.c owns it and its files. */
struct graph_tracer_state {
    volatile bool active;
    /*
     * Set while something beyond the plain event is asked for, so that the hot path tests
     * one byte: on entry max_graph_depth, tracing_thresh, set_graph_function or
     * set_graph_notrace; on return tracing_thresh or options/funcgraph-retval.
     */
    volatile bool entry_general;
    volatile bool return_general;
    unsigned long max_depth; /* max_graph_depth */
    uint64_t thresh_ns;      /* tracing_thresh */
    /* set_graph_function / set_graph_notrace live in ops that are never registered. */
    struct ftrace_ops filter_ops;
};
extern struct graph_tracer_state graph_tracer;
extern struct fgraph_ops graph_tracer_ops;

/*
 * Whether the tracer wants this call, with set_graph_function / set_graph_notrace,
 * max_graph_depth or tracing_thresh in force (trace_functions_graph.c); marks
 * set_graph_function and set_graph_notrace functions. False: no event, no return.
 */
bool graph_tracer_wants_limited(unsigned long ip, const struct fgraph_thread *g, uint8_t *flags,
                                unsigned depth);

/*
 * Entry: true if the tracer wants the return. The event's time stamp becomes the frame's
 * entry time (one clock read); without an event the clock is read for it.
 */
static __always_inline bool graph_record_entry(struct percpu *cpu, struct fgraph_frame *f,
                                               const struct fgraph_thread *g)
{
    if (unlikely(f->flags & FGRAPH_FRAME_OVERFLOW) || !graph_tracer.active ||
        !trace_should_record_on(cpu))
        return false;
    if ((f->flags & FGRAPH_FRAME_IN_IRQ) && !trace_opt(TRACE_OPT_GRAPH_IRQS))
        return false;
    /* The limits and filters, and the calls inside a set_graph_notrace function. */
    if (unlikely(graph_tracer.entry_general | g->in_notrace)) {
        if (!graph_tracer_wants_limited(f->func, g, &f->flags, f->depth))
            return false;
        /* set_graph_notrace functions and, with tracing_thresh, every entry record nothing. */
        if ((f->flags & FGRAPH_FRAME_NOTRACE) || graph_tracer.thresh_ns) {
            f->calltime = trace_clock_read();
            return true;
        }
    }
    struct rb_reservation res;
    struct trace_graph_ent_event *ev = rb_reserve_on(cpu->trace_buffer, sizeof(*ev), &res);
    if (!ev) {
        f->calltime = trace_clock_read();
        return true;
    }
    ev->ctx = trace_ctx_on(cpu, TRACE_GRAPH_ENT, GRAPH_EXTRA_PREEMPT);
    ev->func = trace_text_pack(f->func);
    _Static_assert(FGRAPH_FRAME_IRQ_ENTRY << 13 == GRAPH_ENT_IRQ_FLAG, "the flag moves up");
    ev->depth = f->depth | (f->flags & FGRAPH_FRAME_IRQ_ENTRY) << 13;
    rb_commit_inline(&res);
    f->calltime = res.ts;
    return true;
}

/*
 * A return event of `size` bytes (with or without the return value), the fields written
 * a word at a time: the constant size lets the inline writer fold its arithmetic. The
 * return time is rettime, or with 0 the event's own time stamp; returns the one it used
 * (rettime unchanged when no event could be written).
 */
static __always_inline uint64_t graph_write_return(struct percpu *cpu, const struct fgraph_frame *f,
                                                   uint64_t rettime, uint32_t overrun,
                                                   unsigned long retval, unsigned size)
{
    struct rb_reservation res;
    struct trace_graph_ret_event *ev = rb_reserve_on(cpu->trace_buffer, size, &res);
    if (!ev)
        return rettime;
    if (!rettime)
        rettime = res.ts;
    uint64_t duration = rettime > f->calltime ? rettime - f->calltime : 0;
    ev->ctx = trace_ctx_on(cpu, TRACE_GRAPH_RET, GRAPH_EXTRA_PREEMPT);
    ev->func = trace_text_pack(f->func);
    /* depth:12 and overrun:20 are the third word, depth in its low bits (the ABI's little-endian
     * bitfield order). */
    _Static_assert(offsetof(struct trace_graph_ret_event, duration_lo) == 12, "the layout below");
    _Static_assert(FGRAPH_FRAME_IRQ_ENTRY << 8 == GRAPH_RET_IRQ_FLAG, "the flag moves up");
    uint32_t word = (f->depth & 0x7ffu) | (f->flags & FGRAPH_FRAME_IRQ_ENTRY) << 8 | overrun << 12;
    __builtin_memcpy((uint32_t *)ev + 2, &word, sizeof(word));
    __builtin_memcpy(&ev->duration_lo, &duration, sizeof(duration));
    if (size == sizeof(struct trace_graph_retval_event)) {
        struct trace_graph_retval_event *rv = (void *)ev;
        __builtin_memcpy(&rv->retval_lo, &retval, sizeof(retval));
    }
    rb_commit_inline(&res);
    return rettime;
}

/* tracing_thresh and funcgraph-retval (trace_functions_graph.c). */
void graph_record_return_general(struct percpu *cpu, const struct fgraph_frame *f,
                                 struct fgraph_ret *ret);

/* The return of f, with the thread's overrun count and the value the function returned. */
static __always_inline void graph_record_return(struct percpu *cpu, const struct fgraph_frame *f,
                                                uint32_t overrun, unsigned long retval)
{
    if (f->flags & FGRAPH_FRAME_NOTRACE)
        return;
    if (unlikely(graph_tracer.return_general)) {
        struct fgraph_ret ret = {.rettime = 0, .overrun = overrun, .retval = retval};
        graph_record_return_general(cpu, f, &ret);
    } else {
        graph_write_return(cpu, f, 0, overrun, retval, sizeof(struct trace_graph_ret_event));
    }
}

#endif
