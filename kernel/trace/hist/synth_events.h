/*
 * Synthetic events (synth_events.c): events defined at run time in `synthetic_events`,
 * emitted by hist triggers' actions (hist_trigger.c) with values they computed.
 */
#ifndef KERNEL_TRACE_HIST_SYNTH_EVENTS_H
#define KERNEL_TRACE_HIST_SYNTH_EVENTS_H

#include <kernel/compiler.h>

struct synth_event;

/* The event of that name with a reference taken (it cannot be removed until put), or
 * NULL. Process context. */
struct synth_event *synth_event_get(const char *name);
void synth_event_put(struct synth_event *se);
unsigned synth_event_nfields(const struct synth_event *se);
const char *synth_event_name(const struct synth_event *se);
/* Whether field i is a string (char[N] or char[]): its value is then the text's address. */
bool synth_event_field_is_string(const struct synth_event *se, unsigned i);

/* Writes the event with one value per field, if it is on (or has triggers). Any context. */
void synth_event_emit(struct synth_event *se, const uint64_t *vals);

#endif
