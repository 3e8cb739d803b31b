#include <kernel/compiler.h>
#include <kernel/errno.h>
#include <kernel/selftest.h>
#include <lib/string.h>

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
