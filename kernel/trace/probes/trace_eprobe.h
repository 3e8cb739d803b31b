/*
 * Event probes (trace_eprobe.c): `e:` lines of dynamic_events.
 */
#ifndef KERNEL_TRACE_PROBES_TRACE_EPROBE_H
#define KERNEL_TRACE_PROBES_TRACE_EPROBE_H

#include "dynamic_events.h"
#include <kernel/compiler.h>

struct seqbuf;

/*
 * Runs an e line, or a -: line that names an event probe, of dynamic_events. 0 or -errno;
 * a refused line with a reason adds error_log entries, as Linux does. Under the control
 * lock.
 */
int eprobe_run_command(const char *line);
/* Whether an event probe of that name (and group, unless NULL or empty) exists. */
bool eprobe_event_exists(const char *group, const char *name);
/* `> dynamic_events`: whether one is enabled (nothing may go then), and the removal of the
 * one made at order, if it is still there (0), or why it cannot go. */
bool eprobe_any_enabled(void);
int eprobe_remove_made_at(uint64_t order);
/* dynamic_events' e lines, mark called before each with the order it was made at. */
void eprobe_show_events_marked(struct seqbuf *s, dynamic_event_mark_fn mark, void *arg);

#endif
