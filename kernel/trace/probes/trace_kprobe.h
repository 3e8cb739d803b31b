/*
 * kprobe events (trace_kprobe.c) as their tracefs files (kprobe_files.c) drive them.
 */
#ifndef KERNEL_TRACE_PROBES_TRACE_KPROBE_H
#define KERNEL_TRACE_PROBES_TRACE_KPROBE_H

#include <kernel/compiler.h>

struct seqbuf;

/*
 * Runs one line of kprobe_events (or dynamic_events): makes or removes a probe. 0 or
 * -errno; a refused line with a reason adds an error_log entry, as Linux does.
 */
int kprobe_run_command(const char *line, bool dynamic_events);
/*
 * The same for code outside the ops of a tracefs file (self-tests, torture, benchmarks):
 * takes the pseudo file system's control mutex, which kprobe_run_command needs held
 * because it creates and removes event files.
 */
int kprobe_command(const char *line);
/* `> kprobe_events`: removes every probe, or none and -EBUSY when one is enabled. */
int kprobe_release_all(void);
/* kprobe_events' and kprobe_profile's text. */
void kprobe_show_events(struct seqbuf *s);
void kprobe_show_profile(struct seqbuf *s);
/* Hits of an event's places (kprobe_profile's first column); adds their misses to *missed. */
uint64_t kprobe_hits(const char *group, const char *name, uint64_t *missed);

#endif
