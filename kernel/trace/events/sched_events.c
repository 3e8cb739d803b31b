/*
 * sched: the scheduler's events, with Linux 6.1's fields, format files and text.
 *
 * Every thread has Linux's default priority (120). Threads never migrate here, so
 * sched_migrate_task exists (tools expect it) but is never emitted.
 */
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_files.h"
#include "trace_internal.h"

#define SCHED_PRIO_DEFAULT 120

/* Linux's task state bits as sched_switch reports them (TASK_REPORT), and "preempted". */
#define SCHED_STATE_S 0x01
#define SCHED_STATE_X 0x10
#define SCHED_STATE_Z 0x20
#define SCHED_STATE_PREEMPTED 0x100 /* TASK_REPORT_MAX: printed as "R+" */

#define FIELD_COMM(name_, off)                                                                     \
    {                                                                                              \
        "char[16]", name_, off, 16, true, EVENT_FIELD_CHAR_ARRAY                                   \
    }
#define FIELD_S32(type_, name_, off)                                                               \
    {                                                                                              \
        type_, name_, off, 4, true, EVENT_FIELD_INT                                                \
    }

/* The comm an event shows: the idle threads are Linux's swapper/N. */
static void sched_comm(char dst[16], const struct thread *t)
{
    if (t->is_idle) {
        char buf[16];
        snprintf(buf, sizeof(buf), "swapper/%u", t->cpu);
        trace_event_copy_comm(dst, buf);
    } else {
        trace_event_copy_comm(dst, t->name);
    }
}

static void print_comm(struct seqbuf *s, const char comm[16])
{
    seq_write(s, comm, strnlen(comm, 16));
}

/* ---- sched_switch ---- */

struct sched_switch_record {
    struct trace_event_common common;
    char prev_comm[16];
    int32_t prev_pid;
    int32_t prev_prio;
    int64_t prev_state;
    char next_comm[16];
    int32_t next_pid;
    int32_t next_prio;
};
_Static_assert(sizeof(struct sched_switch_record) == 64, "sched_switch: Linux's 64 bytes");

static const struct event_field sched_switch_fields[] = {
    FIELD_COMM("prev_comm", 8),        FIELD_S32("pid_t", "prev_pid", 24),
    FIELD_S32("int", "prev_prio", 28), {"long", "prev_state", 32, 8, true, EVENT_FIELD_INT},
    FIELD_COMM("next_comm", 40),       FIELD_S32("pid_t", "next_pid", 56),
    FIELD_S32("int", "next_prio", 60),
};

static void print_sched_switch(struct seqbuf *s, const void *record, size_t len)
{
    static const char state_chars[] = "SDTtXZPI";
    const struct sched_switch_record *r = record;
    seq_puts(s, "prev_comm=");
    print_comm(s, r->prev_comm);
    seq_printf(s, " prev_pid=%d prev_prio=%d prev_state=", r->prev_pid, r->prev_prio);
    unsigned state = (unsigned)r->prev_state & 0xff;
    if (!state) {
        seq_putc(s, 'R');
    } else {
        bool first = true;
        for (unsigned b = 0; b < 8; b++) {
            if (!(state & (1u << b)))
                continue;
            if (!first)
                seq_putc(s, '|');
            seq_putc(s, state_chars[b]);
            first = false;
        }
    }
    if (r->prev_state & SCHED_STATE_PREEMPTED)
        seq_putc(s, '+');
    seq_puts(s, " ==> next_comm=");
    print_comm(s, r->next_comm);
    seq_printf(s, " next_pid=%d next_prio=%d\n", r->next_pid, r->next_prio);
}

TRACE_EVENT_ENABLED_BYTE(sched_switch);
TRACE_EVENT_CALL(
    sched_switch, &trace_event_on_sched_switch, .system = "sched", .name = "sched_switch",
    .fields = sched_switch_fields, .nfields = ARRAY_SIZE(sched_switch_fields),
    .print = print_sched_switch, .order = 305,
    .print_fmt = "\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
                 "next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, "
                 "REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | "
                 "0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | "
                 "0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & "
                 "((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
                 "0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { "
                 "0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { "
                 "0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { "
                 "0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & "
                 "(((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
                 "0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", "
                 "REC->next_comm, REC->next_pid, REC->next_prio");

/* Linux's report of the thread being switched out. */
static int64_t sched_switch_state(const struct thread *prev)
{
    switch (prev->state) {
    case THREAD_SLEEPING:
        return SCHED_STATE_S;
    case THREAD_DEAD:
        /* A joinable thread waits for its joiner as a zombie; a detached one is gone. */
        return prev->detached ? SCHED_STATE_X : SCHED_STATE_Z;
    case THREAD_READY:
        return SCHED_STATE_PREEMPTED; /* it was running and still wants the CPU */
    default:
        return 0;
    }
}

void trace_event_emit_sched_switch(struct thread *prev, struct thread *next)
{
    uint8_t on = trace_event_on_sched_switch;
    if (on & (TRACE_EVENT_ON_CMDLINE | TRACE_EVENT_ON_CMDLINE_TRACER)) {
        trace_event_save_cmdline(prev->pid, prev->name);
        trace_event_save_cmdline(next->pid, next->name);
    }
    if (!(on & TRACE_EVENT_ON_RECORD))
        return;
    struct rb_reservation res;
    struct sched_switch_record *r =
        trace_event_reserve(&trace_event_call_sched_switch, sizeof(*r), next->pid, &res);
    if (!r)
        return;
    sched_comm(r->prev_comm, prev);
    r->prev_pid = prev->pid;
    r->prev_prio = SCHED_PRIO_DEFAULT;
    r->prev_state = sched_switch_state(prev);
    sched_comm(r->next_comm, next);
    r->next_pid = next->pid;
    r->next_prio = SCHED_PRIO_DEFAULT;
    trace_event_commit(&trace_event_call_sched_switch, r, sizeof(*r), &res);
}

/* ---- sched_waking, sched_wakeup, sched_wakeup_new ---- */

struct sched_wakeup_record {
    struct trace_event_common common;
    char comm[16];
    int32_t pid;
    int32_t prio;
    int32_t target_cpu;
};
_Static_assert(sizeof(struct sched_wakeup_record) == 36, "sched_wakeup: Linux's 36 bytes");

static const struct event_field sched_wakeup_fields[] = {
    FIELD_COMM("comm", 8),
    FIELD_S32("pid_t", "pid", 24),
    FIELD_S32("int", "prio", 28),
    FIELD_S32("int", "target_cpu", 32),
};
#define SCHED_WAKEUP_FMT                                                                           \
    "\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, "                 \
    "REC->target_cpu"

static void print_sched_wakeup(struct seqbuf *s, const void *record, size_t len)
{
    const struct sched_wakeup_record *r = record;
    seq_puts(s, "comm=");
    print_comm(s, r->comm);
    seq_printf(s, " pid=%d prio=%d target_cpu=%03d\n", r->pid, r->prio, r->target_cpu);
}

static void emit_wakeup(const struct trace_event_call *call, struct thread *t)
{
    struct rb_reservation res;
    struct sched_wakeup_record *r = trace_event_reserve(call, sizeof(*r), t->pid, &res);
    if (!r)
        return;
    sched_comm(r->comm, t);
    r->pid = t->pid;
    r->prio = SCHED_PRIO_DEFAULT;
    r->target_cpu = (int32_t)t->cpu;
    trace_event_commit(call, r, sizeof(*r), &res);
}

#define SCHED_WAKEUP_EVENT(name_, order_)                                                          \
    TRACE_EVENT_ENABLED_BYTE(name_);                                                               \
    TRACE_EVENT_CALL(name_, &trace_event_on_##name_, .system = "sched", .name = #name_,            \
                     .fields = sched_wakeup_fields, .nfields = ARRAY_SIZE(sched_wakeup_fields),    \
                     .print = print_sched_wakeup, .order = order_, .print_fmt = SCHED_WAKEUP_FMT); \
    void trace_event_emit_##name_(struct thread *t) { emit_wakeup(&trace_event_call_##name_, t); }

SCHED_WAKEUP_EVENT(sched_wakeup_new, 306)
SCHED_WAKEUP_EVENT(sched_wakeup, 307)
SCHED_WAKEUP_EVENT(sched_waking, 308)

/* ---- sched_process_fork ---- */

struct sched_fork_record {
    struct trace_event_common common;
    char parent_comm[16];
    int32_t parent_pid;
    char child_comm[16];
    int32_t child_pid;
};
_Static_assert(sizeof(struct sched_fork_record) == 48, "sched_process_fork: Linux's 48 bytes");

static const struct event_field sched_fork_fields[] = {
    FIELD_COMM("parent_comm", 8),
    FIELD_S32("pid_t", "parent_pid", 24),
    FIELD_COMM("child_comm", 28),
    FIELD_S32("pid_t", "child_pid", 44),
};

static void print_sched_fork(struct seqbuf *s, const void *record, size_t len)
{
    const struct sched_fork_record *r = record;
    seq_puts(s, "comm=");
    print_comm(s, r->parent_comm);
    seq_printf(s, " pid=%d child_comm=", r->parent_pid);
    print_comm(s, r->child_comm);
    seq_printf(s, " child_pid=%d\n", r->child_pid);
}

TRACE_EVENT_ENABLED_BYTE(sched_process_fork);
TRACE_EVENT_CALL(sched_process_fork, &trace_event_on_sched_process_fork, .system = "sched",
                 .name = "sched_process_fork", .fields = sched_fork_fields,
                 .nfields = ARRAY_SIZE(sched_fork_fields), .print = print_sched_fork, .order = 301,
                 .print_fmt = "\"comm=%s pid=%d child_comm=%s child_pid=%d\", REC->parent_comm, "
                              "REC->parent_pid, REC->child_comm, REC->child_pid");

void trace_event_emit_sched_process_fork(struct thread *parent, struct thread *child)
{
    uint8_t on = trace_event_on_sched_process_fork;
    if (!parent)
        return;
    if (on & TRACE_EVENT_ON_FOLLOW)
        trace_event_pids_follow(parent->pid, child->pid);
    if (on & TRACE_EVENT_ON_FOLLOW_FUNCTIONS)
        trace_pids_follow(parent->pid, child->pid);
    if (!(on & TRACE_EVENT_ON_RECORD))
        return;
    struct rb_reservation res;
    struct sched_fork_record *r =
        trace_event_reserve(&trace_event_call_sched_process_fork, sizeof(*r), child->pid, &res);
    if (!r)
        return;
    sched_comm(r->parent_comm, parent);
    r->parent_pid = parent->pid;
    sched_comm(r->child_comm, child);
    r->child_pid = child->pid;
    trace_event_commit(&trace_event_call_sched_process_fork, r, sizeof(*r), &res);
}

/* ---- sched_process_exit, sched_process_free ---- */

struct sched_process_record {
    struct trace_event_common common;
    char comm[16];
    int32_t pid;
    int32_t prio;
};
_Static_assert(sizeof(struct sched_process_record) == 32, "sched_process_*: Linux's 32 bytes");

static const struct event_field sched_process_fields[] = {
    FIELD_COMM("comm", 8),
    FIELD_S32("pid_t", "pid", 24),
    FIELD_S32("int", "prio", 28),
};

static void print_sched_process(struct seqbuf *s, const void *record, size_t len)
{
    const struct sched_process_record *r = record;
    seq_puts(s, "comm=");
    print_comm(s, r->comm);
    seq_printf(s, " pid=%d prio=%d\n", r->pid, r->prio);
}

static void emit_process(const struct trace_event_call *call, struct thread *t)
{
    struct rb_reservation res;
    struct sched_process_record *r = trace_event_reserve(call, sizeof(*r), t->pid, &res);
    if (!r)
        return;
    sched_comm(r->comm, t);
    r->pid = t->pid;
    r->prio = SCHED_PRIO_DEFAULT;
    trace_event_commit(call, r, sizeof(*r), &res);
}

#define SCHED_PROCESS_FMT "\"comm=%s pid=%d prio=%d\", REC->comm, REC->pid, REC->prio"

TRACE_EVENT_ENABLED_BYTE(sched_process_exit);
TRACE_EVENT_CALL(sched_process_exit, &trace_event_on_sched_process_exit, .system = "sched",
                 .name = "sched_process_exit", .fields = sched_process_fields,
                 .nfields = ARRAY_SIZE(sched_process_fields), .print = print_sched_process,
                 .order = 302, .print_fmt = SCHED_PROCESS_FMT);

void trace_event_emit_sched_process_exit(struct thread *t)
{
    emit_process(&trace_event_call_sched_process_exit, t);
}

TRACE_EVENT_ENABLED_BYTE(sched_process_free);
TRACE_EVENT_CALL(sched_process_free, &trace_event_on_sched_process_free, .system = "sched",
                 .name = "sched_process_free", .fields = sched_process_fields,
                 .nfields = ARRAY_SIZE(sched_process_fields), .print = print_sched_process,
                 .order = 303, .print_fmt = SCHED_PROCESS_FMT);

void trace_event_emit_sched_process_free(struct thread *t)
{
    uint8_t on = trace_event_on_sched_process_free;
    if (on & TRACE_EVENT_ON_RECORD)
        emit_process(&trace_event_call_sched_process_free, t);
    /* Only once the thread is off its CPU for good, so its last switch is still seen. */
    if (on & TRACE_EVENT_ON_FOLLOW)
        trace_event_pids_forget(t->pid);
    if (on & TRACE_EVENT_ON_FOLLOW_FUNCTIONS)
        trace_pids_forget(t->pid);
}

/* ---- sched_migrate_task ---- */

struct sched_migrate_record {
    struct trace_event_common common;
    char comm[16];
    int32_t pid;
    int32_t prio;
    int32_t orig_cpu;
    int32_t dest_cpu;
};
_Static_assert(sizeof(struct sched_migrate_record) == 40, "sched_migrate_task: 40 bytes");

static const struct event_field sched_migrate_fields[] = {
    FIELD_COMM("comm", 8),
    FIELD_S32("pid_t", "pid", 24),
    FIELD_S32("int", "prio", 28),
    FIELD_S32("int", "orig_cpu", 32),
    FIELD_S32("int", "dest_cpu", 36),
};

static void print_sched_migrate(struct seqbuf *s, const void *record, size_t len)
{
    const struct sched_migrate_record *r = record;
    seq_puts(s, "comm=");
    print_comm(s, r->comm);
    seq_printf(s, " pid=%d prio=%d orig_cpu=%d dest_cpu=%d\n", r->pid, r->prio, r->orig_cpu,
               r->dest_cpu);
}

TRACE_EVENT_ENABLED_BYTE(sched_migrate_task);
TRACE_EVENT_CALL(sched_migrate_task, &trace_event_on_sched_migrate_task, .system = "sched",
                 .name = "sched_migrate_task", .fields = sched_migrate_fields,
                 .nfields = ARRAY_SIZE(sched_migrate_fields), .print = print_sched_migrate,
                 .order = 304,
                 .print_fmt = "\"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\", REC->comm, "
                              "REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu");

void trace_event_emit_sched_migrate_task(struct thread *t, unsigned dest_cpu)
{
    struct rb_reservation res;
    struct sched_migrate_record *r =
        trace_event_reserve(&trace_event_call_sched_migrate_task, sizeof(*r), t->pid, &res);
    if (!r)
        return;
    sched_comm(r->comm, t);
    r->pid = t->pid;
    r->prio = SCHED_PRIO_DEFAULT;
    r->orig_cpu = (int32_t)t->cpu;
    r->dest_cpu = (int32_t)dest_cpu;
    trace_event_commit(&trace_event_call_sched_migrate_task, r, sizeof(*r), &res);
}
