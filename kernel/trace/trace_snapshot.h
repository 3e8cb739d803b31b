/*
 * The snapshot as the rest of the tracer uses it (the `snapshot` event trigger, and the
 * `func:snapshot` command): tracing_snapshot() swaps the live buffer with the spare one,
 * as Linux's. Without a spare buffer it does what Linux does then: it writes
 * "*** SNAPSHOT NOT ALLOCATED ***" and "*** stopping trace here!   ***" into the trace
 * and turns tracing off. Any context; from an NMI it does nothing.
 */
#ifndef KERNEL_TRACE_TRACE_SNAPSHOT_H
#define KERNEL_TRACE_TRACE_SNAPSHOT_H

void tracing_snapshot(void);
/*
 * Makes sure the spare buffer exists, as Linux does when a snapshot trigger or command is
 * added: 0, or -ENOMEM. Process context.
 */
int tracing_alloc_snapshot(void);

#endif
