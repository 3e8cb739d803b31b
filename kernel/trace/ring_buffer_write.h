/*
 * The ring buffer's writer fast path, inline.
 *
 * rb_reserve and rb_commit (ring_buffer.c) are these functions out of line. The tracers'
 * hot paths (a function event, a graph entry or return) include this header and use the
 * inline forms, so that a traced call pays for no call, no stack frame and no
 * reservation kept in memory: with a constant length the compiler folds the size
 * arithmetic away and keeps the reservation in registers. Everything that is not the
 * common case (a page that is full, a time gap too large for a delta, the commit
 * crossing pages) stays out of line in ring_buffer.c.
 *
 * The protocol itself is described at the top of ring_buffer.c.
 */
#ifndef KERNEL_TRACE_RING_BUFFER_WRITE_H
#define KERNEL_TRACE_RING_BUFFER_WRITE_H

#include "ring_buffer_layout.h"

/* Out of line in ring_buffer.c: the tail page is full (0: try again, -1: drop the event). */
int rb_move_tail(struct ring_buffer *rb, struct rb_cpu_buffer *cb, struct rb_page *tail,
                 uint64_t st);
/* Out of line in ring_buffer.c: rb_reserve_event's general case (see there). */
void *rb_reserve_event_slow(struct rb_cpu_buffer *cb, unsigned plen, struct rb_reservation *res);
/* Out of line in ring_buffer.c: the commit pointer must cross to later pages. */
void rb_advance_commit_pages(struct rb_cpu_buffer *cb, struct rb_page *page);

/*
 * Counts an event in as soon as its space is taken (a constant, on the fast path); one
 * abandoned with rb_discard is counted out again.
 */
static __always_inline void rb_count_written(struct rb_cpu_buffer *cb, unsigned size)
{
    rb_local_inc(&cb->written);
    rb_local_add(&cb->bytes_written, size);
}

/*
 * Moves the commit pointer up to the tail. Runs only in the outermost writer, so never
 * twice at once on a CPU; writers nested into it only add to the tail. The common case,
 * commit and tail on one page, is one store and a check.
 */
static __always_inline void rb_advance_commit(struct rb_cpu_buffer *cb)
{
    struct rb_page *page = cb->commit_page;
    /* The commit page is the tail, or closed (its offset final, its padding written): both
     * ways everything reserved on it is written now. */
    __atomic_store_n(&page->data->commit, rb_st_off(RB_LOAD(page->state)), __ATOMIC_RELEASE);
    barrier();
    if (unlikely(READ_ONCE(cb->tail_page) != page))
        rb_advance_commit_pages(cb, page);
}

/*
 * The steps every reservation attempt takes, shared by the inline fast path below and the
 * general loop (rb_reserve_event_slow).
 *
 * Time stamps: before_ts and last_ts are equal except while some writer is between storing
 * before_ts and storing last_ts, which brackets its claim of the space. A writer that
 * finds them equal knows last_ts is the time of the event just before its space; one
 * that finds them different interrupted that window and writes an absolute time. The
 * cmpxchg on the state word fails if anything else happened since the state was read.
 * The clock is read after before_ts and last_ts (after rb_read_tail): with the read moved
 * before them, the host stress test (tests/host/rb_stress.c) finds events timed outside
 * their reservations.
 */
struct rb_tail_view {
    struct rb_page *tail;
    uint64_t st; /* the tail page's state word */
    unsigned off;
    uint64_t before, last;
};

static __always_inline struct rb_tail_view rb_read_tail(struct rb_cpu_buffer *cb)
{
    struct rb_tail_view v;
    v.tail = READ_ONCE(cb->tail_page);
    v.st = RB_LOAD(v.tail->state);
    v.off = rb_st_off(v.st);
    barrier();
    v.before = READ_ONCE(cb->before_ts);
    v.last = READ_ONCE(cb->last_ts);
    RB_HOOK(RESERVE_READ);
    return v;
}

/* Claims size bytes at v.off for an event at ts; false when the tail changed meanwhile. */
static __always_inline bool rb_claim(struct rb_cpu_buffer *cb, const struct rb_tail_view *v,
                                     unsigned size, uint64_t ts)
{
    WRITE_ONCE(cb->before_ts, ts);
    RB_HOOK(RESERVE_STAMPED);
    if (unlikely(!rb_local_cmpxchg(&v->tail->state, v->st, v->st + rb_st_event(size))))
        return false;
    RB_HOOK(RESERVE_TAKEN);
    WRITE_ONCE(cb->last_ts, ts);
    RB_HOOK(RESERVE_TIMED);
    rb_count_written(cb, size);
    return true;
}

/* Fills res and the event header at p (after any time record); returns the payload. */
static __always_inline void *rb_write_header(struct rb_reservation *res, struct rb_page *tail,
                                             uint32_t *p, unsigned plen, unsigned size, uint64_t ts,
                                             uint32_t delta)
{
    res->page = tail;
    res->event = (struct rb_event *)p;
    res->length = size;
    res->ts = ts;
    if (plen <= RB_SMALL_PAYLOAD) {
        p[0] = rb_header(plen / 4, delta);
        return p + 1;
    }
    p[0] = rb_header(RB_TYPE_LEN0, delta);
    p[1] = plen + 4; /* as Linux: the length word counts itself */
    return p + 2;
}

static __always_inline void *rb_reserve_event_retry(struct rb_cpu_buffer *cb, unsigned plen,
                                                    struct rb_reservation *res)
{
    /* A copy, so that the caller's reservation never has its address taken and can stay
     * in registers on the fast path. */
    struct rb_reservation slow;
    void *payload = rb_reserve_event_slow(cb, plen, &slow);
    *res = slow;
    return payload;
}

/*
 * Reserves space for a payload of plen bytes (a multiple of 4) and writes the event header:
 * the common case inline, in one attempt: the default clock (the caller checked
 * write_gate), a later event on the same page whose delta fits in the header, and no
 * writer in the way. Everything else goes to rb_reserve_event_slow (ring_buffer.c),
 * which starts over and handles every case. The default clock, clock_ns, is read inline.
 */
static __always_inline void *rb_reserve_event(struct rb_cpu_buffer *cb, unsigned plen,
                                              struct rb_reservation *res)
{
    unsigned size = plen <= RB_SMALL_PAYLOAD ? 4 + plen : 8 + plen;
    struct rb_tail_view v = rb_read_tail(cb);
    uint64_t ts = rb_clock_ns(); /* the buffer's clock: write_gate was zero */
    /*
     * A clock behind `before` makes the delta huge: the slow path clamps it. An empty page
     * (off 0) wraps off - 1 round, so one compare finds it and a full page both. Written
     * as >= so that an event of a whole page (size RB_DATA_SIZE, which only an empty page
     * holds) compares against 0 and always goes the slow way, where the page is set up.
     */
    uint64_t delta = ts - v.last;
    if (unlikely(((v.before ^ v.last) | (delta >> RB_DELTA_BITS)) != 0 ||
                 v.off - 1 >= RB_DATA_SIZE - size))
        return rb_reserve_event_retry(cb, plen, res);
    if (unlikely(!rb_claim(cb, &v, size, ts)))
        return rb_reserve_event_retry(cb, plen, res);
    uint32_t *p = (uint32_t *)(v.tail->data->data + v.off);
    return rb_write_header(res, v.tail, p, plen, size, ts, (uint32_t)delta);
}

/*
 * Leaves the buffer. The outermost writer moves the commit pointer, then counts itself out
 * with a cmpxchg on the nest word: if a writer came and went in between (it saw us inside
 * and left its events for us), the sequence part has changed, the cmpxchg fails and we
 * commit again.
 */
static __always_inline void rb_end_commit(struct rb_cpu_buffer *cb)
{
    for (;;) {
        uint64_t nest = READ_ONCE(cb->nest);
        barrier();
        if ((nest & RB_NEST_DEPTH_MASK) == 1)
            rb_advance_commit(cb);
        RB_HOOK(COMMIT_DONE);
        if (likely(rb_local_cmpxchg(&cb->nest, nest, nest - 1)))
            return;
    }
}

/* The writer's start on cb, this CPU's part of its buffer (or NULL: nothing is written). */
static __always_inline void *rb_reserve_on(struct rb_cpu_buffer *cb, unsigned len,
                                           struct rb_reservation *res)
{
    if (unlikely(len > RB_MAX_PAYLOAD || !cb))
        return NULL;

    /*
     * Count ourselves in before looking at the disable counters: rb_wait_writers relies on
     * that order (see there). Acquire pairs with the release of a control operation that
     * rebuilt the pages before enabling recording again.
     */
    rb_local_add(&cb->nest, RB_NEST_ENTER);
    RB_HOOK(ENTRY);
    unsigned plen = len ? ALIGN_UP(len, 4u) : 4;
    void *payload;
    if (likely(!__atomic_load_n(&cb->write_gate, __ATOMIC_ACQUIRE))) {
        payload = rb_reserve_event(cb, plen, res);
    } else if (__atomic_load_n(&cb->record_disabled, __ATOMIC_ACQUIRE)) {
        /* Touch nothing else: a control operation may be rebuilding the pages. */
        rb_local_dec(&cb->nest);
        return NULL;
    } else {
        payload = rb_reserve_event_retry(cb, plen, res); /* another clock */
    }
    if (unlikely(!payload)) {
        rb_end_commit(cb);
        return NULL;
    }
    res->cpu_buffer = cb;
    return payload;
}

static __always_inline void *rb_reserve_inline(struct ring_buffer *rb, unsigned len,
                                               struct rb_reservation *res)
{
    /* rb_create leaves the buffers of CPUs past ncpus NULL. */
    return rb_reserve_on(rb->cpus[this_cpu_id()], len, res);
}

static __always_inline void rb_commit_inline(struct rb_reservation *res)
{
    rb_end_commit(res->cpu_buffer);
}

#endif
