/*
 * preemptirq: interrupts and preemption going off and on, as Linux 6.1's, from the latency
 * hooks (<kernel/ftrace.h>, kernel/trace/latency/preemptirq.c). The addresses are kept as
 * 32-bit offsets from the start of the kernel's text; the line shows them as symbols.
 * One definition per event (see <kernel/trace_events.h>); no include guard.
 */
/* Laid out as Linux lays out its own definitions, not as clang-format would. */
/* clang-format off */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM preemptirq
#undef TRACE_SYSTEM_ORDER
#define TRACE_SYSTEM_ORDER 4

DECLARE_EVENT_CLASS(preemptirq_template,
                    TP_PROTO(unsigned long ip, unsigned long parent_ip),
                    TP_ARGS(ip, parent_ip),
                    TP_OTHER_PID(-1),
                    TP_STRUCT__entry(
                        __field(s32, caller_offs)
                        __field(s32, parent_offs)
                    ),
                    TP_fast_assign(
                        __entry->caller_offs = (s32)(ip - (unsigned long)_stext);
                        __entry->parent_offs = (s32)(parent_ip - (unsigned long)_stext);
                    ),
                    TP_printk("caller=%pS parent=%pS",
                              (void *)((unsigned long)(_stext) + __entry->caller_offs),
                              (void *)((unsigned long)(_stext) + __entry->parent_offs)))

DEFINE_EVENT(preemptirq_template, irq_disable, TP_PROTO(unsigned long ip, unsigned long parent_ip), TP_ARGS(ip, parent_ip))
DEFINE_EVENT(preemptirq_template, irq_enable, TP_PROTO(unsigned long ip, unsigned long parent_ip), TP_ARGS(ip, parent_ip))
DEFINE_EVENT(preemptirq_template, preempt_disable, TP_PROTO(unsigned long ip, unsigned long parent_ip), TP_ARGS(ip, parent_ip))
DEFINE_EVENT(preemptirq_template, preempt_enable, TP_PROTO(unsigned long ip, unsigned long parent_ip), TP_ARGS(ip, parent_ip))

/* clang-format on */
