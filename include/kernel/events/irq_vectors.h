/*
 * irq_vectors: the local APIC's own vectors, entry and exit; vector is the IDT vector.
 * One definition per event (see <kernel/trace_events.h> and
 * kernel/trace/events/event_define.h); no include guard, it is read once per product.
 *
 * This kernel sends one call-function vector for every cross-CPU call (and a sync vector
 * for code patching, which Linux does with a call-function IPI too): both report
 * call_function_entry/exit. call_function_single_entry/exit exist for tools but are never
 * emitted.
 */
/* Laid out as Linux lays out its own definitions, not as clang-format would. */
/* clang-format off */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM irq_vectors
#undef TRACE_SYSTEM_ORDER
#define TRACE_SYSTEM_ORDER 1

DECLARE_EVENT_CLASS(irq_vector,
                    TP_PROTO(int vector),
                    TP_ARGS(vector),
                    TP_OTHER_PID(-1),
                    TP_STRUCT__entry(
                        __field(int, vector)
                    ),
                    TP_fast_assign(
                        __entry->vector = vector;
                    ),
                    TP_printk("vector=%d", __entry->vector))

#undef DEFINE_IRQ_VECTOR_EVENT
#define DEFINE_IRQ_VECTOR_EVENT(name)                                                              \
    DEFINE_EVENT(irq_vector, name##_entry, TP_PROTO(int vector), TP_ARGS(vector))                  \
    DEFINE_EVENT(irq_vector, name##_exit, TP_PROTO(int vector), TP_ARGS(vector))

DEFINE_IRQ_VECTOR_EVENT(local_timer)
DEFINE_IRQ_VECTOR_EVENT(reschedule)
DEFINE_IRQ_VECTOR_EVENT(call_function)
DEFINE_IRQ_VECTOR_EVENT(call_function_single)

#undef DEFINE_IRQ_VECTOR_EVENT

/* clang-format on */
