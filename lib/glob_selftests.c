#include <kernel/compiler.h>
#include <kernel/errno.h>
#include <kernel/selftest.h>
#include <lib/glob.h>
#include <lib/string.h>

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
