/*
 * The ring buffer's own layout, shared by its two halves and nothing else: ring_buffer.c
 * (the lockless writers and the readers) and ring_buffer_control.c (creating, resizing,
 * resetting and switching buffers, under their locks). The rest of the tracer sees only
 * the interface in trace_internal.h.
 */
#ifndef KERNEL_TRACE_RING_BUFFER_LAYOUT_H
#define KERNEL_TRACE_RING_BUFFER_LAYOUT_H

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
#define RB_TYPE_LEN0 0      /* payload length + 4 in array[0], payload from array[1] */
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
_Static_assert(RB_MAX_PAYLOAD > RB_SMALL_PAYLOAD && RB_MAX_PAYLOAD + 8 <= RB_DATA_SIZE,
               "the largest event, with its length word, must fit an empty page");
_Static_assert(RB_MAX_PAYLOAD % 4 == 0, "payloads are whole words");
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

#define RB_NEST_DEPTH_MASK 0xffffULL
#define RB_NEST_ENTER ((1ULL << 16) | 1)

struct rb_cpu_buffer {
    /* This CPU's writers, on every event. */
    struct rb_page *tail_page;
    struct rb_page *commit_page;
    /*
     * Writers inside the buffer, nested ones included, in the low 16 bits (RB_NEST_DEPTH_MASK);
     * above them a count of reservations begun, which shows the outermost writer a late
     * one. One add counts a writer in (RB_NEST_ENTER).
     */
    uint64_t nest;
    uint64_t before_ts;    /* time of the latest reservation attempt */
    uint64_t last_ts;      /* time of the latest event reserved */
    unsigned long written; /* events reserved and not discarded */
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

    /* Set by control operations, read by writers: both zero on the writers' fast path,
     * which tests them with one load of write_gate. */
    union {
        struct {
            int record_disabled;
            int other_clock; /* the buffer's clock is not clock_ns */
        };
        uint64_t write_gate;
    } __cacheline_aligned;
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
    /* A buffer laid on a fixed range of memory (ring_buffer_range.c): its meta page.
     * Its data pages are the range's: never freed, resized or swapped into a snapshot. */
    struct rb_range_meta *range;
} __cacheline_aligned;

/* The control half's pieces that the range buffer builds on (ring_buffer_control.c). */
struct ring_buffer *rb_alloc_cpus(unsigned ncpus);
void *rb_zalloc_aligned(size_t size); /* zeroed, cache-line aligned; freed with its owner */
void rb_link_pages(struct rb_page *pg, unsigned n);
void rb_blank_page(struct rb_page *pg);
void rb_clear(struct rb_cpu_buffer *cb);

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
void rb_test_hook(int point);
unsigned rb_test_hook_count(void);
const char *rb_test_hook_name(int point);
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
static inline struct rb_page *rb_next(const struct rb_page *page) { return rb_ptr(rb_link(page)); }
static inline unsigned rb_st_off(uint64_t st) { return st & RB_ST_OFF_MASK; }
static inline unsigned rb_st_entries(uint64_t st)
{
    return (st >> RB_ST_ENTRY_SHIFT) & RB_ST_ENTRY_MASK;
}
static inline unsigned rb_st_bytes(uint64_t st)
{
    return (st >> RB_ST_BYTES_SHIFT) & RB_ST_BYTES_MASK;
}
/*
 * A data event (type_len RB_TYPE_LEN0 or 1..RB_TYPE_DATA_MAX) with room bytes from its
 * header to the end of what is committed: its payload's length and offset from the header,
 * and its size in all; false when a reader cannot trust its header (it runs past room).
 */
static inline bool rb_data_event(const struct rb_event *ev, unsigned type, unsigned room,
                                 unsigned *len, unsigned *payload, unsigned *size)
{
    if (type == RB_TYPE_LEN0) {
        if (room < 8 || ev->array[0] < 4)
            return false;
        *len = ev->array[0] - 4;
        *payload = 8;
    } else {
        *len = 4 * type;
        *payload = 4;
    }
    *size = *payload + *len;
    return *len <= RB_MAX_PAYLOAD && !(*len & 3) && *size <= room;
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

/* Time at offset off of a page, when the reader's running time `ts` is for that offset. */
static inline uint64_t rb_time_at(const struct rb_page *page, unsigned off, uint64_t ts)
{
    return off ? ts : page->data->time_stamp;
}

/* The page before the head page, found under the reader lock (ring_buffer.c). */
struct rb_page *rb_find_head_prev(struct rb_cpu_buffer *cb);
/* Decodes the event at *off of a data page (ring_buffer.c). */
bool rb_decode(const struct rb_data_page *dp, unsigned *off, unsigned end, uint64_t *ts,
               struct rb_unit *u);

/* Waits until no writer of cpu (-1: any) can still be inside the buffer (ring_buffer.c). */
void rb_wait_writers(struct ring_buffer *rb, int cpu);

#endif
