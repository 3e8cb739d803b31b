/*
 * The tracer's per-CPU ring buffer.
 *
 * Each CPU has a ring of pages linked through rb_page.next and one more page, the reader
 * page, outside the ring. A data page is a whole page: the time of its first event, the
 * length of its committed events, then the events. Per CPU there are four page pointers:
 *
 *   head    oldest page of the ring: the one the reader takes next
 *   commit  page where fully written events end
 *   tail    page where the next event is reserved
 *   reader  page the reader consumes from
 *
 * Going round the ring they come in the order head, commit, tail. The link that points at
 * the head page (the `next` of the page before it) carries RB_PAGE_HEAD in its low bits.
 *
 * Writers run only on their own CPU and never lock. Their nesting is a stack: a writer
 * interrupted by an irq, NMI or int3 handler that writes too resumes only after that
 * nested writer has finished. So every writer step either happens before a nested writer
 * or sees all of it, and a single-instruction update without the lock prefix is atomic
 * against it. A reservation is a cmpxchg on the tail page's state word; the writer then
 * fills the event and commits. Only the outermost writer moves the commit pointer, so
 * nested events become visible together with the event they interrupted.
 *
 * When an event does not fit, the writer closes the tail page (padding the rest) and moves
 * the tail to the next page. If that page is the head, the buffer is full: in producer/
 * consumer mode the event is dropped, in overwrite mode the writer pushes the head one
 * page on, losing the oldest page. Pushing turns the head link's flag from HEAD to UPDATE
 * (so the reader cannot take the page meanwhile), flags the next link as HEAD, then clears
 * UPDATE. A writer that interrupts a push sees UPDATE and finishes the push's steps
 * itself; only the writer that set UPDATE counts the lost events and clears it.
 *
 * A reader takes the head page out of the ring by putting its empty reader page in its
 * place, with one locked cmpxchg on the head link that fails while the flag is UPDATE, and
 * only while no push is under way on that CPU (so a loss is counted before the reader can
 * pass it). It then owns that page: writers never write below a page's commit, and a page
 * out of the ring is written again only if it is the tail page. Readers serialise on a
 * per-CPU lock and never make a writer wait.
 *
 * Time: each event stores a 27-bit delta from the previous event on its page; the first
 * event of a page has delta 0 and the page header has its full time. Larger deltas get a
 * TIME_EXTEND record in front. A writer that interrupts another between the moment that
 * one claims its space and the moment it records its time cannot know the time its delta
 * would be relative to, so it writes an absolute TIME_STAMP record instead (see
 * rb_reserve_event).
 */
#include "trace_internal.h"

#include <arch/cpu.h>
#include <arch/local.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <lib/string.h>

/* The default clock, clock_ns(), read inline; the host stress test has its own. */
#ifdef RB_TEST_HOOKS
#define rb_clock_ns() clock_ns()
#else
#include <arch/tsc.h>
#define rb_clock_ns() tsc_clock_ns()
#endif

/* Event header: type_len in bits 0..4, time delta in bits 5..31. */
#define RB_TYPE_BITS 5
#define RB_TYPE_MASK 31u
#define RB_TYPE_LEN0 0      /* payload length in array[0], payload from array[1] */
#define RB_TYPE_DATA_MAX 28 /* 1..28: payload of 4 * type_len bytes from array[0] */
#define RB_TYPE_PADDING 29  /* length - 4 in array[0], or 4 bytes at the end of a page */
#define RB_TYPE_TIME_EXTEND 30
#define RB_TYPE_TIME_STAMP 31
#define RB_DELTA_BITS 27
#define RB_DELTA_MAX ((1u << RB_DELTA_BITS) - 1)
#define RB_TIME_BITS 59 /* what a TIME_EXTEND or TIME_STAMP record holds: 27 + 32 bits */
#define RB_TIME_MASK ((1ULL << RB_TIME_BITS) - 1)
#define RB_SMALL_PAYLOAD (RB_TYPE_DATA_MAX * 4)
#define RB_STAMP_LEN 8

enum { RB_STAMP_NONE, RB_STAMP_EXTEND, RB_STAMP_ABSOLUTE };

struct rb_event {
    uint32_t header;
    uint32_t array[];
};

/* The page as Linux lays out a sub-buffer: time stamp, commit, events. */
struct rb_data_page {
    uint64_t time_stamp;
    uint64_t commit;
    uint8_t data[];
};

#define RB_DATA_SIZE ((unsigned)(PAGE_SIZE - offsetof(struct rb_data_page, data)))
_Static_assert(RB_DATA_SIZE == RB_PAGE_DATA_SIZE, "RB_PAGE_DATA_SIZE is the page's data area");
_Static_assert(RB_MAX_PAYLOAD + 16 <= RB_DATA_SIZE, "an event must fit on an empty page");
#define RB_MIN_PAGES 2
#define RB_MAX_PAGES (1u << 20)

/*
 * A page's writer state in one word, so that one cmpxchg both reserves an event and counts
 * it, and one cmpxchg recycles the page:
 *   bits  0..12  write offset (RB_DATA_SIZE once the page is closed)
 *   bits 13..22  events on the page, discarded ones not included
 *   bits 23..35  bytes of those events
 *   bits 36..63  generation, bumped when the page is recycled, so that a writer interrupted
 *                while the page went round the ring cannot mistake the new page for the old
 */
#define RB_ST_OFF_MASK 0x1fffULL
#define RB_ST_ENTRY (1ULL << 13)
#define RB_ST_ENTRY_SHIFT 13
#define RB_ST_ENTRY_MASK 0x3ffULL
#define RB_ST_BYTES_SHIFT 23
#define RB_ST_BYTES_MASK 0x1fffULL
#define RB_ST_GEN_SHIFT 36

/*
 * Flags in the low bits of rb_page.next. HEAD: the page this link points to is the head.
 * UPDATE: a writer is pushing the head off that page. TOGGLE flips each time a push clears
 * UPDATE, so a link that went round HEAD -> UPDATE -> normal never compares equal to what
 * it was before; a writer resuming an interrupted push relies on that (rb_push_head).
 */
#define RB_PAGE_HEAD 1UL
#define RB_PAGE_UPDATE 2UL
#define RB_PAGE_TOGGLE 4UL
#define RB_PAGE_FLAGS 7UL

/* A line each: writers change `state` on every event, so no two CPUs may share a line. */
struct rb_page {
    uintptr_t next;       /* struct rb_page * | RB_PAGE_* */
    struct rb_page *prev; /* changed only by the reader */
    uint64_t state;       /* RB_ST_*: changed only by this CPU's writers */
    unsigned read;        /* on the reader page: offset of the first unconsumed byte */
    struct rb_data_page *data;
} __cacheline_aligned;

struct rb_cpu_buffer {
    /* This CPU's writers, on every event. */
    struct rb_page *tail_page;
    struct rb_page *commit_page;
    unsigned long committing; /* writers inside the buffer, nested ones included */
    unsigned long commits;    /* reservations begun: shows the outermost writer a late one */
    uint64_t before_ts;       /* time of the latest reservation attempt */
    uint64_t last_ts;         /* time of the latest event reserved */
    unsigned long written;    /* events committed */
    unsigned long bytes_written;

    /* This CPU's writers, once a page; the reader reads these. */
    unsigned long pushing __cacheline_aligned; /* writers inside rb_push_head */
    unsigned long overrun;
    unsigned long bytes_overrun;
    unsigned long commit_overrun;
    unsigned long dropped;
    struct rb_page *head_page; /* a hint where to start looking for the head */

    /* Readers, under reader_lock. */
    struct spinlock reader_lock __cacheline_aligned;
    struct rb_page *reader_page;
    uint64_t read_ts; /* time of the last event consumed */
    unsigned long read;
    unsigned long bytes_read;
    unsigned long last_overrun; /* overrun when the reader last took a page */
    unsigned long lost_events;  /* not yet reported by rb_consume */
    unsigned long read_gen;     /* changes whenever the consumed position moves */
    unsigned iterators;

    /* Set by control operations, read by writers. */
    int record_disabled __cacheline_aligned;
    unsigned cpu;
    unsigned nr_pages;
    struct rb_page *pages; /* nr_pages + 1 descriptors; the ring starts with all but the last */
    struct ring_buffer *rb;
};

struct ring_buffer {
    int record_disabled;
    bool overwrite;
    uint64_t (*clock)(void);
    unsigned ncpus;
    struct rb_cpu_buffer *cpus[MAX_CPUS];
} __cacheline_aligned;

struct rb_iter {
    struct rb_cpu_buffer *cpu_buffer;
    struct rb_page *page;
    unsigned off;
    uint64_t ts;
    unsigned long read_gen;
};

/* One event as a reader finds it: its time record if any, then the event itself. */
struct rb_unit {
    unsigned start;   /* offset of the unit in the page data */
    unsigned size;    /* bytes from start to the next unit */
    unsigned payload; /* offset of the payload */
    unsigned len;
    uint64_t ts;
};

/*
 * Points where a nested writer landing matters. The host stress test (tests/host) builds
 * with RB_TEST_HOOKS and runs a nested writer, or a reader delay, at each of them.
 */
#ifdef RB_TEST_HOOKS
enum {
    RB_HOOK_ENTRY,
    RB_HOOK_RESERVE_READ,
    RB_HOOK_RESERVE_STAMPED,
    RB_HOOK_RESERVE_TAKEN,
    RB_HOOK_RESERVE_TIMED,
    RB_HOOK_CLOSED,
    RB_HOOK_PUSH_READ,
    RB_HOOK_PUSH_UPDATE,
    RB_HOOK_PUSH_HEAD,
    RB_HOOK_ENTER_RESET,
    RB_HOOK_ENTER_PUBLISH,
    RB_HOOK_COMMIT_ADVANCE,
    RB_HOOK_COMMIT_DONE,
    RB_HOOK_DISCARD,
    RB_HOOK_READER_FIND,
    RB_HOOK_READER_SWAP,
    RB_HOOK_READER_CORRUPT,
    RB_HOOK_COUNT
};
static const char *const rb_hook_names[RB_HOOK_COUNT] = {
    "entry",         "reserve_read",   "reserve_stamped", "reserve_taken", "reserve_timed",
    "closed",        "push_read",      "push_update",     "push_head",     "enter_reset",
    "enter_publish", "commit_advance", "commit_done",     "discard",       "reader_find",
    "reader_swap",   "reader_corrupt",
};
void rb_test_hook(int point);
unsigned rb_test_hook_count(void)
{
    return RB_HOOK_COUNT;
}
const char *rb_test_hook_name(int point)
{
    return rb_hook_names[point];
}
#define RB_HOOK(point) rb_test_hook(RB_HOOK_##point)
#else
#define RB_HOOK(point) ((void)0)
#endif

/* Same-CPU atomics (<arch/local.h>) on this CPU's own words. */
#define rb_local_inc(p) local_inc(p)
#define rb_local_dec(p) local_dec(p)
#define rb_local_add(p, v) local_add(p, v)
#define rb_local_sub64(p, v) local_sub64(p, v)
#define rb_local_cmpxchg(p, old, new) local_cmpxchg(p, old, new)
static __always_inline bool rb_local_cmpxchg_page(struct rb_page **p, struct rb_page *old,
                                                  struct rb_page *new)
{
    return local_cmpxchg_ptr((void **)p, old, new);
}

/*
 * Links between pages are also changed by the reader on another CPU, so changing them takes
 * the locked cmpxchg. Returns the value found: `old` when the exchange happened.
 */
static inline uintptr_t rb_link_cmpxchg(uintptr_t *link, uintptr_t old, uintptr_t new)
{
    __atomic_compare_exchange_n(link, &old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return old;
}

#define RB_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define RB_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static inline struct rb_page *rb_ptr(uintptr_t link)
{
    return (struct rb_page *)(link & ~RB_PAGE_FLAGS);
}
static inline uintptr_t rb_link(const struct rb_page *page)
{
    return __atomic_load_n(&page->next, __ATOMIC_ACQUIRE);
}
static inline struct rb_page *rb_next(const struct rb_page *page)
{
    return rb_ptr(rb_link(page));
}
static inline unsigned rb_st_off(uint64_t st)
{
    return st & RB_ST_OFF_MASK;
}
static inline unsigned rb_st_entries(uint64_t st)
{
    return (st >> RB_ST_ENTRY_SHIFT) & RB_ST_ENTRY_MASK;
}
static inline unsigned rb_st_bytes(uint64_t st)
{
    return (st >> RB_ST_BYTES_SHIFT) & RB_ST_BYTES_MASK;
}
/* What reserving an event of `size` bytes adds to a page's state word. */
static inline uint64_t rb_st_event(unsigned size)
{
    return size + RB_ST_ENTRY + ((uint64_t)size << RB_ST_BYTES_SHIFT);
}
static inline uint32_t rb_header(unsigned type, uint32_t delta)
{
    return type | delta << RB_TYPE_BITS;
}

/* A page is out of the ring (it is the reader page) when its predecessor no longer links it. */
static inline bool rb_is_reader_page(const struct rb_page *page)
{
    const struct rb_page *prev = RB_LOAD(page->prev);
    return rb_ptr(rb_link(prev)) != page;
}

/* ---------------------------------------------------------------------------------- */
/* Writer */

static void rb_pad_page(struct rb_data_page *dp, unsigned off)
{
    struct rb_event *ev = (struct rb_event *)(dp->data + off);
    unsigned room = RB_DATA_SIZE - off;

    ev->header = rb_header(RB_TYPE_PADDING, 0);
    if (room >= 8)
        ev->array[0] = room - 4;
}

/*
 * Makes `next` the tail page after `tail`. Recycles the page first: its state word restarts
 * with a new generation in one cmpxchg, which fails if a nested writer got there first.
 */
static void rb_enter_page(struct rb_cpu_buffer *cb, struct rb_page *tail, struct rb_page *next)
{
    uint64_t st = RB_LOAD(next->state);
    barrier();
    if (READ_ONCE(cb->tail_page) != tail)
        return;
    uint64_t fresh = ((st >> RB_ST_GEN_SHIFT) + 1) << RB_ST_GEN_SHIFT;
    if (!rb_local_cmpxchg(&next->state, st, fresh))
        return;
    RB_HOOK(ENTER_RESET);
    /*
     * No reader looks at this page's commit before the commit pointer reaches the page,
     * and the commit pointer cannot move while this writer is inside; so zeroing it here
     * can neither be seen early nor undo a real commit.
     */
    __atomic_store_n(&next->data->commit, 0, __ATOMIC_RELAXED);
    RB_HOOK(ENTER_PUBLISH);
    rb_local_cmpxchg_page(&cb->tail_page, tail, next);
}

/*
 * The tail page's link flags `head` as the head (HEAD, or UPDATE if a push is under way
 * below us). Moves the head on by one page. Returns false when the link changed under us
 * (the reader took the page, or a nested writer finished the push) and the caller must
 * look again.
 */
static bool rb_push_head_counted(struct rb_cpu_buffer *cb, struct rb_page *tail, uintptr_t link)
{
    struct rb_page *head = rb_ptr(link);
    /*
     * Read before taking UPDATE: once we hold it, nested writers may recycle the page, but
     * until then its events are the ones about to be lost.
     */
    uint64_t st = RB_LOAD(head->state);
    uintptr_t after = rb_link(head);
    barrier();
    /*
     * With the tail still here, `after` is what head->next was before any push of the
     * next page: such a push needs the tail on `head` first, and the tail cannot come back.
     * The reader cannot take the next page away either while a push is under way.
     */
    if (READ_ONCE(cb->tail_page) != tail)
        return false;
    RB_HOOK(PUSH_READ);

    uintptr_t as_head = (link & ~RB_PAGE_UPDATE) | RB_PAGE_HEAD;
    uintptr_t as_update = (link & ~RB_PAGE_HEAD) | RB_PAGE_UPDATE;
    uintptr_t found = rb_link_cmpxchg(&tail->next, as_head, as_update);
    bool owner = found == as_head;
    if (!owner && found != as_update)
        return false;
    RB_HOOK(PUSH_UPDATE);

    if (owner) {
        rb_local_add(&cb->overrun, rb_st_entries(st));
        rb_local_add(&cb->bytes_overrun, rb_st_bytes(st));
    }
    /*
     * Flag the next page as head. This fails, as it must, if a nested writer flagged it
     * already, or flagged it and then pushed past it (TOGGLE differs), or the reader took
     * the next page away.
     */
    if (!(after & (RB_PAGE_HEAD | RB_PAGE_UPDATE)))
        rb_link_cmpxchg(&head->next, after, after | RB_PAGE_HEAD);
    RB_STORE(cb->head_page, rb_ptr(after));
    RB_HOOK(PUSH_HEAD);

    /* Only the writer that set UPDATE clears it, so the reader waits for the whole push. */
    if (owner)
        rb_link_cmpxchg(&tail->next, as_update, (as_update & ~RB_PAGE_UPDATE) ^ RB_PAGE_TOGGLE);
    return true;
}

/*
 * While any push is under way on this CPU the reader takes no page (rb_swap_reader_page).
 * A writer nested into a push may flag the next page before the outer writer has counted
 * the lost page; the reader must neither take that next page with the loss uncounted,
 * nor swap it out while a nested writer still reads the link to it.
 */
static bool rb_push_head(struct rb_cpu_buffer *cb, struct rb_page *tail, uintptr_t link)
{
    rb_local_inc(&cb->pushing);
    bool pushed = rb_push_head_counted(cb, tail, link);
    rb_local_dec(&cb->pushing);
    return pushed;
}

/*
 * The event does not fit on `tail`, whose state was `st`. Closes the page and moves the
 * tail on. Returns 0 to try the reservation again, -1 to drop the event.
 */
static __noinline int rb_move_tail(struct ring_buffer *rb, struct rb_cpu_buffer *cb, struct rb_page *tail,
                        uint64_t st)
{
    unsigned off = rb_st_off(st);
    /* A nested writer may have moved on since `tail` was read: start over from there. */
    if (READ_ONCE(cb->tail_page) != tail)
        return 0;
    if (off < RB_DATA_SIZE) {
        if (!rb_local_cmpxchg(&tail->state, st, (st & ~RB_ST_OFF_MASK) | RB_DATA_SIZE))
            return 0;
        /* Written before this writer returns, so before any commit covers the page. */
        rb_pad_page(tail->data, off);
        RB_HOOK(CLOSED);
    }

    uintptr_t link = rb_link(tail);
    struct rb_page *next = rb_ptr(link);
    struct rb_page *commit = READ_ONCE(cb->commit_page);
    if (unlikely(next == commit)) {
        /* Nested writers went all the way round while an outer one had not committed. */
        rb_local_inc(&cb->commit_overrun);
        return -1;
    }
    if (link & (RB_PAGE_HEAD | RB_PAGE_UPDATE)) {
        if (unlikely(rb_is_reader_page(commit))) {
            /*
             * The reader took the commit page, so it takes no page until we commit and
             * the tail's link holds still from here on. The link read above may predate
             * the reader's last swaps, though, and lead into the middle of the ring.
             */
            if (rb_link(tail) != link)
                return 0;
            /*
             * Everything in the ring is uncommitted then, unless the tail is on the
             * reader page too, and then the ring holds nothing unread.
             */
            if (commit != tail) {
                rb_local_inc(&cb->commit_overrun);
                return -1;
            }
        } else if (!__atomic_load_n(&rb->overwrite, __ATOMIC_RELAXED)) {
            rb_local_inc(&cb->dropped);
            return -1;
        } else if (!rb_push_head(cb, tail, link)) {
            return 0;
        }
    }
    rb_enter_page(cb, tail, next);
    return 0;
}

/* Writes the time record an event needs before it, and returns where the event goes. */
static uint32_t *rb_write_stamp(uint32_t *p, int stamp, uint64_t delta, uint64_t ts)
{
    if (stamp == RB_STAMP_EXTEND) {
        p[0] = rb_header(RB_TYPE_TIME_EXTEND, delta & RB_DELTA_MAX);
        p[1] = delta >> RB_DELTA_BITS;
    } else {
        p[0] = rb_header(RB_TYPE_TIME_STAMP, ts & RB_DELTA_MAX);
        p[1] = (ts & RB_TIME_MASK) >> RB_DELTA_BITS;
    }
    return p + 2;
}

/*
 * Reserves space for a payload of plen bytes (a multiple of 4) and writes the event header.
 *
 * Time stamps: before_ts and last_ts are equal except while some writer is between storing
 * before_ts and storing last_ts, which brackets its claim of the space. A writer that
 * finds them equal knows last_ts is the time of the event just before its space; one
 * that finds them different interrupted that window and writes an absolute time. The
 * cmpxchg on the state word fails if anything else happened since the state was read.
 * The clock is read after before_ts and last_ts: with the read moved before them, the host
 * stress test (tests/host/rb_stress.c) finds events timed outside their reservations.
 * The default clock, clock_ns, is read inline: no call.
 */
static __always_inline void *rb_reserve_event(struct ring_buffer *rb, struct rb_cpu_buffer *cb,
                                              unsigned plen, struct rb_reservation *res)
{
    unsigned body = plen <= RB_SMALL_PAYLOAD ? 4 + plen : 8 + plen;

    for (;;) {
        struct rb_page *tail = READ_ONCE(cb->tail_page);
        uint64_t st = RB_LOAD(tail->state);
        unsigned off = rb_st_off(st);
        barrier();
        uint64_t before = READ_ONCE(cb->before_ts);
        uint64_t last = READ_ONCE(cb->last_ts);
        RB_HOOK(RESERVE_READ);
        uint64_t (*clock)(void) = __atomic_load_n(&rb->clock, __ATOMIC_RELAXED);
        uint64_t ts = likely(clock == clock_ns) ? rb_clock_ns() : clock();
        if ((int64_t)(ts - before) < 0)
            ts = before;

        uint64_t delta = 0;
        int stamp = RB_STAMP_NONE;
        if (off != 0) {
            if (unlikely(before != last)) {
                stamp = RB_STAMP_ABSOLUTE;
            } else {
                delta = ts - last;
                if (unlikely(delta > RB_DELTA_MAX))
                    stamp = delta <= RB_TIME_MASK ? RB_STAMP_EXTEND : RB_STAMP_ABSOLUTE;
            }
        }
        unsigned size = body + (stamp != RB_STAMP_NONE ? RB_STAMP_LEN : 0);
        if (unlikely(off + size > RB_DATA_SIZE)) {
            if (rb_move_tail(rb, cb, tail, st) < 0)
                return NULL;
            continue;
        }

        WRITE_ONCE(cb->before_ts, ts);
        RB_HOOK(RESERVE_STAMPED);
        if (unlikely(!rb_local_cmpxchg(&tail->state, st, st + rb_st_event(size))))
            continue;
        RB_HOOK(RESERVE_TAKEN);
        WRITE_ONCE(cb->last_ts, ts);
        RB_HOOK(RESERVE_TIMED);

        struct rb_data_page *dp = tail->data;
        uint32_t *p = (uint32_t *)(dp->data + off);
        if (off == 0)
            __atomic_store_n(&dp->time_stamp, ts, __ATOMIC_RELAXED); /* see rb_get_stats */
        if (unlikely(stamp != RB_STAMP_NONE)) {
            p = rb_write_stamp(p, stamp, delta, ts);
            delta = 0;
        }
        res->page = tail;
        res->event = (struct rb_event *)p;
        res->length = size;
        res->ts = ts;
        if (plen <= RB_SMALL_PAYLOAD) {
            p[0] = rb_header(plen / 4, delta);
            return p + 1;
        }
        p[0] = rb_header(RB_TYPE_LEN0, delta);
        p[1] = plen;
        return p + 2;
    }
}

/*
 * Moves the commit pointer up to the tail. Runs only in the outermost writer, so never
 * twice at once on a CPU; writers nested into it only add to the tail.
 */
static __always_inline void rb_advance_commit(struct rb_cpu_buffer *cb)
{
    struct rb_page *page = cb->commit_page;

    for (;;) {
        struct rb_page *tail = READ_ONCE(cb->tail_page);
        while (page != tail) {
            /* A page the tail has left is closed: its offset is final. */
            __atomic_store_n(&page->data->commit, rb_st_off(RB_LOAD(page->state)),
                             __ATOMIC_RELEASE);
            page = rb_next(page);
            __atomic_store_n(&cb->commit_page, page, __ATOMIC_RELEASE);
            RB_HOOK(COMMIT_ADVANCE);
        }
        __atomic_store_n(&page->data->commit, rb_st_off(RB_LOAD(page->state)), __ATOMIC_RELEASE);
        barrier();
        if (likely(READ_ONCE(cb->tail_page) == page))
            return;
    }
}

static __always_inline void rb_end_commit(struct rb_cpu_buffer *cb)
{
    for (;;) {
        unsigned long commits = READ_ONCE(cb->commits);
        barrier();
        if (READ_ONCE(cb->committing) == 1)
            rb_advance_commit(cb);
        RB_HOOK(COMMIT_DONE);
        rb_local_dec(&cb->committing);
        barrier();
        if (likely(READ_ONCE(cb->commits) == commits) || READ_ONCE(cb->committing))
            return;
        /*
         * A writer came in after the commit moved and before we left; it saw us inside and
         * left its events for us to commit.
         */
        rb_local_inc(&cb->committing);
    }
}

void *rb_reserve(struct ring_buffer *rb, unsigned len, struct rb_reservation *res)
{
    unsigned cpu = this_cpu_id();
    if (unlikely(len > RB_MAX_PAYLOAD || cpu >= rb->ncpus))
        return NULL;
    struct rb_cpu_buffer *cb = rb->cpus[cpu];

    /*
     * Count ourselves in before looking at the disable counters: rb_wait_writers relies on
     * that order (see there). Acquire pairs with the release of a control operation that
     * rebuilt the pages before enabling recording again.
     */
    rb_local_inc(&cb->committing);
    RB_HOOK(ENTRY);
    if (unlikely(__atomic_load_n(&rb->record_disabled, __ATOMIC_ACQUIRE) |
                 __atomic_load_n(&cb->record_disabled, __ATOMIC_ACQUIRE))) {
        /* Touch nothing else: a control operation may be rebuilding the pages. */
        rb_local_dec(&cb->committing);
        return NULL;
    }
    rb_local_inc(&cb->commits);

    unsigned plen = len ? ALIGN_UP(len, 4u) : 4;
    void *payload = rb_reserve_event(rb, cb, plen, res);
    if (unlikely(!payload)) {
        rb_end_commit(cb);
        return NULL;
    }
    res->cpu_buffer = cb;
    return payload;
}

void rb_commit(struct ring_buffer *rb, struct rb_reservation *res)
{
    struct rb_cpu_buffer *cb = res->cpu_buffer;

    rb_local_inc(&cb->written);
    rb_local_add(&cb->bytes_written, res->length);
    rb_end_commit(cb);
}

void rb_discard(struct ring_buffer *rb, struct rb_reservation *res)
{
    struct rb_cpu_buffer *cb = res->cpu_buffer;
    struct rb_event *ev = res->event;
    unsigned type = ev->header & RB_TYPE_MASK;
    unsigned size = type == RB_TYPE_LEN0 ? 8 + ev->array[0] : 4 + 4 * type;

    /* The delta stays: events after this one on the page are timed relative to it. */
    ev->array[0] = size - 4;
    ev->header = (ev->header & ~RB_TYPE_MASK) | RB_TYPE_PADDING;
    RB_HOOK(DISCARD);
    /* The page cannot have been recycled: the commit pointer, at most here, holds the tail. */
    rb_local_sub64(&res->page->state, rb_st_event(res->length) - res->length);
    rb_end_commit(cb);
}

/* ---------------------------------------------------------------------------------- */
/* Reader */

static uint64_t rb_absolute_time(uint64_t page_ts, uint64_t low)
{
    uint64_t ts = (page_ts & ~RB_TIME_MASK) | low;
    if (ts < page_ts)
        ts += 1ULL << RB_TIME_BITS;
    return ts;
}

/*
 * Finds the first event at or after *off and below end. Padding on the way is stepped
 * over for good: *off and *ts (the time at *off) move past it. False when nothing but
 * padding is left; then *off = end.
 */
static bool rb_decode(const struct rb_data_page *dp, unsigned *off, unsigned end, uint64_t *ts,
                      struct rb_unit *u)
{
    unsigned pos = *off;
    uint64_t t = *ts;

    while (pos + 4 <= end) {
        const struct rb_event *ev = (const struct rb_event *)(dp->data + pos);
        uint32_t header = ev->header;
        unsigned type = header & RB_TYPE_MASK;
        uint32_t delta = header >> RB_TYPE_BITS;
        unsigned room = end - pos;
        unsigned size, len, payload;

        if (type == RB_TYPE_PADDING) {
            size = room < 8 ? room : 4 + ev->array[0];
            if (size > room || size & 3)
                break;
            t += delta;
            pos += size;
            *off = pos;
            *ts = t;
            continue;
        }
        if (type == RB_TYPE_TIME_EXTEND || type == RB_TYPE_TIME_STAMP) {
            if (room < RB_STAMP_LEN + 8)
                break;
            uint64_t v = (uint64_t)ev->array[0] << RB_DELTA_BITS | delta;
            t = type == RB_TYPE_TIME_EXTEND ? t + v : rb_absolute_time(dp->time_stamp, v);
            pos += RB_STAMP_LEN;
            continue;
        }
        if (type == RB_TYPE_LEN0) {
            if (room < 8)
                break;
            len = ev->array[0];
            payload = pos + 8;
        } else {
            len = 4 * type;
            payload = pos + 4;
        }
        size = payload - pos + len;
        if (len > RB_MAX_PAYLOAD || len & 3 || size > room)
            break;
        u->start = *off;
        u->size = pos + size - *off;
        u->payload = payload;
        u->len = len;
        u->ts = t + delta;
        return true;
    }
    if (pos < end)
        RB_HOOK(READER_CORRUPT);
    *off = end;
    *ts = t;
    return false;
}

/* Time at offset off of a page, when the reader's running time `ts` is for that offset. */
static inline uint64_t rb_time_at(const struct rb_page *page, unsigned off, uint64_t ts)
{
    return off ? ts : page->data->time_stamp;
}

/*
 * Whether the reader may spin until this CPU's writers get on. Not when it runs on that CPU
 * in an interrupt that landed inside a writer (a dump from a panic, say): that writer can
 * only go on once the reader returns.
 */
static bool rb_reader_may_wait(const struct rb_cpu_buffer *cb)
{
    return cb->cpu != this_cpu_id() || !RB_LOAD(cb->committing);
}

/*
 * The page whose link flags the head. Spins while a writer is between taking UPDATE and
 * flagging the next page, the only time no link carries HEAD; NULL if it may not spin.
 */
static struct rb_page *rb_find_head_prev(struct rb_cpu_buffer *cb)
{
    for (;;) {
        struct rb_page *page = RB_LOAD(cb->head_page);
        page = RB_LOAD(page->prev);
        for (unsigned i = 0; i < cb->nr_pages + 2; i++) {
            uintptr_t link = rb_link(page);
            if (page != cb->reader_page && (link & (RB_PAGE_HEAD | RB_PAGE_UPDATE)) == RB_PAGE_HEAD)
                return page;
            page = rb_ptr(link);
        }
        if (!rb_reader_may_wait(cb))
            return NULL;
        RB_HOOK(READER_FIND);
        arch_cpu_relax();
    }
}

/*
 * Puts the (consumed) reader page into the ring in place of the head page and takes that.
 * False if it could not, because it may not wait for the writers.
 */
static bool rb_swap_reader_page(struct rb_cpu_buffer *cb)
{
    struct rb_page *reader = cb->reader_page;

    for (;;) {
        struct rb_page *prev = rb_find_head_prev(cb);
        if (!prev)
            return false;
        uintptr_t link = rb_link(prev);
        if ((link & (RB_PAGE_HEAD | RB_PAGE_UPDATE)) != RB_PAGE_HEAD)
            continue;
        /* Loaded after the HEAD flag: a push that made this page head is still counted. */
        if (__atomic_load_n(&cb->pushing, __ATOMIC_ACQUIRE)) {
            if (!rb_reader_may_wait(cb))
                return false;
            RB_HOOK(READER_FIND);
            arch_cpu_relax();
            continue;
        }
        struct rb_page *head = rb_ptr(link);
        struct rb_page *after = rb_next(head);

        /*
         * The consumed page goes back empty, as a page never written: should anything
         * ever take it for the head before the writer recycles it, it holds nothing.
         */
        RB_STORE(reader->state, ((RB_LOAD(reader->state) >> RB_ST_GEN_SHIFT) + 1)
                                    << RB_ST_GEN_SHIFT);
        __atomic_store_n(&reader->data->commit, 0, __ATOMIC_RELAXED);
        RB_STORE(reader->prev, prev);
        RB_STORE(reader->next, (uintptr_t)after | RB_PAGE_HEAD);
        /*
         * Loaded after the HEAD flag was seen and no push was under way, so it includes
         * the loss of every page pushed off before this one became head; a push of this
         * page turns the link to UPDATE, which makes the cmpxchg below fail. Unless the
         * writer went round the ring twice meanwhile and the link is back to what it was:
         * then the page was recycled in between, its generation tells, and the count is
         * taken again once the push that made it head this time is complete.
         */
        uint64_t gen = RB_LOAD(head->state) >> RB_ST_GEN_SHIFT;
        unsigned long overrun = __atomic_load_n(&cb->overrun, __ATOMIC_ACQUIRE);
        RB_HOOK(READER_SWAP);
        if (rb_link_cmpxchg(&prev->next, link, (uintptr_t)reader) != link)
            continue;
        if (unlikely(RB_LOAD(head->state) >> RB_ST_GEN_SHIFT != gen)) {
            while (__atomic_load_n(&cb->pushing, __ATOMIC_ACQUIRE) && rb_reader_may_wait(cb))
                arch_cpu_relax();
            overrun = __atomic_load_n(&cb->overrun, __ATOMIC_ACQUIRE);
        }

        RB_STORE(after->prev, reader);
        RB_STORE(cb->head_page, after);
        RB_STORE(cb->reader_page, head);
        head->read = 0;
        cb->lost_events += overrun - cb->last_overrun;
        cb->last_overrun = overrun;
        cb->read_gen++;
        return true;
    }
}

/* The page to read next, with something unconsumed on it, or NULL. Under reader_lock. */
static struct rb_page *rb_reader_page(struct rb_cpu_buffer *cb)
{
    for (unsigned i = 0; i < cb->nr_pages + 2; i++) {
        struct rb_page *reader = cb->reader_page;
        /* Commit pointer first: once it has left a page, that page's commit is final. */
        struct rb_page *commit = __atomic_load_n(&cb->commit_page, __ATOMIC_ACQUIRE);
        unsigned end = __atomic_load_n(&reader->data->commit, __ATOMIC_ACQUIRE);
        if (reader->read < end)
            return reader;
        if (commit == reader || !rb_swap_reader_page(cb))
            return NULL;
    }
    return NULL;
}

/* Finds the next event to consume, leaving the reader just before it. Under reader_lock. */
static struct rb_page *rb_peek_locked(struct rb_cpu_buffer *cb, struct rb_unit *u)
{
    struct rb_page *reader;

    while ((reader = rb_reader_page(cb))) {
        unsigned end = __atomic_load_n(&reader->data->commit, __ATOMIC_ACQUIRE);
        unsigned off = reader->read;
        uint64_t ts = rb_time_at(reader, off, cb->read_ts);
        bool found = rb_decode(reader->data, &off, end, &ts, u);
        reader->read = off;
        cb->read_ts = ts;
        if (found)
            return reader;
    }
    return NULL;
}

static void rb_copy_out(const struct rb_cpu_buffer *cb, const struct rb_page *page,
                        const struct rb_unit *u, struct rb_record *out)
{
    out->ts = u->ts;
    out->cpu = cb->cpu;
    out->len = u->len;
    memcpy(out->data, page->data->data + u->payload, u->len);
}

bool rb_consume(struct ring_buffer *rb, unsigned cpu, struct rb_record *out,
                unsigned long *lost_events)
{
    if (lost_events)
        *lost_events = 0;
    if (cpu >= rb->ncpus)
        return false;
    struct rb_cpu_buffer *cb = rb->cpus[cpu];
    struct rb_unit u;

    unsigned long flags = spin_lock_irqsave(&cb->reader_lock);
    struct rb_page *page = rb_peek_locked(cb, &u);
    if (page) {
        rb_copy_out(cb, page, &u, out);
        page->read = u.start + u.size;
        cb->read_ts = u.ts;
        RB_STORE(cb->read, cb->read + 1);
        RB_STORE(cb->bytes_read, cb->bytes_read + u.size);
        cb->read_gen++;
        if (lost_events)
            *lost_events = cb->lost_events;
        cb->lost_events = 0;
    }
    spin_unlock_irqrestore(&cb->reader_lock, flags);
    return page != NULL;
}

bool rb_peek_ts(struct ring_buffer *rb, unsigned cpu, uint64_t *ts)
{
    if (cpu >= rb->ncpus)
        return false;
    struct rb_cpu_buffer *cb = rb->cpus[cpu];
    struct rb_unit u;

    unsigned long flags = spin_lock_irqsave(&cb->reader_lock);
    bool found = rb_peek_locked(cb, &u) != NULL;
    if (found)
        *ts = u.ts;
    spin_unlock_irqrestore(&cb->reader_lock, flags);
    return found;
}

/* ---------------------------------------------------------------------------------- */
/* Non-consuming iterator */

static void rb_iter_rewind(struct rb_iter *it)
{
    struct rb_cpu_buffer *cb = it->cpu_buffer;

    it->page = cb->reader_page;
    it->off = it->page->read;
    it->ts = cb->read_ts;
    it->read_gen = cb->read_gen;
}

/*
 * Positions the iterator on its next event. Under reader_lock, with recording off on the
 * CPU, so pages only change when a consumer takes one.
 */
static bool rb_iter_find(struct rb_iter *it, struct rb_unit *u)
{
    struct rb_cpu_buffer *cb = it->cpu_buffer;

    if (it->read_gen != cb->read_gen)
        rb_iter_rewind(it);
    struct rb_page *commit = __atomic_load_n(&cb->commit_page, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < cb->nr_pages + 2; i++) {
        struct rb_page *page = it->page;
        unsigned end = __atomic_load_n(&page->data->commit, __ATOMIC_ACQUIRE);
        if (it->off < end) {
            it->ts = rb_time_at(page, it->off, it->ts);
            if (rb_decode(page->data, &it->off, end, &it->ts, u))
                return true;
        }
        if (page == commit)
            return false;
        /* The reader page's own link may be stale: the ring goes on at the head. */
        struct rb_page *prev = page == cb->reader_page ? rb_find_head_prev(cb) : page;
        if (!prev)
            return false;
        it->page = rb_next(prev);
        it->off = 0;
    }
    return false;
}

/*
 * Waits until no writer is inside the buffer of cpu (-1: every CPU), where recording must
 * be off already. A writer counts itself in `committing` and only then loads the disable
 * counters, with no fence between: the store may still sit in its CPU's store buffer while
 * the load is done. The sync round makes every other CPU take an interrupt and acknowledge
 * it; by then each writer that saw recording on has its count visible here, and each that
 * starts later sees recording off and leaves without touching the pages. (The callers turn
 * recording off with a locked add, a full barrier, before the round.) On this CPU no writer
 * can be inside: writers never sleep and this runs in thread context.
 */
static void rb_wait_writers(struct ring_buffer *rb, int cpu)
{
    smp_sync_all();
    for (unsigned c = 0; c < rb->ncpus; c++) {
        if ((cpu >= 0 && (unsigned)cpu != c) || !rb->cpus[c])
            continue;
        while (__atomic_load_n(&rb->cpus[c]->committing, __ATOMIC_ACQUIRE))
            arch_cpu_relax();
    }
}

struct rb_iter *rb_iter_start(struct ring_buffer *rb, unsigned cpu)
{
    if (cpu >= rb->ncpus)
        return NULL;
    struct rb_iter *it = kzalloc(sizeof(*it));
    if (!it)
        return NULL;
    struct rb_cpu_buffer *cb = rb->cpus[cpu];
    it->cpu_buffer = cb;
    rb_record_disable_cpu(rb, cpu);
    rb_wait_writers(rb, (int)cpu);

    unsigned long flags = spin_lock_irqsave(&cb->reader_lock);
    cb->iterators++;
    rb_iter_rewind(it);
    spin_unlock_irqrestore(&cb->reader_lock, flags);
    return it;
}

bool rb_iter_peek(struct rb_iter *it, struct rb_record *out)
{
    struct rb_cpu_buffer *cb = it->cpu_buffer;
    struct rb_unit u;

    unsigned long flags = spin_lock_irqsave(&cb->reader_lock);
    bool found = rb_iter_find(it, &u);
    if (found)
        rb_copy_out(cb, it->page, &u, out);
    spin_unlock_irqrestore(&cb->reader_lock, flags);
    return found;
}

bool rb_iter_next(struct rb_iter *it)
{
    struct rb_cpu_buffer *cb = it->cpu_buffer;
    struct rb_unit u;

    unsigned long flags = spin_lock_irqsave(&cb->reader_lock);
    bool found = rb_iter_find(it, &u);
    if (found) {
        it->off = u.start + u.size;
        it->ts = u.ts;
    }
    spin_unlock_irqrestore(&cb->reader_lock, flags);
    return found;
}

void rb_iter_finish(struct rb_iter *it)
{
    if (!it)
        return;
    struct rb_cpu_buffer *cb = it->cpu_buffer;

    unsigned long flags = spin_lock_irqsave(&cb->reader_lock);
    cb->iterators--;
    spin_unlock_irqrestore(&cb->reader_lock, flags);
    rb_record_enable_cpu(cb->rb, cb->cpu);
    kfree(it);
}

/* ---------------------------------------------------------------------------------- */
/* Control */

static bool rb_targets(const struct ring_buffer *rb, int cpu, unsigned c)
{
    return cpu < 0 || (unsigned)cpu == c;
}

/* Links n ring pages into a ring with its head at pg[0]; pg[n], the reader page, leads in. */
static void rb_link_pages(struct rb_page *pg, unsigned n)
{
    for (unsigned i = 0; i <= n; i++) {
        pg[i].next = (uintptr_t)&pg[i + 1 < n ? i + 1 : 0];
        pg[i].prev = &pg[i ? i - 1 : n - 1];
    }
    pg[n - 1].next |= RB_PAGE_HEAD;
}

/* Gives the descriptor `to` the data page of `from` (and `from` the one `to` had). */
static void rb_move_page(struct rb_page *to, struct rb_page *from)
{
    struct rb_data_page *spare = to->data;
    to->data = from->data;
    to->state = from->state;
    to->read = from->read;
    from->data = spare;
}

static void rb_blank_page(struct rb_page *pg)
{
    pg->state = 0;
    pg->read = 0;
    pg->data->time_stamp = 0;
    __atomic_store_n(&pg->data->commit, 0, __ATOMIC_RELAXED);
}

/* Links all pages into a fresh ring and zeroes every count. No writer inside, reader locked. */
static void rb_clear(struct rb_cpu_buffer *cb)
{
    unsigned n = cb->nr_pages;
    struct rb_page *pg = cb->pages;

    for (unsigned i = 0; i <= n; i++)
        rb_blank_page(&pg[i]);
    /* pg[n] is the reader page: its links lead into the ring, nothing in the ring links it. */
    rb_link_pages(pg, n);
    cb->tail_page = &pg[0];
    __atomic_store_n(&cb->commit_page, &pg[0], __ATOMIC_RELEASE);
    RB_STORE(cb->head_page, &pg[0]);
    cb->reader_page = &pg[n];

    cb->before_ts = 0;
    cb->last_ts = 0;
    RB_STORE(cb->written, 0);
    RB_STORE(cb->bytes_written, 0);
    RB_STORE(cb->overrun, 0);
    RB_STORE(cb->bytes_overrun, 0);
    RB_STORE(cb->commit_overrun, 0);
    RB_STORE(cb->dropped, 0);
    RB_STORE(cb->read, 0);
    RB_STORE(cb->bytes_read, 0);
    cb->read_ts = 0;
    cb->last_overrun = 0;
    cb->lost_events = 0;
    cb->read_gen++;
}

/*
 * Moves cb onto the descriptors pg (n ring pages and a reader page, each with a data page
 * of its own), keeping its unread events, as Linux does when a buffer is resized: the
 * unread part of the reader page, then the ring's pages from the head to the tail, the
 * newest n of them when there are more (the older ones count as overrun). Pages move
 * whole, with their time stamps, so nothing is rewritten. The data pages left on the old
 * descriptors are free to go. For a quiet buffer: no writer inside, readers locked out.
 */
static void rb_rebuild(struct rb_cpu_buffer *cb, struct rb_page *pg, unsigned n)
{
    /* Writers nested into one that then found recording off leave their events
     * uncommitted, for the next outermost commit: commit them now, there is no writer. */
    rb_advance_commit(cb);
    struct rb_page *reader = cb->reader_page;
    struct rb_page *tail = cb->tail_page;
    bool tail_on_reader = tail == reader;
    bool reader_unread = reader->read < __atomic_load_n(&reader->data->commit, __ATOMIC_RELAXED);

    /* With the tail on the reader page, the ring holds nothing unread (see rb_move_tail). */
    unsigned found = 0;
    struct rb_page *head = NULL;
    if (!tail_on_reader) {
        head = rb_next(rb_find_head_prev(cb));
        struct rb_page *p = head;
        for (unsigned i = 0; i < cb->nr_pages; i++, p = rb_next(p)) {
            found += RB_LOAD(p->data->commit) != 0;
            if (p == tail)
                break;
        }
    }
    unsigned keep = found < n ? found : n;

    for (unsigned i = 0; i <= n; i++)
        rb_blank_page(&pg[i]);
    unsigned placed = 0, skipped = 0;
    for (struct rb_page *p = head; found && placed < keep; p = rb_next(p)) {
        if (!RB_LOAD(p->data->commit))
            continue;
        if (skipped < found - keep) {
            skipped++;
            rb_local_add(&cb->overrun, rb_st_entries(p->state));
            rb_local_add(&cb->bytes_overrun, rb_st_bytes(p->state));
            continue;
        }
        rb_move_page(&pg[placed++], p);
    }
    if (tail_on_reader || reader_unread)
        rb_move_page(&pg[n], reader);
    rb_link_pages(pg, n);

    cb->pages = pg;
    cb->nr_pages = n;
    cb->reader_page = &pg[n];
    struct rb_page *new_tail = tail_on_reader ? &pg[n] : &pg[placed ? placed - 1 : 0];
    cb->tail_page = new_tail;
    __atomic_store_n(&cb->commit_page, new_tail, __ATOMIC_RELEASE);
    RB_STORE(cb->head_page, &pg[0]);
    cb->read_gen++;
}

/*
 * Zeroed and cache-line aligned, so that no other data shares a line with what a CPU's
 * writers change. The heap's own pointer sits just below the block.
 */
static void *rb_zalloc_aligned(size_t size)
{
    void *raw = kzalloc(size + 64 + sizeof(void *));
    if (!raw)
        return NULL;
    void **block = (void **)ALIGN_UP((uintptr_t)raw + sizeof(void *), 64);
    block[-1] = raw;
    return block;
}

static void rb_free_aligned(void *block)
{
    if (block)
        kfree(((void **)block)[-1]);
}

static void rb_free_pages(struct rb_page *pages, unsigned n)
{
    if (!pages)
        return;
    for (unsigned i = 0; i <= n; i++)
        if (pages[i].data)
            page_free(virt_to_phys(pages[i].data));
    rb_free_aligned(pages);
}

/* n ring pages and the reader page, or NULL with nothing left allocated. */
static struct rb_page *rb_alloc_pages(unsigned n)
{
    struct rb_page *pages = rb_zalloc_aligned((size_t)(n + 1) * sizeof(*pages));
    if (!pages)
        return NULL;
    for (unsigned i = 0; i <= n; i++) {
        uint64_t phys = page_alloc();
        if (!phys) {
            rb_free_pages(pages, n);
            return NULL;
        }
        pages[i].data = phys_to_virt(phys);
    }
    return pages;
}

/* Pages for `bytes` of events; 0 when that is more than a buffer may have. */
static unsigned rb_pages_for(size_t bytes)
{
    size_t n = bytes / RB_DATA_SIZE + (bytes % RB_DATA_SIZE != 0);
    if (n > RB_MAX_PAGES)
        return 0;
    return n < RB_MIN_PAGES ? RB_MIN_PAGES : (unsigned)n;
}

void rb_destroy(struct ring_buffer *rb)
{
    if (!rb)
        return;
    __atomic_fetch_add(&rb->record_disabled, 1, __ATOMIC_SEQ_CST);
    rb_wait_writers(rb, -1);
    for (unsigned c = 0; c < rb->ncpus; c++) {
        struct rb_cpu_buffer *cb = rb->cpus[c];
        if (!cb)
            continue;
        rb_free_pages(cb->pages, cb->nr_pages);
        rb_free_aligned(cb);
    }
    rb_free_aligned(rb);
}

struct ring_buffer *rb_create(size_t bytes_per_cpu, unsigned ncpus)
{
    unsigned n = rb_pages_for(bytes_per_cpu);
    if (!n || !ncpus || ncpus > MAX_CPUS)
        return NULL;
    struct ring_buffer *rb = rb_zalloc_aligned(sizeof(*rb));
    if (!rb)
        return NULL;
    rb->overwrite = true;
    rb->clock = clock_ns;
    rb->ncpus = ncpus;
    /* Nothing can write before every CPU's pages exist. */
    rb->record_disabled = 1;

    for (unsigned c = 0; c < ncpus; c++) {
        struct rb_cpu_buffer *cb = rb_zalloc_aligned(sizeof(*cb));
        if (!cb) {
            rb_destroy(rb);
            return NULL;
        }
        rb->cpus[c] = cb;
        cb->cpu = c;
        cb->rb = rb;
        spin_init(&cb->reader_lock, "rb_reader");
        cb->pages = rb_alloc_pages(n);
        if (!cb->pages) {
            rb_destroy(rb);
            return NULL;
        }
        cb->nr_pages = n;
        rb_clear(cb);
    }
    __atomic_store_n(&rb->record_disabled, 0, __ATOMIC_RELEASE);
    return rb;
}

/* Clears the CPUs selected by cpu, optionally switching the clock while nothing writes. */
static void rb_reset_cpus(struct ring_buffer *rb, int cpu, uint64_t (*clock)(void))
{
    for (unsigned c = 0; c < rb->ncpus; c++)
        if (rb_targets(rb, cpu, c))
            rb_record_disable_cpu(rb, c);
    rb_wait_writers(rb, cpu);
    if (clock)
        __atomic_store_n(&rb->clock, clock, __ATOMIC_RELAXED);
    for (unsigned c = 0; c < rb->ncpus; c++) {
        if (!rb_targets(rb, cpu, c))
            continue;
        struct rb_cpu_buffer *cb = rb->cpus[c];
        unsigned long flags = spin_lock_irqsave(&cb->reader_lock);
        rb_clear(cb);
        spin_unlock_irqrestore(&cb->reader_lock, flags);
    }
    for (unsigned c = 0; c < rb->ncpus; c++)
        if (rb_targets(rb, cpu, c))
            rb_record_enable_cpu(rb, c);
}

void rb_reset(struct ring_buffer *rb, int cpu)
{
    if (cpu >= (int)rb->ncpus || cpu < -1)
        return;
    rb_reset_cpus(rb, cpu, NULL);
}

void rb_set_clock(struct ring_buffer *rb, uint64_t (*clock)(void))
{
    rb_reset_cpus(rb, -1, clock);
}

uint64_t rb_clock(struct ring_buffer *rb)
{
    return __atomic_load_n(&rb->clock, __ATOMIC_RELAXED)();
}

int rb_resize(struct ring_buffer *rb, int cpu, size_t bytes_per_cpu)
{
    if (!bytes_per_cpu || cpu >= (int)rb->ncpus || cpu < -1)
        return -EINVAL;
    unsigned n = rb_pages_for(bytes_per_cpu);
    if (!n)
        return -ENOMEM;

    /* Everything is allocated before anything changes, so a failure leaves no trace. */
    struct rb_page *pages[MAX_CPUS] = {0};
    unsigned counts[MAX_CPUS] = {0};
    bool any = false;
    for (unsigned c = 0; c < rb->ncpus; c++) {
        if (!rb_targets(rb, cpu, c) || rb->cpus[c]->nr_pages == n)
            continue;
        pages[c] = rb_alloc_pages(n);
        counts[c] = n;
        if (!pages[c]) {
            for (unsigned k = 0; k < c; k++)
                rb_free_pages(pages[k], counts[k]);
            return -ENOMEM;
        }
        any = true;
    }
    if (!any)
        return 0;

    for (unsigned c = 0; c < rb->ncpus; c++)
        if (pages[c])
            rb_record_disable_cpu(rb, c);
    rb_wait_writers(rb, cpu);

    /* Every reader lock at once, in CPU order, so that no iterator opens halfway through. */
    unsigned long flags[MAX_CPUS];
    bool busy = false;
    for (unsigned c = 0; c < rb->ncpus; c++) {
        if (!pages[c])
            continue;
        flags[c] = spin_lock_irqsave(&rb->cpus[c]->reader_lock);
        busy = busy || rb->cpus[c]->iterators;
    }
    for (unsigned c = 0; c < rb->ncpus && !busy; c++) {
        if (!pages[c])
            continue;
        struct rb_cpu_buffer *cb = rb->cpus[c];
        struct rb_page *old = cb->pages;
        unsigned old_n = cb->nr_pages;
        rb_rebuild(cb, pages[c], n);
        /* From here pages[c] holds the old descriptors and the data pages not kept. */
        pages[c] = old;
        counts[c] = old_n;
    }
    for (unsigned c = rb->ncpus; c-- > 0;)
        if (pages[c])
            spin_unlock_irqrestore(&rb->cpus[c]->reader_lock, flags[c]);
    for (unsigned c = 0; c < rb->ncpus; c++) {
        if (!pages[c])
            continue;
        rb_record_enable_cpu(rb, c);
        rb_free_pages(pages[c], counts[c]);
    }
    return busy ? -EBUSY : 0;
}

size_t rb_size(struct ring_buffer *rb, unsigned cpu)
{
    if (cpu >= rb->ncpus)
        return 0;
    return (size_t)rb->cpus[cpu]->nr_pages * RB_DATA_SIZE;
}

unsigned rb_ncpus(struct ring_buffer *rb)
{
    return rb->ncpus;
}

void rb_set_overwrite(struct ring_buffer *rb, bool overwrite)
{
    __atomic_store_n(&rb->overwrite, overwrite, __ATOMIC_RELAXED);
}

/* The enables release what a control operation rebuilt to the acquire in rb_reserve. */
void rb_record_disable(struct ring_buffer *rb)
{
    __atomic_fetch_add(&rb->record_disabled, 1, __ATOMIC_SEQ_CST);
}

void rb_record_enable(struct ring_buffer *rb)
{
    __atomic_fetch_sub(&rb->record_disabled, 1, __ATOMIC_SEQ_CST);
}

void rb_record_disable_cpu(struct ring_buffer *rb, unsigned cpu)
{
    if (cpu < rb->ncpus)
        __atomic_fetch_add(&rb->cpus[cpu]->record_disabled, 1, __ATOMIC_SEQ_CST);
}

void rb_record_enable_cpu(struct ring_buffer *rb, unsigned cpu)
{
    if (cpu < rb->ncpus)
        __atomic_fetch_sub(&rb->cpus[cpu]->record_disabled, 1, __ATOMIC_SEQ_CST);
}

bool rb_record_is_on(struct ring_buffer *rb)
{
    return __atomic_load_n(&rb->record_disabled, __ATOMIC_RELAXED) == 0;
}

void rb_get_stats(struct ring_buffer *rb, unsigned cpu, struct rb_stats *st)
{
    memset(st, 0, sizeof(*st));
    if (cpu >= rb->ncpus)
        return;
    struct rb_cpu_buffer *cb = rb->cpus[cpu];
    struct rb_unit u;

    /*
     * The oldest time without taking a page, so that reading statistics changes nothing:
     * exact from the reader page, else the time of the head page's first event. A writer
     * may be overwriting that page right now, so then it is an estimate, as in Linux.
     */
    unsigned long flags = spin_lock_irqsave(&cb->reader_lock);
    struct rb_page *reader = cb->reader_page;
    struct rb_page *commit = __atomic_load_n(&cb->commit_page, __ATOMIC_ACQUIRE);
    unsigned end = __atomic_load_n(&reader->data->commit, __ATOMIC_ACQUIRE);
    unsigned off = reader->read;
    bool found = false;
    if (off < end) {
        uint64_t ts = rb_time_at(reader, off, cb->read_ts);
        found = rb_decode(reader->data, &off, end, &ts, &u);
    }
    struct rb_page *prev;
    if (found)
        st->oldest_ts = u.ts;
    else if (commit != reader && (prev = rb_find_head_prev(cb)))
        st->oldest_ts = RB_LOAD(rb_next(prev)->data->time_stamp);

    /*
     * Still under the lock, which a reset holds while it zeroes the counts. Every event
     * overwritten or consumed was committed first, so loading `written` last keeps entries
     * from going negative while writers go on.
     */
    st->overrun = __atomic_load_n(&cb->overrun, __ATOMIC_ACQUIRE);
    unsigned long bytes_overrun = __atomic_load_n(&cb->bytes_overrun, __ATOMIC_ACQUIRE);
    st->commit_overrun = RB_LOAD(cb->commit_overrun);
    st->dropped = RB_LOAD(cb->dropped);
    st->read = cb->read;
    unsigned long bytes_read = cb->bytes_read;
    unsigned long written = __atomic_load_n(&cb->written, __ATOMIC_ACQUIRE);
    unsigned long bytes_written = __atomic_load_n(&cb->bytes_written, __ATOMIC_ACQUIRE);
    spin_unlock_irqrestore(&cb->reader_lock, flags);

    st->entries = written - st->overrun - st->read;
    st->bytes = bytes_written - bytes_overrun - bytes_read;
    st->now_ts = rb_clock(rb);
}
