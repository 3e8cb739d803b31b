/*
 * The functions every record of one kind passes through, kept together: each group is a
 * section of its own that the linker puts on a page of its own (linker.ld, "the tracer's
 * hot paths"), checked to fit in one.
 *
 * Why: under emulation (QEMU's TCG) a jump from one page of code into another cannot be
 * chained and costs a lookup every time it runs. Wherever the link happened to put a page
 * boundary inside a hot function, every record paid for each jump across it: a change
 * elsewhere in the kernel that moved a boundary into probe_event_write made each kprobe
 * record half again as slow. On hardware the same grouping keeps a path in few i-cache
 * lines and one iTLB entry.
 *
 * Only for files of the kprobe blacklist (the Makefile's NOPROBE list, kernel/trace/ among
 * them): the pages lie inside its range.
 */
#ifndef KERNEL_TRACE_TRACE_HOT_H
#define KERNEL_TRACE_TRACE_HOT_H

/* Probe records: the kprobe handlers, the probe record writer, return hooks. */
#define __trace_hot_probe __attribute__((section(".text.trace_hot.probe")))
/* Event records that go through triggers: the event core's slow half, triggers, hist. */
#define __trace_hot_trigger __attribute__((section(".text.trace_hot.trigger")))

/*
 * An event's writer (trace_event_emit_NAME, events/event_define.h): every record of the
 * event starts there. Each is under 2 KiB (about 1 KiB), so aligned to 2 KiB none can
 * straddle a page, where the link put sched_switch's and sched_wakeup's across one
 * and made a hist trigger on sched_wakeup half again as slow (407 ns to 597, the same
 * instructions). The price: about 1 KiB of padding per event (some 30 KiB of text).
 */
#define __trace_hot_emitter __attribute__((aligned(2048)))

#endif
