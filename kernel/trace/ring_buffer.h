/*
 * The tracer's per-CPU ring buffer (private to kernel/trace/).
 *
 * Writers reserve space on their own CPU's buffer, fill it and commit, from any context
 * (thread, irq, NMI, int3), without locks; an interrupted writer and the writers that
 * interrupt it all keep their events. Readers on any CPU consume or iterate any CPU's
 * buffer while its writers go on. Events use Linux's header (type_len:5, time_delta:27),
 * so a function event (12-byte payload) costs exactly 16 bytes.
 *
 * Context rules: rb_reserve/rb_commit/rb_discard from any context on a CPU the caller
 * keeps (preemption or interrupts off) until the commit. Readers from any context (they
 * take a per-CPU reader lock with interrupts off; one that interrupted a writer of the
 * CPU it reads sees no page that writer has yet to finish, instead of waiting for it).
 * rb_create, rb_destroy, rb_resize, rb_reset, rb_set_clock and rb_iter_start wait for
 * writers on other CPUs with a sync round, so they are for thread context with
 * interrupts on.
 */
#ifndef KERNEL_TRACE_RING_BUFFER_H
#define KERNEL_TRACE_RING_BUFFER_H

#include <kernel/compiler.h>

/* Largest payload rb_reserve accepts; payloads above 112 bytes cost 4 more bytes. */
#define RB_MAX_PAYLOAD 512
/* Bytes of events a page holds (a page less its 16-byte header); sizes count in these. */
#define RB_PAGE_DATA_SIZE 4080

struct ring_buffer;
struct rb_cpu_buffer;
struct rb_page;
struct rb_event;
struct rb_iter;

/* Filled by rb_reserve, handed back to rb_commit or rb_discard; the caller's storage. */
struct rb_reservation {
    struct rb_cpu_buffer *cpu_buffer;
    struct rb_page *page;
    struct rb_event *event;
    uint32_t length; /* bytes the event takes in the buffer, time stamp included */
    uint64_t ts;     /* the event's time, in the buffer's clock */
};

/* One event copied out of the buffer. */
struct rb_record {
    uint64_t ts; /* absolute, in the buffer's clock */
    unsigned cpu;
    unsigned len; /* payload bytes: the reserved length rounded up to 4 */
    uint8_t data[RB_MAX_PAYLOAD] __aligned(8);
};

/* What Linux's per_cpu/cpuN/stats prints. */
struct rb_stats {
    unsigned long entries;        /* in the buffer: not consumed, not overwritten */
    unsigned long overrun;        /* lost to overwrite */
    unsigned long commit_overrun; /* lost because nested writers wrapped the whole buffer */
    unsigned long bytes;          /* bytes taken by the events counted in entries */
    unsigned long dropped;        /* refused in producer/consumer mode (never written) */
    unsigned long read;           /* consumed */
    uint64_t oldest_ts;           /* oldest event's time, 0 if empty (see rb_get_stats) */
    uint64_t now_ts;              /* the buffer's clock now */
};

/* bytes_per_cpu is rounded up to whole pages (4080 bytes of events each), at least two. */
struct ring_buffer *rb_create(size_t bytes_per_cpu, unsigned ncpus);
void rb_destroy(struct ring_buffer *rb);
/*
 * Resizes one CPU's buffer (cpu = -1: every CPU). Returns 0, -EINVAL for 0 bytes or a bad
 * CPU, -ENOMEM with the old buffer and its events intact, -EBUSY while an iterator is open.
 * Events are kept, as in Linux: the unread part of the reader page and the newest ring
 * pages that fit; pages that do not fit count as overrun (lost to the reader).
 */
int rb_resize(struct ring_buffer *rb, int cpu, size_t bytes_per_cpu);
size_t rb_size(struct ring_buffer *rb, unsigned cpu); /* bytes of events per CPU */
unsigned rb_ncpus(struct ring_buffer *rb);

/* true (default): a full buffer drops its oldest page (overrun); false: new events drop. */
void rb_set_overwrite(struct ring_buffer *rb, bool overwrite);
/*
 * The clock every event time comes from (default clock_ns). It must be monotonic on each
 * CPU and must not be traced. Clears the buffer: times of two clocks do not mix.
 */
void rb_set_clock(struct ring_buffer *rb, uint64_t (*clock)(void));
uint64_t rb_clock(struct ring_buffer *rb);
/* Clears events and counters of one CPU (cpu = -1: every CPU). */
void rb_reset(struct ring_buffer *rb, int cpu);

/* Recording on/off; both nest (a counter). They do not wait for writers already inside. */
void rb_record_disable(struct ring_buffer *rb);
void rb_record_enable(struct ring_buffer *rb);
void rb_record_disable_cpu(struct ring_buffer *rb, unsigned cpu);
void rb_record_enable_cpu(struct ring_buffer *rb, unsigned cpu);
bool rb_record_is_on(struct ring_buffer *rb);

/*
 * Writer, on the current CPU. Returns where the payload goes, or NULL when recording is
 * off, len > RB_MAX_PAYLOAD, or the event is dropped (buffer full in producer/consumer
 * mode, or nested writers filled the whole buffer). Every non-NULL reservation must end in
 * exactly one rb_commit or rb_discard, on the same CPU, in stack order with nested ones.
 */
void *rb_reserve(struct ring_buffer *rb, unsigned len, struct rb_reservation *res);
void rb_commit(struct ring_buffer *rb, struct rb_reservation *res);
/* Abandons a reservation: its space becomes padding that readers skip. */
void rb_discard(struct ring_buffer *rb, struct rb_reservation *res);

/*
 * Consuming reader. Copies the oldest event of cpu into out and removes it; lost_events
 * (may be NULL) gets how many events were overwritten since the previous consume on that
 * CPU. False when there is nothing to read.
 */
bool rb_consume(struct ring_buffer *rb, unsigned cpu, struct rb_record *out,
                unsigned long *lost_events);
/* Time of the event rb_consume would return next, for merging CPUs by time. */
bool rb_peek_ts(struct ring_buffer *rb, unsigned cpu, uint64_t *ts);

/*
 * Non-consuming iterator (`cat trace`). Recording on that CPU stops from rb_iter_start
 * to rb_iter_finish, as Linux's pause-on-trace does, so the pages stand still under it.
 * A consume on that CPU meanwhile restarts the iterator at the oldest unconsumed event.
 * rb_iter_start returns NULL on ENOMEM or a bad CPU.
 */
struct rb_iter *rb_iter_start(struct ring_buffer *rb, unsigned cpu);
bool rb_iter_peek(struct rb_iter *it, struct rb_record *out); /* false at the end */
bool rb_iter_next(struct rb_iter *it);                        /* steps over one event */
void rb_iter_finish(struct rb_iter *it);

void rb_get_stats(struct ring_buffer *rb, unsigned cpu, struct rb_stats *st);

#endif
