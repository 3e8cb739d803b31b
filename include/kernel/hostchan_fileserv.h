#ifndef KERNEL_HOSTCHAN_FILESERV_H
#define KERNEL_HOSTCHAN_FILESERV_H

#include <kernel/compiler.h>

/*
 * The file service: the host does file operations on the pseudo file system (open, read,
 * write, release, stat, readdir, mkdir, rmdir) through its own area of the host channel's
 * shared memory, after the frame ring (<kernel/hostchan.h>: the shared header's
 * fileserv_offset and fileserv_size say where). One request is in flight at a time: the
 * host writes a request frame and posts its number; a kernel thread polls for it, takes it,
 * runs it, writes a response frame and posts the same number. Nothing signals either side.
 *
 * The area, all little-endian:
 *
 *   0                  struct fileserv_shared (FILESERV_HEADER_SIZE bytes)
 *   request_offset     the request: struct hostchan_frame, then up to buffer_size - 16 bytes
 *   response_offset    the response: the same
 *
 * Frames are hostchan_frame's: type (an operation), flags 0, len, seq (the request's
 * number, low 32 bits), crc (CRC-32 of the header's first 12 bytes and the payload). A
 * request payload is struct fileserv_args and then the operation's data (a path, or the
 * bytes of a write); a response payload is struct fileserv_result and then its data.
 *
 * The kernel copies a request out of shared memory before it checks it, so a host that
 * keeps writing cannot change it after the check. A request whose length, checksum,
 * sequence number, flags or operation is wrong is not run: the kernel answers it with a
 * FILESERV_REJECTED frame and counts it, by reason, in the area's header.
 */
#define FILESERV_MAGIC 0x53465446u /* "FTFS" */
#define FILESERV_VERSION 1
#define FILESERV_HEADER_SIZE 4096
/* A buffer (frame header and payload) per direction: the largest a read or write moves. */
#define FILESERV_BUFFER_MAX (256 * 1024)
#define FILESERV_BUFFER_MIN (8 * 1024)
#define FILESERV_MAX_HANDLES 256
/* Longest path a request may name (the bytes of the path, without a NUL). */
#define FILESERV_PATH_MAX 1024

/* Operations: a request's frame type, echoed by its response. */
#define FILESERV_RESET 1         /* a new host session: every handle is released */
#define FILESERV_STAT 2          /* data: path; result 0, data: struct fileserv_stat */
#define FILESERV_LISTDIR 3       /* data: path; offset: first entry; result: names, NUL-ended */
#define FILESERV_OPEN 4          /* data: path; flags: PFS_*; result: the handle */
#define FILESERV_READ 5          /* handle, offset, size; result: bytes, data: them */
#define FILESERV_WRITE 6         /* handle; data: the bytes, one pfs_write; result: bytes taken */
#define FILESERV_RELEASE 7       /* handle; result: the release's status (a filter's commit) */
#define FILESERV_MKDIR 8         /* data: path */
#define FILESERV_RMDIR 9         /* data: path */
#define FILESERV_REJECTED 0x8000 /* a response only: the request was dropped */

struct fileserv_shared {
    /* Kernel-written when the area is set up; magic last. */
    uint32_t magic;
    uint32_t version;
    uint32_t buffer_size;
    uint32_t max_handles;
    uint64_t request_offset; /* from the area's start */
    uint64_t response_offset;
    uint8_t reserved0[32];
    /* Kernel-written; offset 64. */
    uint64_t taken;    /* the number of the request the kernel took last */
    uint64_t answered; /* the number of the request whose response is in place */
    uint64_t served;   /* requests run */
    uint64_t dropped;  /* requests rejected, whatever the reason: */
    uint64_t dropped_length;
    uint64_t dropped_checksum;
    uint64_t dropped_sequence;
    uint64_t dropped_format; /* flags not 0, an unknown operation, arguments not 0 */
    uint64_t open_handles;
    uint8_t reserved1[56];
    /* Host-written; offset 192. */
    uint64_t posted; /* the number of the request in place; a change asks for its run */
    uint8_t reserved2[FILESERV_HEADER_SIZE - 200];
}; /* every field naturally aligned: no padding, and counters can be passed by pointer */

struct fileserv_args {
    uint32_t handle;
    uint32_t flags;
    uint64_t offset;
    uint32_t size;
    uint32_t zero;
} __packed;

struct fileserv_result {
    int64_t result; /* >= 0, or -errno */
} __packed;

struct fileserv_stat {
    uint32_t is_dir;
    uint32_t mode; /* permission bits, as pfs_mode */
    uint64_t size; /* 0: every file's content is made when it is read */
} __packed;

/* The bytes of the area for shared memory of bar_size bytes; 0 when it is too small. */
size_t fileserv_area_size(size_t bar_size);

struct pfs_file;
struct fileserv_handle {
    struct pfs_file *file; /* NULL: free, or lost when a reread could not reopen it */
    uint32_t generation;   /* the handle's upper bits: a released handle stays refused */
    bool in_use;
    bool fault_files; /* a fault-injection file: run with injection paused, as the shell */
};

/*
 * A server over an area in any memory (the device's, or a self-test's). The handles and
 * the copy of the request are the server's own; a request is run by fileserv_poll, on one
 * thread at a time.
 */
struct fileserv {
    struct fileserv_shared *shared;
    uint8_t *request;
    uint8_t *response;
    uint32_t buffer_size;
    uint64_t last_posted; /* the request last taken */
    uint8_t *copy;        /* buffer_size bytes, where a request is checked and run */
    char path[FILESERV_PATH_MAX + 1];
    struct fileserv_handle handles[FILESERV_MAX_HANDLES];
};

/* Sets the area up in [mem, mem + len) with copy as the server's private buffer. */
int fileserv_init(struct fileserv *fs, void *mem, size_t len, uint8_t *copy, size_t copy_len);
/* Runs the posted request, if there is a new one; returns whether there was. */
bool fileserv_poll(struct fileserv *fs);
/* Releases every handle (a new session, or a test's end). */
void fileserv_reset(struct fileserv *fs);

struct shell_ctx;
/* `hostchan`'s line about the file service. */
void fileserv_show_status(struct shell_ctx *ctx);
/* Sets the device's file service up and starts its thread (hostchan.c, at boot). */
void fileserv_start(void *mem, size_t len);
/* The kernel is going down: the host's pending and later requests fail at once (EIO). */
void fileserv_panic(void);

#endif
