/*
 * The seam between trace events and their filters. An event describes its record with a
 * table of fields (what its `format` file prints); a filter is the text written to an
 * event's `filter` file (`prev_pid == 0 && next_comm ~ "work*"`), compiled once against
 * that table and then run on each record the event writes.
 *
 * Records handed to event_filter_match have Linux's layout: the common fields at offsets
 * 0..7 (u16 common_type, u8 common_flags, u8 common_preempt_count, s32 common_pid), the
 * event's own fields after them at the offsets its table gives.
 */
#ifndef KERNEL_TRACE_EVENTS_EVENT_FILTER_H
#define KERNEL_TRACE_EVENTS_EVENT_FILTER_H

#include <kernel/compiler.h>

enum event_field_kind {
    EVENT_FIELD_INT,        /* integer of size 1, 2, 4 or 8; is_signed says how to widen */
    EVENT_FIELD_CHAR_ARRAY, /* char name[N]: a string, NUL-terminated unless it fills N */
    EVENT_FIELD_DATA_LOC,   /* __data_loc char[]: a u32, (length << 16) | offset of the
                               string from the start of the record */
    EVENT_FIELD_ARRAY,      /* numbers one after the other (a probe's u8 name[]): filters
                               cannot test it */
};

struct event_field {
    const char *type; /* as the format file prints it: "pid_t", "char[16]", "__data_loc char[]" */
    const char *name;
    uint16_t offset; /* from the start of the record */
    uint16_t size;
    bool is_signed;
    enum event_field_kind kind;
};

/* common_type, common_flags, common_preempt_count, common_pid: every event has them. */
#define EVENT_COMMON_FIELDS 4
extern const struct event_field event_common_fields[EVENT_COMMON_FIELDS];

struct event_filter;

/* Why a filter was refused: Linux's message and the offset in the text its caret marks. */
struct event_filter_error {
    const char *message; /* "Field not found", "Meaningless filter expression", ... */
    unsigned pos;
};

/*
 * Compiles text against fields (the event's own; the common fields are always known).
 * Returns 0 and *out, or Linux's errno for that text (-EINVAL for most errors, -ENOENT for
 * unbalanced parentheses, -ENOMEM) with *err filled; nothing is allocated on failure.
 */
int event_filter_create(const char *text, const struct event_field *fields, size_t nfields,
                        struct event_filter **out, struct event_filter_error *err);
/* Does the record pass? Safe in any context (no locks, no allocation). */
bool event_filter_match(const struct event_filter *filter, const void *record, size_t record_len);
/* The text as the filter file reads it back. */
const char *event_filter_text(const struct event_filter *filter);
void event_filter_free(struct event_filter *filter);

#endif
