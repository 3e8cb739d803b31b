/*
 * State the event core shares with its tracefs files (event_files.c), private to
 * kernel/trace/events/.
 */
#ifndef KERNEL_TRACE_EVENTS_EVENT_FILES_H
#define KERNEL_TRACE_EVENTS_EVENT_FILES_H

#include <kernel/compiler.h>
#include <kernel/synchronize.h>

struct seqbuf;
struct trace_array;
struct trace_event_call;
struct event_filter;

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
/* A pid file's data (set_event_pid, set_event_notrace_pid): its list and its array; the
 * file's ops, for an instance's copies (event_instances.c). */
struct trace_array;
struct trace_event_pids_file {
    struct trace_event_pids *list;
    struct trace_array *tr;
};
struct pfs_ops;
extern const struct pfs_ops trace_event_pids_ops;
/* A pid of an instance's lists changed (event_instances.c). */
void trace_event_instance_pids_changed(struct trace_array *tr);
/* Empties a pid list under the lock its other writers (fork following) take. */
void trace_event_pids_empty(struct trace_event_pids *l);
/* An instance's set_event_pid (which 0) or set_event_notrace_pid (1), by its slot. */
struct trace_event_pids *trace_event_instance_pid_list(unsigned slot, int which);
/* Whether an instance's pid lists let a record of pid (or of other_pid, -1 for none) in. */
bool trace_event_instance_pids_allow(unsigned slot, int pid, int other_pid);
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
/* The same in trace array tr (an instance's files). */
ssize_t trace_event_store_filter_in(const struct trace_event_call *call, struct trace_array *tr,
                                    const char *buf, size_t len);
ssize_t trace_event_store_system_filter_in(const char *system, struct trace_array *tr,
                                           const char *buf, size_t len);
/* An instance's filter of call (NULL: none), and its change (0 or -ENOMEM; the old one
 * is freed once no writer runs it). */
struct event_filter *trace_event_instance_filter(const struct trace_event_call *call,
                                                 const struct trace_array *tr);
int trace_event_instance_filter_install(const struct trace_event_call *call, struct trace_array *tr,
                                        struct event_filter *filter);
void trace_event_instance_filters_free(const struct trace_event_call *call);

/* A filter text was refused: its reason goes to error_log. */
struct event_filter_error;
/* Writers inside a filter check: a replaced or removed filter is freed after them. */
extern struct sync_readers trace_event_filter_readers;
/* Puts filter (NULL: none) in force on call and frees the one it replaces once no writer
 * can still be running it. */
void trace_event_filter_install(const struct trace_event_call *call, struct event_filter *filter);

/* Pieces the instance files share with the top level's (event_files.c). */
struct pfs_file;
void trace_event_set_bit(volatile uint8_t *b, uint8_t bit, bool on);
void trace_event_cmdlines_update(void);
/* An enable file takes 0 or 1 (Linux's kstrtoul, then EINVAL for anything else). */
int trace_event_parse_enable(const char *buf, size_t len, bool *on);
/* "0", "1" or "X" over the events of one system (NULL: every system) in tr. */
char trace_events_enable_state(const char *system, const struct trace_array *tr);
/* Every event of a system (NULL: all) in tr; the first error, after trying them all. */
int trace_events_enable_system(const char *system, struct trace_array *tr, bool on);
/* One word of set_event ("SYSTEM:EVENT", a system or an event) in tr; -EINVAL if none. */
int trace_events_set_word(char *word, struct trace_array *tr, bool on);
int trace_event_show_format(struct seqbuf *s, void *data);
/* A system's filter file's text (Linux's help: it shows no filter of its own). */
int trace_event_show_system_filter(struct seqbuf *s, void *data);
int trace_event_show_id(struct seqbuf *s, void *data);
/* A file whose text is made at open by show (f->priv), and its read and release. */
int trace_event_text_open(struct pfs_file *f, int (*show)(struct seqbuf *s, void *data));
ssize_t trace_event_text_read(struct pfs_file *f, char *buf, size_t len);
int trace_event_text_release(struct pfs_file *f);

/* Builds events/ (one folder per system and event) at boot. */
void trace_event_files_init(void);
/* One event's folder (and its system's, if new) for an event made at run time. */
int trace_event_files_create(const struct trace_event_call *call);
/* Removes them again (the system's when its last event goes); -EBUSY while one is open. */
int trace_event_files_remove(const struct trace_event_call *call);

#endif
