/*
 * A ring buffer laid on a fixed range of memory, for a trace that outlives the boot that
 * wrote it (Linux 6.12's boot-mapped instances). The range holds a meta page, then each
 * CPU's data pages in a row: its ring pages and its reader page. The writers and readers
 * are the ordinary ones (ring_buffer.c); only the data pages come from the range.
 *
 * Nothing else survives a reset: the page descriptors, the ring's order and the writers'
 * state words are in the heap. What is needed to find the events again is on the data
 * pages themselves, because the writers keep it there for the readers anyway: each page
 * starts with the time of its first event and the offset its events are committed up to
 * (rb_advance_commit stores it on every commit; a page going round the ring is blanked
 * before it is reused). So a later boot can take every page whose events check out, put
 * them back in order of their time stamps, and hand the buffer to the readers as if it
 * had just been written. A page that does not check out (a crash in the middle of a
 * write leaves nothing inconsistent behind the commit offset, but firmware or a stray
 * write may have been there) is blanked and counted, never read: a reader must not follow
 * lengths it cannot trust.
 */
#include <lib/crc32.h>
#include <lib/sort.h>

#include "ring_buffer_write.h"

#define RB_RANGE_MAGIC 0x65676e6172626672ULL /* "rfbrange", little-endian */
#define RB_RANGE_VERSION 1

struct rb_range_meta {
    uint64_t magic;
    uint32_t version;
    uint32_t page_size;
    uint64_t range_size;
    uint32_t ncpus;
    uint32_t cpu_pages; /* data pages per CPU: its ring's and its reader page */
    uint64_t identity;  /* the kernel that writes the buffer */
    uint64_t text_addr;
    uint32_t clock_id;
    uint32_t crc; /* of everything above */
};
_Static_assert(sizeof(struct rb_range_meta) <= PAGE_SIZE, "the meta fits its page");

static uint32_t meta_crc(const struct rb_range_meta *m)
{
    return crc32(0, m, offsetof(struct rb_range_meta, crc));
}

/* What the walk of one page found. */
struct page_walk {
    unsigned entries;
    unsigned bytes;
    uint64_t last_ts;
};

/*
 * Whether every byte up to the page's commit offset is a well-formed unit: events with
 * sane lengths whose records pass check, time records, padding; times never going back.
 * Stricter than the reader's decoder, which steps over what it cannot use.
 */
static bool page_valid(const struct rb_data_page *dp, rb_record_check_fn check, struct page_walk *w)
{
    uint64_t commit = RB_LOAD(dp->commit);
    uint64_t t = dp->time_stamp;

    *w = (struct page_walk){0, 0, t};
    if (commit > RB_DATA_SIZE)
        return false;
    if (commit == 0)
        return true;
    if (t == 0)
        return false;
    unsigned end = (unsigned)commit, stamp_bytes = 0;
    for (unsigned pos = 0; pos < end;) {
        unsigned room = end - pos;
        if (room < 4)
            return false;
        const struct rb_event *ev = (const struct rb_event *)(dp->data + pos);
        unsigned type = ev->header & RB_TYPE_MASK;
        uint32_t delta = ev->header >> RB_TYPE_BITS;
        unsigned size, len, payload;

        if (type == RB_TYPE_PADDING) {
            /* A discarded event, or the rest of a closed page (4 bytes alone at its end);
             * its length read in 64 bits, so that no value wraps to a step of 0. */
            uint64_t padded = room < 8 ? room : 4 + (uint64_t)ev->array[0];
            if (padded < 4 || padded > room || padded & 3)
                return false;
            t += delta;
            pos += (unsigned)padded;
            stamp_bytes = 0;
            continue;
        }
        if (type == RB_TYPE_TIME_EXTEND || type == RB_TYPE_TIME_STAMP) {
            if (room < RB_STAMP_LEN + 8)
                return false;
            uint64_t v = (uint64_t)ev->array[0] << RB_DELTA_BITS | delta;
            uint64_t next =
                type == RB_TYPE_TIME_EXTEND ? t + v : (dp->time_stamp & ~RB_TIME_MASK) | v;
            if (next < t)
                return false;
            t = next;
            pos += RB_STAMP_LEN;
            /* The writer counts a time record in the bytes of the event it precedes. */
            stamp_bytes += RB_STAMP_LEN;
            continue;
        }
        if (!rb_data_event(ev, type, room, &len, &payload, &size) || len == 0)
            return false;
        if (check && !check(dp->data + pos + payload, len))
            return false;
        t += delta;
        w->entries++;
        w->bytes += size + stamp_bytes;
        stamp_bytes = 0;
        pos += size;
    }
    w->last_ts = t;
    return true;
}

struct kept_page {
    struct rb_data_page *data;
    struct page_walk walk;
};

static int kept_page_cmp(const void *a, const void *b)
{
    const struct kept_page *x = a, *y = b;
    if (x->data->time_stamp != y->data->time_stamp)
        return x->data->time_stamp < y->data->time_stamp ? -1 : 1;
    return x->walk.last_ts < y->walk.last_ts ? -1 : x->walk.last_ts > y->walk.last_ts;
}

/* Room for restore_cpu's work on a CPU of n ring pages, taken before anything changes. */
struct restore_scratch {
    struct kept_page *kept;
    struct rb_data_page **order;
};

/*
 * Rebuilds one CPU's ring from what its pages hold (its descriptors have their data pages;
 * nothing writes or reads yet). The valid pages go into the ring from the head in time
 * order, the newest being the tail; when every page is valid the oldest one becomes the
 * reader page, unread.
 */
static void restore_cpu(struct rb_cpu_buffer *cb, rb_record_check_fn check,
                        const struct restore_scratch *scratch, struct rb_range_report *report)
{
    unsigned n = cb->nr_pages;
    struct kept_page *kept = scratch->kept;
    struct rb_data_page **order = scratch->order;
    unsigned k = 0;
    for (unsigned i = 0; i <= n; i++) {
        struct rb_data_page *dp = cb->pages[i].data;
        struct page_walk w;
        if (!page_valid(dp, check, &w)) {
            report->pages_dropped++;
            dp->time_stamp = 0;
            dp->commit = 0;
            continue;
        }
        /* A page of discarded events only has nothing to show: blank, as if unused. */
        if (w.entries)
            kept[k++] = (struct kept_page){dp, w};
        else
            dp->commit = 0;
    }
    sort(kept, k, sizeof(*kept), kept_page_cmp);

    /* Data pages in their new places: kept ones first, in order, then the empty ones. */
    unsigned placed = 0;
    for (unsigned i = 0; i < k; i++)
        order[placed++] = kept[i].data;
    for (unsigned i = 0; i <= n; i++) {
        struct rb_data_page *dp = cb->pages[i].data;
        bool is_kept = false;
        for (unsigned j = 0; j < k && !is_kept; j++)
            is_kept = kept[j].data == dp;
        if (!is_kept)
            order[placed++] = dp;
    }

    /*
     * Slot i of the descriptors (n: the reader page) takes order[from]. With every page
     * kept, the oldest is the reader page, unread, and the ring holds the rest; else the
     * ring holds the kept pages from its head and the reader page is an empty one.
     */
    bool reader_kept = k == n + 1;
    unsigned ring_kept = reader_kept ? n : k;
    struct rb_page *pg = cb->pages;
    for (unsigned i = 0; i <= n; i++) {
        unsigned from = reader_kept ? (i == n ? 0 : i + 1) : i;
        pg[i].data = order[from];
        if (from >= k) {
            rb_blank_page(&pg[i]);
            continue;
        }
        const struct page_walk *w = &kept[from].walk;
        /* The newest page is the tail, open at its commit; the others are closed. */
        unsigned off = i + 1 == ring_kept ? (unsigned)pg[i].data->commit : RB_DATA_SIZE;
        pg[i].read = 0;
        pg[i].state =
            off + (uint64_t)w->entries * RB_ST_ENTRY + ((uint64_t)w->bytes << RB_ST_BYTES_SHIFT);
        cb->written += w->entries;
        cb->bytes_written += w->bytes;
        if (w->last_ts > cb->last_ts)
            cb->last_ts = w->last_ts;
    }
    rb_link_pages(pg, n);
    struct rb_page *tail = &pg[ring_kept ? ring_kept - 1 : 0];
    cb->tail_page = tail;
    cb->commit_page = tail;
    cb->head_page = &pg[0];
    cb->reader_page = &pg[n];
    cb->before_ts = cb->last_ts;
    report->pages_kept += k;
    for (unsigned i = 0; i < k; i++)
        report->events += kept[i].walk.entries;
}

struct ring_buffer *rb_create_in_range(void *base, size_t size, unsigned ncpus, uint64_t identity,
                                       uint64_t text_addr, rb_record_check_fn check,
                                       struct rb_range_report *report)
{
    *report = (struct rb_range_report){0};
    if (((uintptr_t)base & (PAGE_SIZE - 1)) || !ncpus)
        return NULL;
    size_t pages = size / PAGE_SIZE;
    unsigned cpu_pages = pages > 1 ? (unsigned)((pages - 1) / ncpus) : 0;
    if (cpu_pages < RB_MIN_PAGES + 1 || cpu_pages > RB_MAX_PAGES)
        return NULL;
    struct ring_buffer *rb = rb_alloc_cpus(ncpus);
    if (!rb)
        return NULL;
    struct rb_range_meta *meta = base;
    rb->range = meta;
    unsigned n = cpu_pages - 1;
    for (unsigned c = 0; c < ncpus; c++) {
        struct rb_cpu_buffer *cb = rb->cpus[c];
        cb->pages = rb_zalloc_aligned((n + 1) * sizeof(*cb->pages));
        if (!cb->pages) {
            rb_destroy(rb);
            return NULL;
        }
        cb->nr_pages = n;
        uint8_t *first = (uint8_t *)base + PAGE_SIZE * (1 + (size_t)c * cpu_pages);
        for (unsigned i = 0; i <= n; i++)
            cb->pages[i].data = (struct rb_data_page *)(first + (size_t)i * PAGE_SIZE);
    }

    struct rb_range_meta want = {
        .magic = RB_RANGE_MAGIC,
        .version = RB_RANGE_VERSION,
        .page_size = PAGE_SIZE,
        .range_size = size,
        .ncpus = ncpus,
        .cpu_pages = cpu_pages,
        .identity = identity,
        .text_addr = text_addr,
        .clock_id = meta->clock_id,
    };
    want.crc = meta_crc(&want);
    bool kept = meta->crc == meta_crc(meta) && !memcmp(meta, &want, sizeof(want));
    struct restore_scratch scratch = {0};
    if (kept) {
        /* All of it before any page changes: a failure leaves the range as it was. */
        scratch.kept = kmalloc((n + 1) * sizeof(*scratch.kept));
        scratch.order = kmalloc((n + 1) * sizeof(*scratch.order));
        if (!scratch.kept || !scratch.order) {
            kfree(scratch.kept);
            kfree(scratch.order);
            rb_destroy(rb);
            return NULL;
        }
        report->kept = true;
        report->text_addr = meta->text_addr;
        report->clock_id = meta->clock_id;
    }
    for (unsigned c = 0; c < ncpus; c++) {
        if (kept)
            restore_cpu(rb->cpus[c], check, &scratch, report);
        else
            rb_clear(rb->cpus[c]);
    }
    kfree(scratch.kept);
    kfree(scratch.order);
    if (!kept) {
        want.clock_id = 0;
        want.crc = meta_crc(&want);
        *meta = want;
    }
    /* Kept events are read before anything records after them: the owner starts it. */
    if (!report->events)
        rb_record_enable(rb);
    return rb;
}

bool rb_is_in_range(const struct ring_buffer *rb) { return rb->range != NULL; }

void rb_range_set_clock_id(struct ring_buffer *rb, uint32_t id)
{
    struct rb_range_meta *meta = rb->range;
    if (!meta || meta->clock_id == id)
        return;
    meta->clock_id = id;
    meta->crc = meta_crc(meta);
}

void rb_range_restore_clock(struct ring_buffer *rb, uint64_t (*clock)(void))
{
    __atomic_store_n(&rb->clock, clock, __ATOMIC_RELAXED);
    for (unsigned c = 0; c < rb->ncpus; c++)
        RB_STORE(rb->cpus[c]->other_clock, clock != clock_ns);
}
