/*
 * Function graph core, private to kernel/trace/: the per-thread shadow return stack and
 * the two users of function entry and return, the function_graph tracer and the
 * function profiler. One ftrace op serves both, on the global filter.
 */
#ifndef KERNEL_TRACE_FGRAPH_H
#define KERNEL_TRACE_FGRAPH_H

#include <kernel/compiler.h>

#define FGRAPH_DEPTH 128

enum fgraph_user {
    FGRAPH_TRACER = 1u << 0,
    FGRAPH_PROFILER = 1u << 1,
};

#define FGRAPH_FRAME_ROOT (1u << 0)      /* a set_graph_function function */
#define FGRAPH_FRAME_NOTRACE (1u << 1)   /* a set_graph_notrace function */
#define FGRAPH_FRAME_IN_IRQ (1u << 2)    /* pushed in interrupt context */
#define FGRAPH_FRAME_IRQ_ENTRY (1u << 3) /* first frame of an interrupt */

struct fgraph_frame {
    unsigned long ret;   /* the real return address */
    unsigned long func;
    uint64_t calltime;   /* trace clock at entry */
    unsigned long *retp; /* the stack slot that held ret: checked at return */
    uint8_t users;       /* who wants this return (enum fgraph_user) */
    uint8_t flags;
    uint16_t depth;
};

struct fgraph_thread {
    unsigned curr;        /* frames in use */
    unsigned in_notrace;  /* set_graph_notrace functions being run */
    unsigned in_filter;   /* set_graph_function functions being run */
    uint32_t overrun;     /* functions not hooked because the stack was full */
    struct fgraph_frame stack[FGRAPH_DEPTH];
};

/* Users switch themselves on and off; the op is registered while any is on. */
int fgraph_user_enable(enum fgraph_user user);
void fgraph_user_disable(enum fgraph_user user);
bool fgraph_is_dead(void);

/* Tracer side (trace_functions_graph.c): called by the core with preemption off. */
bool graph_tracer_wants(unsigned long ip, const struct fgraph_thread *g, uint8_t *flags);
/* Both return the time of the event they wrote (the trace clock), or 0 when they read no
 * clock. The core takes it as the call's entry or return time: one clock read per side. */
uint64_t graph_tracer_entry(const struct fgraph_frame *f, unsigned extra_preempt);
uint64_t graph_tracer_return(const struct fgraph_frame *f, uint32_t overrun,
                             unsigned extra_preempt);
/* Profiler side (trace_profile.c). */
void profile_function_return(const struct fgraph_frame *f, uint64_t rettime);
void profile_function_hit(unsigned long ip);

#endif
