/*
 * per_cpu/cpuN/trace_pipe_raw: the ring buffer's pages as they are, for tools that parse
 * them (the trace.dat export). Each page is PAGE_SIZE bytes in Linux's sub-buffer layout
 * (ring_buffer_layout.h, rb_read_page), and reading consumes its events, as on Linux. A
 * read with nothing to return blocks like trace_pipe, ends at EOF once tracing is off and
 * something was read, and gives EAGAIN when the file was opened non-blocking.
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
    size_t page_off; /* bytes of page already returned; PAGE_SIZE: none pending */
    bool read_any;
    uint8_t page[PAGE_SIZE] __aligned(8);
};

static int raw_open(struct pfs_file *f)
{
    struct raw_reader *r = kzalloc(sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->cpu = (unsigned)(uintptr_t)f->data;
    r->page_off = PAGE_SIZE;
    f->priv = r;
    return 0;
}

static int raw_release(struct pfs_file *f)
{
    kfree(f->priv);
    return 0;
}

static ssize_t raw_read(struct pfs_file *f, char *buf, size_t len)
{
    struct raw_reader *r = f->priv;

    /* A reader that takes whole pages (the stream's workers, the exports) gets each one
     * straight into its buffer, without the copy through r->page. */
    bool whole_page = r->page_off == PAGE_SIZE && len >= PAGE_SIZE && ((uintptr_t)buf & 7) == 0;
    while (r->page_off == PAGE_SIZE) {
        if (rb_read_page(trace_global.buffer, r->cpu, whole_page ? (void *)buf : r->page)) {
            r->read_any = true;
            if (whole_page)
                return PAGE_SIZE;
            r->page_off = 0;
            break;
        }
        if (f->flags & PFS_NONBLOCK)
            return -EAGAIN;
        if (r->read_any && !rb_record_is_on(trace_global.buffer))
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

/* Reads need no control mutex: a reader's state is its own, the pages its CPU's reader_lock's. */
static const struct pfs_ops trace_pipe_raw_ops = {
    .open = raw_open, .read = raw_read, .release = raw_release, .read_unlocked = true};

static void trace_pipe_raw_init(void)
{
    char path[64];
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online)
            continue;
        snprintf(path, sizeof(path), "per_cpu/cpu%u/trace_pipe_raw", c);
        tracefs_create(path, 0444, &trace_pipe_raw_ops, NULL, NULL, (void *)(uintptr_t)c);
    }
}
LATE_INITCALL(trace_pipe_raw_init);
