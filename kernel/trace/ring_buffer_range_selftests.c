/*
 * Self-tests of the ring buffer on a fixed range (ring_buffer_range.c). A "reboot" here is
 * rb_destroy, which leaves the range's pages as they are, then rb_create_in_range on the
 * same memory, which is what the next boot does. The events are written on this CPU with
 * a clock the test moves, so what comes back can be checked one by one.
 */
#include <kernel/errno.h>
#include <kernel/fault_inject.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/selftest.h>
#include <kernel/smp.h>
#include <lib/string.h>

#include "ring_buffer_layout.h"

#define RRT_CPU_PAGES 4 /* three ring pages and the reader page */
#define RRT_IDENTITY 0x1234567890abcdefULL
#define RRT_TEXT 0xffffffff80100000ULL
#define RRT_EVENTS 600 /* of 16 bytes: more than two pages, less than three */

static uint64_t rrt_now;
static uint64_t rrt_clock(void) { return rrt_now; }
/* A record holds a page of payload: not for a kernel stack. Self-tests run one at a time. */
static struct rb_record rrt_record;

struct rrt_range {
    uint64_t phys;
    size_t size;
    void *base;
};

static bool rrt_range_alloc(struct rrt_range *r)
{
    size_t pages = 1 + (size_t)cpus_online * RRT_CPU_PAGES;
    r->size = pages * PAGE_SIZE;
    r->phys = page_alloc_n(pages);
    r->base = r->phys ? phys_to_virt(r->phys) : NULL;
    return r->phys != 0;
}

static void rrt_range_free(struct rrt_range *r) { page_free_n(r->phys, r->size / PAGE_SIZE); }

static struct ring_buffer *rrt_open(struct rrt_range *r, uint64_t identity,
                                    rb_record_check_fn check, struct rb_range_report *rep)
{
    struct ring_buffer *rb =
        rb_create_in_range(r->base, r->size, cpus_online, identity, RRT_TEXT, check, rep);
    if (!rb)
        return NULL;
    /* Kept events leave recording off (rb_create_in_range); else it is on. */
    if (!rep->events)
        rb_record_disable(rb);
    rb_range_restore_clock(rb, rrt_clock);
    rb_record_enable(rb);
    return rb;
}

/* RRT_EVENTS events on this CPU, payload seq then 0x5a bytes, one time unit apart. */
static unsigned rrt_write_all(struct ring_buffer *rb)
{
    unsigned written = 0;
    rrt_now = 5000;
    preempt_disable();
    for (uint32_t seq = 0; seq < RRT_EVENTS; seq++, rrt_now += 3) {
        struct rb_reservation res;
        uint8_t *p = rb_reserve(rb, 12, &res);
        if (!p)
            continue;
        memset(p, 0x5a, 12);
        memcpy(p, &seq, 4);
        rb_commit(rb, &res);
        written++;
    }
    preempt_enable();
    return written;
}

/* Consumes this CPU's events: how many, whether seqs rose and times matched them. */
static unsigned rrt_read_all(struct selftest_ctx *t, struct ring_buffer *rb, unsigned cpu,
                             uint32_t *first, uint32_t *last)
{
    struct rb_record *rec = &rrt_record;
    unsigned long lost;
    unsigned n = 0;
    bool ordered = true;
    while (rb_consume(rb, cpu, rec, &lost)) {
        uint32_t seq;
        memcpy(&seq, rec->data, 4);
        if (n == 0)
            *first = seq;
        else if (seq <= *last)
            ordered = false;
        if (rec->ts != 5000 + 3 * (uint64_t)seq || rec->len != 12)
            ordered = false;
        *last = seq;
        n++;
    }
    EXPECT(ordered);
    return n;
}

SELFTEST(rb_range_events_survive_a_recreate)
{
    struct rrt_range r;
    ASSERT_TRUE(rrt_range_alloc(&r));
    struct rb_range_report rep;
    struct ring_buffer *rb = rrt_open(&r, RRT_IDENTITY, NULL, &rep);
    ASSERT_TRUE(rb != NULL);
    EXPECT(!rep.kept);
    EXPECT(rb_is_in_range(rb));
    /* Its size is the range's: another is refused, the same is a no-op. */
    EXPECT_EQ(rb_resize(rb, -1, 64 * RB_PAGE_DATA_SIZE), -EBUSY);
    EXPECT_EQ(rb_resize(rb, -1, rb_size(rb, 0)), 0);
    EXPECT_EQ(rrt_write_all(rb), RRT_EVENTS);
    rb_range_set_clock_id(rb, 2);
    unsigned cpu = this_cpu_id();
    rb_destroy(rb);

    rb = rrt_open(&r, RRT_IDENTITY, NULL, &rep);
    ASSERT_TRUE(rb != NULL);
    EXPECT(rep.kept);
    EXPECT_EQ(rep.text_addr, RRT_TEXT);
    EXPECT_EQ(rep.clock_id, 2);
    EXPECT_EQ(rep.events, RRT_EVENTS);
    EXPECT_EQ(rep.pages_kept, 3);
    EXPECT_EQ(rep.pages_dropped, 0);
    struct rb_stats st;
    rb_get_stats(rb, cpu, &st);
    EXPECT_EQ(st.entries, RRT_EVENTS);
    uint32_t first = 0, last = 0;
    EXPECT_EQ(rrt_read_all(t, rb, cpu, &first, &last), RRT_EVENTS);
    EXPECT_EQ(first, 0);
    EXPECT_EQ(last, RRT_EVENTS - 1);
    /* It records again where the kept events ended, and reads on. */
    rrt_now = 5000 + 3 * RRT_EVENTS;
    preempt_disable();
    struct rb_reservation res;
    uint32_t *p = rb_reserve(rb, 12, &res);
    if (p) {
        p[0] = RRT_EVENTS;
        p[1] = p[2] = 0x5a5a5a5a;
        rb_commit(rb, &res);
    }
    preempt_enable();
    EXPECT_EQ(rrt_read_all(t, rb, cpu, &first, &last), 1);
    EXPECT_EQ(last, RRT_EVENTS);
    rb_destroy(rb);

    /* Another kernel's buffer is not read: laid out afresh. */
    rb = rrt_open(&r, RRT_IDENTITY + 1, NULL, &rep);
    ASSERT_TRUE(rb != NULL);
    EXPECT(!rep.kept);
    EXPECT_EQ(rep.events, 0);
    EXPECT_EQ(rrt_read_all(t, rb, cpu, &first, &last), 0);
    rb_destroy(rb);
    rrt_range_free(&r);
}

/* This CPU's data page whose first event is the n-th oldest of the non-empty ones. */
static struct rb_data_page *rrt_nth_page(struct rrt_range *r, unsigned cpu, unsigned nth)
{
    struct rb_data_page *pages[RRT_CPU_PAGES];
    unsigned k = 0;
    for (unsigned i = 0; i < RRT_CPU_PAGES; i++) {
        struct rb_data_page *dp =
            (void *)((uint8_t *)r->base + PAGE_SIZE * (1 + cpu * RRT_CPU_PAGES + i));
        if (dp->commit)
            pages[k++] = dp;
    }
    for (unsigned a = 0; a < k; a++)
        for (unsigned b = a + 1; b < k; b++)
            if (pages[b]->time_stamp < pages[a]->time_stamp) {
                struct rb_data_page *x = pages[a];
                pages[a] = pages[b];
                pages[b] = x;
            }
    return nth < k ? pages[nth] : NULL;
}

static unsigned rrt_page_events(const struct rb_data_page *dp) { return (unsigned)dp->commit / 16; }

static bool rrt_reject_seq_13(const void *payload, unsigned len)
{
    return len == 12 && *(const uint32_t *)payload != 13;
}

SELFTEST(rb_range_invalid_pages_are_dropped)
{
    struct rrt_range r;
    ASSERT_TRUE(rrt_range_alloc(&r));
    struct rb_range_report rep;
    unsigned cpu = this_cpu_id();
    uint32_t first = 0, last = 0;

    /* A page cut in the middle of an event (its commit offset is not an event's end). */
    struct ring_buffer *rb = rrt_open(&r, RRT_IDENTITY, NULL, &rep);
    ASSERT_TRUE(rb != NULL);
    EXPECT_EQ(rrt_write_all(rb), RRT_EVENTS);
    rb_destroy(rb);
    struct rb_data_page *dp = rrt_nth_page(&r, cpu, 1);
    ASSERT_TRUE(dp != NULL);
    unsigned lost = rrt_page_events(dp);
    dp->commit = 100;
    rb = rrt_open(&r, RRT_IDENTITY, NULL, &rep);
    ASSERT_TRUE(rb != NULL);
    EXPECT(rep.kept);
    EXPECT_EQ(rep.pages_dropped, 1);
    EXPECT_EQ(rep.events, RRT_EVENTS - lost);
    EXPECT_EQ(rrt_read_all(t, rb, cpu, &first, &last), RRT_EVENTS - lost);
    EXPECT_EQ(first, 0);
    EXPECT_EQ(last, RRT_EVENTS - 1);

    /* An event whose length cannot be (a long event shorter than its own header). */
    rb_reset(rb, -1);
    EXPECT_EQ(rrt_write_all(rb), RRT_EVENTS);
    rb_destroy(rb);
    dp = rrt_nth_page(&r, cpu, 0);
    ASSERT_TRUE(dp != NULL);
    lost = rrt_page_events(dp);
    struct rb_event *ev = (struct rb_event *)(dp->data + 32);
    ev->header = RB_TYPE_LEN0;
    ev->array[0] = 2;
    rb = rrt_open(&r, RRT_IDENTITY, NULL, &rep);
    ASSERT_TRUE(rb != NULL);
    EXPECT_EQ(rep.pages_dropped, 1);
    EXPECT_EQ(rrt_read_all(t, rb, cpu, &first, &last), RRT_EVENTS - lost);
    EXPECT_EQ(first, lost);

    /* A padding whose length wraps to nothing in 32 bits: refused, not stepped by 0. */
    rb_reset(rb, -1);
    EXPECT_EQ(rrt_write_all(rb), RRT_EVENTS);
    rb_destroy(rb);
    dp = rrt_nth_page(&r, cpu, 2);
    ASSERT_TRUE(dp != NULL);
    ev = (struct rb_event *)(dp->data + 16);
    ev->header = RB_TYPE_PADDING;
    ev->array[0] = 0xfffffffcu;
    rb = rrt_open(&r, RRT_IDENTITY, NULL, &rep);
    ASSERT_TRUE(rb != NULL);
    EXPECT_EQ(rep.pages_dropped, 1);
    EXPECT_EQ(rrt_read_all(t, rb, cpu, &first, &last), 2 * 255);

    /* A record the caller's check refuses drops its page. */
    rb_reset(rb, -1);
    EXPECT_EQ(rrt_write_all(rb), RRT_EVENTS);
    rb_destroy(rb);
    rb = rrt_open(&r, RRT_IDENTITY, rrt_reject_seq_13, &rep);
    ASSERT_TRUE(rb != NULL);
    EXPECT_EQ(rep.pages_dropped, 1);
    EXPECT_EQ(rrt_read_all(t, rb, cpu, &first, &last), RRT_EVENTS - 255);
    EXPECT_EQ(first, 255);
    rb_destroy(rb);
    rrt_range_free(&r);
}

SELFTEST(rb_range_counts_bytes_as_the_writer)
{
    /* Events far apart in time carry time records, which count in their bytes. */
    struct rrt_range r;
    ASSERT_TRUE(rrt_range_alloc(&r));
    struct rb_range_report rep;
    struct ring_buffer *rb = rrt_open(&r, RRT_IDENTITY, NULL, &rep);
    ASSERT_TRUE(rb != NULL);
    unsigned cpu = this_cpu_id();
    rrt_now = 1000;
    preempt_disable();
    for (uint32_t seq = 0; seq < 10; seq++, rrt_now += 1ULL << 30) {
        struct rb_reservation res;
        uint32_t *p = rb_reserve(rb, 12, &res);
        if (p) {
            p[0] = seq;
            rb_commit(rb, &res);
        }
    }
    preempt_enable();
    struct rb_stats before, after;
    rb_get_stats(rb, cpu, &before);
    EXPECT_EQ(before.entries, 10);
    rb_destroy(rb);
    rb = rrt_open(&r, RRT_IDENTITY, NULL, &rep);
    ASSERT_TRUE(rb != NULL);
    rb_get_stats(rb, cpu, &after);
    EXPECT_EQ(after.entries, before.entries);
    EXPECT_EQ(after.bytes, before.bytes);
    struct rb_record *rec = &rrt_record;
    unsigned long lost;
    unsigned n = 0;
    while (rb_consume(rb, cpu, rec, &lost))
        n++;
    EXPECT_EQ(n, 10);
    rb_get_stats(rb, cpu, &after);
    EXPECT_EQ(after.entries, 0);
    EXPECT_EQ(after.bytes, 0);
    rb_destroy(rb);
    rrt_range_free(&r);
}

static struct rrt_range rrt_fail_range;

static int rrt_fail_attempt(void *arg)
{
    (void)arg;
    struct rb_range_report rep;
    struct ring_buffer *rb = rb_create_in_range(rrt_fail_range.base, rrt_fail_range.size,
                                                cpus_online, RRT_IDENTITY, RRT_TEXT, NULL, &rep);
    if (!rb)
        return -ENOMEM;
    rb_destroy(rb);
    return 0;
}

/* A creation that failed left the range as it was: the events are all there still. */
static bool rrt_fail_left_range(void *arg)
{
    (void)arg;
    struct rb_range_report rep;
    struct ring_buffer *rb = rb_create_in_range(rrt_fail_range.base, rrt_fail_range.size,
                                                cpus_online, RRT_IDENTITY, RRT_TEXT, NULL, &rep);
    if (!rb)
        return false;
    rb_destroy(rb);
    return rep.kept && rep.events == RRT_EVENTS && rep.pages_dropped == 0;
}

SELFTEST(rb_range_whole_on_failure)
{
    ASSERT_TRUE(rrt_range_alloc(&rrt_fail_range));
    /* With events to keep, so that the restore's allocations fail too. */
    struct rb_range_report rep;
    struct ring_buffer *rb = rrt_open(&rrt_fail_range, RRT_IDENTITY, NULL, &rep);
    ASSERT_TRUE(rb != NULL);
    EXPECT_EQ(rrt_write_all(rb), RRT_EVENTS);
    rb_destroy(rb);
    const struct selftest_alloc_failures f = {&failslab,           200, 1, rrt_fail_attempt,
                                              rrt_fail_left_range, NULL};
    EXPECT_EQ(selftest_alloc_failures(t, &f), 0);
    rrt_range_free(&rrt_fail_range);
}
