/*
 * kprobe_events and kprobe_profile (dynamic_events, which takes kprobe lines too, is
 * kernel/trace/dynamic_events.c). A write is one or more lines, each a
 * command; text after '#' is a comment. The first refused line ends the write with its
 * errno, the lines before it stay done, as Linux's trace_parse_run_command does.
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/pseudofs.h>
#include <lib/string.h>

#include "trace_internal.h"
#include "trace_kprobe.h"

/* Linux's WRITE_BUFSIZE: no line may be longer. */
#define PROBE_LINE_MAX 4096

static int run_line(char *line, void *arg) { return kprobe_run_command(line, false); }

static int probe_file_open(struct pfs_file *f)
{
    if ((f->flags & PFS_WRITE) && (f->flags & PFS_TRUNC)) {
        int err = kprobe_release_all();
        if (err)
            return err;
    }
    if (!(f->flags & PFS_READ))
        return 0;
    struct seqbuf *s = kzalloc(sizeof(*s));
    if (!s)
        return -ENOMEM;
    if (f->data)
        kprobe_show_profile(s);
    else
        kprobe_show_events(s);
    f->priv = s;
    return 0;
}

static ssize_t kprobe_events_write(struct pfs_file *f, const char *buf, size_t len)
{
    int err = pfs_run_lines(buf, len, PROBE_LINE_MAX, run_line, NULL);
    return err ? err : (ssize_t)len;
}

static const struct pfs_ops kprobe_events_ops = {.open = probe_file_open,
                                                 .read = pfs_snapshot_read,
                                                 .write = kprobe_events_write,
                                                 .release = pfs_snapshot_release};
static const struct pfs_ops kprobe_profile_ops = {
    .open = probe_file_open, .read = pfs_snapshot_read, .release = pfs_snapshot_release};

TRACEFS_FILE(kprobe_events, .path = "kprobe_events", .mode = 0644, .ops = &kprobe_events_ops);
TRACEFS_FILE(kprobe_profile, .path = "kprobe_profile", .mode = 0444, .ops = &kprobe_profile_ops,
             .data = (void *)1);
