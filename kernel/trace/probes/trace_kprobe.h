/*
 * kprobe events (trace_kprobe.c) as their tracefs files (kprobe_files.c) drive them.
 */
#ifndef KERNEL_TRACE_PROBES_TRACE_KPROBE_H
#define KERNEL_TRACE_PROBES_TRACE_KPROBE_H

#include "dynamic_events.h"
#include <kernel/compiler.h>

struct seqbuf;
struct pt_regs;
struct kprobe_place;

/* ---- between trace_kprobe.c and the int3 sites of kprobe_int3.c ---- */

/*
 * Whether addr can take an int3 probe: 0, or an errno with *why the error_log message
 * (NULL for the default). Called when a line is parsed, before anything is allocated.
 */
int kprobe_site_check(unsigned long addr, const char **why);
/* Whether addr is on the blacklist (/sys/kernel/debug/kprobes/blacklist). */
bool kprobe_blacklisted(unsigned long addr);
/* Arms a place by int3 (its site is shared with other places at the same address). */
int kprobe_site_attach(struct kprobe_place *p);
/* Disarms it; when it returns no handler and no CPU in the site's slot holds the place. */
void kprobe_site_detach(struct kprobe_place *p);
/* The place's address. */
unsigned long kprobe_place_addr(const struct kprobe_place *p);
/* One hit of a place: counts it and writes its record, or counts a miss. */
void kprobe_place_fire(struct kprobe_place *p, struct pt_regs *regs, unsigned long addr,
                       bool missed);
/* Marks the CPU as running probe handlers; false if it already is (the hit is a miss). */
bool kprobe_cpu_enter(unsigned cpu);
void kprobe_cpu_exit(unsigned cpu);
/* Self-tests see each int3 hit's frame here (with the CPU marked as in a handler). */
extern void (*kprobe_int3_test_hook)(const struct pt_regs *regs, unsigned long addr);
/* /sys/kernel/debug/kprobes/list: kprobe_show_armed calls kprobe_list_line per armed place. */
void kprobe_show_armed(struct seqbuf *s);
void kprobe_list_line(struct seqbuf *s, unsigned long addr, bool ftrace);

/*
 * Runs one line of kprobe_events (or dynamic_events): makes or removes a probe. 0 or
 * -errno; a refused line with a reason adds an error_log entry, as Linux does.
 */
int kprobe_run_command(const char *line, bool dynamic_events);
/*
 * The same for code outside the ops of a tracefs file (self-tests, torture, benchmarks),
 * with the lines dynamic_events takes (fprobes too): takes the pseudo file system's
 * control mutex, which kprobe_run_command needs held because it creates and removes event
 * files.
 */
int kprobe_command(const char *line);
/* `> kprobe_events`: removes every kprobe (not the fprobes), or none and -EBUSY when one is
 * enabled. */
int kprobe_release_all(void);
/* `> dynamic_events`: whether a kprobe or fprobe is enabled (nothing may go then), and the
 * removal of the event whose place was made at order, if it is still there (0), or why it
 * cannot go. */
bool kprobe_any_enabled(void);
int kprobe_remove_made_at(uint64_t order);
/* kprobe_events' and kprobe_profile's text. */
void kprobe_show_events(struct seqbuf *s);
/* dynamic_events' p, r and f lines, mark called before each line with the order its place
 * was made at. */
void kprobe_show_events_marked(struct seqbuf *s, dynamic_event_mark_fn mark, void *arg);
/* Whether a kprobe or fprobe event of that name (and group, unless NULL or empty) exists. */
bool kprobe_event_exists(const char *group, const char *name);
void kprobe_show_profile(struct seqbuf *s);
/* Hits of an event's places (kprobe_profile's first column); adds their misses to *missed. */
uint64_t kprobe_hits(const char *group, const char *name, uint64_t *missed);

#endif
