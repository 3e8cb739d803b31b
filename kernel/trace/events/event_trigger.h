/*
 * Event triggers (event_trigger.c): the events/SYS/EVENT/trigger files and what runs when
 * an event with triggers fires. Private to kernel/trace/events/.
 *
 * The write path reaches them only out of line and only for an event in soft mode (its
 * enabled byte has TRACE_EVENT_ON_TRIGGER, and trace_event_slow_checks sends every
 * reservation to trace_event_reserve_slow), so an event without triggers pays nothing.
 */
#ifndef KERNEL_TRACE_EVENTS_EVENT_TRIGGER_H
#define KERNEL_TRACE_EVENTS_EVENT_TRIGGER_H

#include <kernel/compiler.h>
#include <kernel/synchronize.h>

struct seqbuf;
struct trace_event_call;

/* The write path (any context, no lock, no allocation). */
/* TRACE_EVENT_TRIGGERS_UNCOND: every trigger, before any record exists. */
void event_triggers_call_uncond(const struct trace_event_call *call);
/*
 * The time of a record that is in no buffer (built for triggers or instances only): now,
 * read in the trigger's trace clock by the first trigger that uses it (a hist trigger with
 * common_timestamp), at most once per event; most never read it, and the clock is the
 * dearest part of the trigger path under emulation.
 */
#define EVENT_TRIGGER_TS_NOW UINT64_MAX
/* TRACE_EVENT_TRIGGERS_COND: those whose filter the record passes (ts: its time, for hist
 * triggers' common_timestamp, or EVENT_TRIGGER_TS_NOW); the ones that must run after the
 * record is committed are returned (a mask of trigger types) instead. */
unsigned event_triggers_call(const struct trace_event_call *call, const void *record, size_t size,
                             uint64_t ts);
/* Runs the returned ones; frame is the committing function's, for a stack trace. */
void event_triggers_post_call(const struct trace_event_call *call, unsigned types, uintptr_t frame);
/* The same two over any list (an instance's, event_instances.c). */
struct event_trigger;
unsigned event_triggers_run(struct event_trigger *volatile *head, const void *record, size_t size,
                            uint64_t ts);
void event_triggers_post_run(struct event_trigger *volatile *head, unsigned types, uintptr_t frame);

/* Writers holding a record built outside the ring buffer (event_core.c). */
extern struct sync_readers trace_event_scratch_writers;

/* The trigger file of an event (data: its call). */
int trace_event_trigger_show(struct seqbuf *s, void *data);
ssize_t trace_event_trigger_store(void *data, const char *buf, size_t len);

/* `>` on the trigger file: the hist, enable_hist and disable_hist triggers go (Linux's
 * unreg_all). */
void trace_event_trigger_truncate(const struct trace_event_call *call);
/* The hist file of an event (data: its call). */
int trace_event_hist_show(struct seqbuf *s, void *data);

/* The same files of an event in trace array tr (an instance's), and the removal of every
 * trigger an instance has (its rmdir). */
struct trace_array;
int trace_event_trigger_show_in(struct seqbuf *s, const struct trace_event_call *call,
                                const struct trace_array *tr);
ssize_t trace_event_trigger_store_in(const struct trace_event_call *call, struct trace_array *tr,
                                     const char *buf, size_t len);
void trace_event_trigger_truncate_in(const struct trace_event_call *call, struct trace_array *tr);
int trace_event_hist_show_in(struct seqbuf *s, const struct trace_event_call *call,
                             const struct trace_array *tr);
/* false: some are left (a hist trigger whose variables another one still reads). */
bool trace_event_instance_triggers_clear(struct trace_array *tr);

/* Whether call has triggers, or is the target of one (it cannot be removed then). */
bool trace_event_has_triggers(const struct trace_event_call *call);

/* The soft-mode count of events, for the write path's slow check (event_core.c). */
void trace_event_soft_mode_count(bool entering);

/* options/stacktrace changed: every event's commit goes out of line, or no longer. */
void trace_event_stacktrace_option(bool on);

#endif
