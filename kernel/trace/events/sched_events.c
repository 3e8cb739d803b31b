/*
 * sched: the scheduler's events. Their definitions are include/kernel/events/sched.h;
 * here are the helpers those call, and the emitters that do more than record.
 */
#include <kernel/init.h>
#include <kernel/percpu.h>
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_files.h"
#include "trace_internal.h"

/* The idle threads' comm: Linux's swapper/N, made once rather than at every switch. */
static char sched_trace_swapper[MAX_CPUS][16];

static void sched_trace_init(void)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        char buf[16];
        snprintf(buf, sizeof(buf), "swapper/%u", cpu);
        trace_event_copy_comm(sched_trace_swapper[cpu], buf);
    }
}
CORE_INITCALL(sched_trace_init);

/*
 * The comm an event shows. A thread's name is zero-padded (kzalloc, then strlcpy), so all
 * of it is copied, as Linux copies comm.
 */
static __always_inline void sched_trace_comm(char dst[16], const struct thread *t)
{
    _Static_assert(sizeof(t->name) == 16, "comm is 16 bytes");
    if (unlikely(t->is_idle))
        __builtin_memcpy(dst, sched_trace_swapper[t->cpu], 16);
    else
        __builtin_memcpy(dst, t->name, 16);
}

/* Linux's report of the thread being switched out. */
static __always_inline long sched_trace_switch_state(const struct thread *prev)
{
    switch (prev->state) {
    case THREAD_SLEEPING:
        return TRACE_TASK_INTERRUPTIBLE;
    case THREAD_DEAD:
        /* A joinable thread waits for its joiner as a zombie; a detached one is gone. */
        return prev->detached ? TRACE_TASK_DEAD : TRACE_TASK_ZOMBIE;
    case THREAD_READY:
        return TRACE_TASK_REPORT_MAX; /* it was running and still wants the CPU */
    default:
        return 0;
    }
}

#define TRACE_EVENT_DEFINITIONS <kernel/events/sched.h>
#include "event_define.h"

_Static_assert(sizeof(struct trace_event_raw_sched_switch) == 64, "sched_switch: Linux's 64 bytes");
_Static_assert(sizeof(struct trace_event_raw_sched_wakeup_template) == 36,
               "sched_wakeup: Linux's 36 bytes");
_Static_assert(sizeof(struct trace_event_raw_sched_process_fork) == 48,
               "sched_process_fork: Linux's 48 bytes");
_Static_assert(sizeof(struct trace_event_raw_sched_process_template) == 32,
               "sched_process_*: Linux's 32 bytes");
_Static_assert(sizeof(struct trace_event_raw_sched_migrate_task) == 40,
               "sched_migrate_task: Linux's 40 bytes");

__trace_hot_emitter void trace_event_emit_sched_switch(struct thread *prev, struct thread *next)
{
    uint8_t on = trace_event_on_sched_switch;
    if (on & (TRACE_EVENT_ON_CMDLINE | TRACE_EVENT_ON_CMDLINE_TRACER)) {
        trace_event_save_thread_cmdline(prev->pid, prev->name);
        trace_event_save_thread_cmdline(next->pid, next->name);
    }
    if (unlikely(on & TRACE_EVENT_ON_PROBE))
        __probestub_sched_switch(prev, next);
    if (on & TRACE_EVENT_ON_EMIT)
        trace_event_write_sched_switch(prev, next);
}

__trace_hot_emitter void trace_event_emit_sched_process_fork(struct thread *parent,
                                                             struct thread *child)
{
    uint8_t on = trace_event_on_sched_process_fork;
    if (!parent)
        return;
    if (on & TRACE_EVENT_ON_FOLLOW)
        trace_event_pids_follow(parent->pid, child->pid);
    if (on & TRACE_EVENT_ON_FOLLOW_FUNCTIONS)
        trace_pids_follow(parent->pid, child->pid);
    if (unlikely(on & TRACE_EVENT_ON_PROBE))
        __probestub_sched_process_fork(parent, child);
    if (on & TRACE_EVENT_ON_EMIT)
        trace_event_write_sched_process_fork(parent, child);
}

__trace_hot_emitter void trace_event_emit_sched_process_free(struct thread *t)
{
    uint8_t on = trace_event_on_sched_process_free;
    if (unlikely(on & TRACE_EVENT_ON_PROBE))
        __probestub_sched_process_free(t);
    if (on & TRACE_EVENT_ON_EMIT)
        trace_event_write_sched_process_free(t);
    /* Only once the thread is off its CPU for good, so its last switch is still seen. */
    if (on & TRACE_EVENT_ON_FOLLOW)
        trace_event_pids_forget(t->pid);
    if (on & TRACE_EVENT_ON_FOLLOW_FUNCTIONS)
        trace_pids_forget(t->pid);
}
