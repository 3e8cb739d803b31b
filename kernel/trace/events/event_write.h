/*
 * The event write path, inline: what every emitter does around its fields. The same
 * shape as the function tracer's event (trace_functions.c): the ring buffer's inline
 * writer on this CPU's buffer, the common fields in one store, the commit inline. What is
 * rare stays out of line in event_core.c: tracing_cpumask leaving CPUs out or a pid list
 * set (one test of both), and a filter on the event.
 */
#ifndef KERNEL_TRACE_EVENTS_EVENT_WRITE_H
#define KERNEL_TRACE_EVENTS_EVENT_WRITE_H

#include <arch/cpu.h>
#include <kernel/percpu.h>

#include "event_core.h"
#include "ring_buffer_write.h"

/*
 * Non-zero while a record needs more than the inline reservation: set_event_pid or
 * set_event_notrace_pid holds a pid, or some event is in soft mode (triggers). One word,
 * so that the write path tests both with the one load it always had.
 */
extern volatile unsigned trace_event_slow_checks;
#define TRACE_EVENT_SLOW_SOFT_MODE 0x80000000u
#define TRACE_EVENT_SLOW_INSTANCES 0x40000000u /* some event is on in an instance */
#define TRACE_EVENT_SLOW_PIDS 0x3fffffffu      /* the rest counts the pids */
/*
 * Out of line: those checks (tracing_cpumask, the pid lists, the event's soft mode and
 * triggers). Returns TRACE_EVENT_RESERVE_INLINE when the record goes in the ring buffer
 * as usual, NULL when there is none (the CPU given back), or a record built elsewhere
 * with its common fields filled.
 */
#define TRACE_EVENT_RESERVE_INLINE ((void *)1)
void *trace_event_reserve_slow(struct percpu *cpu, const struct trace_event_call *call, size_t size,
                               int other_pid, struct rb_reservation *res);
/* Out of line: the event has a filter or triggers, or wants a stack after it: run them,
 * then commit or discard. */
void trace_event_commit_filtered(const struct trace_event_call *call, void *record, size_t size,
                                 struct rb_reservation *res);

_Static_assert(PERCPU_CONTEXT_HARDIRQ << 2 == TRACE_EVENT_FLAG_HARDIRQ &&
                   PERCPU_CONTEXT_NMI << 4 == TRACE_EVENT_FLAG_NMI,
               "context bits shift into Linux's flags");

/* The common fields of a record written now on cpu, as one little-endian word. */
static __always_inline uint64_t trace_event_common_on(struct percpu *cpu, uint16_t id)
{
    unsigned flags = arch_irqs_enabled() ? 0 : TRACE_EVENT_FLAG_IRQS_OFF;
    /* Both resched bits: Linux prints 'N' for that pair, as the compact records show it. */
    if (cpu->need_resched)
        flags |= TRACE_EVENT_FLAG_NEED_RESCHED | TRACE_EVENT_FLAG_PREEMPT_RESCHED;
    unsigned context = READ_ONCE(cpu->context_bit);
    flags |= (context & PERCPU_CONTEXT_HARDIRQ) << 2 | (context & PERCPU_CONTEXT_NMI) << 4;
    /* Less the writer's own level; the low nibble only: the high one stays 0 (event_core.h).
     * One unsigned compare catches both a count below it and one over 15. */
    unsigned preempt = (unsigned)(cpu->preempt_count - 1);
    if (unlikely(preempt > 15))
        preempt = (int)preempt < 0 ? 0 : 15;
    return id | flags << 16 | preempt << 24 | (uint64_t)(uint32_t)cpu->current_pid << 32;
}

/*
 * Reserves a record of size bytes for call on cpu (this CPU) and fills its common fields;
 * NULL when the event must not record now. Keeps the CPU until trace_event_commit_on
 * without calling the (traced) preempt_disable.
 */
static __always_inline void *trace_event_reserve_on(struct percpu *cpu,
                                                    const struct trace_event_call *call,
                                                    size_t size, int other_pid,
                                                    struct rb_reservation *res)
{
    cpu->preempt_count++;
    barrier();
    if (unlikely(trace_global.cpus_excluded | trace_event_slow_checks)) {
        void *built = trace_event_reserve_slow(cpu, call, size, other_pid, res);
        if (built != TRACE_EVENT_RESERVE_INLINE)
            return built;
    }
    struct trace_event_common *rec = rb_reserve_on(cpu->trace_buffer, (unsigned)size, res);
    if (!rec)
        goto refuse;
    uint64_t common = trace_event_common_on(cpu, call->state->id);
    __builtin_memcpy(rec, &common, sizeof(common));
    return rec;
refuse:
    barrier();
    cpu->preempt_count--;
    return NULL;
}

static __always_inline void trace_event_commit_on(struct percpu *cpu,
                                                  const struct trace_event_call *call, void *record,
                                                  size_t size, struct rb_reservation *res)
{
    /* A filter or trigger never looked at here needs none of the counting-in that its
     * replacement waits for, which the out-of-line path does. */
    if (likely(!__atomic_load_n(&call->state->commit_flags, __ATOMIC_RELAXED)))
        rb_commit_inline(res);
    else
        trace_event_commit_filtered(call, record, size, res);
    barrier();
    cpu->preempt_count--;
}

#endif
