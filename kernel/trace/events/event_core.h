/*
 * The trace-event core, private to kernel/trace/. This is the interface other event
 * sources (kprobe events, the trace.dat export) build on:
 *
 * - An event is a `struct trace_event_call` in the .trace_events section (TRACE_EVENT_CALL,
 *   which event_define.h writes for each definition in include/kernel/events/):
 *   system, name, its fields (struct event_field, shared with the filter), Linux's print
 *   fmt text, and a printer for the body of its trace line. Its runtime state (id, enabled
 *   byte, filter) is a `struct trace_event_state` the definition points to.
 * - Records are in Linux's layout: struct trace_event_common first (u16 common_type, u8
 *   common_flags with Linux's bits, u8 common_preempt_count, s32 common_pid), the fields
 *   after it at the offsets of Linux 6.1's format file. Since the buffer is little-endian,
 *   the first u32 of such a record has its top nibble 0 (the preempt count's high nibble,
 *   Linux's migrate-disable depth, is always 0 here), which tells it apart from the
 *   tracer's compact records (trace_internal.h: their context word has type 1..5 in its
 *   top nibble).
 * - An emitter calls trace_event_reserve, fills its fields, and trace_event_commit, which
 *   runs the event's filter and discards a record that fails. Both are lock-free and safe
 *   in any context. The generated writers use their inline forms (event_write.h).
 */
#ifndef KERNEL_TRACE_EVENTS_EVENT_CORE_H
#define KERNEL_TRACE_EVENTS_EVENT_CORE_H

#include <kernel/compiler.h>
#include <kernel/trace_events.h>

#include "event_filter.h"
#include "trace_internal.h"

struct seqbuf;
struct rb_record;

/* Linux's common_flags bits. */
#define TRACE_EVENT_FLAG_IRQS_OFF 0x01
#define TRACE_EVENT_FLAG_NEED_RESCHED 0x04
#define TRACE_EVENT_FLAG_HARDIRQ 0x08
#define TRACE_EVENT_FLAG_SOFTIRQ 0x10
#define TRACE_EVENT_FLAG_PREEMPT_RESCHED 0x20
#define TRACE_EVENT_FLAG_NMI 0x40

struct trace_event_common {
    uint16_t type;
    uint8_t flags;
    uint8_t preempt_count;
    int32_t pid;
};
_Static_assert(sizeof(struct trace_event_common) == 8, "Linux's common fields are 8 bytes");

/* ftrace's own events have Linux's fixed ids; the others are numbered from here at boot. */
enum {
    TRACE_EVENT_ID_FUNCTION = 1,
    TRACE_EVENT_ID_CONTEXT_SWITCH = 2,
    TRACE_EVENT_ID_WAKEUP = 3,
    TRACE_EVENT_ID_KERNEL_STACK = 4,
    TRACE_EVENT_ID_PRINT = 5,
    TRACE_EVENT_ID_BPRINT = 6,
    TRACE_EVENT_ID_FUNCGRAPH_EXIT = 10,
    TRACE_EVENT_ID_FUNCGRAPH_ENTRY = 11,
    TRACE_EVENT_ID_BPUTS = 14,
    TRACE_EVENT_ID_HWLAT = 15,
    TRACE_EVENT_ID_OSNOISE = 16,
    TRACE_EVENT_ID_TIMERLAT = 17,
    TRACE_EVENT_ID_RAW_DATA = 18,
    TRACE_EVENT_ID_FIRST_DYNAMIC = 20, /* past Linux's __TRACE_LAST_TYPE */
};

/* commit_flags: why a record of the event cannot be committed inline. */
#define TRACE_EVENT_COMMIT_FILTERED 0x1  /* it has a filter */
#define TRACE_EVENT_COMMIT_TRIGGERS 0x2  /* its triggers look at the record (event_trigger.c) */
#define TRACE_EVENT_COMMIT_STACK 0x4     /* options/stacktrace: a kernel stack after it */
#define TRACE_EVENT_COMMIT_INSTANCES 0x8 /* instances record it too (event_instances.c) */

/* trigger_flags: how the event's triggers run (event_trigger.c). */
#define TRACE_EVENT_TRIGGERS_UNCOND 0x1 /* all of them, before the record, without it */
#define TRACE_EVENT_TRIGGERS_COND 0x2   /* all of them on the record (a filter, or one after it) */

struct event_trigger;

/* An event's state in one instance beyond its enable: its filter, its triggers (read by
 * the instance's copy on the write path, as the top level's are) and its soft-mode users. */
struct trace_event_instance_state {
    struct event_filter *volatile filter;
    struct event_trigger *volatile triggers;
    unsigned soft_users;
};

struct trace_event_state {
    uint16_t id;
    /* Non-zero: trace_event_commit_on goes out of line. Tested where the filter pointer
     * was, so that an event with none of these costs what it did. */
    volatile uint8_t commit_flags;
    volatile uint8_t trigger_flags;
    volatile uint8_t *enabled;   /* the byte the tracepoint tests (trace_events.h) */
    struct event_filter *filter; /* NULL: every record passes; swapped under the files' lock */
    /* The event's triggers, newest first; read without a lock by the writers of the event,
     * edited under the trigger lock and freed after a wait for those readers. */
    struct event_trigger *volatile triggers;
    /* Soft mode (Linux's SOFT_MODE): users that need the emitter to run even while the
     * event records nothing (its own triggers, enable_event/disable_event aimed at it). */
    unsigned soft_users;
    /* The trace instances it records in, and those it is in soft mode in (triggers), a bit
     * per instance slot (event_instances.c); the write path reads them without a lock. */
    volatile uint32_t instance_mask;
    volatile uint32_t instance_soft_mask;
    /* Its state in each instance slot: NULL until an instance first needs one. */
    struct trace_event_instance_state *volatile per_instance;
    /* Event probes made on the event: it cannot be removed while one exists. */
    unsigned probe_users;
    /* The probes on its tracepoint (trace_event_tp_probe_attach), in the order attached;
     * read by the tracepoint without a lock. */
    struct trace_event_tp_probe *volatile tp_probes;
};

struct trace_event_call;
/*
 * Events made at run time (kprobe events) print with their call at hand, and may need
 * work to start and stop being emitted (a kprobe patches its call site): reg runs, in
 * process context, before an enable and after a disable takes effect on the enabled byte.
 */
typedef void (*trace_event_print_call_fn)(struct seqbuf *s, const struct trace_event_call *call,
                                          const void *record, size_t len);
typedef int (*trace_event_reg_fn)(const struct trace_event_call *call, bool on);

#define TRACE_EVENT_FL_FTRACE 0x1  /* ftrace's own: format and id files only, no enable */
#define TRACE_EVENT_FL_NO_NAME 0x2 /* the line has no "name: " (bprint, bputs) */
/* ftrace's print: trace_marker runs its triggers, so it has a trigger file (Linux's
 * trace_marker_file) */
#define TRACE_EVENT_FL_MARKER 0x4
/* A kprobe, fprobe or event probe: an event probe cannot attach to it (as on Linux) */
#define TRACE_EVENT_FL_PROBE 0x8

struct trace_event_call {
    const char *system;
    const char *name;
    const struct event_field *fields; /* the event's own, after the common ones */
    size_t nfields;
    const char *print_fmt; /* Linux's, verbatim */
    /* The body of the trace line, after "name: ", newline included. */
    void (*print)(struct seqbuf *s, const void *record, size_t len);
    struct trace_event_state *state;
    uint16_t fixed_id; /* 0: numbered at boot */
    uint16_t order;    /* place in available_events (Linux's order), lowest first */
    unsigned flags;
    trace_event_print_call_fn print_call; /* instead of print, for events made at run time */
    trace_event_reg_fn reg;               /* NULL: the enabled byte is all there is */
    void (*place_fields)(void);           /* sets fields' offsets at boot (event_define.h) */
    /* The C arguments of its tracepoint (TP_PROTO), which tracepoint probes read as $argN;
     * 0 for events no tracepoint emits with arguments (ftrace's own, those made at run
     * time). */
    uint8_t tp_nargs;
};

/*
 * Defines an event with its state. `enabled` is the byte its public tracepoint tests
 * (&trace_event_on_NAME, defined with TRACE_EVENT_ENABLED_BYTE), or NULL for events no
 * tracepoint emits (ftrace's own, written by the tracers).
 */
#define TRACE_EVENT_CALL(id_, enabled_, ...)                                                       \
    static struct trace_event_state trace_event_state_##id_ = {.enabled = (enabled_)};             \
    static const struct trace_event_call trace_event_call_##id_ __used __section(".trace_events")  \
        __aligned(8) = {.state = &trace_event_state_##id_, __VA_ARGS__}
#define TRACE_EVENT_ENABLED_BYTE(name) volatile uint8_t trace_event_on_##name

/*
 * Events made at run time: trace_event_add gives call an id and its files under
 * events/SYSTEM/NAME/ (and the system's, if it is new); it is listed first, newest first,
 * as Linux lists dynamic events. trace_event_remove takes them away again: -EBUSY while
 * it is enabled or one of its files is open. Once it returns, no reader prints with call,
 * so the caller may free it. Both from process context, serialised by the caller (the
 * shell makes tracefs writes one at a time). -ENOSPC when the table is full.
 */
int trace_event_add(struct trace_event_call *call);
/* trace_marker's text, just recorded in tr at ts by the code at ip, to tr's triggers on
 * print; with preemption off. */
void trace_event_marker_triggers(struct trace_array *tr, unsigned long ip, const char *text,
                                 size_t len, uint64_t ts);
/*
 * A scratch slot of this CPU for a record only triggers see, as the write path builds one
 * for an event that records nothing: NULL when the record is larger than the ring buffer
 * takes or every nesting level is in use. The caller keeps its CPU until it gives the slot
 * back with trace_event_scratch_put.
 */
void *trace_event_scratch_get(struct percpu *cpu, size_t size);
void trace_event_scratch_put(struct percpu *cpu);
int trace_event_remove(struct trace_event_call *call);

/*
 * Event probes (kernel/trace/probes/trace_eprobe.c). An event probe holds its attached
 * event with trace_event_probe_hold (on) from its making to its removal. While it is
 * enabled it is attached: fire(data, record, size) runs on every record of call that
 * passes filter (NULL: every one; the attachment owns it), from the event's writer, in
 * any context, whether or not call itself records (call is in soft mode meanwhile, as
 * Linux's event probes attach through a trigger). Detaching returns once no fire with
 * data can still run. Process context, under the control lock.
 */
typedef void (*trace_event_probe_fn)(void *data, const void *record, size_t size);
void trace_event_probe_hold(const struct trace_event_call *call, bool on);
int trace_event_probe_attach(const struct trace_event_call *call, trace_event_probe_fn fire,
                             void *data, struct event_filter *filter);
void trace_event_probe_detach(const struct trace_event_call *call, void *data);

/*
 * Tracepoint probes (t: lines, kernel/trace/probes/trace_kprobe.c), Linux's probes on a
 * tracepoint's callback: while one is attached to an event's tracepoint the emitter
 * (event_define.h) calls the event's __probestub_NAME with the tracepoint's arguments, and
 * that runs fire for every probe attached, with the stub's address as ip and the arguments
 * as words, on the tracepoint's CPU and context, one preemption level deeper (the walk of
 * the list keeps the CPU, as Linux's tracepoint callbacks run under their own
 * preempt_disable). The probe is the caller's (embedded in its own structure: attaching
 * allocates nothing). Attaching the first probe of an event calls its reg, which must then
 * count its users and not sleep (preemptirq's turns its latency hooks on); detaching
 * returns once no fire of that probe can still run. Process context.
 */
struct trace_event_tp_probe {
    struct trace_event_tp_probe *volatile next;
    void (*fire)(struct trace_event_tp_probe *probe, unsigned long ip, const unsigned long *args,
                 unsigned nargs);
};
int trace_event_tp_probe_attach(const struct trace_event_call *call,
                                struct trace_event_tp_probe *probe);
void trace_event_tp_probe_detach(const struct trace_event_call *call,
                                 struct trace_event_tp_probe *probe);
void trace_event_tp_probes_run(const struct trace_event_call *call, unsigned long ip,
                               const unsigned long *args, unsigned nargs);
/* The event whose tracepoint has that name (Linux's tracepoint names are the events'), or
 * NULL. */
const struct trace_event_call *trace_event_find_tracepoint(const char *name);

/* Every event, in the order available_events lists them. */
size_t trace_event_count(void);
const struct trace_event_call *trace_event_at(size_t i);
const struct trace_event_call *trace_event_by_id(unsigned id);
const struct trace_event_call *trace_event_find(const char *system, const char *name);

/*
 * Reserves a record of `size` bytes for `call` on this CPU and fills its common fields.
 * NULL when the event must not record now: tracing off, CPU outside tracing_cpumask, or
 * set_event_pid / set_event_notrace_pid rule out both the current thread and other_pid
 * (a second thread the event is about, such as sched_switch's next; -1 for none).
 */
void *trace_event_reserve(const struct trace_event_call *call, size_t size, int other_pid,
                          struct rb_reservation *res);
/* Commits the record, or discards it if the event's filter rejects it. */
void trace_event_commit(const struct trace_event_call *call, void *record, size_t size,
                        struct rb_reservation *res);

/* Reader side: a record whose first u32 has top nibble 0. */
static inline bool trace_event_is_full_record(const void *data)
{
    return (*(const uint32_t *)data >> 28) == 0;
}
/* "name: body\n" of a full record; false for an unknown id. */
bool trace_event_print_record(struct seqbuf *s, const struct rb_record *rec);
/* The five flag columns of a full record, as trace_print_flags prints a compact one. */
void trace_event_print_flags(struct seqbuf *s, const void *record);

/*
 * Trace instances (event_instances.c). trace_event_instance_enable turns call on or off in
 * tr's events/ (process context, as trace_event_enable); trace_event_instances_write copies
 * a record just written (or built) for call into every instance it is on in (the commit's
 * out-of-line path, any context); trace_event_instance_count keeps the write path's slow
 * check on while any event is on in an instance.
 */
int trace_event_instance_enable(const struct trace_event_call *call, struct trace_array *tr,
                                bool on);
bool trace_event_instance_is_enabled(const struct trace_event_call *call,
                                     const struct trace_array *tr);
void trace_event_instances_write(const struct trace_event_call *call, const void *record,
                                 size_t size, int other_pid, uintptr_t frame);
/* A bit per instance slot whose set_event_pid or set_event_notrace_pid is not empty. */
extern volatile uint32_t trace_event_instances_with_pids;
void trace_event_instance_count(bool entering);
/* Empties tr's set_event_pid and set_event_notrace_pid. */
void trace_event_instance_pids_empty(struct trace_array *tr);
/* Every event off in tr, and its filters and triggers gone (its rmdir). */
void trace_event_instance_disable_all(struct trace_array *tr);
/* call's state in tr; made (all zero) when make is true and there is none: NULL then only
 * when memory is short. */
struct trace_event_instance_state *trace_event_instance_state(const struct trace_event_call *call,
                                                              const struct trace_array *tr,
                                                              bool make);
/* Soft mode in an instance, counted as trace_event_soft_mode; and the enable_event and
 * disable_event triggers' switch there (any context; nothing outside soft mode). */
int trace_event_instance_soft_mode(const struct trace_event_call *call, struct trace_array *tr,
                                   bool on);
void trace_event_instance_soft_set(const struct trace_event_call *call,
                                   const struct trace_array *tr, bool record);
bool trace_event_instance_in_soft_mode(const struct trace_event_call *call,
                                       const struct trace_array *tr);
/* The per-instance table of a removed event, freed (its filters with it). */
void trace_event_instance_states_free(const struct trace_event_call *call);
/* tr's events/ folders (its mkdir; set_event and events/enable are made with the files
 * every trace array has): 0 or -ENOMEM. */
int trace_event_instance_files_create(struct trace_array *tr, struct pfs_node *dir);
/* An event made or removed at run time, in every instance (-EBUSY while a file of it is
 * open in one; nothing removed then). */
void trace_event_instances_add_call(const struct trace_event_call *call);
bool trace_event_instances_call_busy(const struct trace_event_call *call);
void trace_event_instances_remove_call(const struct trace_event_call *call);

/* Whether its emitter runs for anyone: the top level, soft mode or an instance. */
bool trace_event_is_emitting(const struct trace_event_call *call);
/* Enabling: 1 on, 0 off; changes the event's enabled byte (and what it implies). */
int trace_event_enable(const struct trace_event_call *call, bool on);
/* Whether the event records (TRACE_EVENT_ON_RECORD): on, and not soft-disabled. */
bool trace_event_is_enabled(const struct trace_event_call *call);
/* Whether its emitter runs at all: recording or in soft mode (Linux's ENABLED flag, which
 * set_event and a system's enable file go by). */
bool trace_event_is_registered(const struct trace_event_call *call);
bool trace_event_in_soft_mode(const struct trace_event_call *call);
/*
 * Soft mode, counted: the first user puts the event in it (its emitter runs whether or
 * not it records), the last takes it out again; an event that was not recording when it
 * entered soft mode and is not recording when it leaves is turned off. Process context,
 * as trace_event_enable.
 */
int trace_event_soft_mode(const struct trace_event_call *call, bool on);
/* enable_event/disable_event firing: recording on or off without leaving soft mode. Any
 * context; a no-op outside soft mode. */
void trace_event_soft_set(const struct trace_event_call *call, bool record);
/* The format file's text. */
void trace_event_print_format(struct seqbuf *s, const struct trace_event_call *call);

/* The saved_cmdlines cache: records comm for pid, from any context (skips if busy). */
void trace_event_save_cmdline(int pid, const char *comm);
/* The same for a thread's name: 16 bytes, zero-padded (the scheduler's fast case). */
void trace_event_save_thread_cmdline(int pid, const char comm[16]);
/* The name saved_cmdlines holds for pid, if any (any context, no lock). */
bool trace_cmdline_lookup(int pid, char *buf, size_t len);

/* Whether a tracer (not nop) is on: it keeps saved_cmdlines refreshed at each switch too. */
void trace_event_save_cmdlines_for_tracer(bool on);

/* A string field copied into a record (comm): zero-padded, as Linux's memcpy of comm. */
void trace_event_copy_comm(char dst[16], const char *src);

/* Printers' helpers for TP_printk (event_define.h). The string of a __string field, or ""
 * if its __data_loc points outside the record of len bytes. */
const char *trace_event_get_str(const void *record, size_t len, uint32_t data_loc);
/* __print_flags: the names of value's flags joined by delim, and the bits no name covers
 * in hex, into buf; the table ends with a NULL name. */
struct trace_event_flag_name {
    unsigned long mask;
    const char *name;
};
const char *trace_event_flags_str(char *buf, size_t size, unsigned long value, const char *delim,
                                  const struct trace_event_flag_name *names);

/* Recomputes whether sched_process_fork/free must run for options/event-fork and
 * options/function-fork (after either option or either pid list changes). */
void trace_event_update_follow(void);

#endif
