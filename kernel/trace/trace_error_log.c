/*
 * error_log: a bounded list of the reasons tracefs writes were refused. Entries are
 * formatted when they are added, so reading is a plain copy under the lock; opening the
 * file for writing with truncation (`echo > error_log`) empties it, as Linux's does.
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/pseudofs.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "trace_internal.h"

#define COMMAND_PREFIX "  Command: "

_Static_assert(TRACE_ERROR_LOG_MAX == ARRAY_SIZE(trace_global.error_log), "error_log's size");

static DEFINE_SPINLOCK(error_log_lock);
static struct trace_array *error_log_target = &trace_global;

struct trace_array *trace_error_log_use(struct trace_array *tr)
{
    unsigned long irq = spin_lock_irqsave(&error_log_lock);
    struct trace_array *old = error_log_target;
    error_log_target = tr;
    spin_unlock_irqrestore(&error_log_lock, irq);
    return old;
}

void trace_error_log(const char *location, const char *message, const char *command,
                     unsigned caret_pos)
{
    uint64_t ns = clock_ns();
    size_t len = strlen(location) + strlen(message) + strlen(command) + caret_pos + 64;
    char *entry = kmalloc(len);
    if (!entry)
        return;
    int n =
        scnprintf(entry, len, "[%5llu.%06llu] %s: error: %s\n" COMMAND_PREFIX "%s\n",
                  (unsigned long long)(ns / NSEC_PER_SEC),
                  (unsigned long long)(ns / NSEC_PER_USEC % 1000000), location, message, command);
    size_t indent = strlen(COMMAND_PREFIX) + caret_pos;
    if ((size_t)n + indent + 3 > len) {
        kfree(entry);
        return;
    }
    memset(entry + n, ' ', indent);
    memcpy(entry + n + indent, "^\n", 3);

    char *dropped = NULL;
    unsigned long irq = spin_lock_irqsave(&error_log_lock);
    struct trace_array *tr = error_log_target;
    if (tr->error_log_nr == TRACE_ERROR_LOG_MAX) {
        dropped = tr->error_log[0];
        memmove(tr->error_log, tr->error_log + 1,
                (TRACE_ERROR_LOG_MAX - 1) * sizeof(tr->error_log[0]));
        tr->error_log_nr--;
    }
    tr->error_log[tr->error_log_nr++] = entry;
    spin_unlock_irqrestore(&error_log_lock, irq);
    kfree(dropped);
}

void trace_error_log_clear(struct trace_array *tr)
{
    char *old[TRACE_ERROR_LOG_MAX];
    unsigned long irq = spin_lock_irqsave(&error_log_lock);
    unsigned nr = tr->error_log_nr;
    memcpy(old, tr->error_log, nr * sizeof(old[0]));
    tr->error_log_nr = 0;
    spin_unlock_irqrestore(&error_log_lock, irq);
    for (unsigned i = 0; i < nr; i++)
        kfree(old[i]);
}

/* Copies the entries under the lock into one buffer, the open file's snapshot. */
static int error_log_open(struct pfs_file *f)
{
    struct trace_array *tr = ((struct trace_file_ref *)f->data)->tr;
    if ((f->flags & PFS_WRITE) && (f->flags & PFS_TRUNC))
        trace_error_log_clear(tr);
    if (!(f->flags & PFS_READ))
        return 0;
    for (;;) {
        size_t need = 0;
        unsigned long irq = spin_lock_irqsave(&error_log_lock);
        for (unsigned i = 0; i < tr->error_log_nr; i++)
            need += strlen(tr->error_log[i]);
        spin_unlock_irqrestore(&error_log_lock, irq);

        char *text = kmalloc(need + 1);
        if (!text)
            return -ENOMEM;
        size_t len = 0;
        bool fits = true;
        irq = spin_lock_irqsave(&error_log_lock);
        for (unsigned i = 0; i < tr->error_log_nr && fits; i++) {
            size_t l = strlen(tr->error_log[i]);
            fits = len + l <= need;
            if (fits) {
                memcpy(text + len, tr->error_log[i], l);
                len += l;
            }
        }
        spin_unlock_irqrestore(&error_log_lock, irq);
        if (!fits) { /* an entry came in between: measure again */
            kfree(text);
            continue;
        }
        text[len] = '\0';
        f->priv = text;
        return 0;
    }
}

static ssize_t error_log_read(struct pfs_file *f, char *buf, size_t len)
{
    const char *text = f->priv;
    if (!text)
        return 0;
    size_t total = strlen(text);
    if (f->pos >= total)
        return 0;
    size_t n = MIN(len, total - f->pos);
    memcpy(buf, text + f->pos, n);
    return (ssize_t)n;
}

/* Linux accepts and ignores what is written: only the truncating open clears. */
static ssize_t error_log_write(struct pfs_file *f, const char *buf, size_t len)
{
    return (ssize_t)len;
}

static int error_log_release(struct pfs_file *f)
{
    kfree(f->priv);
    f->priv = NULL;
    return 0;
}

static const struct pfs_ops error_log_ops = {
    .open = error_log_open,
    .read = error_log_read,
    .write = error_log_write,
    .release = error_log_release,
};

TRACEFS_FILE(error_log, .path = "error_log", .mode = 0644, .ops = &error_log_ops, .instance = true);
