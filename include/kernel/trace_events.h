/*
 * Trace events for the code that emits them: the scheduler calls trace_sched_switch(prev,
 * next), interrupt entry calls trace_irq_handler_entry(irq, name), and so on.
 *
 * Each tracepoint is a static inline test of its event's enabled byte: when the event is
 * off, the cost is one load and one predictable not-taken branch. The out-of-line emitter
 * (kernel/trace/events/, built without -pg) takes no lock and allocates nothing, so a
 * tracepoint may sit anywhere: in an interrupt or NMI, in the scheduler with its run-queue
 * lock held and interrupts off.
 */
#ifndef KERNEL_TRACE_EVENTS_H
#define KERNEL_TRACE_EVENTS_H

#include <kernel/compiler.h>

struct thread;

/*
 * An event's enabled byte: non-zero when its emitter must run. TRACE_EVENT_ON_RECORD: the
 * event is enabled; TRACE_EVENT_ON_FOLLOW: sched_process_fork/free only, while
 * options/event-fork makes set_event_pid follow new threads.
 */
#define TRACE_EVENT_ON_RECORD 0x1
#define TRACE_EVENT_ON_FOLLOW 0x2
#define TRACE_EVENT_ON_FOLLOW_FUNCTIONS 0x4 /* the same for options/function-fork */
/* sched_switch only, while any event is on, or a tracer: keep saved_cmdlines, as Linux does. */
#define TRACE_EVENT_ON_CMDLINE 0x4
#define TRACE_EVENT_ON_CMDLINE_TRACER 0x8
/*
 * The event is in soft mode (triggers): its emitter runs whether or not it records, and
 * decides in the write path's slow check (TRACE_EVENT_ON_RECORD clear: soft-disabled).
 */
#define TRACE_EVENT_ON_TRIGGER 0x10
/* The event is on in a trace instance (instances/NAME/events/...): the write path copies
 * its record there, whether or not the top level records it. */
#define TRACE_EVENT_ON_INSTANCE 0x20
/*
 * A tracepoint probe (a t: line of dynamic_events) hangs on the tracepoint: the emitter hands
 * the tracepoint's C arguments to it (trace_event_tp_probes_run), whether or not the event
 * itself records.
 */
#define TRACE_EVENT_ON_PROBE 0x40
/* The bits that make an emitter write (or try to) a record. */
#define TRACE_EVENT_ON_EMIT                                                                        \
    (TRACE_EVENT_ON_RECORD | TRACE_EVENT_ON_TRIGGER | TRACE_EVENT_ON_INSTANCE)

/*
 * The events: one definition each, in include/kernel/events/, read here for their
 * tracepoints and by kernel/trace/events/ for everything else (event_define.h). Here only
 * the name, TP_PROTO and TP_ARGS of each matter.
 */
#define TRACE_EVENT_HOOK(name, proto, args)                                                        \
    extern volatile uint8_t trace_event_on_##name;                                                 \
    void trace_event_emit_##name proto;                                                            \
    static __always_inline void trace_##name proto                                                 \
    {                                                                                              \
        if (unlikely(trace_event_on_##name))                                                       \
            trace_event_emit_##name args;                                                          \
    }

#define TP_PROTO(...) (__VA_ARGS__)
#define TP_ARGS(...) (__VA_ARGS__)
#define TRACE_EVENT(name, proto, args, other_pid, tstruct, assign, print)                          \
    TRACE_EVENT_HOOK(name, proto, args)
#define TRACE_EVENT_WRAPPED(name, proto, args, other_pid, tstruct, assign, print)                  \
    TRACE_EVENT_HOOK(name, proto, args)
#define DECLARE_EVENT_CLASS(class, proto, args, other_pid, tstruct, assign, print)
#define DEFINE_EVENT(class, name, proto, args) TRACE_EVENT_HOOK(name, proto, args)
#define DEFINE_EVENT_WRAPPED(class, name, proto, args) TRACE_EVENT_HOOK(name, proto, args)

#include <kernel/events/irq.h>
#include <kernel/events/irq_vectors.h>
#include <kernel/events/osnoise.h>
#include <kernel/events/preemptirq.h>
#include <kernel/events/sched.h>

#undef TP_PROTO
#undef TP_ARGS
#undef TRACE_EVENT
#undef TRACE_EVENT_WRAPPED
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_WRAPPED
#undef TRACE_SYSTEM
#undef TRACE_SYSTEM_ORDER

/*
 * trace_printk(fmt, ...): records ftrace:bprint (the format's address and the arguments in
 * binary; the text is made when the trace is read) or, for a format with no conversion,
 * ftrace:bputs. Formats are listed in printk_formats. Costs a call even when tracing is
 * off: a debugging aid, as in Linux, not for code that stays.
 */
int trace_event_bprintk(unsigned long ip, const char *fmt, ...);
int trace_event_bputs(unsigned long ip, const char *str);
static inline __printf(1, 2) void trace_printk_check_format(const char *fmt, ...) { (void)fmt; }

/* The address of the code where it is used, as Linux's _THIS_IP_. */
#define TRACE_THIS_IP                                                                              \
    ({                                                                                             \
        __label__ trace_here_;                                                                     \
    trace_here_:                                                                                   \
        (unsigned long)&&trace_here_;                                                              \
    })

#define trace_printk(fmt, ...)                                                                     \
    ({                                                                                             \
        static const char *const trace_printk_fmt_ __used __section(".trace_printk_fmt")           \
            __aligned(8) = fmt;                                                                    \
        trace_printk_check_format(fmt, ##__VA_ARGS__);                                             \
        __builtin_strchr(fmt, '%')                                                                 \
            ? trace_event_bprintk(TRACE_THIS_IP, trace_printk_fmt_, ##__VA_ARGS__)                 \
            : trace_event_bputs(TRACE_THIS_IP, trace_printk_fmt_);                                 \
    })

#endif
