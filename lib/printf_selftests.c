#include <kernel/compiler.h>
#include <kernel/errno.h>
#include <kernel/selftest.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "lib_selftests.h"

static void check_vformat(struct selftest_ctx *t, int line, const char *expected, const char *fmt,
                          va_list ap)
{
    char buf[160];
    int len;

    memset(buf, 'Z', sizeof(buf));
    len = vsnprintf(buf, sizeof(buf), fmt, ap);
    t->checks++;
    if (strcmp(buf, expected) != 0 || len != (int)strlen(expected))
        selftest_fail(t, __FILE__, line, "format \"%s\": got \"%s\" (%d), want \"%s\" (%d)", fmt,
                      buf, len, expected, (int)strlen(expected));
}

static void __printf(4, 5)
    check_format(struct selftest_ctx *t, int line, const char *expected, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    check_vformat(t, line, expected, fmt, ap);
    va_end(ap);
}

/* For formats the compiler rightly warns about but which still have defined results. */
static void check_format_unchecked(struct selftest_ctx *t, int line, const char *expected,
                                   const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    check_vformat(t, line, expected, fmt, ap);
    va_end(ap);
}

#define EXPECT_FORMAT(expected, ...) check_format(t, __LINE__, expected, __VA_ARGS__)
#define EXPECT_FORMAT_UNCHECKED(expected, ...)                                                     \
    check_format_unchecked(t, __LINE__, expected, __VA_ARGS__)

SELFTEST(printf_integers)
{
    EXPECT_FORMAT("0", "%d", 0);
    EXPECT_FORMAT("-17", "%d", -17);
    EXPECT_FORMAT("42", "%i", 42);
    EXPECT_FORMAT("2147483647 -2147483648", "%d %d", 2147483647, -2147483647 - 1);
    EXPECT_FORMAT("4294967295", "%u", 4294967295u);
    EXPECT_FORMAT("ff FF 377", "%x %X %o", 255u, 255u, 255u);
    EXPECT_FORMAT("deadbeef", "%x", 0xdeadbeefu);

    EXPECT_FORMAT("18446744073709551615", "%llu", TEST_UINT64_MAX);
    EXPECT_FORMAT("18446744073709551615", "%lu", (unsigned long)TEST_UINT64_MAX);
    EXPECT_FORMAT("-9223372036854775808", "%lld", TEST_INT64_MIN);
    EXPECT_FORMAT("-9223372036854775808", "%ld", (long)TEST_INT64_MIN);
    EXPECT_FORMAT("9223372036854775807", "%ld", (long)TEST_INT64_MAX);
    EXPECT_FORMAT("ffffffffffffffff", "%lx", (unsigned long)TEST_UINT64_MAX);
    EXPECT_FORMAT("FFFFFFFFFFFFFFFF", "%llX", TEST_UINT64_MAX);
    EXPECT_FORMAT("1777777777777777777777", "%llo", TEST_UINT64_MAX);
    EXPECT_FORMAT("ffffffff81000000", "%lx", 0xffffffff81000000ul);
    EXPECT_FORMAT("-9223372036854775808", "%jd", (intmax_t)TEST_INT64_MIN);
    EXPECT_FORMAT("18446744073709551615", "%ju", (uintmax_t)TEST_UINT64_MAX);
    EXPECT_FORMAT("18446744073709551615", "%zu", (size_t)TEST_UINT64_MAX);
    EXPECT_FORMAT("-1", "%zd", (ssize_t)-1);
    EXPECT_FORMAT("-5 5", "%td %tx", (ptrdiff_t)-5, (ptrdiff_t)5);
    /* hh and h narrow the promoted int argument. */
    EXPECT_FORMAT_UNCHECKED("-56 200", "%hhd %hhu", 200, 200);
    EXPECT_FORMAT_UNCHECKED("44", "%hhu", 300);
    EXPECT_FORMAT_UNCHECKED("-25536 4464", "%hd %hu", 40000, 70000);
    EXPECT_FORMAT_UNCHECKED("ffff", "%hx", -1);
}

SELFTEST(printf_flags)
{
    EXPECT_FORMAT("[   42]", "[%5d]", 42);
    EXPECT_FORMAT("[42   ]", "[%-5d]", 42);
    EXPECT_FORMAT("[00042]", "[%05d]", 42);
    EXPECT_FORMAT("[-0042]", "[%05d]", -42);
    EXPECT_FORMAT("[  -42]", "[%5d]", -42);
    EXPECT_FORMAT("[+42]", "[%+d]", 42);
    EXPECT_FORMAT("[-42]", "[%+d]", -42);
    EXPECT_FORMAT("[+0]", "[%+d]", 0);
    EXPECT_FORMAT("[ 42]", "[% d]", 42);
    EXPECT_FORMAT("[-42]", "[% d]", -42);
    EXPECT_FORMAT("[ +42]", "[%+4d]", 42);
    EXPECT_FORMAT("[+0042]", "[%+05d]", 42);
    EXPECT_FORMAT("[ 0042]", "[% 05d]", 42);
    EXPECT_FORMAT("[0x1f]", "[%#x]", 31u);
    EXPECT_FORMAT("[0X1F]", "[%#X]", 31u);
    EXPECT_FORMAT("[0]", "[%#x]", 0u);
    EXPECT_FORMAT("[017]", "[%#o]", 15u);
    EXPECT_FORMAT("[0]", "[%#o]", 0u);
    EXPECT_FORMAT("[0x001f]", "[%#06x]", 31u);
    EXPECT_FORMAT("[  0x1f]", "[%#6x]", 31u);
    EXPECT_FORMAT("[0x1f  ]", "[%#-6x]", 31u);
    EXPECT_FORMAT("[0x0000000000000001]", "[%#018lx]", 1ul);

    /* Conflicting flags: '-' beats '0', '+' beats ' '. */
    EXPECT_FORMAT_UNCHECKED("[42   ]", "[%-05d]", 42);
    EXPECT_FORMAT_UNCHECKED("[+42]", "[%+ d]", 42);
    EXPECT_FORMAT_UNCHECKED("[+42]", "[% +d]", 42);
    EXPECT_FORMAT_UNCHECKED("[-42  ]", "[%0-5d]", -42);
}

SELFTEST(printf_precision)
{
    EXPECT_FORMAT("[00042]", "[%.5d]", 42);
    EXPECT_FORMAT("[-00042]", "[%.5d]", -42);
    EXPECT_FORMAT("[   00042]", "[%8.5d]", 42);
    EXPECT_FORMAT("[00042   ]", "[%-8.5d]", 42);
    EXPECT_FORMAT("[]", "[%.0d]", 0);
    EXPECT_FORMAT("[     ]", "[%5.0d]", 0);
    EXPECT_FORMAT("[]", "[%.0x]", 0u);
    EXPECT_FORMAT("[0]", "[%#.0o]", 0u);
    EXPECT_FORMAT("[]", "[%#.0x]", 0u);
    EXPECT_FORMAT("[0x0001f]", "[%#.5x]", 31u);
    EXPECT_FORMAT("[00017]", "[%#.5o]", 15u);
    EXPECT_FORMAT("[42]", "[%.1d]", 42);
    EXPECT_FORMAT("[+042]", "[%+.3d]", 42);
    /* A precision turns the '0' flag off for integers. */
    EXPECT_FORMAT_UNCHECKED("[     042]", "[%08.3d]", 42);
    EXPECT_FORMAT("[7]", "[%.d]", 7);

    EXPECT_FORMAT("[abc]", "[%.3s]", "abcdef");
    EXPECT_FORMAT("[]", "[%.0s]", "abcdef");
    EXPECT_FORMAT("[  abc]", "[%5.3s]", "abcdef");
    EXPECT_FORMAT("[ab]", "[%.5s]", "ab");
    /* Precision bounds the read: the argument need not be terminated. */
    {
        const char unterminated[3] = {'x', 'y', 'z'};

        EXPECT_FORMAT("[xy]", "[%.2s]", unterminated);
    }
}

SELFTEST(printf_star)
{
    EXPECT_FORMAT("[   42]", "[%*d]", 5, 42);
    EXPECT_FORMAT("[42   ]", "[%*d]", -5, 42);
    EXPECT_FORMAT("[42   ]", "[%-*d]", 5, 42);
    EXPECT_FORMAT("[00042]", "[%.*d]", 5, 42);
    EXPECT_FORMAT("[42]", "[%.*d]", -3, 42);
    EXPECT_FORMAT("[   00042]", "[%*.*d]", 8, 5, 42);
    EXPECT_FORMAT("[ab   |]", "[%*.*s|]", -5, 2, "abcdef");
    EXPECT_FORMAT("[abcdef]", "[%.*s]", -1, "abcdef");
    EXPECT_FORMAT("[0042]", "[%0*d]", 4, 42);
}

SELFTEST(printf_text)
{
    EXPECT_FORMAT("", "%s", "");
    EXPECT_FORMAT("hello", "%s", "hello");
    EXPECT_FORMAT("[   hi]", "[%5s]", "hi");
    EXPECT_FORMAT("[hi   ]", "[%-5s]", "hi");
    EXPECT_FORMAT("[hello]", "[%2s]", "hello");
    EXPECT_FORMAT_UNCHECKED("(null)", "%s", (const char *)NULL);
    EXPECT_FORMAT("[x]", "[%c]", 'x');
    EXPECT_FORMAT("[  x]", "[%3c]", 'x');
    EXPECT_FORMAT("[x  ]", "[%-3c]", 'x');
    EXPECT_FORMAT("100%", "%d%%", 100);
    EXPECT_FORMAT("%", "%%");
    EXPECT_FORMAT("a%b", "a%%b");
    EXPECT_FORMAT("no conversions", "no conversions");
    EXPECT_FORMAT("one 2 three", "%s %d %s", "one", 2, "three");
    EXPECT_FORMAT_UNCHECKED("", "");
    /* Unknown or cut-off conversions come out as written. */
    EXPECT_FORMAT_UNCHECKED("[%y]", "[%y]");
    EXPECT_FORMAT_UNCHECKED("50%", "50%");
    EXPECT_FORMAT_UNCHECKED("[%-5", "[%-5");

    /* A NUL from %c is part of the output and of the count. */
    {
        char buf[8];

        memset(buf, 'Z', sizeof(buf));
        EXPECT_EQ(snprintf(buf, sizeof(buf), "a%cb", '\0'), 3);
        EXPECT(buf[0] == 'a' && buf[1] == '\0' && buf[2] == 'b' && buf[3] == '\0');
    }
}

SELFTEST(printf_pointer)
{
    EXPECT_FORMAT("0x0000000000000000", "%p", (void *)0);
    EXPECT_FORMAT("0xffffffff81234567", "%p", (void *)0xffffffff81234567ul);
    EXPECT_FORMAT("0x00000000deadbeef", "%p", (void *)0xdeadbeeful);
    EXPECT_FORMAT("[  0x0000000000000010]", "[%20p]", (void *)0x10ul);
    EXPECT_FORMAT("[0x0000000000000010  ]", "[%-20p]", (void *)0x10ul);
    /* Any other letter after %p is ordinary text. */
    EXPECT_FORMAT("0x0000000000000001x", "%px", (void *)1ul);
}

/* A stand-in symbol table: one function at 0x1000, a known hole at 0x2000..0x2fff. */
static printf_symbol_fn saved_symbol_hook;

static int fake_symbol_hook(char *buf, size_t size, uintptr_t addr, int with_offset)
{
    if (addr >= 0x1000 && addr < 0x1100) {
        if (with_offset)
            return snprintf(buf, size, "fake_func+0x%lx/0x100", (unsigned long)(addr - 0x1000));
        return snprintf(buf, size, "fake_func");
    }
    if (addr >= 0x2000 && addr < 0x3000)
        return -1;
    /* Other CPUs may print real symbols while this test runs. */
    return saved_symbol_hook ? saved_symbol_hook(buf, size, addr, with_offset) : -1;
}

SELFTEST(printf_symbols)
{
    saved_symbol_hook = printf_symbol_hook;
    printf_symbol_hook = fake_symbol_hook;

    EXPECT_FORMAT("fake_func+0x10/0x100", "%pS", (void *)0x1010ul);
    EXPECT_FORMAT("fake_func+0x0/0x100", "%pS", (void *)0x1000ul);
    EXPECT_FORMAT("fake_func", "%ps", (void *)0x10fful);
    EXPECT_FORMAT("[ fake_func]", "[%10ps]", (void *)0x1001ul);
    EXPECT_FORMAT("[fake_func ]", "[%-10ps]", (void *)0x1001ul);
    EXPECT_FORMAT("<fake_func+0x20/0x100> x", "<%pS> %c", (void *)0x1020ul, 'x');
    EXPECT_FORMAT("0x2345", "%pS", (void *)0x2345ul);
    EXPECT_FORMAT("0x2000", "%ps", (void *)0x2000ul);
    EXPECT_FORMAT("0x0000000000001010", "%p", (void *)0x1010ul);

    printf_symbol_hook = saved_symbol_hook;
}

SELFTEST(printf_truncation)
{
    char buf[16];

    memset(buf, 'Z', sizeof(buf));
    EXPECT_EQ(snprintf(buf, 5, "%s", "hello world"), 11);
    EXPECT_STREQ(buf, "hell");
    EXPECT(buf[5] == 'Z');

    memset(buf, 'Z', sizeof(buf));
    EXPECT_EQ(snprintf(buf, 1, "%d", 12345), 5);
    EXPECT(buf[0] == '\0' && buf[1] == 'Z');

    memset(buf, 'Z', sizeof(buf));
    EXPECT_EQ(snprintf(buf, 0, "%d", 12345), 5);
    EXPECT(buf[0] == 'Z');
    EXPECT_EQ(snprintf(NULL, 0, "%llu", TEST_UINT64_MAX), 20);

    memset(buf, 'Z', sizeof(buf));
    EXPECT_EQ(snprintf(buf, 6, "%8d|", 42), 9);
    EXPECT_STREQ(buf, "     ");
    EXPECT(buf[6] == 'Z');
    memset(buf, 'Z', sizeof(buf));
    EXPECT_EQ(snprintf(buf, 8, "%-6d|%05d", 1, 2), 12);
    EXPECT_STREQ(buf, "1     |");
    memset(buf, 'Z', sizeof(buf));
    EXPECT_EQ(snprintf(buf, 4, "%#x", 0xabcu), 5);
    EXPECT_STREQ(buf, "0xa");
    EXPECT(buf[4] == 'Z');
    memset(buf, 'Z', sizeof(buf));
    EXPECT_EQ(snprintf(buf, 6, "%s", "exact"), 5);
    EXPECT_STREQ(buf, "exact");
    EXPECT(buf[6] == 'Z');

    /* The full count survives widths far beyond the buffer. */
    EXPECT_EQ(snprintf(buf, sizeof(buf), "%1000d", 1), 1000);
    EXPECT_EQ(strlen(buf), sizeof(buf) - 1);

    memset(buf, 'Z', sizeof(buf));
    EXPECT_EQ(scnprintf(buf, 5, "%s", "hello world"), 4);
    EXPECT_STREQ(buf, "hell");
    EXPECT_EQ(scnprintf(buf, sizeof(buf), "%d", 42), 2);
    EXPECT_EQ(scnprintf(buf, 1, "%d", 42), 0);
    EXPECT_EQ(scnprintf(buf, 0, "%d", 42), 0);
    EXPECT_EQ(scnprintf(buf, 3, "ab"), 2);
    EXPECT_EQ(scnprintf(buf, 2, "ab"), 1);
}
