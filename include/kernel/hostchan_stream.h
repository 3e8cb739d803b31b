#ifndef KERNEL_HOSTCHAN_STREAM_H
#define KERNEL_HOSTCHAN_STREAM_H

#include <kernel/compiler.h>

/*
 * Streaming files to the host over the host channel (<kernel/hostchan.h>) while other
 * commands run: `xfer -c --follow FILE...` starts following, `xfer -c --stop` ends it.
 * Several files are in flight at once, so every frame names its file by an id:
 *
 *   HOSTCHAN_STREAM_FILE  u32 id, u32 0, the file's name as typed
 *   HOSTCHAN_STREAM_DATA  u32 id, u32 0, the file's next bytes
 *   HOSTCHAN_STREAM_END   u32 id, s32 status (0 or -errno), u64 total bytes
 *
 * A file's DATA frames come in the order its bytes were read; frames of different files
 * interleave. Types 16 and up, clear of xfer's.
 */
#define HOSTCHAN_STREAM_FILE 16
#define HOSTCHAN_STREAM_DATA 17
#define HOSTCHAN_STREAM_END 18

struct hostchan_stream_header {
    uint32_t id;
    uint32_t zero;
} __packed;

struct hostchan_stream_end {
    uint32_t id;
    int32_t status;
    uint64_t total;
} __packed;

struct shell_ctx;
/* Starts following files (paths relative to cwd); the exit status, messages through ctx. */
int hostchan_stream_start(struct shell_ctx *ctx, const char *cwd, int nfiles, char **files);
/* Reads what is left of every followed file, ends them, gives the channel back. */
int hostchan_stream_stop(struct shell_ctx *ctx);

#endif
