/*
 * Ring buffer self-tests that need only one CPU. Each test makes its own buffer on a clock
 * it moves by hand, so times and sizes are exact. A "nested" writer here is a second
 * reservation made before the first one commits, which is what an interrupt handler
 * writing on the same CPU amounts to.
 */
#include "trace_internal.h"

#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/selftest.h>
#include <lib/string.h>

#define RBT_FUNCTION_PAYLOAD 12 /* what a function event carries */
#define RBT_EVENTS_PER_PAGE (RB_PAGE_DATA_SIZE / 16)

static uint64_t rbt_now;
static uint64_t rbt_clock(void) { return rbt_now; }

static struct ring_buffer *rbt_create(unsigned pages)
{
    struct ring_buffer *rb = rb_create((size_t)pages * RB_PAGE_DATA_SIZE, MAX_CPUS);
    if (rb) {
        rbt_now = 1000;
        rb_set_clock(rb, rbt_clock);
    }
    return rb;
}

/* Writers must keep their CPU from reserve to commit. */
static void rbt_hold_cpu(void) { this_cpu()->preempt_count++; }
static void rbt_release_cpu(void) { this_cpu()->preempt_count--; }

/* Writes one event of len bytes whose payload starts with seq; false if refused. */
static bool rbt_write(struct ring_buffer *rb, unsigned len, uint32_t seq)
{
    struct rb_reservation res;
    rbt_hold_cpu();
    uint8_t *p = rb_reserve(rb, len, &res);
    if (p) {
        memset(p, 0x5a, len);
        if (len >= 4)
            memcpy(p, &seq, 4);
        rb_commit(rb, &res);
    }
    rbt_release_cpu();
    return p != NULL;
}

static uint32_t rbt_seq(const struct rb_record *r)
{
    uint32_t seq;
    memcpy(&seq, r->data, 4);
    return seq;
}

static unsigned rbt_cpu(void) { return this_cpu_id(); }

/*
 * Records are read into these, not onto the stack: a record holds a whole page of payload,
 * too much for a kernel stack. Self-tests run one at a time.
 */
static struct rb_record rbt_records[2];

SELFTEST(rb_write_read)
{
    struct ring_buffer *rb = rbt_create(2);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = rbt_cpu();
    struct rb_record *r = &rbt_records[0];
    unsigned long lost = 99;

    EXPECT(!rb_consume(rb, cpu, r, &lost));
    EXPECT_EQ(lost, 0);
    EXPECT(rbt_write(rb, RBT_FUNCTION_PAYLOAD, 7));
    struct rb_stats st;
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, 1);
    EXPECT_EQ(st.oldest_ts, 1000);
    EXPECT(rb_consume(rb, cpu, r, &lost));
    EXPECT_EQ(r->ts, 1000);
    EXPECT_EQ(r->len, RBT_FUNCTION_PAYLOAD);
    EXPECT_EQ(r->cpu, cpu);
    EXPECT_EQ(rbt_seq(r), 7);
    EXPECT_EQ(r->data[4], 0x5a);
    EXPECT_EQ(r->data[11], 0x5a);
    EXPECT_EQ(lost, 0);
    EXPECT(!rb_consume(rb, cpu, r, &lost));

    /* A payload above 112 bytes takes the length-word form. */
    EXPECT(rbt_write(rb, 300, 8));
    EXPECT(rb_consume(rb, cpu, r, NULL));
    EXPECT_EQ(r->len, 300);
    EXPECT_EQ(rbt_seq(r), 8);
    EXPECT_EQ(r->data[299], 0x5a);

    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, 0);
    EXPECT_EQ(st.read, 2);
    EXPECT_EQ(st.bytes, 0);
    EXPECT(!rb_create(4096, 0));
    rb_destroy(rb);
}

SELFTEST(rb_event_sizes)
{
    struct ring_buffer *rb = rbt_create(2);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = rbt_cpu();
    static const struct {
        unsigned len, bytes;
    } sizes[] = {
        {12, 16}, {1, 8},     {0, 8},     {4, 8},
        {13, 20}, {112, 116}, {113, 124}, {RB_MAX_PAYLOAD, 8 + RB_MAX_PAYLOAD},
    };
    struct rb_stats st;
    unsigned long total = 0;
    for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
        EXPECT(rbt_write(rb, sizes[i].len, i));
        total += sizes[i].bytes;
        rb_get_stats(rb, cpu, &st);
        EXPECT_EQ(st.bytes, total);
    }
    EXPECT(!rbt_write(rb, RB_MAX_PAYLOAD + 1, 0));
    EXPECT(!rbt_write(rb, RB_PAGE_DATA_SIZE, 0));
    EXPECT(!rbt_write(rb, PAGE_SIZE * 2, 0));
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, ARRAY_SIZE(sizes));
    EXPECT_EQ(st.dropped, 0);

    /* 16 bytes a function event, nothing more: two pages hold exactly 2 * 255 of them. */
    rb_reset(rb, -1);
    EXPECT_EQ(rb_size(rb, cpu), 2 * RB_PAGE_DATA_SIZE);
    for (unsigned i = 0; i < 2 * RBT_EVENTS_PER_PAGE; i++)
        rbt_write(rb, RBT_FUNCTION_PAYLOAD, i);
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, 2 * RBT_EVENTS_PER_PAGE);
    EXPECT_EQ(st.bytes, 2 * RB_PAGE_DATA_SIZE);
    EXPECT_EQ(st.overrun, 0);
    rbt_write(rb, RBT_FUNCTION_PAYLOAD, 0);
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.overrun, RBT_EVENTS_PER_PAGE);
    rb_destroy(rb);
}

SELFTEST(rb_time_extend)
{
    struct ring_buffer *rb = rbt_create(2);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = rbt_cpu();
    /* Deltas from the previous event: in the header, just too big, far too big, small. */
    static const struct {
        uint64_t delta;
        unsigned bytes;
    } steps[] = {
        {0, 16}, {100, 16}, {(1u << 27) - 1, 16}, {1u << 27, 24}, {1ULL << 40, 24},
        {1, 16}, {0, 16},
    };
    uint64_t times[ARRAY_SIZE(steps)];
    unsigned long total = 0;
    struct rb_stats st;
    for (unsigned i = 0; i < ARRAY_SIZE(steps); i++) {
        rbt_now += steps[i].delta;
        times[i] = rbt_now;
        EXPECT(rbt_write(rb, RBT_FUNCTION_PAYLOAD, i));
        total += steps[i].bytes;
        rb_get_stats(rb, cpu, &st);
        EXPECT_EQ(st.bytes, total);
    }
    for (unsigned i = 0; i < ARRAY_SIZE(steps); i++) {
        struct rb_record *r = &rbt_records[0];
        uint64_t ts = 0;
        EXPECT(rb_peek_ts(rb, cpu, &ts));
        EXPECT(rb_consume(rb, cpu, r, NULL));
        EXPECT_EQ(rbt_seq(r), i);
        EXPECT_EQ(r->ts, times[i]);
        EXPECT_EQ(ts, times[i]);
    }
    /* A clock that steps back is held at the last time rather than going backwards. */
    rbt_now -= 50;
    EXPECT(rbt_write(rb, RBT_FUNCTION_PAYLOAD, 0));
    struct rb_record *r = &rbt_records[0];
    EXPECT(rb_consume(rb, cpu, r, NULL));
    EXPECT_EQ(r->ts, times[ARRAY_SIZE(steps) - 1]);
    rb_destroy(rb);
}

SELFTEST(rb_overwrite_accounting)
{
    struct ring_buffer *rb = rbt_create(2);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = rbt_cpu();
    const unsigned n = 1000;
    for (unsigned i = 0; i < n; i++) {
        rbt_now += 10;
        EXPECT(rbt_write(rb, RBT_FUNCTION_PAYLOAD, i));
    }
    struct rb_stats st;
    rb_get_stats(rb, cpu, &st);
    EXPECT(st.overrun > 0);
    EXPECT_EQ(st.overrun % RBT_EVENTS_PER_PAGE, 0);
    EXPECT_EQ(st.entries + st.overrun, n);
    EXPECT_EQ(st.dropped, 0);
    EXPECT_EQ(st.commit_overrun, 0);
    unsigned long entries = st.entries, overrun = st.overrun;

    struct rb_record *r = &rbt_records[0];
    unsigned long lost, total_lost = 0, got = 0;
    uint32_t expect = overrun;
    while (rb_consume(rb, cpu, r, &lost)) {
        total_lost += lost;
        if (got == 0)
            EXPECT_EQ(lost, overrun);
        else
            EXPECT_EQ(lost, 0);
        EXPECT_EQ(rbt_seq(r), expect);
        expect++;
        got++;
    }
    EXPECT_EQ(got, entries);
    EXPECT_EQ(total_lost, overrun);
    EXPECT_EQ(expect, n);
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, 0);
    EXPECT_EQ(st.bytes, 0);
    EXPECT_EQ(st.read, entries);
    EXPECT_EQ(st.overrun, overrun);

    /* Losses while the reader is part-way: reported with the next event it gets. */
    rb_reset(rb, cpu);
    for (unsigned i = 0; i < 10; i++)
        rbt_write(rb, RBT_FUNCTION_PAYLOAD, i);
    EXPECT(rb_consume(rb, cpu, r, &lost));
    for (unsigned i = 10; i < 10 + 3 * RBT_EVENTS_PER_PAGE; i++)
        rbt_write(rb, RBT_FUNCTION_PAYLOAD, i);
    rb_get_stats(rb, cpu, &st);
    unsigned long seen = 1;
    total_lost = 0;
    uint32_t prev = 0;
    while (rb_consume(rb, cpu, r, &lost)) {
        total_lost += lost;
        EXPECT_EQ(rbt_seq(r) - prev - 1, lost);
        prev = rbt_seq(r);
        seen++;
    }
    EXPECT_EQ(prev, 9 + 3 * RBT_EVENTS_PER_PAGE);
    EXPECT_EQ(total_lost, st.overrun);
    EXPECT_EQ(seen + total_lost, 10 + 3 * RBT_EVENTS_PER_PAGE);
    rb_destroy(rb);
}

SELFTEST(rb_producer_consumer)
{
    struct ring_buffer *rb = rbt_create(2);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = rbt_cpu();
    rb_set_overwrite(rb, false);
    unsigned ok = 0;
    for (unsigned i = 0; i < 1000; i++)
        if (rbt_write(rb, RBT_FUNCTION_PAYLOAD, ok))
            ok++;
    struct rb_stats st;
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(ok, 2 * RBT_EVENTS_PER_PAGE);
    EXPECT_EQ(st.entries, ok);
    EXPECT_EQ(st.dropped, 1000 - ok);
    EXPECT_EQ(st.overrun, 0);

    struct rb_record *r = &rbt_records[0];
    unsigned long lost;
    for (unsigned i = 0; i < ok; i++) {
        EXPECT(rb_consume(rb, cpu, r, &lost));
        EXPECT_EQ(rbt_seq(r), i);
        EXPECT_EQ(lost, 0);
        /* Room comes back page by page as the reader frees them. */
        if (i == RBT_EVENTS_PER_PAGE + 1)
            EXPECT(rbt_write(rb, RBT_FUNCTION_PAYLOAD, ok));
    }
    EXPECT(rb_consume(rb, cpu, r, &lost));
    EXPECT_EQ(rbt_seq(r), ok);
    EXPECT(!rb_consume(rb, cpu, r, &lost));
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, 0);
    EXPECT_EQ(st.read, ok + 1);
    EXPECT_EQ(st.dropped, 1000 - ok);
    rb_destroy(rb);
}

static void rbt_expect_events(struct selftest_ctx *t, struct ring_buffer *rb, unsigned cpu,
                              uint32_t first, uint32_t count)
{
    struct rb_record *r = &rbt_records[0];
    for (uint32_t i = 0; i < count; i++) {
        EXPECT(rb_consume(rb, cpu, r, NULL));
        EXPECT_EQ(rbt_seq(r), first + i);
    }
    EXPECT(!rb_consume(rb, cpu, r, NULL));
}

SELFTEST(rb_resize)
{
    struct ring_buffer *rb = rbt_create(2);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = rbt_cpu();
    EXPECT_EQ(rb_resize(rb, cpu, 0), -EINVAL);
    EXPECT_EQ(rb_resize(rb, -1, 0), -EINVAL);
    EXPECT_EQ(rb_resize(rb, MAX_CPUS, 8192), -EINVAL);

    for (unsigned i = 0; i < 100; i++)
        rbt_write(rb, RBT_FUNCTION_PAYLOAD, i);
    /* More than a buffer may have: refused before anything is allocated. */
    EXPECT_EQ(rb_resize(rb, cpu, (size_t)1 << 50), -ENOMEM);
    /*
     * More than the machine has, spread over every CPU: some CPUs get their pages before
     * memory runs out. All of it must go back, and the old pages keep their events.
     */
    struct mm_stats before, after;
    mm_get_stats(&before);
    size_t per_cpu = (size_t)(before.free_pages / 8 + 1) * RB_PAGE_DATA_SIZE;
    EXPECT_EQ(rb_resize(rb, -1, per_cpu), -ENOMEM);
    mm_get_stats(&after);
    uint64_t heap_growth =
        (after.heap_bytes_mapped - before.heap_bytes_mapped + PAGE_SIZE - 1) / PAGE_SIZE;
    EXPECT(after.free_pages + heap_growth + 16 >= before.free_pages);
    EXPECT_EQ(rb_size(rb, cpu), 2 * RB_PAGE_DATA_SIZE);
    /* Same size: nothing to do, events kept. */
    EXPECT_EQ(rb_resize(rb, cpu, 2 * RB_PAGE_DATA_SIZE - 100), 0);
    rbt_expect_events(t, rb, cpu, 0, 100);

    /* Below two pages rounds up to two. */
    EXPECT_EQ(rb_resize(rb, -1, 1), 0);
    EXPECT_EQ(rb_size(rb, cpu), 2 * RB_PAGE_DATA_SIZE);
    rb_destroy(rb);
}

/* Consumes every event of cpu, which must be first..first+count-1 in order, none lost. */
static void rbt_expect_seqs(struct selftest_ctx *t, struct ring_buffer *rb, unsigned cpu,
                            uint32_t first, uint32_t count)
{
    struct rb_record *r = &rbt_records[0];
    unsigned long lost = 0;
    uint32_t bad = 0;
    for (uint32_t i = 0; i < count; i++) {
        bool got = rb_consume(rb, cpu, r, &lost);
        bad += !got || rbt_seq(r) != first + i || lost != 0;
    }
    EXPECT_EQ(bad, 0);
    EXPECT(!rb_consume(rb, cpu, r, NULL));
}

/* As Linux: a resize keeps the unread events, the newest that fit when it shrinks. */
SELFTEST(rb_resize_keeps_events)
{
    struct ring_buffer *rb = rbt_create(2);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = rbt_cpu();
    struct rb_stats st;
    struct rb_record *r = &rbt_records[0];

    /* Growing, with the events in the ring: kept, with their times. */
    for (uint32_t i = 0; i < 10; i++) {
        rbt_now = 5000 + i;
        rbt_write(rb, RBT_FUNCTION_PAYLOAD, i);
    }
    EXPECT_EQ(rb_resize(rb, cpu, 5 * RB_PAGE_DATA_SIZE), 0);
    EXPECT_EQ(rb_size(rb, cpu), 5 * RB_PAGE_DATA_SIZE);
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, 10);
    EXPECT_EQ(st.overrun, 0);
    for (uint32_t i = 0; i < 10; i++) {
        EXPECT(rb_consume(rb, cpu, r, NULL));
        EXPECT_EQ(rbt_seq(r), i);
        EXPECT_EQ(r->ts, 5000 + i);
    }

    /* Growing again with the writer on the reader page (it was the only page with
     * events when the reader took it): kept, and the writer goes on from there. */
    for (uint32_t i = 0; i < 5; i++)
        rbt_write(rb, RBT_FUNCTION_PAYLOAD, 100 + i);
    EXPECT_EQ(rb_resize(rb, cpu, 6 * RB_PAGE_DATA_SIZE), 0);
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, 5);
    rbt_expect_seqs(t, rb, cpu, 100, 5);
    for (uint32_t i = 0; i < 3 * RBT_EVENTS_PER_PAGE; i++)
        rbt_write(rb, RBT_FUNCTION_PAYLOAD, 1000 + i);
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, 3 * RBT_EVENTS_PER_PAGE);
    EXPECT_EQ(st.overrun, 0);
    rbt_expect_seqs(t, rb, cpu, 1000, 3 * RBT_EVENTS_PER_PAGE);
    rb_destroy(rb);

    /*
     * Shrinking: five full ring pages, ten events consumed (the reader took the first
     * page). Down to two pages, the reader page keeps its 245 unread events, the two
     * newest ring pages stay, and the two pages between are dropped: counted as overrun
     * and reported to the reader as lost, just before the first event after them.
     */
    rb = rbt_create(5);
    ASSERT_TRUE(rb != NULL);
    uint32_t total = 5 * RBT_EVENTS_PER_PAGE;
    for (uint32_t i = 0; i < total; i++)
        EXPECT(rbt_write(rb, RBT_FUNCTION_PAYLOAD, i));
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, total);
    EXPECT_EQ(st.overrun, 0);
    for (uint32_t i = 0; i < 10; i++)
        EXPECT(rb_consume(rb, cpu, r, NULL));
    EXPECT_EQ(rb_resize(rb, cpu, 2 * RB_PAGE_DATA_SIZE), 0);
    uint32_t dropped = 2 * RBT_EVENTS_PER_PAGE, resume = RBT_EVENTS_PER_PAGE + dropped;
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.overrun, dropped);
    EXPECT_EQ(st.entries, total - 10 - dropped);
    unsigned long lost = 0;
    uint32_t bad = 0;
    for (uint32_t i = 10; i < RBT_EVENTS_PER_PAGE; i++) {
        bool got = rb_consume(rb, cpu, r, &lost);
        bad += !got || rbt_seq(r) != i || lost != 0;
    }
    EXPECT_EQ(bad, 0);
    EXPECT(rb_consume(rb, cpu, r, &lost));
    EXPECT_EQ(rbt_seq(r), resume);
    EXPECT_EQ(lost, dropped);
    rbt_expect_seqs(t, rb, cpu, resume + 1, total - resume - 1);

    /* The smaller buffer takes new events: the reader page and two ring pages. */
    for (uint32_t i = 0; i < 2 * RBT_EVENTS_PER_PAGE; i++)
        EXPECT(rbt_write(rb, RBT_FUNCTION_PAYLOAD, 9000 + i));
    rbt_expect_seqs(t, rb, cpu, 9000, 2 * RBT_EVENTS_PER_PAGE);
    rb_destroy(rb);
}

SELFTEST(rb_iterate_vs_consume)
{
    struct ring_buffer *rb = rbt_create(3);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = rbt_cpu();
    const unsigned n = 300; /* spans two pages */
    for (unsigned i = 0; i < n; i++) {
        rbt_now += 7;
        rbt_write(rb, i % 3 ? RBT_FUNCTION_PAYLOAD : 40, i);
    }
    struct rb_record *r = &rbt_records[0], *c = &rbt_records[1];

    for (int pass = 0; pass < 2; pass++) {
        struct rb_iter *it = rb_iter_start(rb, cpu);
        EXPECT(it != NULL);
        if (!it)
            break;
        /* Recording on this CPU waits for the iterator. */
        EXPECT(!rbt_write(rb, RBT_FUNCTION_PAYLOAD, 0));
        unsigned got = 0;
        while (rb_iter_peek(it, r)) {
            EXPECT_EQ(rbt_seq(r), got);
            EXPECT_EQ(r->ts, 1000 + 7 * (got + 1));
            EXPECT(rb_iter_next(it));
            got++;
        }
        EXPECT_EQ(got, n);
        EXPECT(!rb_iter_next(it));
        rb_iter_finish(it);
    }
    struct rb_stats st;
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, n);
    EXPECT_EQ(st.read, 0);

    /* Consumed events leave the iterator's view; the rest match one for one. */
    for (unsigned i = 0; i < 100; i++)
        EXPECT(rb_consume(rb, cpu, c, NULL));
    struct rb_iter *it = rb_iter_start(rb, cpu);
    EXPECT(it != NULL);
    if (it) {
        EXPECT(rb_iter_peek(it, r));
        EXPECT_EQ(rbt_seq(r), 100);
        /* A consume while iterating restarts the iterator at the oldest unconsumed event. */
        EXPECT(rb_iter_next(it));
        EXPECT(rb_iter_next(it));
        EXPECT(rb_consume(rb, cpu, c, NULL));
        EXPECT(rb_iter_peek(it, r));
        EXPECT_EQ(rbt_seq(r), 101);
        rb_iter_finish(it);
    }
    for (unsigned i = 101; i < n; i++) {
        EXPECT(rb_consume(rb, cpu, c, NULL));
        EXPECT_EQ(rbt_seq(c), i);
    }
    it = rb_iter_start(rb, cpu);
    EXPECT(it != NULL);
    if (it) {
        EXPECT(!rb_iter_peek(it, r));
        rb_iter_finish(it);
    }
    EXPECT(rbt_write(rb, RBT_FUNCTION_PAYLOAD, 0));
    rb_destroy(rb);
}

SELFTEST(rb_nested_commit)
{
    struct ring_buffer *rb = rbt_create(2);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = rbt_cpu();
    struct rb_reservation outer, inner, gone;
    struct rb_record *r = &rbt_records[0];

    rbt_hold_cpu();
    uint32_t *o = rb_reserve(rb, RBT_FUNCTION_PAYLOAD, &outer);
    rbt_now += 5;
    uint32_t *i = rb_reserve(rb, RBT_FUNCTION_PAYLOAD, &inner);
    uint32_t *g = rb_reserve(rb, RBT_FUNCTION_PAYLOAD, &gone);
    EXPECT(o && i && g);
    if (o && i && g) {
        *g = 3;
        rb_discard(rb, &gone);
        *i = 2;
        rb_commit(rb, &inner);
        /* The interrupted event is not committed yet, so neither is the nested one. */
        EXPECT(!rb_consume(rb, cpu, r, NULL));
        *o = 1;
        rb_commit(rb, &outer);
    }
    rbt_release_cpu();
    EXPECT(rb_consume(rb, cpu, r, NULL));
    EXPECT_EQ(rbt_seq(r), 1);
    EXPECT_EQ(r->ts, 1000);
    EXPECT(rb_consume(rb, cpu, r, NULL));
    EXPECT_EQ(rbt_seq(r), 2);
    EXPECT_EQ(r->ts, 1005);
    EXPECT(!rb_consume(rb, cpu, r, NULL));
    struct rb_stats st;
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.read, 2);
    EXPECT_EQ(st.bytes, 0);

    /* A discarded event keeps the time chain: the next one is still timed right. */
    rbt_write(rb, RBT_FUNCTION_PAYLOAD, 10);
    rbt_now += 1u << 28;
    rbt_hold_cpu();
    EXPECT(rb_reserve(rb, 40, &gone) != NULL);
    rb_discard(rb, &gone);
    rbt_release_cpu();
    rbt_now += 9;
    rbt_write(rb, RBT_FUNCTION_PAYLOAD, 11);
    EXPECT(rb_consume(rb, cpu, r, NULL));
    EXPECT_EQ(rbt_seq(r), 10);
    EXPECT(rb_consume(rb, cpu, r, NULL));
    EXPECT_EQ(rbt_seq(r), 11);
    EXPECT_EQ(r->ts, 1005 + (1u << 28) + 9);
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, 0);
    EXPECT_EQ(st.bytes, 0);
    rb_destroy(rb);
}

SELFTEST(rb_reset_and_disable)
{
    struct ring_buffer *rb = rbt_create(2);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = rbt_cpu();
    for (unsigned i = 0; i < 600; i++)
        rbt_write(rb, RBT_FUNCTION_PAYLOAD, i);
    struct rb_record *r = &rbt_records[0];
    EXPECT(rb_consume(rb, cpu, r, NULL));
    rb_reset(rb, -1);
    struct rb_stats st;
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, 0);
    EXPECT_EQ(st.overrun, 0);
    EXPECT_EQ(st.read, 0);
    EXPECT_EQ(st.bytes, 0);
    EXPECT(!rb_consume(rb, cpu, r, NULL));

    rb_record_disable(rb);
    rb_record_disable(rb);
    EXPECT(!rb_record_is_on(rb));
    EXPECT(!rbt_write(rb, RBT_FUNCTION_PAYLOAD, 0));
    rb_record_enable(rb);
    EXPECT(!rbt_write(rb, RBT_FUNCTION_PAYLOAD, 0));
    rb_record_enable(rb);
    EXPECT(rb_record_is_on(rb));
    EXPECT(rbt_write(rb, RBT_FUNCTION_PAYLOAD, 1));
    rb_record_disable_cpu(rb, cpu);
    EXPECT(!rbt_write(rb, RBT_FUNCTION_PAYLOAD, 0));
    rb_record_enable_cpu(rb, cpu);
    EXPECT(rbt_write(rb, RBT_FUNCTION_PAYLOAD, 2));
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, 2);
    EXPECT_EQ(st.dropped, 0);
    rbt_expect_events(t, rb, cpu, 1, 2);

    /* Reader and writer taking turns on one page, and the page after it. */
    for (unsigned i = 0; i < 3 * RBT_EVENTS_PER_PAGE; i++) {
        rbt_write(rb, RBT_FUNCTION_PAYLOAD, i);
        EXPECT(rb_consume(rb, cpu, r, NULL));
        EXPECT_EQ(rbt_seq(r), i);
    }
    rb_destroy(rb);
}

/*
 * A reader of trace_pipe_raw pages written from Linux's header_event and header_page
 * (type_len 1..28: 4 * type_len bytes follow; 0: array[0] is the length + 4; 29 padding
 * of array[0] + 4 bytes; 30 a time extend; commit's bits 31 and 30 for lost events),
 * independent of the ring buffer's own decoder.
 */
struct rbt_page_event {
    uint64_t ts;
    unsigned len;
    uint32_t seq;
};

static unsigned rbt_parse_page(const uint8_t *page, struct rbt_page_event *out, unsigned max,
                               uint64_t *lost, bool *bad)
{
    uint64_t ts, commit;
    memcpy(&ts, page, 8);
    memcpy(&commit, page + 8, 8);
    unsigned size = (unsigned)(commit & ((1u << 30) - 1)), pos = 0, n = 0;
    const uint8_t *data = page + 16;
    *lost = 0;
    if (commit & (1ULL << 31))
        *lost = (commit & (1ULL << 30)) ? *(const uint64_t *)(data + size) : ~0ULL;
    *bad = size > PAGE_SIZE - 16;
    while (!*bad && pos + 4 <= size && n < max) {
        uint32_t head = *(const uint32_t *)(data + pos), type = head & 31, delta = head >> 5;
        uint32_t word = pos + 8 <= size ? *(const uint32_t *)(data + pos + 4) : 0;
        if (type == 29) {
            ts += delta;
            pos += size - pos < 8 ? size - pos : 4 + word;
        } else if (type == 30) {
            ts += delta + ((uint64_t)word << 27);
            pos += 8;
        } else if (type == 31) {
            *bad = true;
        } else {
            unsigned len = type ? 4 * type : word - 4, start = pos + (type ? 4 : 8);
            ts += delta;
            out[n].ts = ts;
            out[n].len = len;
            memcpy(&out[n].seq, data + start, 4);
            n++;
            pos = start + len;
        }
    }
    *bad |= pos != size;
    return n;
}

/*
 * rb_read_page hands over whole pages in Linux's layout: the rest of a part-consumed page
 * with the right base time, big events with Linux's length word, time extends, the count
 * of events lost to overwriting on the first page after the loss, and the statistics.
 */
SELFTEST(rb_read_page_linux_layout)
{
    static uint8_t page[PAGE_SIZE] __aligned(8);
    static struct rbt_page_event got[RBT_EVENTS_PER_PAGE + 1];
    struct ring_buffer *rb = rbt_create(4);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = rbt_cpu();
    static const unsigned sizes[] = {12, 200, 112, 116, 4, 508};
    uint64_t times[ARRAY_SIZE(sizes) + 1];
    uint32_t seq = 0;

    /* Part of a page is consumed first: the page handed over starts after it. */
    EXPECT(rbt_write(rb, RBT_FUNCTION_PAYLOAD, seq++));
    struct rb_record *r = &rbt_records[0];
    EXPECT(rb_consume(rb, cpu, r, NULL));
    for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
        rbt_now += i == 3 ? (1ULL << 30) : 7;
        times[i] = rbt_now;
        EXPECT(rbt_write(rb, sizes[i], seq++));
    }
    uint64_t lost;
    bool bad;
    ASSERT_TRUE(rb_read_page(rb, cpu, page));
    unsigned n = rbt_parse_page(page, got, ARRAY_SIZE(got), &lost, &bad);
    EXPECT(!bad);
    EXPECT_EQ(lost, 0);
    ASSERT_EQ(n, ARRAY_SIZE(sizes));
    for (unsigned i = 0; i < n; i++) {
        EXPECT_EQ(got[i].seq, i + 1);
        EXPECT_EQ(got[i].len, sizes[i]);
        EXPECT_EQ(got[i].ts, times[i]);
    }
    EXPECT(!rb_read_page(rb, cpu, page));
    struct rb_stats st;
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.read, 1 + ARRAY_SIZE(sizes));
    EXPECT_EQ(st.entries, 0);
    EXPECT_EQ(st.bytes, 0);

    /* Overwriting: the first page read says how many events went, and every event
     * written is either on a page or counted lost. */
    rb_reset(rb, cpu);
    const unsigned total = 10 * RBT_EVENTS_PER_PAGE;
    for (unsigned i = 0; i < total; i++) {
        rbt_now += 3;
        rbt_write(rb, RBT_FUNCTION_PAYLOAD, i);
    }
    rb_get_stats(rb, cpu, &st);
    EXPECT(st.overrun > 0);
    uint64_t lost_total = 0, seen = 0, pages = 0;
    uint32_t next = 0;
    while (rb_read_page(rb, cpu, page)) {
        n = rbt_parse_page(page, got, ARRAY_SIZE(got), &lost, &bad);
        EXPECT(!bad);
        EXPECT_EQ(lost, pages == 0 ? st.overrun : 0);
        lost_total += lost;
        if (n)
            EXPECT_EQ(got[0].seq, pages == 0 ? (uint32_t)st.overrun : next);
        for (unsigned i = 1; i < n; i++)
            EXPECT_EQ(got[i].ts, got[i - 1].ts + 3);
        next = n ? got[n - 1].seq + 1 : next;
        seen += n;
        pages++;
    }
    EXPECT_EQ(seen + lost_total, total);
    EXPECT_EQ(next, total);
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.read, seen);
    EXPECT_EQ(st.entries, 0);
    rb_destroy(rb);
}

/*
 * Small events that take exactly `bytes` of a page (a multiple of 4, at least 8): 16-byte
 * function-sized events, then one to make up the rest. Returns the next sequence number.
 */
static uint32_t rbt_fill(struct ring_buffer *rb, unsigned bytes, uint32_t seq)
{
    for (; bytes >= 16 + 8 || bytes == 16; bytes -= 16)
        rbt_write(rb, RBT_FUNCTION_PAYLOAD, seq++);
    if (bytes) /* 8..20 bytes: a payload of bytes - 4 (0 costs 4 like 4) */
        rbt_write(rb, bytes - 4, seq++);
    return seq;
}

/*
 * Consumes everything on cpu: events first..next-1 in order of sequence and time, the big
 * one (max_seq) whole and at max_ts (0: a clock the test does not set).
 */
static void rbt_expect_whole(struct selftest_ctx *t, struct ring_buffer *rb, unsigned cpu,
                             uint32_t first, uint32_t next, uint32_t max_seq, uint64_t max_ts)
{
    struct rb_record *r = &rbt_records[0];
    unsigned long lost = 0;
    uint32_t bad = 0, seen_max = 0;
    uint64_t last_ts = 0;
    for (uint32_t i = first; i < next; i++) {
        bool got = rb_consume(rb, cpu, r, &lost);
        bad += !got || rbt_seq(r) != i || lost != 0;
        bad += got && r->ts < last_ts;
        last_ts = got ? r->ts : last_ts;
        if (got && rbt_seq(r) == max_seq) {
            seen_max++;
            EXPECT_EQ(r->len, RB_MAX_PAYLOAD);
            if (max_ts)
                EXPECT_EQ(r->ts, max_ts);
            EXPECT_EQ(r->data[4], 0x5a);
            EXPECT_EQ(r->data[RB_MAX_PAYLOAD - 1], 0x5a);
        } else if (got) {
            bad += r->len > 20;
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(seen_max, 1);
    EXPECT(!rb_consume(rb, cpu, r, NULL));
}

/* Where the tail page is filled to before the big event; each step's events after it
 * leave the next step's tail page at RBT_AFTER bytes. */
#define RBT_AFTER 48

static void rbt_max_event_steps(struct selftest_ctx *t, struct ring_buffer *rb, bool own_clock)
{
    unsigned cpu = rbt_cpu();
    static const struct {
        unsigned level;
        uint64_t gap;
        bool nested;
    } steps[] = {
        {0, 10, false},
        {RBT_AFTER + 16, 10, false},
        {RB_PAGE_DATA_SIZE - 8, 10, false},
        {RB_PAGE_DATA_SIZE - 4, 10, false},
        {RB_PAGE_DATA_SIZE, 10, false},
        {1600, 1ULL << 28, false},
        {RB_PAGE_DATA_SIZE, 1ULL << 28, false},
        {400, 10, true},
    };
    uint32_t seq = 0;
    unsigned level = 0;
    for (unsigned i = 0; i < ARRAY_SIZE(steps); i++) {
        uint32_t first = seq;
        seq = rbt_fill(rb, steps[i].level - level, seq);
        struct rb_reservation outer;
        uint32_t *o = NULL, outer_seq = 0;
        if (steps[i].nested) {
            rbt_hold_cpu();
            o = rb_reserve(rb, RBT_FUNCTION_PAYLOAD, &outer);
            EXPECT(o != NULL);
            outer_seq = seq++;
        }
        rbt_now += steps[i].gap;
        uint64_t max_ts = own_clock ? rbt_now : 0;
        uint32_t max_seq = seq;
        EXPECT(rbt_write(rb, RB_MAX_PAYLOAD, seq++));
        if (o) {
            /* Reserved before the big event, so it comes before it. */
            memcpy(o, &outer_seq, 4);
            rb_commit(rb, &outer);
            rbt_release_cpu();
        }
        rbt_now += 5;
        seq = rbt_fill(rb, RBT_AFTER, seq);
        level = RBT_AFTER;
        struct rb_stats st;
        rb_get_stats(rb, cpu, &st);
        EXPECT_EQ(st.entries, seq - first);
        EXPECT_EQ(st.overrun, 0);
        rbt_expect_whole(t, rb, cpu, first, seq, max_seq, max_ts);
    }
}

/*
 * An event of RB_MAX_PAYLOAD bytes takes a whole page, header and length word included.
 * Wherever the tail stands when it comes (an empty page; a page with a few events; a page
 * filled to 8, 4 and 0 bytes short of its end, so that it closes with a padding event, a
 * 4-byte padding word, or none), after a gap whose delta needs a time record, and while an
 * outer writer holds its reservation, it lands alone at the start of the next page with
 * its own time, and the events around it are intact: on a clock the test sets (every
 * reservation takes the general path) and on the default clock (the inline path first).
 * One byte more is refused and counted nowhere, as Linux's ring_buffer_lock_reserve
 * refuses it. On a page read out whole (trace_pipe_raw) it fills the page; with a loss to
 * report first, the count goes on a page of its own.
 */
SELFTEST(rb_max_event_at_page_boundary)
{
    struct ring_buffer *rb = rb_create(4 * RB_PAGE_DATA_SIZE, MAX_CPUS);
    ASSERT_TRUE(rb != NULL);
    rbt_max_event_steps(t, rb, false);
    rb_destroy(rb);
    rb = rbt_create(4);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = rbt_cpu();
    rbt_max_event_steps(t, rb, true);

    /* One byte more: refused, nothing counted, nothing written. */
    uint32_t seq = 1000;
    struct rb_stats before, after;
    rb_get_stats(rb, cpu, &before);
    EXPECT(!rbt_write(rb, RB_MAX_PAYLOAD + 1, seq));
    rb_get_stats(rb, cpu, &after);
    EXPECT_EQ(after.written, before.written);
    EXPECT_EQ(after.dropped, before.dropped);
    EXPECT_EQ(after.entries, 0);
    EXPECT(!rb_consume(rb, cpu, &rbt_records[0], NULL));

    /* Read out as pages: six whole events overwrite a ring of four pages. */
    static uint8_t page[PAGE_SIZE] __aligned(8);
    static struct rbt_page_event got[4];
    rb_reset(rb, cpu);
    for (uint32_t i = 0; i < 6; i++) {
        rbt_now += 100;
        EXPECT(rbt_write(rb, RB_MAX_PAYLOAD, i));
    }
    uint64_t lost;
    bool bad;
    unsigned pages = 0, events = 0, lost_total = 0;
    uint32_t next = 0;
    while (rb_read_page(rb, cpu, page) && pages < 10) {
        unsigned n = rbt_parse_page(page, got, ARRAY_SIZE(got), &lost, &bad);
        EXPECT(!bad);
        EXPECT(n <= 1);
        /* The loss comes alone, then every page holds one whole event. */
        EXPECT(n == 0 ? lost != 0 : lost == 0);
        if (n) {
            EXPECT_EQ(got[0].len, RB_MAX_PAYLOAD);
            EXPECT(events == 0 || got[0].seq == next);
            next = got[0].seq + 1;
        }
        lost_total += (unsigned)lost;
        events += n;
        pages++;
    }
    EXPECT(lost_total > 0);
    EXPECT_EQ(events + lost_total, 6);
    EXPECT_EQ(next, 6);
    rb_destroy(rb);
}
