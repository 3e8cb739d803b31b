#include <kernel/compiler.h>
#include <kernel/errno.h>
#include <kernel/selftest.h>
#include <lib/string.h>

#include "lib_selftests.h"

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

SELFTEST(string_parse_size)
{
    unsigned long long v = 0;
    char *end;
    EXPECT_EQ(parse_size("12M:4096:trace", &end, &v), 0);
    EXPECT_EQ(v, 12ULL << 20);
    EXPECT_EQ(*end, ':');
    EXPECT_EQ(parse_size("4096", &end, &v), 0);
    EXPECT_EQ(v, 4096);
    EXPECT_EQ(*end, '\0');
    EXPECT_EQ(parse_size("0x10k", &end, &v), 0);
    EXPECT_EQ(v, 16ULL << 10);
    EXPECT_EQ(parse_size("2g", &end, &v), 0);
    EXPECT_EQ(v, 2ULL << 30);
    EXPECT_EQ(parse_size("3x", &end, &v), 0);
    EXPECT_EQ(v, 3);
    EXPECT_EQ(*end, 'x');
    v = 7;
    EXPECT_EQ(parse_size("M", &end, &v), -EINVAL);
    EXPECT_EQ(parse_size("", &end, &v), -EINVAL);
    EXPECT_EQ(parse_size("-1", &end, &v), -EINVAL);
    EXPECT_EQ(parse_size("17179869184G", &end, &v), -ERANGE);
    EXPECT_EQ(v, 7);
}
