#include <kernel/errno.h>
#include <kernel/hostchan.h>
#include <kernel/hostchan_fileserv.h>
#include <kernel/mm.h>
#include <kernel/pci.h>
#include <kernel/selftest.h>
#include <kernel/shell.h>
#include <kernel/time.h>
#include <lib/crc32.h>
#include <lib/string.h>

/* A small ring (three pages of it) that wraps often. */
#define TEST_RING_MEM (HOSTCHAN_HEADER_SIZE + 3 * PAGE_SIZE)

/*
 * The host's side of a ring, as tools/fentros_trace/shmchan.py reads it: takes one frame
 * at the tail, checks it, gives its space back. Returns its type, or -1 when it is wrong.
 */
static int consume_frame(struct hostchan_ring *r, uint32_t *seq, uint8_t *out, size_t *len)
{
    struct hostchan_shared *s = r->shared;
    uint64_t tail = s->tail;
    if (tail >= __atomic_load_n(&s->head, __ATOMIC_ACQUIRE))
        return -1;
    const struct hostchan_frame *f = (const void *)(r->ring + tail % s->ring_size);
    const uint8_t *payload = (const uint8_t *)(f + 1);
    uint32_t crc = crc32(0, f, offsetof(struct hostchan_frame, crc));
    if (f->type != HOSTCHAN_PAD)
        crc = crc32(crc, payload, f->len);
    if (crc != f->crc || f->seq != (*seq)++)
        return -1;
    if (f->type != HOSTCHAN_PAD) {
        memcpy(out, payload, f->len);
        *len = f->len;
    }
    s->tail = tail + ALIGN_UP(sizeof(*f) + f->len, HOSTCHAN_FRAME_ALIGN);
    return f->type;
}

/* Frames of every length up to a page go through a ring that wraps many times. */
SELFTEST(hostchan_ring_wraps)
{
    void *mem = kzalloc(TEST_RING_MEM);
    uint8_t *out = kmalloc(PAGE_SIZE);
    struct hostchan_ring r;
    ASSERT_TRUE(mem && out);
    EXPECT_EQ(hostchan_ring_init(&r, mem, TEST_RING_MEM, NSEC_PER_SEC), 0);
    EXPECT_EQ(r.shared->magic, HOSTCHAN_MAGIC);
    EXPECT_EQ(r.shared->ring_size, 3 * PAGE_SIZE);
    uint32_t seq = 0;
    unsigned pads = 0, wrong = 0;
    for (unsigned i = 0; i < 200; i++) {
        size_t len = (i * 397) % (PAGE_SIZE + 1);
        uint8_t *payload;
        if (hostchan_ring_reserve(&r, len, (void **)&payload)) {
            wrong++;
            break;
        }
        for (size_t b = 0; b < len; b++)
            payload[b] = (uint8_t)(i + b);
        hostchan_ring_commit(&r, HOSTCHAN_XFER_DATA, len);
        size_t got = SIZE_MAX;
        int type;
        while ((type = consume_frame(&r, &seq, out, &got)) == HOSTCHAN_PAD)
            pads++;
        if (type != HOSTCHAN_XFER_DATA || got != len) {
            wrong++;
            continue;
        }
        for (size_t b = 0; b < len; b++)
            wrong += out[b] != (uint8_t)(i + b);
    }
    EXPECT_EQ(wrong, 0);
    EXPECT(pads > 0);
    EXPECT_EQ(r.shared->frames, 200);
    EXPECT_EQ(r.shared->dropped_frames, 0);
    EXPECT_EQ(r.shared->head, r.shared->tail);
    kfree(out);
    kfree(mem);
}

/*
 * A host that stops reading: the producer fills the ring, then waits for space, and after
 * the stall time gives the frame up and counts it. A host that writes an impossible tail
 * and a frame that could never fit are refused, not followed.
 */
SELFTEST(hostchan_ring_stalled_host)
{
    void *mem = kzalloc(TEST_RING_MEM);
    struct hostchan_ring r;
    ASSERT_NOT_NULL(mem);
    EXPECT_EQ(hostchan_ring_init(&r, mem, TEST_RING_MEM, 20 * NSEC_PER_MSEC), 0);
    void *payload;
    unsigned sent = 0;
    int err;
    while ((err = hostchan_ring_reserve(&r, 1000, &payload)) == 0) {
        hostchan_ring_commit(&r, HOSTCHAN_XFER_DATA, 1000);
        sent++;
    }
    EXPECT_EQ(err, -ETIMEDOUT);
    EXPECT_EQ(sent, 3 * PAGE_SIZE / 1024);
    EXPECT_EQ(r.shared->dropped_frames, 1);
    EXPECT_EQ(r.shared->dropped_bytes, 1000);
    EXPECT_EQ(hostchan_ring_reserve(&r, hostchan_ring_max_payload(&r) + 1, &payload), -EINVAL);

    uint64_t head = r.shared->head;
    r.shared->tail = head + 16;
    EXPECT_EQ(hostchan_ring_reserve(&r, 16, &payload), -EIO);
    r.shared->tail = head - r.size - 16;
    EXPECT_EQ(hostchan_ring_reserve(&r, 16, &payload), -EIO);
    /* Everything consumed: there is room again, and sequence numbers go on. */
    r.shared->tail = head;
    EXPECT_EQ(hostchan_ring_reserve(&r, 16, &payload), 0);
    hostchan_ring_commit(&r, HOSTCHAN_XFER_END, 16);
    EXPECT_EQ(r.shared->head, head + 32);
    EXPECT_EQ(r.seq, sent + 1);
    kfree(mem);
}

/*
 * The reservation that does not wait: a full ring answers -EAGAIN at once and counts no
 * drop (the caller keeps its bytes); once the host reads, the frame fits again, and
 * impossible tails and sizes are refused as the waiting reservation refuses them.
 */
SELFTEST(hostchan_ring_try_reserve)
{
    void *mem = kzalloc(TEST_RING_MEM);
    struct hostchan_ring r;
    ASSERT_NOT_NULL(mem);
    EXPECT_EQ(hostchan_ring_init(&r, mem, TEST_RING_MEM, 20 * NSEC_PER_MSEC), 0);
    void *payload;
    unsigned sent = 0;
    int err;
    uint64_t began = clock_ns();
    while ((err = hostchan_ring_try_reserve(&r, 1000, &payload)) == 0) {
        hostchan_ring_commit(&r, HOSTCHAN_XFER_DATA, 1000);
        sent++;
    }
    EXPECT_EQ(err, -EAGAIN);
    EXPECT_EQ(sent, 3 * PAGE_SIZE / 1024);
    EXPECT(clock_ns() - began < r.stall_ns);
    EXPECT_EQ(r.shared->dropped_frames, 0);
    EXPECT_EQ(hostchan_ring_try_reserve(&r, hostchan_ring_max_payload(&r) + 1, &payload), -EINVAL);
    uint64_t head = r.shared->head;
    r.shared->tail = head + 16;
    EXPECT_EQ(hostchan_ring_try_reserve(&r, 16, &payload), -EIO);
    /* The host read the first frame: one more fits, and the next does not. */
    r.shared->tail = ALIGN_UP(sizeof(struct hostchan_frame) + 1000, HOSTCHAN_FRAME_ALIGN);
    EXPECT_EQ(hostchan_ring_try_reserve(&r, 1000, &payload), 0);
    hostchan_ring_commit(&r, HOSTCHAN_XFER_DATA, 1000);
    EXPECT_EQ(hostchan_ring_try_reserve(&r, 1000, &payload), -EAGAIN);
    EXPECT_EQ(r.seq, sent + 1);
    kfree(mem);
}

/* Without the device the channel says so, and xfer -c fails cleanly. */
SELFTEST(hostchan_absent)
{
    if (hostchan_present())
        SKIP("the machine has the host channel's device");
    int err = 0;
    EXPECT(hostchan_acquire(&err) == NULL);
    EXPECT_EQ(err, -ENODEV);
    char out[160];
    EXPECT_EQ(shell_run_line_capture("xfer -c /proc/version", out, sizeof(out)), 1);
    EXPECT_STREQ(out, "xfer: no host channel: boot QEMU with -device ivshmem-plain\n");
}

/* With the device: its memory is BAR2, a 64-bit prefetchable memory BAR, and the ring set
 * up over it fills it between the header and the file service's area at its end. */
SELFTEST(hostchan_device)
{
    if (!hostchan_present())
        SKIP("no host channel device (QEMU's ivshmem-plain)");
    const struct pci_device *pdev = pci_find_device(0x1af4, 0x1110, NULL);
    ASSERT_NOT_NULL(pdev);
    const struct pci_bar *bar = &pdev->bars[2];
    EXPECT_EQ(bar->flags, PCI_BAR_64 | PCI_BAR_PREFETCH);
    int err = 0;
    struct hostchan_ring *r = hostchan_acquire(&err);
    ASSERT_NOT_NULL(r);
    int again = 0;
    EXPECT(hostchan_acquire(&again) == NULL);
    EXPECT_EQ(again, -EBUSY);
    EXPECT_EQ(r->shared->magic, HOSTCHAN_MAGIC);
    EXPECT_EQ(r->shared->version, HOSTCHAN_VERSION);
    size_t area = fileserv_area_size(bar->size);
    EXPECT(area > 0);
    EXPECT_EQ(r->size, bar->size - HOSTCHAN_HEADER_SIZE - area);
    EXPECT_EQ(r->shared->ring_size, r->size);
    EXPECT_EQ(r->shared->fileserv_offset, HOSTCHAN_HEADER_SIZE + r->size);
    EXPECT_EQ(r->shared->fileserv_size, area);
    EXPECT(r->shared->tail <= r->shared->head);
    hostchan_release(r);
}
