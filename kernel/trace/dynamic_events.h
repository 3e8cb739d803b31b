/*
 * dynamic_events (dynamic_events.c): the one file that lists and takes every kind of event
 * made at run time, as Linux 6.1's: kprobe lines (kernel/trace/probes/) and `s:` lines for
 * synthetic events (kernel/trace/hist/synth_events.c), listed in the order they were made.
 */
#ifndef KERNEL_TRACE_DYNAMIC_EVENTS_H
#define KERNEL_TRACE_DYNAMIC_EVENTS_H

#include <kernel/compiler.h>

struct seqbuf;

/*
 * Runs one dynamic_events line (any kind, or a removal) for code outside the file's ops
 * (torture, self-tests): takes the pseudo file system's control mutex, as a write does.
 */
int dynamic_events_command(const char *line);

/* The next creation order number: each kind stamps what it makes with one. */
uint64_t dynamic_event_order(void);

/* A line-listing callback's note: the line that starts at `at` of the listing was made at
 * `order`. */
typedef void (*dynamic_event_mark_fn)(void *arg, uint64_t order, size_t at);

#endif
