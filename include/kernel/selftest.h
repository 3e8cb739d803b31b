#ifndef KERNEL_SELFTEST_H
#define KERNEL_SELFTEST_H

#include <kernel/compiler.h>

/*
 * In-kernel tests, registered by linker section and run by the `selftest` shell command,
 * which prints KTAP version 1. A test body reports failures through EXPECT* (the test
 * goes on) and ASSERT* (the test ends there); each failure prints a "# file:line: ..."
 * diagnostic line and marks the test not ok.
 *
 * A test passes only by making checks: one that ends with none and did not call SKIP
 * reports not ok, so a test whose precondition silently failed cannot look like a pass.
 * SKIP(reason) ends a test that cannot run here (KTAP `ok N name # SKIP reason`).
 */
struct selftest_ctx {
    const char *name;
    int failures;
    int checks;
    const char *skip_reason; /* set by SKIP */
};

/*
 * Registration by linker section. A host build of a self-test file (tests/host) defines
 * SELFTEST itself before including this header, and registers its own way.
 */
#ifndef SELFTEST
struct selftest {
    const char *name;
    void (*fn)(struct selftest_ctx *t);
};

#define SELFTEST(test_name)                                                                        \
    static void selftest_fn_##test_name(struct selftest_ctx *t);                                   \
    static const struct selftest selftest_##test_name __used __section(".selftests")               \
        __aligned(8) = {#test_name, selftest_fn_##test_name};                                      \
    static void selftest_fn_##test_name(struct selftest_ctx *t)
#endif

void selftest_fail(struct selftest_ctx *t, const char *file, int line, const char *fmt, ...)
    __printf(4, 5);

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        t->checks++;                                                                               \
        if (!(cond))                                                                               \
            selftest_fail(t, __FILE__, __LINE__, "expected %s", #cond);                            \
    } while (0)

#define EXPECT_EQ(a, b)                                                                            \
    do {                                                                                           \
        long long _a = (long long)(a), _b = (long long)(b);                                        \
        t->checks++;                                                                               \
        if (_a != _b)                                                                              \
            selftest_fail(t, __FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, _a, _b);        \
    } while (0)

#define EXPECT_STREQ(a, b)                                                                         \
    do {                                                                                           \
        const char *_a = (a), *_b = (b);                                                           \
        t->checks++;                                                                               \
        if (!_a || !_b || strcmp(_a, _b) != 0)                                                     \
            selftest_fail(t, __FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,             \
                          _a ? _a : "(null)", _b ? _b : "(null)");                                 \
    } while (0)

/*
 * ASSERT*: as EXPECT*, but a failure ends the test (a `return` from the test body), for
 * checks the rest of the test depends on. A test that must undo something on failure
 * (unregister an op, free memory) uses EXPECT and its own cleanup path instead.
 */
#define ASSERT_TRUE(cond)                                                                          \
    do {                                                                                           \
        t->checks++;                                                                               \
        if (!(cond)) {                                                                             \
            selftest_fail(t, __FILE__, __LINE__, "assertion %s", #cond);                           \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define ASSERT_EQ(a, b)                                                                            \
    do {                                                                                           \
        long long _a = (long long)(a), _b = (long long)(b);                                        \
        t->checks++;                                                                               \
        if (_a != _b) {                                                                            \
            selftest_fail(t, __FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, _a, _b);        \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define ASSERT_NOT_NULL(p) ASSERT_TRUE((p) != NULL)

#define ASSERT_STREQ(a, b)                                                                         \
    do {                                                                                           \
        const char *_a = (a), *_b = (b);                                                           \
        t->checks++;                                                                               \
        if (!_a || !_b || strcmp(_a, _b) != 0) {                                                   \
            selftest_fail(t, __FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,             \
                          _a ? _a : "(null)", _b ? _b : "(null)");                                 \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* Ends the test as skipped: it cannot run in this configuration (one CPU, say). */
#define SKIP(reason)                                                                               \
    do {                                                                                           \
        t->skip_reason = (reason);                                                                 \
        return;                                                                                    \
    } while (0)

/*
 * Reads a whole file (path relative to dir, as pfs_open takes them), chunk bytes per read,
 * as cat would: a NUL-terminated copy to kfree, or NULL with *err_out set.
 */
char *selftest_read_file(const char *dir, const char *path, size_t chunk, ssize_t *err_out);
/* The same into buf (cut to len - 1 bytes, NUL-terminated); returns the length there. */
size_t selftest_read_file_into(const char *dir, const char *path, char *buf, size_t len);

/*
 * An operation that allocates, run with its nth allocation failing (attr, a fault_attr of
 * <kernel/fault_inject.h>, at 100 % once after n - 1 successes) for n = 1..8 and then
 * every step-th up to max_nth, until a run succeeds. Every failed run must give -ENOMEM,
 * leave_nothing(arg) true, and every heap allocation and page back; at least one run must
 * fail. Returns the last result: 0 when the operation went through (the caller undoes it).
 */
struct fault_attr;
struct selftest_alloc_failures {
    struct fault_attr *attr;
    unsigned max_nth, step;
    int (*attempt)(void *arg);
    bool (*left_nothing)(void *arg);
    void *arg;
};
int selftest_alloc_failures(struct selftest_ctx *t, const struct selftest_alloc_failures *f);

/* Runs every registered test whose name matches the glob (NULL = all); returns failures. */
int selftest_run(const char *glob);

#endif
