/*
 * Self-tests of the snapshot on the real trace array: a swap moves the events both ways
 * (through the file and from atomic context), a CPU whose writer is halfway through an
 * event is not swapped, and an allocation that fails at any point leaves no snapshot and
 * no memory behind. Each test frees the snapshot and clears the buffer it used.
 */
#include <arch/cpu.h>
#include <kernel/errno.h>
#include <kernel/fault_inject.h>
#include <kernel/mm.h>
#include <kernel/selftest.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <lib/string.h>

#include "trace_internal.h"

/* How many trace_marker lines with this text the buffer holds. */
static unsigned snap_test_count(struct ring_buffer *rb, const char *text)
{
    struct trace_iter *it = trace_iter_open_buffer(rb, false, -1);
    unsigned n = 0;
    while (it && trace_iter_next(it)) {
        const struct trace_print_event *ev = (const void *)it->rec.data;
        if (trace_ctx_type(ev->ctx) == TRACE_PRINT && strcmp(ev->text, text) == 0)
            n++;
    }
    trace_iter_close(it);
    return n;
}

/* What the tests need of the boot's state; they skip otherwise. */
static bool snap_test_ready(void)
{
    return !tracing_snapshot_allocated(&trace_global) && rb_record_is_on(trace_global.buffer) &&
           trace_opt(TRACE_OPT_MARKERS);
}
#define SNAP_TEST_BEGIN()                                                                          \
    do {                                                                                           \
        if (!snap_test_ready())                                                                    \
            SKIP("a snapshot is allocated, tracing is off or markers are off");                    \
    } while (0)

SELFTEST(snapshot_swap_moves_events)
{
    SNAP_TEST_BEGIN();
    trace_clear(-1);
    EXPECT_EQ(trace_print("snap-first", 10), 0);
    EXPECT_EQ(trace_snapshot_write(&trace_global, -1, 1), 0);
    ASSERT_TRUE(tracing_snapshot_allocated(&trace_global));
    EXPECT_EQ(snap_test_count(trace_global.snapshot, "snap-first"), 1);
    EXPECT_EQ(snap_test_count(trace_global.buffer, "snap-first"), 0);

    /* From atomic context: this CPU at once, the others from their calls. */
    EXPECT_EQ(trace_print("snap-second", 11), 0);
    preempt_disable();
    EXPECT_EQ(tracing_snapshot(&trace_global), 0);
    preempt_enable();
    smp_sync_all();
    EXPECT_EQ(snap_test_count(trace_global.snapshot, "snap-second"), 1);
    EXPECT_EQ(snap_test_count(trace_global.buffer, "snap-first"), 1);

    /* Any other number clears the snapshot and allocates nothing. */
    EXPECT_EQ(trace_snapshot_write(&trace_global, -1, 2), 0);
    EXPECT(trace_snapshot_empty(&trace_global, -1));
    EXPECT_EQ(trace_snapshot_write(&trace_global, 0, 1), -EINVAL);
    EXPECT_EQ(trace_snapshot_write(&trace_global, 0, 0), -EINVAL);
    EXPECT_EQ(trace_snapshot_write(&trace_global, -1, 0), 0);
    EXPECT(!tracing_snapshot_allocated(&trace_global));
    EXPECT_EQ(trace_snapshot_write(&trace_global, -1, 7), 0);
    EXPECT(!tracing_snapshot_allocated(&trace_global));
    trace_clear(-1);
}

/* The swap of this CPU, called with interrupts off inside a reservation of its own. */
SELFTEST(snapshot_swap_waits_for_writer)
{
    SNAP_TEST_BEGIN();
    ASSERT_EQ(tracing_alloc_snapshot(&trace_global), 0);
    unsigned long flags = arch_irq_save();
    struct rb_reservation res;
    uint32_t *payload = rb_reserve(trace_global.buffer, 12, &res);
    int inside = rb_swap_this_cpu(trace_global.buffer, trace_global.snapshot);
    if (payload)
        rb_discard(trace_global.buffer, &res);
    int after = rb_swap_this_cpu(trace_global.buffer, trace_global.snapshot);
    arch_irq_restore(flags);
    if (payload)
        EXPECT_EQ(inside, -EAGAIN);
    else
        EXPECT_EQ(inside, 0); /* nothing reserved: nobody inside */
    EXPECT_EQ(after, 0);
    EXPECT_EQ(trace_snapshot_write(&trace_global, -1, 0), 0);
    trace_clear(-1);
}

/*
 * Each allocation of `echo 1 > snapshot` fails in turn (the n-th one from the start),
 * until one write goes through: each failed write is ENOMEM, leaves no snapshot and
 * gives back every allocation it made.
 */
static int snap_test_alloc(void *arg) { return trace_snapshot_write(arg, -1, 1); }
static bool snap_test_freed(void *arg) { return !tracing_snapshot_allocated(arg); }

static void snap_test_fail_each(struct selftest_ctx *t, struct fault_attr *attr, unsigned max_nth,
                                unsigned step)
{
    const struct selftest_alloc_failures f = {
        attr, max_nth, step, snap_test_alloc, snap_test_freed, &trace_global};
    if (selftest_alloc_failures(t, &f) == 0) {
        EXPECT(tracing_snapshot_allocated(&trace_global));
        EXPECT_EQ(trace_snapshot_write(&trace_global, -1, 0), 0);
    }
}

SELFTEST(snapshot_alloc_whole_on_failure)
{
    SNAP_TEST_BEGIN();
    snap_test_fail_each(t, &failslab, 64, 1);
    /* Hundreds of pages: the first few, then every 97th. */
    snap_test_fail_each(t, &fail_page_alloc, 4096, 97);
    trace_clear(-1);
}
