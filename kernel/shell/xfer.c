/*
 * xfer: sends files to the host over the debug console port (<arch/debugcon.h>), framed
 * so that the host can check every byte (tools/fentros_trace/channel.py reads it):
 *
 *   file   "FTXF" u16 name_len, name (the path as typed)
 *   data   "FTXD" u32 len, len bytes, u32 crc32 of those bytes      (any number of these)
 *   end    "FTXE" s32 status (0, or -errno the file ended with), u64 total bytes,
 *          u32 crc32 of the whole file
 *
 * All little-endian. Files are opened non-blocking, so a consuming file (trace_pipe,
 * trace_pipe_raw) is read until it has nothing more, and xfer never waits for new data.
 *
 * `xfer -c` sends the same files over the host channel instead (hostchan_xfer,
 * kernel/hostchan/xfer.c); `xfer -c --follow` streams them over it while other commands
 * run, until `xfer -c --stop` (kernel/hostchan/stream.c).
 */
#include <arch/debugcon.h>
#include <kernel/errno.h>
#include <kernel/hostchan.h>
#include <kernel/hostchan_stream.h>
#include <kernel/mm.h>
#include <lib/crc32.h>
#include <lib/string.h>

#include "shell_internal.h"

#define XFER_CHUNK 4096

static void xfer_put(const void *buf, size_t len) { arch_debugcon_write(buf, len); }

static void xfer_put_u16(uint16_t v) { xfer_put(&v, sizeof(v)); }
static void xfer_put_u32(uint32_t v) { xfer_put(&v, sizeof(v)); }
static void xfer_put_u64(uint64_t v) { xfer_put(&v, sizeof(v)); }

/* Sends one file; returns 0 or the -errno its open or a read failed with. */
static int xfer_file(const char *path, char *buf, uint64_t *sent)
{
    size_t name_len = strlen(path);
    xfer_put("FTXF", 4);
    xfer_put_u16((uint16_t)name_len);
    xfer_put(path, name_len);

    struct pfs_file *f = NULL;
    uint64_t total = 0;
    uint32_t whole = 0;
    int status = pfs_open(shell_cwd(), path, PFS_READ | PFS_NONBLOCK, &f);
    while (!status) {
        ssize_t n = pfs_read(f, buf, XFER_CHUNK);
        if (n == 0 || n == -EAGAIN)
            break;
        if (n < 0) {
            status = (int)n;
            break;
        }
        xfer_put("FTXD", 4);
        xfer_put_u32((uint32_t)n);
        xfer_put(buf, (size_t)n);
        xfer_put_u32(crc32(0, buf, (size_t)n));
        whole = crc32(whole, buf, (size_t)n);
        total += (uint64_t)n;
        if (shell_interrupted()) {
            status = -EINTR;
            break;
        }
    }
    if (f) {
        int closed = pfs_close(f);
        if (!status)
            status = closed;
    }
    xfer_put("FTXE", 4);
    xfer_put_u32((uint32_t)status);
    xfer_put_u64(total);
    xfer_put_u32(whole);
    *sent += total;
    return status;
}

SHELL_COMMAND(xfer, "xfer [-c] FILE... | xfer -c --follow FILE... | xfer -c --stop",
              "send files to the host over the debug console (-c: the host channel), framed; "
              "--follow streams them over the channel while other commands run, until --stop")
{
    bool channel = argc > 1 && strcmp(argv[1], "-c") == 0;
    if (channel && argc == 3 && strcmp(argv[2], "--stop") == 0)
        return hostchan_stream_stop(ctx);
    bool follow = channel && argc > 2 && strcmp(argv[2], "--follow") == 0;
    int first = follow ? 3 : channel ? 2 : 1;
    if (argc < first + 1)
        return shell_usage(ctx);
    for (int i = first; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1])
            return shell_usage(ctx);
        if (strlen(argv[i]) > 0xffff)
            return shell_usage(ctx);
    }
    if (follow) {
        int status = hostchan_stream_start(ctx, shell_cwd(), argc - first, argv + first);
        return status == -EINTR ? SHELL_STATUS_INTERRUPTED : status;
    }
    if (channel) {
        int status = hostchan_xfer(ctx, shell_cwd(), argc - 2, argv + 2);
        return status == -EINTR ? SHELL_STATUS_INTERRUPTED : status;
    }
    if (!arch_debugcon_present()) {
        shell_eprintf(ctx, "xfer: no debug console: boot QEMU with -debugcon file:PATH\n");
        return 1;
    }
    char *buf = kmalloc(XFER_CHUNK);
    if (!buf) {
        shell_eprintf(ctx, "xfer: %s\n", strerror(ENOMEM));
        return 1;
    }
    int status = 0;
    uint64_t sent = 0;
    for (int i = 1; i < argc; i++) {
        int err = xfer_file(argv[i], buf, &sent);
        if (err == -EINTR) {
            status = SHELL_STATUS_INTERRUPTED;
            break;
        }
        if (err) {
            shell_eprintf(ctx, "xfer: %s: %s\n", argv[i], strerror(-err));
            status = 1;
        }
    }
    kfree(buf);
    if (status != SHELL_STATUS_INTERRUPTED)
        shell_printf(ctx, "xfer: %d files, %llu bytes\n", argc - 1, (unsigned long long)sent);
    return status;
}
