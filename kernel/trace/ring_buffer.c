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
 * interrupted by an irq, NMI or patching-breakpoint handler that writes too resumes only after that
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
#include "ring_buffer_write.h"

#ifdef RB_TEST_HOOKS
static const char *const rb_hook_names[RB_HOOK_COUNT] = {
    "entry",         "reserve_read",   "reserve_stamped", "reserve_taken", "reserve_timed",
    "closed",        "push_read",      "push_update",     "push_head",     "enter_reset",
    "enter_publish", "commit_advance", "commit_done",     "discard",       "reader_find",
    "reader_swap",   "reader_corrupt",
};
void rb_test_hook(int point);
unsigned rb_test_hook_count(void) { return RB_HOOK_COUNT; }
const char *rb_test_hook_name(int point) { return rb_hook_names[point]; }
#endif

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
__noinline int rb_move_tail(struct ring_buffer *rb, struct rb_cpu_buffer *cb, struct rb_page *tail,
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

/* rb_reserve_event's general case: any clock, page changes, time records, retries. */
void *rb_reserve_event_slow(struct rb_cpu_buffer *cb, unsigned plen, struct rb_reservation *res)
{
    struct ring_buffer *rb = cb->rb;
    unsigned body = plen <= RB_SMALL_PAYLOAD ? 4 + plen : 8 + plen;

    for (;;) {
        struct rb_tail_view v = rb_read_tail(cb);
        uint64_t (*clock)(void) = __atomic_load_n(&rb->clock, __ATOMIC_RELAXED);
        uint64_t ts = likely(clock == clock_ns) ? rb_clock_ns() : clock();
        if ((int64_t)(ts - v.before) < 0)
            ts = v.before;

        uint64_t delta = 0;
        int stamp = RB_STAMP_NONE;
        if (v.off != 0) {
            if (v.before != v.last) {
                stamp = RB_STAMP_ABSOLUTE;
            } else {
                delta = ts - v.last;
                if (delta > RB_DELTA_MAX)
                    stamp = delta <= RB_TIME_MASK ? RB_STAMP_EXTEND : RB_STAMP_ABSOLUTE;
            }
        }
        unsigned size = body + (stamp != RB_STAMP_NONE ? RB_STAMP_LEN : 0);
        if (v.off + size > RB_DATA_SIZE) {
            if (rb_move_tail(rb, cb, v.tail, v.st) < 0)
                return NULL;
            continue;
        }
        if (!rb_claim(cb, &v, size, ts))
            continue;

        struct rb_data_page *dp = v.tail->data;
        uint32_t *p = (uint32_t *)(dp->data + v.off);
        if (v.off == 0)
            __atomic_store_n(&dp->time_stamp, ts, __ATOMIC_RELAXED); /* see rb_get_stats */
        if (stamp != RB_STAMP_NONE) {
            p = rb_write_stamp(p, stamp, delta, ts);
            delta = 0;
        }
        return rb_write_header(res, v.tail, p, plen, size, ts, (uint32_t)delta);
    }
}

void rb_advance_commit_pages(struct rb_cpu_buffer *cb, struct rb_page *page)
{
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

void *rb_reserve(struct ring_buffer *rb, unsigned len, struct rb_reservation *res)
{
    return rb_reserve_inline(rb, len, res);
}

void rb_commit(struct ring_buffer *rb, struct rb_reservation *res) { rb_commit_inline(res); }

void rb_discard(struct ring_buffer *rb, struct rb_reservation *res)
{
    struct rb_cpu_buffer *cb = res->cpu_buffer;
    struct rb_event *ev = res->event;
    unsigned type = ev->header & RB_TYPE_MASK;
    unsigned size = type == RB_TYPE_LEN0 ? 4 + ev->array[0] : 4 + 4 * type;

    /* The delta stays: events after this one on the page are timed relative to it. */
    ev->array[0] = size - 4;
    ev->header = (ev->header & ~RB_TYPE_MASK) | RB_TYPE_PADDING;
    RB_HOOK(DISCARD);
    /* The page cannot have been recycled: the commit pointer, at most here, holds the tail. */
    rb_local_sub64(&res->page->state, rb_st_event(res->length) - res->length);
    rb_local_dec(&cb->written);
    rb_local_sub64(&cb->bytes_written, res->length);
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
bool rb_decode(const struct rb_data_page *dp, unsigned *off, unsigned end, uint64_t *ts,
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
            /* In 64 bits: a corrupted length must not wrap to a step of 0. */
            uint64_t padded = room < 8 ? room : 4 + (uint64_t)ev->array[0];
            if (padded < 4 || padded > room || padded & 3)
                break;
            size = (unsigned)padded;
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
        if (!rb_data_event(ev, type, room, &len, &payload, &size))
            break;
        payload += pos;
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

/*
 * Whether the reader may spin until this CPU's writers get on. Not when it runs on that CPU
 * in an interrupt that landed inside a writer (a dump from a panic, say): that writer can
 * only go on once the reader returns.
 */
static bool rb_reader_may_wait(const struct rb_cpu_buffer *cb)
{
    return cb->cpu != this_cpu_id() || !(RB_LOAD(cb->nest) & RB_NEST_DEPTH_MASK);
}

/*
 * The page whose link flags the head. Spins while a writer is between taking UPDATE and
 * flagging the next page, the only time no link carries HEAD; NULL if it may not spin.
 */
struct rb_page *rb_find_head_prev(struct rb_cpu_buffer *cb)
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
        struct rb_page *head = rb_ptr(link);
        /*
         * The cmpxchg below succeeding does not prove that the link held still: a writer
         * that pushes this page twice brings the link back to this value (TOGGLE flips
         * once per push). Between the two pushes it recycles the page, though, which
         * bumps the generation. So the generation is loaded first, with acquire, and the
         * link again after it: had that load seen a recycle, the second link load would
         * see the push that came before the recycle. An unchanged generation after the
         * cmpxchg then proves the page stayed head from the second link load on.
         */
        uint64_t gen = __atomic_load_n(&head->state, __ATOMIC_ACQUIRE) >> RB_ST_GEN_SHIFT;
        if (rb_link(prev) != link)
            continue;
        /* Loaded after the HEAD flag: a push that made this page head is still counted. */
        if (__atomic_load_n(&cb->pushing, __ATOMIC_ACQUIRE)) {
            if (!rb_reader_may_wait(cb))
                return false;
            RB_HOOK(READER_FIND);
            arch_cpu_relax();
            continue;
        }
        RB_HOOK(READER_SWAP);
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
         * the loss of every page pushed off before this one became head, as long as the
         * page stays head until the cmpxchg: a push of it turns the link to UPDATE, which
         * makes the cmpxchg fail. Unless the writer went round the ring twice since the
         * generation was loaded and the link is back to what it was: then the page was
         * recycled in between, its generation tells, and the count is taken again once
         * the push that made it head this time is complete. (Loaded only here, the
         * generation missed a writer going round twice between the link check and this
         * load, and the loss of the page pushed last before this one came a page late;
         * with the reader held up at the hook above, the host stress test finds that
         * within seconds.)
         */
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

/*
 * Moves the unconsumed committed events of the oldest page into out, as Linux's
 * ring_buffer_read_page does for trace_pipe_raw: the events keep their encoding, the page
 * header gets the time the first delta is relative to, commit counts the bytes up to the
 * end of the last event (padding after it is left out, as Linux's real_end), and a loss
 * since the previous read sets Linux's missed-events flags in commit with the count
 * stored after the events. So that the count always fits, a page read after a loss hands
 * over at most RB_DATA_SIZE - 8 bytes of events; the rest comes with the next read.
 */
bool rb_read_page(struct ring_buffer *rb, unsigned cpu, void *out_page)
{
    struct rb_data_page *out = out_page;
    if (cpu >= rb->ncpus)
        return false;
    struct rb_cpu_buffer *cb = rb->cpus[cpu];

    unsigned long flags = spin_lock_irqsave(&cb->reader_lock);
    unsigned start, len;
    for (;;) {
        struct rb_page *reader = rb_reader_page(cb);
        if (!reader) {
            spin_unlock_irqrestore(&cb->reader_lock, flags);
            return false;
        }
        unsigned end = __atomic_load_n(&reader->data->commit, __ATOMIC_ACQUIRE);
        unsigned limit = cb->lost_events ? RB_DATA_SIZE - sizeof(uint64_t) : RB_DATA_SIZE;
        start = reader->read;
        uint64_t start_ts = rb_time_at(reader, start, cb->read_ts);

        unsigned pos = start, taken = start, events = 0, bytes = 0;
        uint64_t ts = start_ts, taken_ts = start_ts;
        bool all = true;
        struct rb_unit u;
        while (rb_decode(reader->data, &pos, end, &ts, &u)) {
            if (u.start + u.size - start > limit) {
                all = false;
                break;
            }
            events++;
            bytes += u.size;
            pos = taken = u.start + u.size;
            ts = taken_ts = u.ts;
        }
        len = taken - start;
        out->time_stamp = start_ts;
        memcpy(out->data, reader->data->data + start, len);

        reader->read = all ? end : taken;
        cb->read_ts = all ? ts : taken_ts;
        RB_STORE(cb->read, cb->read + events);
        RB_STORE(cb->bytes_read, cb->bytes_read + bytes);
        cb->read_gen++;
        if (len || cb->lost_events)
            break;
        /* Nothing but discarded events: go on to the next page. */
    }
    memset(out->data + len, 0, RB_DATA_SIZE - len);
    uint64_t commit = len;
    if (cb->lost_events) {
        uint64_t lost = cb->lost_events;
        memcpy(out->data + len, &lost, sizeof(lost));
        commit |= RB_COMMIT_MISSED_EVENTS | RB_COMMIT_MISSED_STORED;
        cb->lost_events = 0;
    }
    out->commit = commit;
    spin_unlock_irqrestore(&cb->reader_lock, flags);
    return true;
}

unsigned rb_page_events(const void *page, unsigned long *lost)
{
    const struct rb_data_page *dp = page;
    unsigned size = (unsigned)(dp->commit & ~(RB_COMMIT_MISSED_EVENTS | RB_COMMIT_MISSED_STORED));
    *lost = 0;
    if (size > RB_DATA_SIZE)
        return 0;
    if (dp->commit & RB_COMMIT_MISSED_STORED)
        memcpy(lost, dp->data + size, sizeof(uint64_t));
    unsigned off = 0, n = 0;
    uint64_t ts = dp->time_stamp;
    struct rb_unit u;
    while (rb_decode(dp, &off, size, &ts, &u)) {
        n++;
        off = u.start + u.size;
        ts = u.ts;
    }
    return n;
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
 * be off already. A writer counts itself in `nest` and only then loads the disable
 * counters, with no fence between: the store may still sit in its CPU's store buffer while
 * the load is done. The sync round makes every other CPU take an interrupt and acknowledge
 * it; by then each writer that saw recording on has its count visible here, and each that
 * starts later sees recording off and leaves without touching the pages. (The callers turn
 * recording off with a locked add, a full barrier, before the round.) On this CPU no writer
 * can be inside: writers never sleep and this runs in thread context.
 */
void rb_wait_writers(struct ring_buffer *rb, int cpu)
{
    smp_sync_all();
    for (unsigned c = 0; c < rb->ncpus; c++) {
        if ((cpu >= 0 && (unsigned)cpu != c) || !rb->cpus[c])
            continue;
        while (__atomic_load_n(&rb->cpus[c]->nest, __ATOMIC_ACQUIRE) & RB_NEST_DEPTH_MASK)
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
