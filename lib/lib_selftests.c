#include <kernel/compiler.h>
#include <kernel/errno.h>
#include <kernel/selftest.h>
#include <lib/glob.h>
#include <lib/printf.h>
#include <lib/sort.h>
#include <lib/string.h>

#define TEST_UINT64_MAX 18446744073709551615ULL
#define TEST_INT64_MAX 9223372036854775807LL
#define TEST_INT64_MIN (-TEST_INT64_MAX - 1)

/* Deterministic pseudo-random numbers (xorshift64), so a failure reproduces on every boot. */
static uint64_t test_random_state = 0x9e3779b97f4a7c15ULL;

static uint64_t test_random(void)
{
    test_random_state ^= test_random_state << 13;
    test_random_state ^= test_random_state >> 7;
    test_random_state ^= test_random_state << 17;
    return test_random_state;
}

static void fill_pattern(unsigned char *buf, size_t n, unsigned char seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)(seed + i * 7);
}

static bool bytes_equal(const unsigned char *a, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i])
            return false;
    }
    return true;
}

SELFTEST(string_mem)
{
    static unsigned char buf[96], expected[96], scratch[96];
    static const size_t lengths[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 40};
    char small[16];

    /* Every combination of source and destination misalignment, overlapping both ways. */
    for (size_t src = 0; src < 10; src++) {
        for (size_t dst = 0; dst < 10; dst++) {
            for (size_t l = 0; l < ARRAY_SIZE(lengths); l++) {
                size_t n = lengths[l];

                fill_pattern(buf, sizeof(buf), (unsigned char)(src + dst));
                for (size_t i = 0; i < sizeof(buf); i++)
                    expected[i] = buf[i];
                for (size_t i = 0; i < n; i++)
                    scratch[i] = buf[src + 16 + i];
                for (size_t i = 0; i < n; i++)
                    expected[dst + 16 + i] = scratch[i];
                EXPECT(memmove(buf + dst + 16, buf + src + 16, n) == buf + dst + 16);
                EXPECT(bytes_equal(buf, expected, sizeof(buf)));
            }
        }
    }

    /* memcpy between separate buffers at every alignment, guard bytes untouched. */
    for (size_t src = 0; src < 9; src++) {
        for (size_t dst = 0; dst < 9; dst++) {
            for (size_t l = 0; l < ARRAY_SIZE(lengths); l++) {
                size_t n = lengths[l];

                fill_pattern(scratch, sizeof(scratch), 3);
                fill_pattern(buf, sizeof(buf), 100);
                fill_pattern(expected, sizeof(expected), 100);
                for (size_t i = 0; i < n; i++)
                    expected[dst + 8 + i] = scratch[src + i];
                EXPECT(memcpy(buf + dst + 8, scratch + src, n) == buf + dst + 8);
                EXPECT(bytes_equal(buf, expected, sizeof(buf)));
            }
        }
    }

    for (size_t off = 0; off < 9; off++) {
        for (size_t l = 0; l < ARRAY_SIZE(lengths); l++) {
            size_t n = lengths[l];

            fill_pattern(buf, sizeof(buf), 1);
            fill_pattern(expected, sizeof(expected), 1);
            for (size_t i = 0; i < n; i++)
                expected[off + 8 + i] = 0xa5;
            EXPECT(memset(buf + off + 8, 0x1a5, n) == buf + off + 8);
            EXPECT(bytes_equal(buf, expected, sizeof(buf)));
        }
    }

    strcpy(small, "0123456789");
    memmove(small + 2, small, 6);
    EXPECT_STREQ(small, "0101234589");
    strcpy(small, "0123456789");
    memmove(small, small + 2, 6);
    EXPECT_STREQ(small, "2345676789");

    EXPECT_EQ(memcmp("abc", "abc", 3), 0);
    EXPECT_EQ(memcmp("abc", "abd", 0), 0);
    EXPECT(memcmp("abc", "abd", 3) < 0);
    EXPECT(memcmp("abd", "abc", 3) > 0);
    EXPECT(memcmp("\x80", "\x01", 1) > 0);

    strcpy(small, "hello");
    EXPECT(memchr(small, 'l', 5) == small + 2);
    EXPECT(memchr(small, 'l', 2) == NULL);
    EXPECT(memchr(small, '\0', 6) == small + 5);
    EXPECT(memchr(small, 'h' + 256, 5) == small);
}

SELFTEST(string_compare)
{
    EXPECT_EQ(strlen(""), 0);
    EXPECT_EQ(strlen("fentros"), 7);
    EXPECT_EQ(strnlen("fentros", 3), 3);
    EXPECT_EQ(strnlen("fentros", 100), 7);
    EXPECT_EQ(strnlen("", 0), 0);

    EXPECT_EQ(strcmp("", ""), 0);
    EXPECT_EQ(strcmp("abc", "abc"), 0);
    EXPECT(strcmp("abc", "abd") < 0);
    EXPECT(strcmp("abc", "ab") > 0);
    EXPECT(strcmp("ab", "abc") < 0);
    EXPECT(strcmp("\xff", "a") > 0);
    EXPECT_EQ(strncmp("abcdef", "abcxyz", 3), 0);
    EXPECT(strncmp("abcdef", "abcxyz", 4) < 0);
    EXPECT_EQ(strncmp("abc", "abd", 0), 0);
    EXPECT_EQ(strncmp("ab", "ab", 10), 0);

    EXPECT_EQ(strcasecmp("Schedule", "sCHEDULE"), 0);
    EXPECT(strcasecmp("apple", "Banana") < 0);
    EXPECT(strcasecmp("Zebra", "apple") > 0);
    EXPECT_EQ(strncasecmp("SYS_read", "sys_write", 4), 0);
    EXPECT(strncasecmp("SYS_read", "sys_write", 5) < 0);
}

SELFTEST(string_search)
{
    const char *s = "function_graph";

    EXPECT(strchr(s, 'n') == s + 2);
    EXPECT(strchr(s, 'z') == NULL);
    EXPECT(strchr(s, '\0') == s + 14);
    EXPECT(strrchr(s, 'n') == s + 7);
    EXPECT(strrchr(s, 'z') == NULL);
    EXPECT(strrchr(s, '\0') == s + 14);

    EXPECT(strstr(s, "graph") == s + 9);
    EXPECT(strstr(s, "") == s);
    EXPECT(strstr(s, "grapht") == NULL);
    EXPECT(strstr("", "") != NULL);
    EXPECT(strstr("", "a") == NULL);
    EXPECT(strstr("aaab", "aab") != NULL);
    EXPECT(strcasestr(s, "GRAPH") == s + 9);
    EXPECT(strcasestr(s, "") == s);
    EXPECT(strcasestr(s, "Tion_G") == s + 4);
    EXPECT(strcasestr(s, "xyz") == NULL);

    EXPECT_EQ(strspn("  \tword", " \t"), 3);
    EXPECT_EQ(strspn("word", " "), 0);
    EXPECT_EQ(strspn("", "abc"), 0);
    EXPECT_EQ(strcspn("key=value", "=:"), 3);
    EXPECT_EQ(strcspn("novalue", "="), 7);
    EXPECT_EQ(strcspn("abc", ""), 3);
}

SELFTEST(string_copy)
{
    char buf[16];

    EXPECT(strcpy(buf, "abc") == buf);
    EXPECT_STREQ(buf, "abc");

    memset(buf, 'x', sizeof(buf));
    EXPECT(strncpy(buf, "ab", 5) == buf);
    EXPECT(buf[0] == 'a' && buf[1] == 'b' && buf[2] == 0 && buf[3] == 0 && buf[4] == 0);
    EXPECT(buf[5] == 'x');
    memset(buf, 'x', sizeof(buf));
    strncpy(buf, "abcdef", 3);
    EXPECT(buf[0] == 'a' && buf[2] == 'c' && buf[3] == 'x');

    memset(buf, 'x', sizeof(buf));
    EXPECT_EQ(strlcpy(buf, "hello world", 6), 11);
    EXPECT_STREQ(buf, "hello");
    EXPECT(buf[6] == 'x');
    EXPECT_EQ(strlcpy(buf, "hi", sizeof(buf)), 2);
    EXPECT_STREQ(buf, "hi");
    EXPECT_EQ(strlcpy(buf, "hello", 1), 5);
    EXPECT_STREQ(buf, "");
    buf[0] = 'q';
    EXPECT_EQ(strlcpy(buf, "hello", 0), 5);
    EXPECT(buf[0] == 'q');

    strcpy(buf, "abc");
    EXPECT_EQ(strlcat(buf, "def", sizeof(buf)), 6);
    EXPECT_STREQ(buf, "abcdef");
    EXPECT_EQ(strlcat(buf, "0123456789", 10), 16);
    EXPECT_STREQ(buf, "abcdef012");
    EXPECT_EQ(strlcat(buf, "xyz", 10), 12);
    EXPECT_STREQ(buf, "abcdef012");
    /* A size shorter than the current string: nothing is touched. */
    EXPECT_EQ(strlcat(buf, "xyz", 4), 7);
    EXPECT_STREQ(buf, "abcdef012");
}

SELFTEST(string_strsep)
{
    char buf[32];
    char *cursor = buf;

    strcpy(buf, "a,b;;c");
    EXPECT_STREQ(strsep(&cursor, ",;"), "a");
    EXPECT_STREQ(strsep(&cursor, ",;"), "b");
    EXPECT_STREQ(strsep(&cursor, ",;"), "");
    EXPECT_STREQ(strsep(&cursor, ",;"), "c");
    EXPECT(cursor == NULL);
    EXPECT(strsep(&cursor, ",;") == NULL);

    strcpy(buf, "");
    cursor = buf;
    EXPECT_STREQ(strsep(&cursor, " "), "");
    EXPECT(cursor == NULL);

    strcpy(buf, "trailing ");
    cursor = buf;
    EXPECT_STREQ(strsep(&cursor, " "), "trailing");
    EXPECT_STREQ(cursor, "");
    EXPECT_STREQ(strsep(&cursor, " "), "");
    EXPECT(cursor == NULL);
}

SELFTEST(string_strtoul)
{
    const char *s;
    char *end;

    s = "1234";
    EXPECT_EQ(strtoul(s, &end, 10), 1234);
    EXPECT(end == s + 4);
    s = "  +42xyz";
    EXPECT_EQ(strtoul(s, &end, 10), 42);
    EXPECT(end == s + 5);
    s = "0x1F";
    EXPECT_EQ(strtoul(s, &end, 0), 31);
    EXPECT(end == s + 4);
    s = "0X1f";
    EXPECT_EQ(strtoul(s, &end, 16), 31);
    s = "1f";
    EXPECT_EQ(strtoul(s, &end, 16), 31);
    s = "0755";
    EXPECT_EQ(strtoul(s, &end, 0), 0755);
    s = "0";
    EXPECT_EQ(strtoul(s, &end, 0), 0);
    EXPECT(end == s + 1);
    s = "089";
    EXPECT_EQ(strtoul(s, &end, 0), 0);
    EXPECT(end == s + 1);
    s = "0xg";
    EXPECT_EQ(strtoul(s, &end, 0), 0);
    EXPECT(end == s + 1);
    s = "101";
    EXPECT_EQ(strtoul(s, &end, 2), 5);
    s = "zz";
    EXPECT_EQ(strtoul(s, &end, 36), 35 * 36 + 35);
    s = "   ";
    EXPECT_EQ(strtoul(s, &end, 10), 0);
    EXPECT(end == s);
    s = "-";
    EXPECT_EQ(strtoul(s, &end, 10), 0);
    EXPECT(end == s);
    s = "12";
    EXPECT_EQ(strtoul(s, &end, 1), 0);
    EXPECT(end == s);
    EXPECT_EQ(strtoul("7", NULL, 10), 7);

    s = "18446744073709551615";
    EXPECT(strtoul(s, &end, 10) == TEST_UINT64_MAX);
    s = "18446744073709551616";
    EXPECT(strtoul(s, &end, 10) == TEST_UINT64_MAX);
    EXPECT(end == s + 20);
    s = "0xffffffffffffffffff";
    EXPECT(strtoull(s, &end, 0) == TEST_UINT64_MAX);
    EXPECT(end == s + 20);
    /* Unsigned conversion of a negative number wraps, as in C. */
    EXPECT(strtoul("-1", NULL, 10) == TEST_UINT64_MAX);
    EXPECT(strtoull("-2", NULL, 10) == TEST_UINT64_MAX - 1);

    EXPECT_EQ(strtol("-123", NULL, 10), -123);
    EXPECT_EQ(strtol("-0x10", NULL, 0), -16);
    EXPECT_EQ(strtol("9223372036854775807", NULL, 10), TEST_INT64_MAX);
    EXPECT_EQ(strtol("9223372036854775808", NULL, 10), TEST_INT64_MAX);
    EXPECT_EQ(strtol("-9223372036854775808", NULL, 10), TEST_INT64_MIN);
    EXPECT_EQ(strtol("-9223372036854775809", NULL, 10), TEST_INT64_MIN);
    EXPECT_EQ(strtol("-99999999999999999999999", NULL, 10), TEST_INT64_MIN);
}

SELFTEST(string_kstrto)
{
    unsigned long u = 77;
    long l = 77;

    EXPECT_EQ(kstrtoul("123", 10, &u), 0);
    EXPECT_EQ(u, 123);
    EXPECT_EQ(kstrtoul("456\n", 10, &u), 0);
    EXPECT_EQ(u, 456);
    EXPECT_EQ(kstrtoul("+7", 10, &u), 0);
    EXPECT_EQ(u, 7);
    EXPECT_EQ(kstrtoul("0x10", 0, &u), 0);
    EXPECT_EQ(u, 16);
    EXPECT_EQ(kstrtoul("0x10", 16, &u), 0);
    EXPECT_EQ(u, 16);
    EXPECT_EQ(kstrtoul("10", 16, &u), 0);
    EXPECT_EQ(u, 16);
    EXPECT_EQ(kstrtoul("010", 0, &u), 0);
    EXPECT_EQ(u, 8);
    EXPECT_EQ(kstrtoul("0", 0, &u), 0);
    EXPECT_EQ(u, 0);
    EXPECT_EQ(kstrtoul("18446744073709551615", 10, &u), 0);
    EXPECT(u == TEST_UINT64_MAX);

    u = 99;
    EXPECT_EQ(kstrtoul("", 10, &u), -EINVAL);
    EXPECT_EQ(kstrtoul("\n", 10, &u), -EINVAL);
    EXPECT_EQ(kstrtoul("12\n\n", 10, &u), -EINVAL);
    EXPECT_EQ(kstrtoul(" 12", 10, &u), -EINVAL);
    EXPECT_EQ(kstrtoul("12 ", 10, &u), -EINVAL);
    EXPECT_EQ(kstrtoul("12a", 10, &u), -EINVAL);
    EXPECT_EQ(kstrtoul("-1", 10, &u), -EINVAL);
    EXPECT_EQ(kstrtoul("+-1", 10, &u), -EINVAL);
    EXPECT_EQ(kstrtoul("08", 0, &u), -EINVAL);
    EXPECT_EQ(kstrtoul("0x", 0, &u), -EINVAL);
    EXPECT_EQ(kstrtoul("0x", 16, &u), -EINVAL);
    EXPECT_EQ(kstrtoul("12", 1, &u), -EINVAL);
    EXPECT_EQ(kstrtoul("18446744073709551616", 10, &u), -ERANGE);
    EXPECT_EQ(kstrtoul("99999999999999999999999x", 10, &u), -ERANGE);
    EXPECT_EQ(u, 99);

    EXPECT_EQ(kstrtol("-42\n", 10, &l), 0);
    EXPECT_EQ(l, -42);
    EXPECT_EQ(kstrtol("+42", 10, &l), 0);
    EXPECT_EQ(l, 42);
    EXPECT_EQ(kstrtol("-0x10", 0, &l), 0);
    EXPECT_EQ(l, -16);
    EXPECT_EQ(kstrtol("-9223372036854775808", 10, &l), 0);
    EXPECT_EQ(l, TEST_INT64_MIN);
    EXPECT_EQ(kstrtol("9223372036854775807", 10, &l), 0);
    EXPECT_EQ(l, TEST_INT64_MAX);
    l = 5;
    EXPECT_EQ(kstrtol("-9223372036854775809", 10, &l), -ERANGE);
    EXPECT_EQ(kstrtol("9223372036854775808", 10, &l), -ERANGE);
    EXPECT_EQ(kstrtol("-+5", 10, &l), -EINVAL);
    EXPECT_EQ(kstrtol("--5", 10, &l), -EINVAL);
    EXPECT_EQ(kstrtol("-", 10, &l), -EINVAL);
    EXPECT_EQ(l, 5);
}

SELFTEST(string_strerror)
{
    EXPECT_STREQ(strerror(EINVAL), "Invalid argument");
    EXPECT_STREQ(strerror(ENOENT), "No such file or directory");
    EXPECT_STREQ(strerror(EAGAIN), "Resource temporarily unavailable");
    EXPECT_STREQ(strerror(EOVERFLOW), "Value too large for defined data type");
    EXPECT_STREQ(strerror(-ENOSPC), "No space left on device");
    EXPECT_STREQ(strerror(0), "Success");
    EXPECT_STREQ(strerror(15), "Unknown error 15");
    EXPECT_STREQ(strerror(4096), "Unknown error 4096");
    EXPECT_STREQ(strerror(-4096), "Unknown error -4096");
}

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
#define EXPECT_FORMAT_UNCHECKED(expected, ...)                                               \
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

static const struct {
    const char *pattern;
    const char *str;
    bool match;
} glob_cases[] = {
    {"", "", true},
    {"", "a", false},
    {"a", "", false},
    {"*", "", true},
    {"*", "anything", true},
    {"**", "x", true},
    {"?", "", false},
    {"?", "a", true},
    {"??", "a", false},
    {"abc", "abc", true},
    {"abc", "abcd", false},
    {"abcd", "abc", false},
    {"foo*", "foo", true},
    {"foo*", "foobar", true},
    {"foo*", "xfoobar", false},
    {"*foo", "foo", true},
    {"*foo", "barfoo", true},
    {"*foo", "foobar", false},
    {"*foo*", "xxfooyy", true},
    {"*foo*", "fo", false},
    {"*foo*", "ffoo", true},
    {"sch*ule", "schedule", true},
    {"sch*ule", "schule", true},
    {"sch*ule", "schedules", false},
    {"sch?dule", "schedule", true},
    {"sch?dule", "schdule", false},
    {"*a*b*c*", "xaybzc", true},
    {"*a*b*c*", "xaybz", false},
    {"a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaac", false},
    {"*ab", "aab", true},
    {"*aab", "aaab", true},
    {"[Ss]y[Ss]_*", "sys_read", true},
    {"[Ss]y[Ss]_*", "SyS_write", true},
    {"[Ss]y[Ss]_*", "sYs_read", false},
    {"[a-c]x", "bx", true},
    {"[a-c]x", "dx", false},
    {"[a-cx-z]", "y", true},
    {"[a-cx-z]", "m", false},
    {"[!a]bc", "abc", false},
    {"[!a]bc", "xbc", true},
    {"[^a]bc", "abc", false},
    {"[^a]bc", "zbc", true},
    {"[!a-c]", "b", false},
    {"[!a-c]", "d", true},
    {"[]]", "]", true},
    {"[]a]", "a", true},
    {"[!]]", "]", false},
    {"[!]]", "x", true},
    {"[]-a]", "^", true},
    {"[a-]", "-", true},
    {"[a-]", "b", false},
    {"[-a]", "-", true},
    {"[c-a]", "b", false},
    {"[", "[", true},
    {"[abc", "[abc", true},
    {"[abc", "a", false},
    {"[a-", "[a-", true},
    {"[]", "[]", true},
    {"[x]", "", false},
    {"\\*", "*", true},
    {"\\*", "x", false},
    {"\\?", "?", true},
    {"\\?", "a", false},
    {"\\[a]", "[a]", true},
    {"\\[a]", "a", false},
    {"a\\\\b", "a\\b", true},
    {"\\a", "a", true},
    {"*\\*", "abc*", true},
    {"*\\*", "abc", false},
    {"a*", "a/b", true},
    {"?", "/", true},
    {"*_write*", "vfs_write", true},
    {"*_write*", "ksys_write_iter", true},
    {"*_write*", "vfs_read", false},
};

SELFTEST(glob_match)
{
    for (size_t i = 0; i < ARRAY_SIZE(glob_cases); i++) {
        bool got = glob_match(glob_cases[i].pattern, glob_cases[i].str);

        t->checks++;
        if (got != glob_cases[i].match)
            selftest_fail(t, __FILE__, __LINE__, "glob_match(\"%s\", \"%s\") = %d",
                          glob_cases[i].pattern, glob_cases[i].str, got);
    }
}

struct sort_record {
    uint32_t key;
    uint32_t serial;
    uint32_t pad;
};

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static int compare_record(const void *a, const void *b)
{
    return compare_u32(&((const struct sort_record *)a)->key,
                       &((const struct sort_record *)b)->key);
}

#define SORT_MAX 1000
#define SORT_KEY_RANGE 64

SELFTEST(sort_random)
{
    static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 33, 100, 255, SORT_MAX};
    static uint32_t words[SORT_MAX];
    static uint64_t wide[SORT_MAX];
    static struct sort_record records[SORT_MAX];
    static bool seen[SORT_MAX];
    static unsigned int histogram_before[SORT_KEY_RANGE], histogram_after[SORT_KEY_RANGE];

    for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
        size_t n = sizes[s];
        bool ordered = true, permutation = true;

        /* Small key range so most arrays have many duplicates. */
        memset(histogram_before, 0, sizeof(histogram_before));
        memset(histogram_after, 0, sizeof(histogram_after));
        for (size_t i = 0; i < n; i++) {
            words[i] = (uint32_t)(test_random() % SORT_KEY_RANGE);
            histogram_before[words[i]]++;
        }
        sort(words, n, sizeof(words[0]), compare_u32);
        for (size_t i = 0; i < n; i++) {
            if (i > 0 && words[i - 1] > words[i])
                ordered = false;
            histogram_after[words[i]]++;
        }
        for (size_t k = 0; k < SORT_KEY_RANGE; k++) {
            if (histogram_before[k] != histogram_after[k])
                permutation = false;
        }
        EXPECT(ordered);
        EXPECT(permutation);

        /* 8-byte elements take the word-swap path; full-range keys. */
        ordered = true;
        for (size_t i = 0; i < n; i++)
            wide[i] = test_random();
        wide[n / 2] = TEST_UINT64_MAX;
        wide[0] = 0;
        sort(wide, n, sizeof(wide[0]), compare_u64);
        for (size_t i = 1; i < n; i++) {
            if (wide[i - 1] > wide[i])
                ordered = false;
        }
        EXPECT(ordered);
        if (n > 1)
            EXPECT(wide[0] == 0 && wide[n - 1] == TEST_UINT64_MAX);

        /* 12-byte records take the byte-swap path; every record must survive intact. */
        ordered = true;
        permutation = true;
        for (size_t i = 0; i < n; i++) {
            records[i].key = (uint32_t)(test_random() % SORT_KEY_RANGE);
            records[i].serial = (uint32_t)i;
            records[i].pad = records[i].key ^ 0x5a5a5a5a;
            seen[i] = false;
        }
        sort(records, n, sizeof(records[0]), compare_record);
        for (size_t i = 0; i < n; i++) {
            if (i > 0 && records[i - 1].key > records[i].key)
                ordered = false;
            if (records[i].serial >= n || seen[records[i].serial] ||
                records[i].pad != (records[i].key ^ 0x5a5a5a5a))
                permutation = false;
            else
                seen[records[i].serial] = true;
        }
        EXPECT(ordered);
        EXPECT(permutation);
    }

    /* Already sorted, reversed and constant inputs. */
    for (size_t i = 0; i < 100; i++)
        words[i] = (uint32_t)i;
    sort(words, 100, sizeof(words[0]), compare_u32);
    EXPECT(words[0] == 0 && words[50] == 50 && words[99] == 99);
    for (size_t i = 0; i < 100; i++)
        words[i] = (uint32_t)(99 - i);
    sort(words, 100, sizeof(words[0]), compare_u32);
    EXPECT(words[0] == 0 && words[50] == 50 && words[99] == 99);
    for (size_t i = 0; i < 100; i++)
        words[i] = 7;
    sort(words, 100, sizeof(words[0]), compare_u32);
    EXPECT(words[0] == 7 && words[99] == 7);
}

/* Bounds of the array under search, so the comparison can catch probes outside it. */
static const uint32_t *bsearch_first, *bsearch_end;
static bool bsearch_out_of_bounds;

static int compare_u32_in_bounds(const void *key, const void *element)
{
    if ((const uint32_t *)element < bsearch_first || (const uint32_t *)element >= bsearch_end) {
        bsearch_out_of_bounds = true;
        return -1;
    }
    return compare_u32(key, element);
}

SELFTEST(sort_bsearch)
{
    static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 100, 255, 256};
    /* One slot past the largest search, so a stray probe reads a plausible value. */
    static uint32_t table[257];
    uint32_t key;

    for (size_t i = 0; i < ARRAY_SIZE(table); i++)
        table[i] = (uint32_t)(10 + 3 * i);

    for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
        size_t n = sizes[s];
        bool all_found = true, none_spurious = true;

        bsearch_first = table;
        bsearch_end = table + n;
        bsearch_out_of_bounds = false;
        for (size_t i = 0; i < n; i++) {
            key = table[i];
            if (bsearch(&key, table, n, sizeof(table[0]), compare_u32_in_bounds) != &table[i])
                all_found = false;
            key = table[i] + 1;
            if (bsearch(&key, table, n, sizeof(table[0]), compare_u32_in_bounds) != NULL)
                none_spurious = false;
        }
        EXPECT(all_found);
        EXPECT(none_spurious);

        key = 9;
        EXPECT(bsearch(&key, table, n, sizeof(table[0]), compare_u32_in_bounds) == NULL);
        /* The value just past the end is in memory but not in the array. */
        key = table[n];
        EXPECT(bsearch(&key, table, n, sizeof(table[0]), compare_u32_in_bounds) == NULL);
        if (n > 0) {
            key = table[0];
            EXPECT(bsearch(&key, table, n, sizeof(table[0]), compare_u32_in_bounds) == table);
            key = table[n - 1];
            EXPECT(bsearch(&key, table, n, sizeof(table[0]), compare_u32_in_bounds) ==
                   &table[n - 1]);
        }
        EXPECT(!bsearch_out_of_bounds);
    }
}
