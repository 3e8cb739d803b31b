#ifndef KERNEL_HOSTCHAN_H
#define KERNEL_HOSTCHAN_H

#include <kernel/compiler.h>

/*
 * A fast channel to the host: a ring of frames in memory shared with it (QEMU's
 * ivshmem-plain device, whose BAR2 is a host file such as /dev/shm/NAME). The kernel is
 * the only producer; the host consumes frames and gives the space back. There is no
 * doorbell in either direction: the host polls the head, the kernel polls the tail when it
 * waits for space.
 *
 * The shared memory, all little-endian:
 *
 *   0    struct hostchan_shared (HOSTCHAN_HEADER_SIZE bytes): magic, version, sizes, the
 *        kernel's head and counters, the host's tail on a cache line of its own
 *   4096 the ring, ring_size bytes (a multiple of HOSTCHAN_FRAME_ALIGN)
 *   fileserv_offset  the file service's area, fileserv_size bytes, after the ring (0 and
 *        0: none); its layout is in <kernel/hostchan_fileserv.h>
 *
 * head and tail count bytes since the ring was set up and never wrap; a frame starts at
 * head % ring_size, is HOSTCHAN_FRAME_ALIGN-aligned, and never runs past the end of the
 * ring: where it would, a PAD frame fills the rest and the next frame starts at offset 0.
 * Frame: struct hostchan_frame, then len payload bytes, then padding to the alignment.
 * crc is the CRC-32 (zlib's) of the frame header's first 12 bytes followed by the
 * payload (a PAD frame's payload is not covered: it is not data). seq counts frames from
 * 0, PAD frames included, so the host sees any frame that went missing.
 */
#define HOSTCHAN_MAGIC 0x48435446u /* "FTCH" */
#define HOSTCHAN_VERSION 2
#define HOSTCHAN_HEADER_SIZE 4096
#define HOSTCHAN_FRAME_ALIGN 16

/* Frame types. */
#define HOSTCHAN_PAD 0
#define HOSTCHAN_XFER_FILE 1 /* payload: the file's name as typed */
#define HOSTCHAN_XFER_DATA 2 /* payload: the file's next bytes */
#define HOSTCHAN_XFER_END 3  /* payload: s32 status (0 or -errno), u32 0, u64 total bytes */

struct hostchan_shared {
    uint32_t magic; /* written last when the kernel sets the ring up */
    uint32_t version;
    uint32_t header_size;
    uint32_t frame_align;
    uint64_t ring_size;
    uint64_t boot_id; /* changes when the kernel sets the ring up again (a reboot) */
    uint64_t fileserv_offset;
    uint64_t fileserv_size;
    uint8_t reserved0[16];
    /* Kernel-written; offset 64. */
    uint64_t head;
    uint64_t frames;         /* frames published */
    uint64_t dropped_frames; /* frames given up because the host stopped reading */
    uint64_t dropped_bytes;
    uint8_t reserved1[32];
    /* Host-written; offset 128. */
    uint64_t tail;
    uint8_t reserved2[HOSTCHAN_HEADER_SIZE - 136];
} __packed;

struct hostchan_frame {
    uint16_t type;
    uint16_t flags; /* 0 */
    uint32_t len;   /* payload bytes */
    uint32_t seq;
    uint32_t crc;
} __packed;

/*
 * A ring over any memory: the device's, or a self-test's. stall_ns is how long a
 * producer waits for a host that does not move its tail before it drops the frame.
 */
struct hostchan_ring {
    struct hostchan_shared *shared;
    uint8_t *ring;
    uint64_t size;
    uint64_t head;       /* published */
    uint64_t frame_at;   /* where the reserved frame starts (after any PAD) */
    size_t reserved_len; /* the reservation's payload capacity; 0 when none */
    uint32_t seq;
    uint64_t stall_ns;
};

/* Sets the ring up in [mem, mem + len); -EINVAL when len leaves no room for a ring. */
int hostchan_ring_init(struct hostchan_ring *r, void *mem, size_t len, uint64_t stall_ns);
/*
 * Waits until a frame of up to max_len payload bytes fits and returns where its payload
 * goes. Sleeps interruptibly; -EINTR on Ctrl-C, -ETIMEDOUT when the host did not consume
 * anything for stall_ns (the frame is counted as dropped), -EIO when the host's tail is
 * impossible, -EINVAL when max_len can never fit.
 */
int hostchan_ring_reserve(struct hostchan_ring *r, size_t max_len, void **payload);
/* The same without waiting: -EAGAIN when the frame does not fit until the host reads on. */
int hostchan_ring_try_reserve(struct hostchan_ring *r, size_t max_len, void **payload);
/* Publishes the reserved frame with its first len (<= max_len) payload bytes. */
void hostchan_ring_commit(struct hostchan_ring *r, uint16_t type, size_t len);
/* Gives up a reservation: the frame is counted as dropped (len bytes of it). */
void hostchan_ring_drop(struct hostchan_ring *r, size_t len);
/* Gives up a reservation that turned out to have nothing to send: nothing is counted. */
void hostchan_ring_cancel(struct hostchan_ring *r);
/* The largest payload a frame of this ring can carry. */
size_t hostchan_ring_max_payload(const struct hostchan_ring *r);

/*
 * The device's ring. A user takes the channel for a whole exchange (the ring has one
 * producer): hostchan_acquire returns it, or NULL with -ENODEV (no device) or -EBUSY.
 */
bool hostchan_present(void);
struct hostchan_ring *hostchan_acquire(int *err);
void hostchan_release(struct hostchan_ring *r);
/* reserve + copy + commit. */
int hostchan_send(struct hostchan_ring *r, uint16_t type, const void *buf, size_t len);

struct shell_ctx;
/*
 * `xfer -c`: sends the files (paths relative to cwd) and prints xfer's messages through
 * ctx. Returns the exit status (0, or 1 when a file or the channel failed), or -EINTR
 * after Ctrl-C.
 */
int hostchan_xfer(struct shell_ctx *ctx, const char *cwd, int nfiles, char **files);

#endif
