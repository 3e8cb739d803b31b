/*
 * per_cpu/cpuN/trace_pipe_raw: the ring buffer's pages as they are, for tools that parse
 * them (the trace.dat export). Each page is PAGE_SIZE bytes in Linux's sub-buffer layout
 * (ring_buffer_layout.h, rb_read_page), and reading consumes its events, as on Linux. A
 * read with nothing to return blocks like trace_pipe, ends at EOF once tracing is off and
 * something was read, and gives EAGAIN when the file was opened non-blocking.
 *
 * per_cpu/cpuN/snapshot_raw: the same of the snapshot's pages (of the snapshot allocated
 * when the file was opened). As on Linux, a read past its last page waits like one of
 * trace_pipe_raw, for pages a later swap brings, until interrupted.
 */
#include <kernel/errno.h>
#include <kernel/init.h>
#include <kernel/mm.h>
#include <kernel/smp.h>
#include <kernel/time.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "trace_internal.h"

struct raw_reader {
    unsigned cpu;
    struct trace_array *tr;
    struct ring_buffer *snapshot; /* snapshot_raw: the buffer it reads, NULL when freed */
    bool is_snapshot;
    size_t page_off; /* bytes of page already returned; PAGE_SIZE: none pending */
    bool read_any;
    uint8_t page[PAGE_SIZE] __aligned(8);
};

static int raw_open(struct pfs_file *f, bool snapshot)
{
    struct raw_reader *r = kzalloc(sizeof(*r));
    if (!r)
        return -ENOMEM;
    const struct trace_file_ref *ref = f->data;
    r->cpu = (unsigned)ref->cpu;
    r->tr = ref->tr;
    r->page_off = PAGE_SIZE;
    if (snapshot) {
        r->is_snapshot = true;
        r->snapshot = trace_snapshot_get(r->tr);
    }
    f->priv = r;
    return 0;
}

static int trace_pipe_raw_open(struct pfs_file *f) { return raw_open(f, false); }
static int snapshot_raw_open(struct pfs_file *f) { return raw_open(f, true); }

static int raw_release(struct pfs_file *f)
{
    struct raw_reader *r = f->priv;
    if (r && r->is_snapshot)
        trace_snapshot_put(r->tr);
    kfree(r);
    return 0;
}

static ssize_t raw_read(struct pfs_file *f, char *buf, size_t len)
{
    struct raw_reader *r = f->priv;

    /* A reader that takes whole pages (the stream's workers, the exports) gets each one
     * straight into its buffer, without the copy through r->page. */
    bool whole_page = r->page_off == PAGE_SIZE && len >= PAGE_SIZE && ((uintptr_t)buf & 7) == 0;
    while (r->page_off == PAGE_SIZE) {
        struct ring_buffer *rb = r->is_snapshot ? r->snapshot : r->tr->buffer;
        if (rb && rb_read_page(rb, r->cpu, whole_page ? (void *)buf : r->page)) {
            r->read_any = true;
            if (whole_page)
                return PAGE_SIZE;
            r->page_off = 0;
            break;
        }
        if (f->flags & PFS_NONBLOCK)
            return -EAGAIN;
        if (r->read_any && !r->is_snapshot && !rb_record_is_on(r->tr->buffer))
            return 0;
        /* Writers cannot wake readers (they run in any context): poll, as trace_pipe. */
        int err = pfs_read_wait(f, 10 * NSEC_PER_MSEC);
        if (err)
            return err;
    }
    size_t n = MIN(len, PAGE_SIZE - r->page_off);
    memcpy(buf, r->page + r->page_off, n);
    r->page_off += n;
    return (ssize_t)n;
}

/*
 * trace_pipe_raw's reads need no control mutex: a reader's state is its own, the pages its
 * CPU's reader_lock's, which swaps and resizes take too. snapshot_raw's stay under it,
 * with the snapshot's other files (allocation, clearing, freeing).
 */
static const struct pfs_ops trace_pipe_raw_ops = {
    .open = trace_pipe_raw_open, .read = raw_read, .release = raw_release, .read_unlocked = true};
static const struct pfs_ops snapshot_raw_ops = {
    .open = snapshot_raw_open, .read = raw_read, .release = raw_release};

int trace_pipe_raw_create(struct trace_array *tr, struct pfs_node *dir, unsigned cpu)
{
    char path[64];
    snprintf(path, sizeof(path), "per_cpu/cpu%u/trace_pipe_raw", cpu);
    if (!tracefs_create_at(dir, path, 0444, &trace_pipe_raw_ops, NULL, NULL, &tr->cpu_refs[cpu]))
        return -ENOMEM;
    snprintf(path, sizeof(path), "per_cpu/cpu%u/snapshot_raw", cpu);
    if (!tracefs_create_at(dir, path, 0444, &snapshot_raw_ops, NULL, NULL, &tr->cpu_refs[cpu]))
        return -ENOMEM;
    return 0;
}
