/*
 * The producer side of the host channel's ring (the layout is in <kernel/hostchan.h>).
 *
 * Memory ordering. The host reads the ring from another thread, in another process,
 * while this kernel writes it:
 *  - a frame's bytes (header, payload) are written before head is stored past it with
 *    release, and the host loads head with acquire before it reads the frame, so it never
 *    sees a frame half written;
 *  - tail is loaded with acquire before the space it frees is overwritten, and the host
 *    stores tail only after it has finished reading that space.
 * What the host side relies on is in docs/hostchan.md.
 */
#include <kernel/errno.h>
#include <kernel/hostchan.h>
#include <kernel/time.h>
#include <lib/crc32.h>
#include <lib/string.h>

#define FRAME_HEADER sizeof(struct hostchan_frame)
/* The part of the frame header the CRC covers: everything but the CRC itself. */
#define FRAME_HEADER_CHECKED offsetof(struct hostchan_frame, crc)

/* How often a producer that waits for space looks at the tail again. */
#define HOSTCHAN_POLL_NS (200 * NSEC_PER_USEC)

static uint64_t frame_bytes(size_t len)
{
    return ALIGN_UP(FRAME_HEADER + len, HOSTCHAN_FRAME_ALIGN);
}

int hostchan_ring_init(struct hostchan_ring *r, void *mem, size_t len, uint64_t stall_ns)
{
    if (len < HOSTCHAN_HEADER_SIZE + 2 * HOSTCHAN_FRAME_ALIGN)
        return -EINVAL;
    struct hostchan_shared *shared = mem;
    memset(r, 0, sizeof(*r));
    r->shared = shared;
    r->ring = (uint8_t *)mem + HOSTCHAN_HEADER_SIZE;
    r->size = ALIGN_DOWN(len - HOSTCHAN_HEADER_SIZE, HOSTCHAN_FRAME_ALIGN);
    r->stall_ns = stall_ns;

    /* A host reading while the ring is set up must not trust what it sees until magic. */
    __atomic_store_n(&shared->magic, 0, __ATOMIC_RELEASE);
    memset(shared, 0, sizeof(*shared));
    shared->version = HOSTCHAN_VERSION;
    shared->header_size = HOSTCHAN_HEADER_SIZE;
    shared->frame_align = HOSTCHAN_FRAME_ALIGN;
    shared->ring_size = r->size;
    shared->boot_id = clock_ns() ^ ((uint64_t)(uintptr_t)mem << 16);
    __atomic_store_n(&shared->magic, HOSTCHAN_MAGIC, __ATOMIC_RELEASE);
    return 0;
}

size_t hostchan_ring_max_payload(const struct hostchan_ring *r)
{
    /* Half the ring, so that a frame always fits after a PAD at the end. */
    return ALIGN_DOWN(r->size / 2, HOSTCHAN_FRAME_ALIGN) - FRAME_HEADER;
}

static void write_frame_header(struct hostchan_ring *r, uint64_t at, uint16_t type, uint32_t len,
                               const void *payload)
{
    struct hostchan_frame *f = (struct hostchan_frame *)(r->ring + at % r->size);
    f->type = type;
    f->flags = 0;
    f->len = len;
    f->seq = r->seq++;
    uint32_t crc = crc32(0, f, FRAME_HEADER_CHECKED);
    f->crc = payload ? crc32(crc, payload, len) : crc;
}

static void publish(struct hostchan_ring *r, uint64_t head)
{
    r->head = head;
    __atomic_store_n(&r->shared->head, head, __ATOMIC_RELEASE);
}

/*
 * Whether a frame of max_len payload bytes fits now: 0, -EAGAIN (not until the host
 * consumes more), or -EIO (the host's tail is impossible). *pad is what the end of the
 * ring must be padded with first.
 */
static int ring_fits(struct hostchan_ring *r, size_t max_len, uint64_t tail, uint64_t *pad)
{
    uint64_t to_end = r->size - r->head % r->size;
    uint64_t need = frame_bytes(max_len);
    *pad = need > to_end ? to_end : 0;
    /* The host owns tail: whatever it wrote, this side must stay inside its ring. */
    if (tail > r->head || r->head - tail > r->size)
        return -EIO;
    return r->head + *pad + need - tail <= r->size ? 0 : -EAGAIN;
}

static void ring_claim(struct hostchan_ring *r, size_t max_len, uint64_t pad, void **payload)
{
    if (pad) {
        write_frame_header(r, r->head, HOSTCHAN_PAD, (uint32_t)(pad - FRAME_HEADER), NULL);
        publish(r, r->head + pad);
    }
    r->frame_at = r->head;
    r->reserved_len = max_len;
    *payload = r->ring + r->frame_at % r->size + FRAME_HEADER;
}

int hostchan_ring_reserve(struct hostchan_ring *r, size_t max_len, void **payload)
{
    if (max_len > hostchan_ring_max_payload(r))
        return -EINVAL;
    uint64_t pad;
    uint64_t last_tail = __atomic_load_n(&r->shared->tail, __ATOMIC_ACQUIRE);
    uint64_t last_move = clock_ns();
    for (;;) {
        uint64_t tail = __atomic_load_n(&r->shared->tail, __ATOMIC_ACQUIRE);
        int err = ring_fits(r, max_len, tail, &pad);
        if (err != -EAGAIN) {
            if (err)
                return err;
            break;
        }
        uint64_t now = clock_ns();
        if (tail != last_tail) {
            last_tail = tail;
            last_move = now;
        } else if (now - last_move >= r->stall_ns) {
            hostchan_ring_drop(r, max_len);
            return -ETIMEDOUT;
        }
        if (sleep_ns_interruptible(HOSTCHAN_POLL_NS) == -EINTR)
            return -EINTR;
    }
    ring_claim(r, max_len, pad, payload);
    return 0;
}

int hostchan_ring_try_reserve(struct hostchan_ring *r, size_t max_len, void **payload)
{
    if (max_len > hostchan_ring_max_payload(r))
        return -EINVAL;
    uint64_t pad;
    int err = ring_fits(r, max_len, __atomic_load_n(&r->shared->tail, __ATOMIC_ACQUIRE), &pad);
    if (!err)
        ring_claim(r, max_len, pad, payload);
    return err;
}

void hostchan_ring_commit(struct hostchan_ring *r, uint16_t type, size_t len)
{
    if (len > r->reserved_len)
        len = r->reserved_len;
    uint8_t *payload = r->ring + r->frame_at % r->size + FRAME_HEADER;
    write_frame_header(r, r->frame_at, type, (uint32_t)len, payload);
    r->reserved_len = 0;
    r->shared->frames++;
    publish(r, r->frame_at + frame_bytes(len));
}

void hostchan_ring_cancel(struct hostchan_ring *r) { r->reserved_len = 0; }

void hostchan_ring_drop(struct hostchan_ring *r, size_t len)
{
    r->reserved_len = 0;
    r->shared->dropped_frames++;
    r->shared->dropped_bytes += len;
}

int hostchan_send(struct hostchan_ring *r, uint16_t type, const void *buf, size_t len)
{
    void *payload;
    int err = hostchan_ring_reserve(r, len, &payload);
    if (err)
        return err;
    memcpy(payload, buf, len);
    hostchan_ring_commit(r, type, len);
    return 0;
}
