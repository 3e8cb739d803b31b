/*
 * Synthetic events (synth_events.c): events defined at run time in `synthetic_events`,
 * emitted by hist triggers' actions (hist_trigger.c) with values they computed.
 */
#ifndef KERNEL_TRACE_HIST_SYNTH_EVENTS_H
#define KERNEL_TRACE_HIST_SYNTH_EVENTS_H

#include <kernel/compiler.h>

#include "dynamic_events.h"

struct seqbuf;

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

/*
 * dynamic_events' s: lines (kernel/trace/dynamic_events.c). create takes the whole line
 * ("s:[synthetic/]NAME FIELDS"), logging Linux's errors against it; remove takes the name
 * and, if the line gave any, the fields that must be the event's (-ENOENT otherwise);
 * release_all removes every event in the order they were made, up to the first that cannot
 * go (its errno). show lists them as dynamic_events does, mark noting each line's order.
 */
int synth_event_dynamic_create(const char *line);
int synth_event_dynamic_remove(const char *name, const char *fields);
/* dynamic_events' `>`, one event at a time: removes the one made at order, if it is still
 * there (0), or says why it cannot go. */
int synth_event_remove_made_at(uint64_t order);
void synth_event_show_dynamic(struct seqbuf *s, dynamic_event_mark_fn mark, void *arg);

#endif
