/*
 * The self-test runner: `selftest [GLOB]` runs the registered tests and prints KTAP
 * version 1, the format the harness parses.
 */
#include <kernel/errno.h>
#include <kernel/fault_inject.h>
#include <kernel/mm.h>
#include <kernel/printk.h>
#include <kernel/pseudofs.h>
#include <kernel/selftest.h>
#include <kernel/shell.h>
#include <lib/glob.h>
#include <lib/printf.h>
#include <lib/string.h>

extern const struct selftest __start_selftests[], __stop_selftests[];

static struct shell_ctx *selftest_out;

static void selftest_print(const char *fmt, ...) __printf(1, 2);
static void selftest_print(const char *fmt, ...)
{
    char buf[512];
    __builtin_va_list ap;
    __builtin_va_start(ap, fmt);
    int n = vscnprintf(buf, sizeof(buf), fmt, ap);
    __builtin_va_end(ap);
    if (selftest_out)
        shell_write(selftest_out, buf, n);
    else
        kputs(buf);
}

void selftest_fail(struct selftest_ctx *t, const char *file, int line, const char *fmt, ...)
{
    char msg[384];
    __builtin_va_list ap;
    __builtin_va_start(ap, fmt);
    vscnprintf(msg, sizeof(msg), fmt, ap);
    __builtin_va_end(ap);
    t->failures++;
    selftest_print("    # %s:%d: %s\n", file, line, msg);
}

char *selftest_read_file(const char *dir, const char *path, size_t chunk, ssize_t *err_out)
{
    struct pfs_file *f;
    char *text = NULL;
    size_t len = 0, cap = 0;
    ssize_t n;
    int err;

    *err_out = 0;
    err = pfs_open(dir, path, PFS_READ, &f);
    if (err) {
        *err_out = err;
        return NULL;
    }
    for (;;) {
        if (cap - len < chunk + 1) {
            char *grown;

            cap = (cap + chunk + 1) * 2;
            grown = krealloc(text, cap);
            if (!grown) {
                n = -ENOMEM;
                break;
            }
            text = grown;
        }
        n = pfs_read(f, text + len, chunk);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    pfs_close(f);
    if (n < 0 || !text) {
        *err_out = n < 0 ? n : -ENOMEM;
        kfree(text);
        return NULL;
    }
    text[len] = '\0';
    return text;
}

size_t selftest_read_file_into(const char *dir, const char *path, char *buf, size_t len)
{
    ssize_t err;
    char *text = selftest_read_file(dir, path, 512, &err);
    size_t got = text ? MIN(strlen(text), len - 1) : 0;
    memcpy(buf, text ? text : "", got);
    buf[got] = '\0';
    kfree(text);
    return got;
}

int selftest_run(const char *pattern)
{
    size_t total = 0;
    for (const struct selftest *st = __start_selftests; st < __stop_selftests; st++)
        if (!pattern || glob_match(pattern, st->name))
            total++;
    selftest_print("KTAP version 1\n1..%zu\n", total);
    int failed = 0;
    size_t n = 0;
    for (const struct selftest *st = __start_selftests; st < __stop_selftests; st++) {
        if (pattern && !glob_match(pattern, st->name))
            continue;
        struct selftest_ctx t = {.name = st->name};
        st->fn(&t);
        n++;
        if (!t.failures && !t.skip_reason && t.checks == 0)
            selftest_fail(&t, __FILE__, __LINE__, "the test made no check and did not SKIP");
        if (t.failures) {
            failed++;
            selftest_print("not ok %zu %s\n", n, st->name);
        } else if (t.skip_reason) {
            selftest_print("ok %zu %s # SKIP %s\n", n, st->name, t.skip_reason);
        } else {
            selftest_print("ok %zu %s\n", n, st->name);
        }
    }
    selftest_print("# selftest: %zu tests, %d failed\n", total, failed);
    return failed;
}

SHELL_COMMAND(selftest, "selftest [GLOB]", "run the in-kernel self-tests (KTAP output)")
{
    if (argc > 2)
        return shell_usage(ctx);
    selftest_out = ctx;
    int failed = selftest_run(argc == 2 ? argv[1] : NULL);
    selftest_out = NULL;
    return failed ? 1 : 0;
}

int selftest_alloc_failures(struct selftest_ctx *t, const struct selftest_alloc_failures *f)
{
    struct fault_attr *attr = f->attr;
    unsigned long verbose = attr->verbose;
    unsigned failed = 0;
    int err = -ENOMEM;
    attr->verbose = 0;
    for (unsigned nth = 1; nth <= f->max_nth && err; nth += nth < 8 ? 1 : f->step) {
        struct mm_stats before, after;
        mm_get_stats(&before);
        attr->count = 0;
        attr->interval = nth;
        attr->space = 0;
        attr->times = 1;
        WRITE_ONCE(attr->probability, 100);
        err = f->attempt(f->arg);
        WRITE_ONCE(attr->probability, 0);
        if (!err)
            break;
        failed++;
        EXPECT_EQ(err, -ENOMEM);
        EXPECT(f->left_nothing(f->arg));
        mm_get_stats(&after);
        EXPECT_EQ(after.heap_allocs - after.heap_frees, before.heap_allocs - before.heap_frees);
        /* The heap may keep pages it mapped for allocations that were given back. */
        EXPECT_EQ(after.free_pages + after.heap_bytes_mapped / PAGE_SIZE,
                  before.free_pages + before.heap_bytes_mapped / PAGE_SIZE);
    }
    attr->interval = 1;
    attr->times = 1;
    attr->verbose = verbose;
    EXPECT(failed > 0);
    return err;
}
