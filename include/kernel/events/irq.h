/*
 * irq: device interrupts, with Linux's irq number (the I/O APIC / PIC line) and the
 * handler's device name. One definition per event (see <kernel/trace_events.h> and
 * kernel/trace/events/event_define.h); no include guard, it is read once per product.
 */
/* Laid out as Linux lays out its own definitions, not as clang-format would. */
/* clang-format off */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM irq
#undef TRACE_SYSTEM_ORDER
#define TRACE_SYSTEM_ORDER 2

TRACE_EVENT(irq_handler_entry,
            TP_PROTO(int irq, const char *name),
            TP_ARGS(irq, name),
            TP_OTHER_PID(-1),
            TP_STRUCT__entry(
                __field(int, irq)
                __string(name, name)
            ),
            TP_fast_assign(
                __entry->irq = irq;
                __assign_str(name, name);
            ),
            TP_printk("irq=%d name=%s", __entry->irq, __get_str(name)))

TRACE_EVENT(irq_handler_exit,
            TP_PROTO(int irq, int ret),
            TP_ARGS(irq, ret),
            TP_OTHER_PID(-1),
            TP_STRUCT__entry(
                __field(int, irq)
                __field(int, ret)
            ),
            TP_fast_assign(
                __entry->irq = irq;
                __entry->ret = ret;
            ),
            TP_printk("irq=%d ret=%s", __entry->irq, __entry->ret ? "handled" : "unhandled"))

/* clang-format on */
