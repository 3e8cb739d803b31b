/*
 * The ring buffer's control half: making, freeing, resizing and resetting per-CPU buffers
 * and switching recording, each under the buffer's locks and in thread context. The
 * lockless writers and the readers are in ring_buffer.c.
 */
#include "ring_buffer_write.h"

/* ---------------------------------------------------------------------------------- */
/* Control */

static bool rb_targets(const struct ring_buffer *rb, int cpu, unsigned c)
{
    return cpu < 0 || (unsigned)cpu == c;
}

/* Links n ring pages into a ring with its head at pg[0]; pg[n], the reader page, leads in. */
void rb_link_pages(struct rb_page *pg, unsigned n)
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

void rb_blank_page(struct rb_page *pg)
{
    pg->state = 0;
    pg->read = 0;
    pg->data->time_stamp = 0;
    __atomic_store_n(&pg->data->commit, 0, __ATOMIC_RELAXED);
}

/* Links all pages into a fresh ring and zeroes every count. No writer inside, reader locked. */
void rb_clear(struct rb_cpu_buffer *cb)
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
void *rb_zalloc_aligned(size_t size)
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

/* The descriptors, and the data pages unless they belong to the buffer's range. */
static void rb_free_pages(struct rb_page *pages, unsigned n, bool in_range)
{
    if (!pages)
        return;
    for (unsigned i = 0; i <= n && !in_range; i++)
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
            rb_free_pages(pages, n, false);
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
    rb_record_disable(rb);
    rb_wait_writers(rb, -1);
    for (unsigned c = 0; c < rb->ncpus; c++) {
        struct rb_cpu_buffer *cb = rb->cpus[c];
        if (!cb)
            continue;
        rb_free_pages(cb->pages, cb->nr_pages, rb->range != NULL);
        rb_free_aligned(cb);
    }
    rb_free_aligned(rb);
}

struct ring_buffer *rb_alloc_cpus(unsigned ncpus)
{
    if (!ncpus || ncpus > MAX_CPUS)
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
        cb->record_disabled = 1;
        rb->cpus[c] = cb;
        cb->cpu = c;
        cb->rb = rb;
        spin_init(&cb->reader_lock, "rb_reader");
    }
    return rb;
}

struct ring_buffer *rb_create(size_t bytes_per_cpu, unsigned ncpus)
{
    unsigned n = rb_pages_for(bytes_per_cpu);
    struct ring_buffer *rb = n ? rb_alloc_cpus(ncpus) : NULL;
    if (!rb)
        return NULL;
    for (unsigned c = 0; c < ncpus; c++) {
        struct rb_cpu_buffer *cb = rb->cpus[c];
        cb->pages = rb_alloc_pages(n);
        if (!cb->pages) {
            rb_destroy(rb);
            return NULL;
        }
        cb->nr_pages = n;
        rb_clear(cb);
    }
    rb_record_enable(rb);
    return rb;
}

/* Clears the CPUs selected by cpu, optionally switching the clock while nothing writes. */
static void rb_reset_cpus(struct ring_buffer *rb, int cpu, uint64_t (*clock)(void))
{
    for (unsigned c = 0; c < rb->ncpus; c++)
        if (rb_targets(rb, cpu, c))
            rb_record_disable_cpu(rb, c);
    rb_wait_writers(rb, cpu);
    if (clock) {
        __atomic_store_n(&rb->clock, clock, __ATOMIC_RELAXED);
        for (unsigned c = 0; c < rb->ncpus; c++)
            RB_STORE(rb->cpus[c]->other_clock, clock != clock_ns);
    }
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

void rb_set_clock(struct ring_buffer *rb, uint64_t (*clock)(void)) { rb_reset_cpus(rb, -1, clock); }

static uint64_t rb_clock(struct ring_buffer *rb)
{
    return __atomic_load_n(&rb->clock, __ATOMIC_RELAXED)();
}

int rb_resize(struct ring_buffer *rb, int cpu, size_t bytes_per_cpu)
{
    if (!bytes_per_cpu || cpu >= (int)rb->ncpus || cpu < -1)
        return -EINVAL;
    /* A buffer laid on a fixed range has the pages of that range, no more, no fewer. */
    if (rb->range)
        return rb_pages_for(bytes_per_cpu) == rb->cpus[0]->nr_pages ? 0 : -EBUSY;
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
                rb_free_pages(pages[k], counts[k], false);
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
        rb_free_pages(pages[c], counts[c], false);
    }
    return busy ? -EBUSY : 0;
}

size_t rb_size(struct ring_buffer *rb, unsigned cpu)
{
    if (cpu >= rb->ncpus)
        return 0;
    return (size_t)rb->cpus[cpu]->nr_pages * RB_DATA_SIZE;
}

unsigned rb_ncpus(struct ring_buffer *rb) { return rb->ncpus; }

struct rb_cpu_buffer *rb_cpu_buffer(struct ring_buffer *rb, unsigned cpu)
{
    return cpu < rb->ncpus ? rb->cpus[cpu] : NULL;
}

void rb_set_overwrite(struct ring_buffer *rb, bool overwrite)
{
    __atomic_store_n(&rb->overwrite, overwrite, __ATOMIC_RELAXED);
}

/*
 * The enables release what a control operation rebuilt to the acquire in rb_reserve. A
 * disable of the whole buffer counts in every CPU's counter too, so that a writer tests
 * one word; the buffer's own counter is what rb_record_is_on reports.
 */
void rb_record_disable(struct ring_buffer *rb)
{
    __atomic_fetch_add(&rb->record_disabled, 1, __ATOMIC_SEQ_CST);
    for (unsigned c = 0; c < rb->ncpus; c++)
        if (rb->cpus[c])
            __atomic_fetch_add(&rb->cpus[c]->record_disabled, 1, __ATOMIC_SEQ_CST);
}

void rb_record_enable(struct ring_buffer *rb)
{
    for (unsigned c = 0; c < rb->ncpus; c++)
        if (rb->cpus[c])
            __atomic_fetch_sub(&rb->cpus[c]->record_disabled, 1, __ATOMIC_SEQ_CST);
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

    st->written = written;
    st->entries = written - st->overrun - st->read;
    st->bytes = bytes_written - bytes_overrun - bytes_read;
    st->now_ts = rb_clock(rb);
}

/*
 * Swapping one CPU's events between two buffers (the snapshot).
 *
 * The events move, not the per-CPU structures: every writer of a CPU reaches that CPU's
 * structure through a pointer it may have loaded before the swap (struct percpu's
 * trace_buffer, rb->cpus[]), so the structure must stay where it is and stay the live
 * one. What a structure owns (its pages and every pointer and count describing them)
 * changes hands instead, while nothing can touch either side:
 *
 *  - The swap runs on the CPU itself with interrupts off, so no writer of that CPU can
 *    start, except in an NMI, which runs to its end before the swap resumes.
 *  - Both sides' recording is turned off with a locked add (a full barrier) before their
 *    `nest` counts are read. A writer counts itself in before it reads the disable
 *    counter (rb_reserve_on), so a writer that saw recording on is counted, and one that
 *    comes later (an NMI, or a writer that had loaded the structure's address when the
 *    swap interrupted it) sees recording off and leaves without touching the pages.
 *  - A count above zero means the swap interrupted a writer halfway through an event:
 *    the swap does nothing and says -EAGAIN, so that the event is never torn between
 *    two buffers. The caller tries again once that writer has gone on.
 *  - Readers hold a side's reader lock while they look at its pages; the swap holds both.
 *    An open iterator keeps positions into the pages: -EBUSY, as for a resize.
 *  - read_gen changes on both sides, so a consuming reader's notion of where it was
 *    starts over on each.
 *
 * Nothing allocates, waits for another CPU or takes a lock a writer takes, so it can run
 * from a cross-CPU call on behalf of any context.
 */
struct rb_cpu_events {
    struct rb_page *tail_page, *commit_page, *head_page, *reader_page;
    uint64_t before_ts, last_ts, read_ts;
    unsigned long written, bytes_written, overrun, bytes_overrun, commit_overrun, dropped;
    unsigned long read, bytes_read, last_overrun, lost_events;
    unsigned nr_pages;
    struct rb_page *pages;
};

static void rb_events_take(struct rb_cpu_events *e, const struct rb_cpu_buffer *cb)
{
    *e = (struct rb_cpu_events){
        .tail_page = cb->tail_page,
        .commit_page = cb->commit_page,
        .head_page = cb->head_page,
        .reader_page = cb->reader_page,
        .before_ts = cb->before_ts,
        .last_ts = cb->last_ts,
        .read_ts = cb->read_ts,
        .written = cb->written,
        .bytes_written = cb->bytes_written,
        .overrun = cb->overrun,
        .bytes_overrun = cb->bytes_overrun,
        .commit_overrun = cb->commit_overrun,
        .dropped = cb->dropped,
        .read = cb->read,
        .bytes_read = cb->bytes_read,
        .last_overrun = cb->last_overrun,
        .lost_events = cb->lost_events,
        .nr_pages = cb->nr_pages,
        .pages = cb->pages,
    };
}

static void rb_events_give(struct rb_cpu_buffer *cb, const struct rb_cpu_events *e)
{
    cb->tail_page = e->tail_page;
    __atomic_store_n(&cb->commit_page, e->commit_page, __ATOMIC_RELEASE);
    RB_STORE(cb->head_page, e->head_page);
    cb->reader_page = e->reader_page;
    cb->before_ts = e->before_ts;
    cb->last_ts = e->last_ts;
    cb->read_ts = e->read_ts;
    RB_STORE(cb->written, e->written);
    RB_STORE(cb->bytes_written, e->bytes_written);
    RB_STORE(cb->overrun, e->overrun);
    RB_STORE(cb->bytes_overrun, e->bytes_overrun);
    RB_STORE(cb->commit_overrun, e->commit_overrun);
    RB_STORE(cb->dropped, e->dropped);
    RB_STORE(cb->read, e->read);
    RB_STORE(cb->bytes_read, e->bytes_read);
    cb->last_overrun = e->last_overrun;
    cb->lost_events = e->lost_events;
    cb->nr_pages = e->nr_pages;
    cb->pages = e->pages;
    cb->read_gen++;
}

int rb_swap_this_cpu(struct ring_buffer *a, struct ring_buffer *b)
{
    unsigned cpu = this_cpu_id();
    /* Times of two clocks must not mix on one CPU's pages. */
    /* A range's pages stay in their buffer: a snapshot cannot take them. */
    if (cpu >= a->ncpus || cpu >= b->ncpus || a == b || a->range || b->range ||
        __atomic_load_n(&a->clock, __ATOMIC_RELAXED) !=
            __atomic_load_n(&b->clock, __ATOMIC_RELAXED))
        return -EINVAL;
    struct rb_cpu_buffer *ca = a->cpus[cpu], *cb = b->cpus[cpu];
    __atomic_fetch_add(&ca->record_disabled, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&cb->record_disabled, 1, __ATOMIC_SEQ_CST);
    int err = 0;
    if ((__atomic_load_n(&ca->nest, __ATOMIC_ACQUIRE) |
         __atomic_load_n(&cb->nest, __ATOMIC_ACQUIRE)) &
        RB_NEST_DEPTH_MASK) {
        err = -EAGAIN;
    } else {
        /* Always in the same order, whichever buffer is passed first. */
        struct rb_cpu_buffer *first = ca < cb ? ca : cb, *second = ca < cb ? cb : ca;
        /* Interrupts are off already; the saving forms are what every reader lock takes. */
        unsigned long flags_first = spin_lock_irqsave(&first->reader_lock);
        unsigned long flags_second = spin_lock_irqsave(&second->reader_lock);
        if (ca->iterators || cb->iterators) {
            err = -EBUSY;
        } else {
            /* Writers nested into one that then found recording off left their events
             * for the next outermost commit: commit them now, there is no writer. */
            rb_advance_commit(ca);
            rb_advance_commit(cb);
            struct rb_cpu_events ea, eb;
            rb_events_take(&ea, ca);
            rb_events_take(&eb, cb);
            rb_events_give(ca, &eb);
            rb_events_give(cb, &ea);
        }
        spin_unlock_irqrestore(&second->reader_lock, flags_second);
        spin_unlock_irqrestore(&first->reader_lock, flags_first);
    }
    /* Release: a writer that sees recording on again sees the pages it now owns. */
    __atomic_fetch_sub(&cb->record_disabled, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_sub(&ca->record_disabled, 1, __ATOMIC_SEQ_CST);
    return err;
}

bool rb_writer_inside(struct ring_buffer *rb, unsigned cpu)
{
    return cpu < rb->ncpus &&
           (__atomic_load_n(&rb->cpus[cpu]->nest, __ATOMIC_ACQUIRE) & RB_NEST_DEPTH_MASK) != 0;
}
