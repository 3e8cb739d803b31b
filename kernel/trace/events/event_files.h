/*
 * State the event core shares with its tracefs files (event_files.c), private to
 * kernel/trace/events/.
 */
#ifndef KERNEL_TRACE_EVENTS_EVENT_FILES_H
#define KERNEL_TRACE_EVENTS_EVENT_FILES_H

#include <kernel/compiler.h>
#include <kernel/synchronize.h>

struct seqbuf;

/* set_event_pid and set_event_notrace_pid. */
enum { TRACE_EVENT_PIDS_TRACE, TRACE_EVENT_PIDS_NOTRACE };
#define TRACE_EVENT_PIDS_MAX 64
struct trace_event_pids {
    volatile unsigned count;
    volatile int pids[TRACE_EVENT_PIDS_MAX];
};
extern struct trace_event_pids trace_event_pids[2];
/* After a change of either list: refreshes the write path's fast check. */
void trace_event_pids_changed(void);
/* Adds or removes pid in a list from the fork-following hooks; any context. */
void trace_event_pids_follow(int parent, int child);
void trace_event_pids_forget(int pid);

/* saved_cmdlines: Linux's default size in the 6.1 kernel the references come from. */
#define TRACE_CMDLINES_DEFAULT 6552
#define TRACE_CMDLINES_MAX 32768 /* Linux's PID_MAX_DEFAULT */
int trace_cmdlines_resize(unsigned long size);
unsigned trace_cmdlines_size(void);
/* "pid comm" lines (saved_cmdlines), or "pid tgid" (saved_tgids). */
void trace_cmdlines_show(struct seqbuf *s, bool tgids);

/* Writes to an event's filter file (data: its call) and a system's (data: its name). */
ssize_t trace_event_store_filter(void *data, const char *buf, size_t len);
ssize_t trace_event_store_system_filter(void *data, const char *buf, size_t len);

/* A filter text was refused: its reason goes to error_log. */
struct event_filter_error;
/* Writers inside a filter check: a replaced or removed filter is freed after them. */
extern struct sync_readers trace_event_filter_readers;
/* Puts filter (NULL: none) in force on call and frees the one it replaces once no writer
 * can still be running it. */
void trace_event_filter_install(const struct trace_event_call *call, struct event_filter *filter);

/* Builds events/ (one folder per system and event) at boot. */
void trace_event_files_init(void);
/* One event's folder (and its system's, if new) for an event made at run time. */
int trace_event_files_create(const struct trace_event_call *call);
/* Removes them again (the system's when its last event goes); -EBUSY while one is open. */
int trace_event_files_remove(const struct trace_event_call *call);

#endif
