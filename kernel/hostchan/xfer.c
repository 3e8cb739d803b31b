/*
 * `xfer -c FILE...`: files to the host over the host channel, as HOSTCHAN_XFER_FILE (the
 * name), HOSTCHAN_XFER_DATA (the bytes) and HOSTCHAN_XFER_END (status, total) frames; each
 * frame carries its own CRC-32 and sequence number (ring.c). A file's data is read
 * straight into the shared ring, up to XFER_CHUNK bytes a frame, with no buffer between.
 * Files are opened non-blocking, as over the debug console (kernel/shell/xfer.c): a
 * consuming file is read until it has nothing more.
 */
#include <kernel/errno.h>
#include <kernel/hostchan.h>
#include <kernel/pseudofs.h>
#include <kernel/shell.h>
#include <lib/string.h>

#define XFER_CHUNK (64 * 1024)

/*
 * Sends one file over the host channel; returns 0 or the -errno its open or a read failed
 * with (-EINTR after Ctrl-C). A channel error (the host stopped reading, Ctrl-C while
 * waiting for space) ends the file without its end frame: the host reports it cut short.
 */
static int hostchan_xfer_file(struct hostchan_ring *ring, const char *cwd, const char *path,
                              int *channel_err, uint64_t *sent)
{
    *channel_err = hostchan_send(ring, HOSTCHAN_XFER_FILE, path, strlen(path));
    if (*channel_err)
        return 0;
    struct pfs_file *f = NULL;
    uint64_t total = 0;
    int status = pfs_open(cwd, path, PFS_READ | PFS_NONBLOCK, &f);
    bool more = !status;
    while (more) {
        char *chunk;
        *channel_err = hostchan_ring_reserve(ring, XFER_CHUNK, (void **)&chunk);
        if (*channel_err)
            break;
        size_t filled = 0;
        while (filled < XFER_CHUNK) {
            ssize_t n = pfs_read(f, chunk + filled, XFER_CHUNK - filled);
            if (n == 0 || n == -EAGAIN) {
                more = false;
                break;
            }
            if (n < 0) {
                status = (int)n;
                more = false;
                break;
            }
            filled += (size_t)n;
        }
        if (filled)
            hostchan_ring_commit(ring, HOSTCHAN_XFER_DATA, filled);
        else
            hostchan_ring_cancel(ring);
        total += filled;
        /* The file ends here with -EINTR, as over the debug console: the host sees why. */
        if (more && shell_interrupted()) {
            status = -EINTR;
            break;
        }
    }
    if (f) {
        int closed = pfs_close(f);
        if (!status)
            status = closed;
    }
    *sent += total;
    if (*channel_err)
        return status;
    struct {
        int32_t status;
        uint32_t zero;
        uint64_t total;
    } end = {status, 0, total};
    *channel_err = hostchan_send(ring, HOSTCHAN_XFER_END, &end, sizeof(end));
    return status;
}

int hostchan_xfer(struct shell_ctx *ctx, const char *cwd, int nfiles, char **files)
{
    int err;
    struct hostchan_ring *ring = hostchan_acquire(&err);
    if (!ring) {
        if (err == -ENODEV)
            shell_eprintf(ctx, "xfer: no host channel: boot QEMU with -device ivshmem-plain\n");
        else
            shell_eprintf(ctx, "xfer: host channel: %s\n", strerror(-err));
        return 1;
    }
    int status = 0;
    bool channel_failed = false;
    uint64_t sent = 0;
    for (int i = 0; i < nfiles; i++) {
        int channel_err = 0;
        int file_err = hostchan_xfer_file(ring, cwd, files[i], &channel_err, &sent);
        if (channel_err == -EINTR || file_err == -EINTR) {
            status = -EINTR;
            break;
        }
        if (channel_err) {
            shell_eprintf(ctx, "xfer: %s: host channel: %s\n", files[i], strerror(-channel_err));
            status = 1;
            channel_failed = true;
            break;
        }
        if (file_err) {
            shell_eprintf(ctx, "xfer: %s: %s\n", files[i], strerror(-file_err));
            status = 1;
        }
    }
    hostchan_release(ring);
    /* No summary after the channel failed: the host has not got every file it names. */
    if (status != -EINTR && !channel_failed)
        shell_printf(ctx, "xfer: %d files, %llu bytes\n", nfiles, (unsigned long long)sent);
    return status;
}
