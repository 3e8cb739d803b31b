/*
 * Probes on a tracepoint itself (the t: lines of dynamic_events, kernel/trace/probes/), as
 * Linux's tracepoint probes: they get the tracepoint's C arguments, not the event's record.
 * Each event's list is walked by its __probestub_NAME (event_define.h) without a lock; the
 * enabled byte's TRACE_EVENT_ON_PROBE bit is what makes the emitter call the stub, so an
 * event with no probe attached pays nothing for this.
 */
#include <kernel/errno.h>
#include <kernel/percpu.h>
#include <kernel/spinlock.h>
#include <kernel/synchronize.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_files.h"

/* The stubs' walks: a detached probe is given back only after them. */
static struct sync_readers tp_probe_readers = SYNC_READERS_INIT;
/* Serialises attaching and detaching as a whole, the event's reg included (so that the
 * first and the last probe of a tracepoint are decided once each); the walks never take
 * it. A reg called under it must not sleep (preemptirq's takes a spinlock). */
static DEFINE_SPINLOCK(tp_probe_lock);

void trace_event_tp_probes_run(const struct trace_event_call *call, unsigned long ip,
                               const unsigned long *args, unsigned nargs)
{
    /* A tracepoint may be hit where preemption is on (a thread's exit): the walk must stay
     * on this CPU for its read side, without the traced preempt_disable. */
    struct percpu *cpu = this_cpu();
    cpu->preempt_count++;
    barrier();
    unsigned reader = sync_read_enter(&tp_probe_readers);
    for (struct trace_event_tp_probe *p =
             __atomic_load_n(&call->state->tp_probes, __ATOMIC_ACQUIRE);
         p; p = __atomic_load_n(&p->next, __ATOMIC_ACQUIRE))
        p->fire(p, ip, args, nargs);
    sync_read_exit(&tp_probe_readers, reader);
    barrier();
    cpu->preempt_count--;
}

int trace_event_tp_probe_attach(const struct trace_event_call *call,
                                struct trace_event_tp_probe *probe)
{
    struct trace_event_state *st = call->state;
    if (!call->tp_nargs || !st->enabled)
        return -EINVAL;
    spin_lock(&tp_probe_lock);
    /* The first probe may need the tracepoint to be reached at all (preemptirq's hooks). */
    if (!st->tp_probes && call->reg) {
        int err = call->reg(call, true);
        if (err) {
            spin_unlock(&tp_probe_lock);
            return err;
        }
    }
    /* Appended, so that probes fire in the order they were attached, as Linux's do. */
    probe->next = NULL;
    struct trace_event_tp_probe *volatile *link = &st->tp_probes;
    while (*link)
        link = &(*link)->next;
    __atomic_store_n(link, probe, __ATOMIC_RELEASE);
    trace_event_set_bit(st->enabled, TRACE_EVENT_ON_PROBE, true);
    spin_unlock(&tp_probe_lock);
    return 0;
}

void trace_event_tp_probe_detach(const struct trace_event_call *call,
                                 struct trace_event_tp_probe *probe)
{
    struct trace_event_state *st = call->state;
    bool found = false;
    spin_lock(&tp_probe_lock);
    for (struct trace_event_tp_probe *volatile *link = &st->tp_probes; *link;
         link = &(*link)->next) {
        if (*link == probe) {
            /* A walk on probe goes on to its successor, still linked from it. */
            __atomic_store_n(link, probe->next, __ATOMIC_RELEASE);
            found = true;
            break;
        }
    }
    bool last = found && !st->tp_probes;
    if (last)
        trace_event_set_bit(st->enabled, TRACE_EVENT_ON_PROBE, false);
    if (found)
        synchronize_readers(&tp_probe_readers);
    if (last && call->reg)
        call->reg(call, false);
    spin_unlock(&tp_probe_lock);
}

const struct trace_event_call *trace_event_find_tracepoint(const char *name)
{
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        if (c->tp_nargs && strcmp(c->name, name) == 0)
            return c;
    }
    return NULL;
}
