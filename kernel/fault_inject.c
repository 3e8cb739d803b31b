/*
 * Allocation-failure injection with Linux's semantics and files (lib/fault-inject.c and
 * Documentation/fault-injection/ on Linux): the decision, the debugfs-style directories
 * /sys/kernel/debug/failslab/ and /sys/kernel/debug/fail_page_alloc/, and the boot
 * parameters. The hooks are in kmalloc (kernel/mm/heap.c) and page_alloc_n (pmm.c).
 */
#include <kernel/bootinfo.h>
#include <kernel/errno.h>
#include <kernel/fault_inject.h>
#include <kernel/init.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/pseudofs.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/ctype.h>
#include <lib/printf.h>
#include <lib/random.h>
#include <lib/string.h>

/* Linux's defaults: off (probability 0), every call eligible, one failure, verbose 2. */
#define FAULT_ATTR_INIT(n)                                                                         \
    {                                                                                              \
        .name = (n), .probability = 0, .interval = 1, .times = 1, .space = 0, .verbose = 2         \
    }

struct fault_attr failslab = FAULT_ATTR_INIT("failslab");
struct fault_attr fail_page_alloc = FAULT_ATTR_INIT("fail_page_alloc");

/* Verbose lines: at most this many per window, as Linux's default ratelimit (10 per 5 s). */
#define FAULT_REPORT_WINDOW_NS (5 * NSEC_PER_SEC)
#define FAULT_REPORT_BURST 10

static uint64_t fault_random_state[MAX_CPUS];

static unsigned fault_random_percent(void)
{
    uint64_t *state = &fault_random_state[this_cpu_id()];
    if (!*state)
        *state = 0x9e3779b97f4a7c15ULL * (this_cpu_id() + 1) ^ clock_ns();
    return (unsigned)(xorshift64(state) % 100);
}

static void fault_report(struct fault_attr *attr)
{
    if (!attr->verbose)
        return;
    uint64_t now = clock_ns();
    if (now - attr->last_report_ns > FAULT_REPORT_WINDOW_NS) {
        attr->last_report_ns = now;
        attr->reports = 0;
    }
    if (attr->reports++ >= FAULT_REPORT_BURST)
        return;
    printk("FAULT_INJECTION: forcing a failure.\nname %s, interval %lu, probability %lu, "
           "space %ld, times %ld\n",
           attr->name, attr->interval, attr->probability, READ_ONCE(attr->space),
           READ_ONCE(attr->times));
    if (attr->verbose > 1)
        dump_stack();
}

/* Linux's order of checks (should_fail_ex): probability, times, space, interval, dice. */
bool should_fail(struct fault_attr *attr, size_t size)
{
    if (likely(READ_ONCE(attr->probability) == 0))
        return false;
    /* task-filter: only threads marked make-it-fail may fail, and there is no way to mark
     * one here (Linux's /proc/PID/make-it-fail), so only interrupt context can. */
    if (READ_ONCE(attr->task_filter) && !in_irq())
        return false;
    if (!in_irq() && current_thread() && current_thread()->fault_inject_paused)
        return false;
    if (READ_ONCE(attr->times) == 0)
        return false;
    long space = READ_ONCE(attr->space);
    if (space > (long)size) {
        __atomic_fetch_sub(&attr->space, (long)size, __ATOMIC_RELAXED);
        return false;
    }
    unsigned long interval = READ_ONCE(attr->interval);
    if (interval > 1 && __atomic_add_fetch(&attr->count, 1, __ATOMIC_RELAXED) % interval)
        return false;
    if (READ_ONCE(attr->probability) <= fault_random_percent())
        return false;
    fault_report(attr);
    long times = READ_ONCE(attr->times);
    while (times > 0 && !__atomic_compare_exchange_n(&attr->times, &times, times - 1, false,
                                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    return true;
}

void fault_inject_pause(void)
{
    struct thread *t = current_thread();
    if (t)
        t->fault_inject_paused++;
}

void fault_inject_resume(void)
{
    struct thread *t = current_thread();
    if (t && t->fault_inject_paused)
        t->fault_inject_paused--;
}

/* ---- /sys/kernel/debug/NAME/ ---- */

enum fault_field { FF_PROBABILITY, FF_INTERVAL, FF_TIMES, FF_SPACE, FF_VERBOSE, FF_TASK_FILTER };

struct fault_file {
    const char *name;
    enum fault_field field;
};

static const struct fault_file fault_files[] = {
    {"probability", FF_PROBABILITY},
    {"interval", FF_INTERVAL},
    {"times", FF_TIMES},
    {"space", FF_SPACE},
    {"verbose", FF_VERBOSE},
    {"task-filter", FF_TASK_FILTER},
};

/* A file's data: the attribute and the field, packed in one pointer-sized cookie. */
struct fault_file_data {
    struct fault_attr *attr;
    enum fault_field field;
};

static struct fault_file_data fault_file_data[2][ARRAY_SIZE(fault_files)];
static struct pfs_node *fault_file_nodes[2][ARRAY_SIZE(fault_files)];

bool fault_inject_owns_file(const struct pfs_node *n)
{
    for (size_t i = 0; i < ARRAY_SIZE(fault_file_nodes); i++)
        for (size_t f = 0; f < ARRAY_SIZE(fault_files); f++)
            if (n && fault_file_nodes[i][f] == n)
                return true;
    return false;
}

static int show_fault_file(struct seqbuf *s, void *data)
{
    const struct fault_file_data *d = data;
    struct fault_attr *a = d->attr;
    switch (d->field) {
    case FF_PROBABILITY:
        return seq_printf(s, "%lu\n", READ_ONCE(a->probability));
    case FF_INTERVAL:
        return seq_printf(s, "%lu\n", READ_ONCE(a->interval));
    case FF_TIMES:
        return seq_printf(s, "%ld\n", READ_ONCE(a->times));
    case FF_SPACE:
        return seq_printf(s, "%ld\n", READ_ONCE(a->space));
    case FF_VERBOSE:
        return seq_printf(s, "%lu\n", READ_ONCE(a->verbose));
    case FF_TASK_FILTER:
        return seq_puts(s, READ_ONCE(a->task_filter) ? "Y\n" : "N\n");
    }
    return 0;
}

/* Parses one number as Linux's debugfs attributes do (kstrtoull/kstrtoll base 0). */
static int parse_number(const char *buf, size_t len, bool is_signed, long long *out)
{
    char word[32];
    while (len && isspace((unsigned char)buf[len - 1]))
        len--;
    if (len == 0 || len >= sizeof(word))
        return -EINVAL;
    memcpy(word, buf, len);
    word[len] = '\0';
    const char *p = word;
    bool neg = false;
    if (*p == '-' || *p == '+') {
        neg = *p == '-';
        if (neg && !is_signed)
            return -EINVAL;
        p++;
    }
    unsigned base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    } else if (p[0] == '0' && p[1]) {
        base = 8;
        p++;
    }
    if (!*p)
        return -EINVAL;
    unsigned long long v = 0;
    for (; *p; p++) {
        unsigned digit;
        if (isdigit((unsigned char)*p))
            digit = (unsigned)(*p - '0');
        else if (isxdigit((unsigned char)*p))
            digit = (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
        else
            return -EINVAL;
        if (digit >= base)
            return -EINVAL;
        if (v > (~0ULL - digit) / base)
            return -ERANGE;
        v = v * base + digit;
    }
    if (is_signed && v > (neg ? (1ULL << 63) : (1ULL << 63) - 1))
        return -ERANGE;
    *out = neg ? -(long long)v : (long long)v;
    return 0;
}

static ssize_t store_fault_file(void *data, const char *buf, size_t len)
{
    const struct fault_file_data *d = data;
    struct fault_attr *a = d->attr;
    long long v;
    if (d->field == FF_TASK_FILTER) {
        /* Linux's bool files (kstrtobool): y/Y/1/on or n/N/0/off by the first letters. */
        char c = len ? buf[0] : 0, c2 = len > 1 ? (char)tolower((unsigned char)buf[1]) : 0;
        bool on = c == 'Y' || c == 'y' || c == '1' || ((c == 'o' || c == 'O') && c2 == 'n');
        bool off = c == 'N' || c == 'n' || c == '0' || ((c == 'o' || c == 'O') && c2 == 'f');
        if (!on && !off)
            return -EINVAL;
        WRITE_ONCE(a->task_filter, on);
        return (ssize_t)len;
    }
    bool is_signed = d->field == FF_TIMES || d->field == FF_SPACE;
    int err = parse_number(buf, len, is_signed, &v);
    if (err)
        return err;
    switch (d->field) {
    case FF_PROBABILITY:
        WRITE_ONCE(a->probability, (unsigned long)v);
        break;
    case FF_INTERVAL:
        WRITE_ONCE(a->interval, (unsigned long)v);
        break;
    case FF_TIMES: /* Linux's atomic_t files keep the low 32 bits, as a signed int */
        WRITE_ONCE(a->times, (long)(int32_t)(uint32_t)v);
        break;
    case FF_SPACE:
        WRITE_ONCE(a->space, (long)(int32_t)(uint32_t)v);
        break;
    case FF_VERBOSE:
        WRITE_ONCE(a->verbose, (unsigned long)v);
        break;
    case FF_TASK_FILTER:
        break;
    }
    return (ssize_t)len;
}

/* failslab=<interval>,<probability>,<space>,<times>, as Linux's setup_fault_attr. */
static void fault_boot_param(struct fault_attr *attr)
{
    char value[64];
    if (!cmdline_value(attr->name, value, sizeof(value)))
        return;
    long long f[4];
    const char *p = value;
    for (int i = 0; i < 4; i++) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if ((i < 3) != (end != NULL) || parse_number(p, n, i == 3, &f[i]) || f[i] < -1 ||
            (i == 3 && f[i] > 2147483647LL) || (i == 2 && f[i] > 2147483647LL)) {
            printk("FAULT_INJECTION: failed to parse arguments\n");
            return;
        }
        p = end ? end + 1 : p + n;
    }
    attr->interval = (unsigned long)f[0];
    attr->probability = (unsigned long)f[1];
    attr->space = (long)f[2];
    attr->times = (long)f[3];
}

static void fault_inject_init(void)
{
    struct fault_attr *attrs[2] = {&failslab, &fail_page_alloc};
    char path[64];
    for (int i = 0; i < 2; i++) {
        fault_boot_param(attrs[i]);
        snprintf(path, sizeof(path), "/sys/kernel/debug/%s", attrs[i]->name);
        struct pfs_node *dir = pfs_mkdir(path);
        if (!dir)
            continue;
        for (size_t f = 0; f < ARRAY_SIZE(fault_files); f++) {
            fault_file_data[i][f] = (struct fault_file_data){attrs[i], fault_files[f].field};
            fault_file_nodes[i][f] = pfs_create_seq(dir, fault_files[f].name, 0600, show_fault_file,
                                                    store_fault_file, &fault_file_data[i][f]);
        }
    }
}
CORE_INITCALL(fault_inject_init);
