/*
 * trace_marker_raw: Linux 6.1's binary marker, at the top level and in every instance. A
 * write's first four bytes are an id (an int, little-endian), the rest is data; it is
 * recorded in the array's buffer as ftrace's raw_data event in Linux's layout
 * (events/ftrace/raw_data/format), which `trace` prints as Linux does:
 *
 *     # 44434241 buf: 65 66 67 68 00 00 00 00 00 00 00 00 00 00 00 00
 *
 * The record is sized as Linux sizes it, and the line shows the whole record: Linux adds
 * the four bytes of the id twice, makes room for its "<faulted>" text after the id, and
 * rounds to 4 bytes. The bytes past the write, which Linux leaves as the buffer had them
 * (zero in pages not yet reused), are zero here.
 */
#include <kernel/errno.h>
#include <kernel/smp.h>
#include <lib/string.h>

#include "events/event_write.h"
#include "trace_internal.h"

/* Linux's: a longer write is EINVAL; one longer than TRACE_BUF_SIZE is cut to it. */
#define RAW_DATA_MAX_SIZE (1024 * 3)
/* Linux's FAULT_SIZE_ID: the id and "<faulted>", the least room a record gets. */
#define FAULT_SIZE_ID (sizeof(uint32_t) + sizeof("<faulted>") - 1)
/* Linux's sizeof(struct raw_data_entry): the common fields and the id. */
#define RAW_DATA_HEADER (sizeof(struct trace_event_common) + sizeof(uint32_t))
_Static_assert(RAW_DATA_HEADER + TRACE_BUF_SIZE <= RB_MAX_PAYLOAD,
               "a raw_data record of TRACE_BUF_SIZE bytes fits the ring buffer");

/* Linux's tracing_mark_raw_write: its checks in its order, its errnos. */
static ssize_t tracing_mark_raw_write(void *data, const char *buf, size_t len)
{
    struct trace_array *tr = ((struct trace_file_ref *)data)->tr;
    if (!((tr->options >> TRACE_OPT_MARKERS) & 1))
        return -EINVAL;
    if (len < sizeof(uint32_t) || len > RAW_DATA_MAX_SIZE)
        return -EINVAL;
    size_t cnt = MIN(len, (size_t)TRACE_BUF_SIZE);
    size_t size = RAW_DATA_HEADER + MAX(cnt, FAULT_SIZE_ID);
    size = (size + 3) & ~(size_t)3;
    /* Into an instance showing the last boot's trace: this boot's starts (a marker does). */
    trace_array_last_boot_end(tr);

    preempt_disable();
    /* As trace_marker: a CPU outside tracing_cpumask records nothing, and a write the
     * buffer refuses (tracing off) is EBADF. */
    struct rb_reservation res;
    uint8_t *rec = NULL;
    if ((tr->cpumask >> this_cpu_id()) & 1)
        rec = rb_reserve(tr->buffer, (unsigned)size, &res);
    if (rec) {
        uint64_t common = trace_event_common_on(this_cpu(), TRACE_EVENT_ID_RAW_DATA);
        memcpy(rec, &common, sizeof(common));
        /* The id and the data, as Linux copies them: one block after the common fields. */
        memcpy(rec + sizeof(common), buf, cnt);
        memset(rec + sizeof(common) + cnt, 0, size - sizeof(common) - cnt);
        rb_commit(tr->buffer, &res);
    }
    preempt_enable();
    /* A write cut short returns what it took, as Linux's: the writer sends the rest again. */
    return rec ? (ssize_t)cnt : -EBADF;
}

TRACEFS_FILE(trace_marker_raw, .path = "trace_marker_raw", .mode = 0220,
             .store = tracing_mark_raw_write, .instance = true);
