/*
 * What the latency tracers share (kernel/trace/latency/): the maximum's bookkeeping, the
 * swap of a CPU's events into the max (snapshot) buffer, the events they write and
 * Linux's latency output.
 *
 * As Linux's, a latency tracer records into the live buffer as it goes: the functions run
 * inside a section (options/function-trace), its start and end, a stack trace at the end.
 * A section that beats tracing_max_latency (or, with tracing_thresh set, any one longer
 * than that) swaps this CPU's live pages with the max buffer's (update_max_tr_single).
 * `trace` then shows the max buffer from the section's start on: what came before it on
 * those pages is skipped, as Linux's iterator skips entries older than the max buffer's
 * time_start.
 */
#ifndef KERNEL_TRACE_LATENCY_LATENCY_H
#define KERNEL_TRACE_LATENCY_LATENCY_H

#include <kernel/compiler.h>
#include <kernel/thread.h>

#include "trace_internal.h"

/* The task and section of the latest maximum, for the header (Linux's max_data). */
struct latency_max {
    uint64_t latency_ns;
    uint64_t time_start; /* the section's start in the trace clock: earlier entries skipped */
    unsigned cpu;
    int pid;
    char comm[THREAD_NAME_LEN];
    int policy;
    int rt_priority;
    unsigned long critical_start; /* 0: the tracer has no start and end (wakeup) */
    unsigned long critical_end;
};

/* tracing_max_latency, in ns, and the latest maximum's record. */
extern volatile uint64_t latency_max_ns;
extern struct latency_max latency_max_data;

/*
 * Whether a section of delta_ns is to be recorded: with tracing_thresh set, any section
 * at least that long; otherwise one longer than tracing_max_latency.
 */
bool latency_report(uint64_t delta_ns);

/*
 * Makes the section that ran on this CPU the maximum: the latency becomes
 * tracing_max_latency, task's details and the section's bounds go to the header, and this
 * CPU's live events (every CPU's, all_cpus: Linux's update_max_tr rather than
 * update_max_tr_single) go into the max buffer. Any context but NMI. A swap
 * that cannot be made now (the call interrupted a writer of this CPU's buffer, a reader
 * holds the pages, a resize is under way) leaves the events where they are and counts
 * in latency_swaps_missed; the latency is recorded all the same, as Linux's is.
 */
void latency_update_max(uint64_t delta_ns, uint64_t start_ts, struct thread *task,
                        unsigned long critical_start, unsigned long critical_end, bool all_cpus);
extern unsigned long latency_swaps_missed;

/*
 * A function event (ip called from parent_ip; with options/display-graph a graph entry
 * and its return, of no duration, as Linux's trace_graph_function), and a stack trace
 * from site (an address in the function that ended the section) up through its callers,
 * written now on this CPU. The function event's time stamp is returned (0 when it was not
 * written).
 */
uint64_t latency_trace_function(unsigned long ip, unsigned long parent_ip, unsigned extra_preempt);
void latency_trace_stack(unsigned long site, unsigned extra_preempt);

/*
 * Starting and stopping a latency tracer (thread context): allocates the max buffer,
 * clears it and tracing_max_latency, turns options/latency-format on (and back to what it
 * was at stop), and with options/function-trace traces the functions run while
 * in_section() says this CPU is in a section: each as a function event (the default), or
 * with options/display-graph its entry and return as function_graph records them.
 */
int latency_tracer_start(bool (*in_section)(void));
void latency_tracer_stop(void);
/* options/function-trace or display-graph changed while a latency tracer runs. */
void latency_option_changed(unsigned opt, bool on);

/*
 * With options/display-graph, the trace as function_graph prints it with these columns
 * (Linux's GRAPH_TRACER_FLAGS of each tracer), else the latency format.
 */
#define LATENCY_IRQSOFF_GRAPH_COLS                                                                 \
    (TRACE_GRAPH_COL_CPU | TRACE_GRAPH_COL_PROC | TRACE_GRAPH_COL_REL_TIME |                       \
     TRACE_GRAPH_COL_DURATION)
#define LATENCY_WAKEUP_GRAPH_COLS                                                                  \
    (TRACE_GRAPH_COL_PROC | TRACE_GRAPH_COL_CPU | TRACE_GRAPH_COL_REL_TIME |                       \
     TRACE_GRAPH_COL_DURATION | TRACE_GRAPH_COL_OVERHEAD | TRACE_GRAPH_COL_IRQS)
bool latency_print_line(struct trace_iter *it, struct seqbuf *s, unsigned graph_cols);
void latency_print_header_cols(struct trace_iter *it, struct seqbuf *s, unsigned graph_cols);

/* Linux's trace_find_mark: the gap to the next entry (ns) as one character ('+' over
 * 10 us, '!' over 100 us, '#' over 1 ms, '*' over 10 ms, '@' over 100 ms, '$' over 1 s). */
char latency_mark(uint64_t ns);

/* The latency tracers (trace_irqsoff.c), called by the hooks (preemptirq.c). */
void irqsoff_hardirqs_off(unsigned long ip, unsigned long parent_ip);
void irqsoff_hardirqs_on(unsigned long ip, unsigned long parent_ip);
/* irqs_off: whether interrupts were off where preemption changed. */
void irqsoff_preempt_off(unsigned long ip, unsigned long parent_ip, bool irqs_off);
void irqsoff_preempt_on(unsigned long ip, unsigned long parent_ip, bool irqs_off);

/* The preemptirq events (preemptirq_events.c), from the hooks: on is the enable. */
void preemptirq_event_irq(bool on, unsigned long ip, unsigned long parent_ip);
void preemptirq_event_preempt(bool on, unsigned long ip, unsigned long parent_ip);

/* The osnoise and timerlat tracers' view of a context switch (trace_osnoise.c), from the
 * scheduler's switch hook while TRACE_SCHED_HOOKS_OSNOISE is set. */
void osnoise_sched_switch(struct thread *prev, struct thread *next);

/* Which users want the hooks (preemptirq.c): a bit each, the byte is on while any is. */
#define PREEMPTIRQ_USER_TRACER 0x1
#define PREEMPTIRQ_USER_EVENTS 0x2
void preemptirq_hooks_set(bool irq, bool preempt, unsigned user, bool on);

#endif
