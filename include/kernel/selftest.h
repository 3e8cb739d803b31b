#ifndef KERNEL_SELFTEST_H
#define KERNEL_SELFTEST_H

#include <kernel/compiler.h>

/*
 * In-kernel tests, registered by linker section and run by the `selftest` shell command,
 * which prints KTAP version 1. A test body reports failures through EXPECT*; each failed
 * expectation prints a "# file:line: ..." diagnostic line and marks the test not ok.
 */
struct selftest_ctx {
    const char *name;
    int failures;
    int checks;
};

struct selftest {
    const char *name;
    void (*fn)(struct selftest_ctx *t);
};

#define SELFTEST(test_name)                                                                  \
    static void selftest_fn_##test_name(struct selftest_ctx *t);                             \
    static const struct selftest selftest_##test_name __used __section(".selftests")         \
        __aligned(8) = {#test_name, selftest_fn_##test_name};                                \
    static void selftest_fn_##test_name(struct selftest_ctx *t)

void selftest_fail(struct selftest_ctx *t, const char *file, int line, const char *fmt, ...)
    __printf(4, 5);

#define EXPECT(cond)                                                                         \
    do {                                                                                     \
        t->checks++;                                                                         \
        if (!(cond))                                                                         \
            selftest_fail(t, __FILE__, __LINE__, "expected %s", #cond);                      \
    } while (0)

#define EXPECT_EQ(a, b)                                                                      \
    do {                                                                                     \
        long long _a = (long long)(a), _b = (long long)(b);                                  \
        t->checks++;                                                                         \
        if (_a != _b)                                                                        \
            selftest_fail(t, __FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, _a, _b);  \
    } while (0)

#define EXPECT_STREQ(a, b)                                                                   \
    do {                                                                                     \
        const char *_a = (a), *_b = (b);                                                     \
        t->checks++;                                                                         \
        if (!_a || !_b || strcmp(_a, _b) != 0)                                               \
            selftest_fail(t, __FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,       \
                          _a ? _a : "(null)", _b ? _b : "(null)");                           \
    } while (0)

/* Runs every registered test whose name matches the glob (NULL = all); returns failures. */
int selftest_run(const char *glob);

#endif
