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

#define TRACE_EVENT_HOOK(name, proto, args)                                                        \
    extern volatile uint8_t trace_event_on_##name;                                                 \
    void trace_event_emit_##name proto;                                                            \
    static __always_inline void trace_##name proto                                                 \
    {                                                                                              \
        if (unlikely(trace_event_on_##name))                                                       \
            trace_event_emit_##name args;                                                          \
    }

/* sched: the scheduler, thread creation and exit. */
TRACE_EVENT_HOOK(sched_switch, (struct thread * prev, struct thread *next), (prev, next))
TRACE_EVENT_HOOK(sched_waking, (struct thread * t), (t))
TRACE_EVENT_HOOK(sched_wakeup, (struct thread * t), (t))
TRACE_EVENT_HOOK(sched_wakeup_new, (struct thread * t), (t))
TRACE_EVENT_HOOK(sched_process_fork, (struct thread * parent, struct thread *child),
                 (parent, child))
TRACE_EVENT_HOOK(sched_process_exit, (struct thread * t), (t))
TRACE_EVENT_HOOK(sched_process_free, (struct thread * t), (t))
TRACE_EVENT_HOOK(sched_migrate_task, (struct thread * t, unsigned dest_cpu), (t, dest_cpu))

/* irq: device interrupts (Linux's irq numbers: the I/O APIC / PIC line). */
TRACE_EVENT_HOOK(irq_handler_entry, (int irq, const char *name), (irq, name))
TRACE_EVENT_HOOK(irq_handler_exit, (int irq, int ret), (irq, ret))

/* irq_vectors: the local APIC's own vectors; vector is the IDT vector. */
TRACE_EVENT_HOOK(local_timer_entry, (int vector), (vector))
TRACE_EVENT_HOOK(local_timer_exit, (int vector), (vector))
TRACE_EVENT_HOOK(reschedule_entry, (int vector), (vector))
TRACE_EVENT_HOOK(reschedule_exit, (int vector), (vector))
TRACE_EVENT_HOOK(call_function_entry, (int vector), (vector))
TRACE_EVENT_HOOK(call_function_exit, (int vector), (vector))
TRACE_EVENT_HOOK(call_function_single_entry, (int vector), (vector))
TRACE_EVENT_HOOK(call_function_single_exit, (int vector), (vector))

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
