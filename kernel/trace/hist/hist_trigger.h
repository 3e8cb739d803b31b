/*
 * Hist triggers (hist_trigger.c): what a `hist:...` command on an event's trigger file
 * builds, fills as the event fires, and prints in its `hist` file. The trigger list, soft
 * mode, filters and the `!`/EEXIST rules stay with the other triggers in
 * kernel/trace/events/event_trigger.c, which calls these.
 */
#ifndef KERNEL_TRACE_HIST_HIST_TRIGGER_H
#define KERNEL_TRACE_HIST_HIST_TRIGGER_H

#include <kernel/compiler.h>

struct seqbuf;
struct trace_event_call;
struct hist_trigger;

/* What the command asks of an existing histogram instead of making one. */
#define HIST_ATTR_PAUSE 0x1
#define HIST_ATTR_CONT 0x2
#define HIST_ATTR_CLEAR 0x4

/*
 * Parses spec (the text after "hist:", without its " if FILTER") for call's fields.
 * command is the whole command as error_log shows it ("hist:keys=..."): a refusal logs
 * Linux's message with a caret into it and returns Linux's errno. Process context.
 */
struct trace_array;
int hist_trigger_create(const struct trace_event_call *call, struct trace_array *tr, char *spec,
                        const char *command, struct hist_trigger **out);
/* Before a new trigger goes in: its table (allocated now, or its name's), the trace clock. */
int hist_trigger_activate(struct hist_trigger *h, const char *command);
void hist_trigger_free(struct hist_trigger *h);

/* Whether h reads its events' time (common_timestamp in a key, value, variable or action). */
bool hist_trigger_uses_time(const struct hist_trigger *h);
/* HIST_ATTR_* given in the command. */
unsigned hist_trigger_attrs(const struct hist_trigger *h);
/* Whether a and b are the same histogram for `!`, EEXIST, pause/continue/clear (Linux's
 * hist_trigger_match: keys, values and sort; not the size). */
bool hist_trigger_match(const struct hist_trigger *a, const struct hist_trigger *b);

/* One event: the record of size bytes, written at ts (the trace clock's), any context, no
 * lock, no allocation. True when the record's commit must be followed by hist_trigger_post. */
bool hist_trigger_fire(struct hist_trigger *h, const void *record, size_t size, uint64_t ts);
/* After the commit of a record hist_trigger_fire asked it for, on the same CPU: the
 * .snapshot() swap of a new maximum, which inside the event would find this CPU halfway
 * through its record. */
void hist_trigger_post(struct hist_trigger *h);
/* Whether another trigger's $references read h's variables (h cannot go then: EBUSY). */
bool hist_trigger_busy(const struct hist_trigger *h);

void hist_trigger_set_paused(struct hist_trigger *h, bool paused);
bool hist_trigger_paused(const struct hist_trigger *h);
/* Empties the table; the caller has made sure no event is inside hist_trigger_fire. */
void hist_trigger_clear(struct hist_trigger *h);

/* The trigger file's line: "hist:keys=...:size=N[ if FILTER] [active]\n". */
void hist_trigger_print_spec(struct seqbuf *s, const struct hist_trigger *h,
                             const char *filter_text);
/* The hist file's part for h, the n-th histogram of the event (from 0). */
void hist_trigger_show(struct seqbuf *s, const struct hist_trigger *h, const char *filter_text,
                       unsigned n);

#endif
