/*
 * printk: timestamped kernel messages to the console and to a ring buffer for dmesg.
 * Not traced, and safe during a panic (the lock is skipped once a panic has begun).
 */
#include <arch/cpu.h>
#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <lib/printf.h>
#include <lib/string.h>

#define LOG_SIZE (64 * 1024)

static char log_buf[LOG_SIZE];
static uint64_t log_head; /* total bytes ever written; the ring holds the last LOG_SIZE */
static bool at_line_start = true;
static DEFINE_SPINLOCK(printk_lock);
/*
 * The CPU inside vprintk's locked part, or -1. A printk nested on that CPU (a probe on a
 * traced function the locked part calls, as `*:dump` in set_ftrace_filter puts on every
 * function, or an NMI) writes through without the lock rather than wait for itself
 * forever; its text may land inside the outer message's line.
 */
static volatile int printk_owner = -1;

static void log_append(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        log_buf[(log_head + i) % LOG_SIZE] = s[i];
    log_head += len;
}

static void emit(const char *s, size_t len)
{
    log_append(s, len);
    console_write(s, len);
}

int vprintk(const char *fmt, __builtin_va_list ap)
{
    char msg[512];
    int len = vscnprintf(msg, sizeof(msg), fmt, ap);
    unsigned long flags = arch_irq_save();
    int cpu = (int)this_cpu_id();
    bool locked = !panic_in_progress && READ_ONCE(printk_owner) != cpu;
    if (locked) {
        spin_lock(&printk_lock);
        WRITE_ONCE(printk_owner, cpu);
    }

    const char *p = msg, *end = msg + len;
    while (p < end) {
        if (at_line_start) {
            uint64_t ns = clock_ns();
            char stamp[32];
            int n = scnprintf(stamp, sizeof(stamp), "[%5lu.%06lu] ",
                              (unsigned long)(ns / 1000000000ULL),
                              (unsigned long)(ns / 1000 % 1000000));
            emit(stamp, n);
            at_line_start = false;
        }
        const char *nl = memchr(p, '\n', end - p);
        size_t chunk = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);
        emit(p, chunk);
        if (nl)
            at_line_start = true;
        p += chunk;
    }

    if (locked) {
        WRITE_ONCE(printk_owner, -1);
        spin_unlock(&printk_lock);
    }
    arch_irq_restore(flags);
    return len;
}

int printk(const char *fmt, ...)
{
    __builtin_va_list ap;
    __builtin_va_start(ap, fmt);
    int n = vprintk(fmt, ap);
    __builtin_va_end(ap);
    return n;
}

void kputs(const char *s) { console_write(s, strlen(s)); }

int kprintf(const char *fmt, ...)
{
    char buf[512];
    __builtin_va_list ap;
    __builtin_va_start(ap, fmt);
    int n = vscnprintf(buf, sizeof(buf), fmt, ap);
    __builtin_va_end(ap);
    console_write(buf, n);
    return n;
}

int printk_log_for_each(void (*fn)(const char *chunk, size_t len, void *arg), void *arg)
{
    /* Copy out under the lock: fn may be slow (it writes to the console). */
    char *snapshot = kmalloc(LOG_SIZE);
    if (!snapshot)
        return -ENOMEM;
    unsigned long flags = spin_lock_irqsave(&printk_lock);
    uint64_t start = log_head > LOG_SIZE ? log_head - LOG_SIZE : 0;
    uint64_t end = log_head;
    size_t n = 0;
    for (uint64_t i = start; i < end; i++)
        snapshot[n++] = log_buf[i % LOG_SIZE];
    spin_unlock_irqrestore(&printk_lock, flags);
    /*
     * Once the ring has wrapped, its oldest line has lost its beginning: it starts at the
     * next whole line, as dmesg shows only whole records.
     */
    size_t skip = 0;
    if (start > 0) {
        const char *nl = memchr(snapshot, '\n', n);
        skip = nl ? (size_t)(nl - snapshot + 1) : n;
    }
    fn(snapshot + skip, n - skip, arg);
    kfree(snapshot);
    return 0;
}
