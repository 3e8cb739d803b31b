/*
 * What the bench rows that time the sched_wakeup event's path share (bench_wakeup.c): the
 * event claimed for the row, its trigger file written as a user's write would be, samples
 * of BENCH_WAKEUP_CALLS tracepoint calls with interrupts off, and this CPU's buffer made
 * ready to record and put back after.
 */
#ifndef KERNEL_BENCH_BENCH_WAKEUP_H
#define KERNEL_BENCH_BENCH_WAKEUP_H

#include <kernel/bench.h>
#include <kernel/compiler.h>

#define BENCH_WAKEUP_CALLS 100

struct thread;
struct trace_event_call;

/* sched_wakeup, or NULL (the row reported skipped) when a user has it on, triggered or
 * filtered by pid. */
const struct trace_event_call *bench_wakeup_claim(struct bench_ctx *ctx, const char *row);
/* A write to the event's trigger file, under the lock every file operation holds: 0 or
 * its errno. Adding a trigger waits for other CPUs: not with preemption off. */
int bench_wakeup_trigger_write(const struct trace_event_call *call, const char *text);
/* Cycles of BENCH_WAKEUP_CALLS sched_wakeup tracepoints (or as many empty iterations). */
uint64_t bench_wakeup_sample(struct thread *me, bool call);
/* The cost of one call: (a - base) / BENCH_WAKEUP_CALLS, minimum and median. */
struct bench_stats bench_wakeup_per_call(struct bench_stats a, struct bench_stats base);

/* The trace buffer's state the rows change, to put back. */
struct bench_wakeup_saved {
    bool on;
    uint32_t cpumask;
};
/* Recording on, into this CPU's emptied buffer. With preemption off. */
void bench_wakeup_buffer_begin(struct bench_wakeup_saved *s);
/* Every CPU's buffer emptied, the saved state back. */
void bench_wakeup_buffer_end(const struct bench_wakeup_saved *s);

#endif
