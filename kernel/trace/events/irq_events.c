/*
 * irq and irq_vectors: device interrupts (irq_handler_entry/exit, with Linux's irq number
 * and the handler's device name) and the local APIC's vectors (Linux's irq_vectors
 * events). Linux 6.1's fields, format files and text.
 *
 * This kernel sends one call-function vector for every cross-CPU call (and a sync vector
 * for code patching, which Linux does with a call-function IPI too): both report
 * call_function_entry/exit. call_function_single_entry/exit exist for tools but are never
 * emitted.
 */
#include <lib/string.h>

#include "event_core.h"
#include "trace_internal.h"

/* ---- irq_handler_entry / irq_handler_exit ---- */

#define IRQ_NAME_MAX 32

struct irq_entry_record {
    struct trace_event_common common;
    int32_t irq;
    uint32_t name_loc; /* __data_loc: (length << 16) | offset of the string */
    char name[IRQ_NAME_MAX];
};

static const struct event_field irq_entry_fields[] = {
    {"int", "irq", 8, 4, true, EVENT_FIELD_INT},
    {"__data_loc char[]", "name", 12, 4, true, EVENT_FIELD_DATA_LOC},
};

static void print_irq_entry(struct seqbuf *s, const void *record, size_t len)
{
    const struct irq_entry_record *r = record;
    unsigned off = r->name_loc & 0xffff, n = r->name_loc >> 16;
    seq_printf(s, "irq=%d name=", r->irq);
    if (off + n <= len && n)
        seq_write(s, (const char *)record + off, strnlen((const char *)record + off, n));
    seq_putc(s, '\n');
}

TRACE_EVENT_ENABLED_BYTE(irq_handler_entry);
TRACE_EVENT_CALL(irq_handler_entry, &trace_event_on_irq_handler_entry, .system = "irq",
                 .name = "irq_handler_entry", .fields = irq_entry_fields,
                 .nfields = ARRAY_SIZE(irq_entry_fields), .print = print_irq_entry, .order = 202,
                 .print_fmt = "\"irq=%d name=%s\", REC->irq, __get_str(name)");

void trace_event_emit_irq_handler_entry(int irq, const char *name)
{
    size_t n = strnlen(name, IRQ_NAME_MAX - 1) + 1;
    size_t size = offsetof(struct irq_entry_record, name) + n;
    struct rb_reservation res;
    struct irq_entry_record *r =
        trace_event_reserve(&trace_event_call_irq_handler_entry, size, -1, &res);
    if (!r)
        return;
    r->irq = irq;
    r->name_loc = ((uint32_t)n << 16) | offsetof(struct irq_entry_record, name);
    memcpy(r->name, name, n - 1);
    r->name[n - 1] = '\0';
    trace_event_commit(&trace_event_call_irq_handler_entry, r, size, &res);
}

struct irq_exit_record {
    struct trace_event_common common;
    int32_t irq;
    int32_t ret;
};

static const struct event_field irq_exit_fields[] = {
    {"int", "irq", 8, 4, true, EVENT_FIELD_INT},
    {"int", "ret", 12, 4, true, EVENT_FIELD_INT},
};

static void print_irq_exit(struct seqbuf *s, const void *record, size_t len)
{
    const struct irq_exit_record *r = record;
    seq_printf(s, "irq=%d ret=%s\n", r->irq, r->ret ? "handled" : "unhandled");
}

TRACE_EVENT_ENABLED_BYTE(irq_handler_exit);
TRACE_EVENT_CALL(
    irq_handler_exit, &trace_event_on_irq_handler_exit, .system = "irq", .name = "irq_handler_exit",
    .fields = irq_exit_fields, .nfields = ARRAY_SIZE(irq_exit_fields), .print = print_irq_exit,
    .order = 201,
    .print_fmt = "\"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"");

void trace_event_emit_irq_handler_exit(int irq, int ret)
{
    struct rb_reservation res;
    struct irq_exit_record *r =
        trace_event_reserve(&trace_event_call_irq_handler_exit, sizeof(*r), -1, &res);
    if (!r)
        return;
    r->irq = irq;
    r->ret = ret;
    trace_event_commit(&trace_event_call_irq_handler_exit, r, sizeof(*r), &res);
}

/* ---- irq_vectors ---- */

struct irq_vector_record {
    struct trace_event_common common;
    int32_t vector;
};

static const struct event_field irq_vector_fields[] = {
    {"int", "vector", 8, 4, true, EVENT_FIELD_INT},
};

static void print_irq_vector(struct seqbuf *s, const void *record, size_t len)
{
    const struct irq_vector_record *r = record;
    seq_printf(s, "vector=%d\n", r->vector);
}

static void emit_vector(const struct trace_event_call *call, int vector)
{
    struct rb_reservation res;
    struct irq_vector_record *r = trace_event_reserve(call, sizeof(*r), -1, &res);
    if (!r)
        return;
    r->vector = vector;
    trace_event_commit(call, r, sizeof(*r), &res);
}

#define IRQ_VECTOR_EVENT(name_, order_)                                                            \
    TRACE_EVENT_ENABLED_BYTE(name_);                                                               \
    TRACE_EVENT_CALL(name_, &trace_event_on_##name_, .system = "irq_vectors", .name = #name_,      \
                     .fields = irq_vector_fields, .nfields = ARRAY_SIZE(irq_vector_fields),        \
                     .print = print_irq_vector, .order = order_,                                   \
                     .print_fmt = "\"vector=%d\", REC->vector");                                   \
    void trace_event_emit_##name_(int vector) { emit_vector(&trace_event_call_##name_, vector); }

/* Linux lists them newest-defined first: the order of its available_events. */
IRQ_VECTOR_EVENT(call_function_single_exit, 101)
IRQ_VECTOR_EVENT(call_function_single_entry, 102)
IRQ_VECTOR_EVENT(call_function_exit, 103)
IRQ_VECTOR_EVENT(call_function_entry, 104)
IRQ_VECTOR_EVENT(reschedule_exit, 105)
IRQ_VECTOR_EVENT(reschedule_entry, 106)
IRQ_VECTOR_EVENT(local_timer_exit, 107)
IRQ_VECTOR_EVENT(local_timer_entry, 108)
