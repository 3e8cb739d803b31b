/*
 * Self-tests of the filter text (globs, indices, removals, commands), as set_ftrace_filter
 * and set_ftrace_notrace take it. They match against the real records, mostly the
 * dedicated targets of kernel/fixtures/ftrace_test_targets.c, and check each result against an
 * independent computation over the names. The files themselves: ftrace_files_selftests.c.
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/mm.h>
#include <kernel/selftest.h>
#include <lib/glob.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "trace_internal.h"

size_t ftrace_test_index_of(void *fn)
{
    struct dyn_ftrace *rec = ftrace_rec_lookup((unsigned long)fn);

    return rec ? (size_t)ftrace_rec_index(rec) : (size_t)-1;
}

size_t ftrace_test_visible_records(void)
{
    size_t i, n = 0;

    for (i = 0; i < ftrace_rec_total(); i++)
        n += !(ftrace_rec(i)->flags & FTRACE_FL_DISABLED);
    return n;
}

/* Record index of line `line` (1-based) of available_filter_functions. */
size_t ftrace_test_record_of_line(size_t line)
{
    size_t i;

    for (i = 0; i < ftrace_rec_total(); i++)
        if (!(ftrace_rec(i)->flags & FTRACE_FL_DISABLED) && --line == 0)
            return i;
    return (size_t)-1;
}

/*
 * Applies token to an empty hash and checks the result against glob_match over every
 * name: for the plain forms (name, prefix, suffix, substring) the fast comparisons must
 * agree with the full glob. Returns the number matched.
 */
static int ftrace_test_check_glob(struct selftest_ctx *t, const char *token)
{
    struct ftrace_hash *hash = ftrace_hash_alloc();
    size_t i, expected = 0, wrong = 0;
    int matched;

    EXPECT(hash != NULL);
    if (!hash)
        return -ENOMEM;
    matched = ftrace_hash_apply_glob(hash, token);
    for (i = 0; i < ftrace_rec_total(); i++) {
        const struct dyn_ftrace *rec = ftrace_rec(i);
        bool want = !(rec->flags & FTRACE_FL_DISABLED) && glob_match(token, ftrace_rec_name(rec));

        expected += want;
        if (want != ftrace_hash_test(hash, i)) {
            if (wrong++ == 0)
                selftest_fail(t, __FILE__, __LINE__, "'%s': %s %s", token,
                              want ? "missed" : "wrongly matched", ftrace_rec_name(rec));
        }
    }
    EXPECT_EQ(matched, expected ? (int)expected : -EINVAL);
    EXPECT_EQ(hash->count, expected);
    ftrace_hash_free(hash);
    return matched;
}

SELFTEST(ftrace_filter_match_types)
{
    size_t target = ftrace_test_index_of(ftrace_test_target);
    size_t hot = ftrace_test_index_of(ftrace_test_target_hot);
    size_t other = ftrace_test_index_of(ftrace_test_target_other);
    static const char *const tokens[] = {
        "ftrace_test_target",       /* full */
        "ftrace_test_target*",      /* prefix */
        "*_target_hot",             /* suffix */
        "*test_target*",            /* substring */
        "ftrace_*_other",           /* '*' inside: glob */
        "*test*target_o*",          /* leading '*' and one inside: glob */
        "ftrace_test_target_?ot",   /* '?' */
        "ftrace_test_target_[ho]*", /* class */
        "ftrace_test_\\target",     /* escape */
        "kmalloc",
        "k*",
        "*alloc",
        "*mallo*",
        "no_such_function_here",
        "no_such_prefix_here*",
        "*no_such_substring_here*",
    };
    struct ftrace_hash *hash;
    size_t i;

    EXPECT(target != (size_t)-1 && hot != (size_t)-1 && other != (size_t)-1);
    for (i = 0; i < ARRAY_SIZE(tokens); i++)
        ftrace_test_check_glob(t, tokens[i]);

    EXPECT_EQ(ftrace_test_check_glob(t, "ftrace_test_target"), 1);
    EXPECT_EQ(ftrace_test_check_glob(t, "ftrace_test_target_?ot"), 1);
    EXPECT_EQ(ftrace_test_check_glob(t, "no_such_function_here"), -EINVAL);
    EXPECT_EQ(ftrace_test_check_glob(t, "*"), (int)ftrace_test_visible_records());
    EXPECT_EQ(ftrace_test_check_glob(t, "**"), (int)ftrace_test_visible_records());

    hash = ftrace_hash_alloc();
    ASSERT_TRUE(hash != NULL);
    EXPECT(ftrace_hash_apply_glob(hash, "ftrace_test_target_[ho]*") >= 2);
    EXPECT(ftrace_hash_test(hash, hot));
    EXPECT(ftrace_hash_test(hash, other));
    EXPECT(!ftrace_hash_test(hash, target));
    /* Adding is cumulative and idempotent. */
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "ftrace_test_\\target"), 1);
    EXPECT(ftrace_hash_test(hash, target));
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "ftrace_test_target"), 1);
    EXPECT_EQ(hash->count, 3);
    ftrace_hash_free(hash);
}

SELFTEST(ftrace_filter_index)
{
    size_t visible = ftrace_test_visible_records();
    size_t first = ftrace_test_record_of_line(1);
    size_t last = ftrace_test_record_of_line(visible);
    struct ftrace_hash *hash = ftrace_hash_alloc();
    char token[32];

    EXPECT(hash != NULL && visible > 2);
    if (!hash || visible <= 2)
        return;
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "1"), 1);
    EXPECT(ftrace_hash_test(hash, first));
    EXPECT_EQ(hash->count, 1);

    snprintf(token, sizeof(token), "%zu", visible);
    EXPECT_EQ(ftrace_hash_apply_glob(hash, token), 1);
    EXPECT(ftrace_hash_test(hash, last));
    EXPECT_EQ(hash->count, 2);

    /* Past the end and line 0 match nothing. */
    snprintf(token, sizeof(token), "%zu", visible + 1);
    EXPECT_EQ(ftrace_hash_apply_glob(hash, token), -EINVAL);
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "0"), -EINVAL);
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "99999999999999999999999"), -EINVAL);
    EXPECT_EQ(hash->count, 2);

    /* Read as Linux 6.1 reads it: base prefixes count, trailing text does not. */
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "!0x1"), 1);
    EXPECT(!ftrace_hash_test(hash, first));
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "1abc"), 1);
    EXPECT(ftrace_hash_test(hash, first));
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "02"), 1);
    EXPECT(ftrace_hash_test(hash, ftrace_test_record_of_line(2)));
    EXPECT_EQ(hash->count, 3);

    /* A '-' is no digit: "-1" is a function name, and there is none. */
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "-1"), -EINVAL);

    /* The line of a known function selects that function. */
    if (visible > 0) {
        size_t i, line = 0, want = ftrace_test_index_of(ftrace_test_target_hot);

        for (i = 0; i <= want && i < ftrace_rec_total(); i++)
            line += !(ftrace_rec(i)->flags & FTRACE_FL_DISABLED);
        snprintf(token, sizeof(token), "%zu", line);
        EXPECT_EQ(ftrace_hash_apply_glob(hash, token), 1);
        EXPECT(ftrace_hash_test(hash, want));
    }
    ftrace_hash_free(hash);
}

SELFTEST(ftrace_filter_removal)
{
    struct ftrace_hash *hash = ftrace_hash_alloc();
    size_t hot = ftrace_test_index_of(ftrace_test_target_hot);
    size_t count;

    ASSERT_TRUE(hash != NULL);
    EXPECT(ftrace_hash_apply_glob(hash, "ftrace_test_target*") >= 3);
    count = hash->count;
    EXPECT(ftrace_hash_test(hash, hot));

    EXPECT_EQ(ftrace_hash_apply_glob(hash, "!ftrace_test_target_hot"), 1);
    EXPECT(!ftrace_hash_test(hash, hot));
    EXPECT_EQ(hash->count, count - 1);

    /* Removing what is not there still matched a function: no error, no change. */
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "!ftrace_test_target_hot"), 1);
    EXPECT_EQ(hash->count, count - 1);

    /* Removing a name no function has is an error, like adding it. */
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "!no_such_function_here"), -EINVAL);
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "!"), -EINVAL);
    EXPECT_EQ(hash->count, count - 1);

    EXPECT_EQ(ftrace_hash_apply_glob(hash, "!*"), (int)ftrace_test_visible_records());
    EXPECT(ftrace_hash_empty(hash));
    ftrace_hash_free(hash);
}

SELFTEST(ftrace_filter_disabled_records)
{
    size_t other = ftrace_test_index_of(ftrace_test_target_other);
    struct ftrace_hash *hash = ftrace_hash_alloc();
    struct dyn_ftrace *rec;
    size_t visible, line, i;
    uint32_t saved;
    char token[32];
    ssize_t err;
    char *text;

    EXPECT(hash != NULL && other != (size_t)-1);
    if (!hash || other == (size_t)-1) {
        ftrace_hash_free(hash);
        return;
    }
    rec = ftrace_rec(other);
    line = 0;
    for (i = 0; i <= other; i++)
        line += !(ftrace_rec(i)->flags & FTRACE_FL_DISABLED);

    /* Nothing patches sites while this runs, so the record can be borrowed briefly. */
    saved = rec->flags;
    rec->flags |= FTRACE_FL_DISABLED;
    visible = ftrace_test_visible_records();

    EXPECT_EQ(ftrace_hash_apply_glob(hash, "ftrace_test_target_other"), -EINVAL);
    EXPECT_EQ(ftrace_hash_apply_glob(hash, "*"), (int)visible);
    EXPECT(!ftrace_hash_test(hash, other));
    ftrace_hash_free(hash);
    hash = ftrace_hash_alloc();
    /* Its line now belongs to the next record. */
    snprintf(token, sizeof(token), "%zu", line);
    if (hash && line <= visible) {
        EXPECT_EQ(ftrace_hash_apply_glob(hash, token), 1);
        EXPECT(!ftrace_hash_test(hash, other));
        EXPECT(ftrace_hash_test(hash, ftrace_test_record_of_line(line)));
    }
    text = selftest_read_file(TRACEFS_ROOT, "available_filter_functions", 4096, &err);
    EXPECT(text != NULL);
    if (text)
        EXPECT(strstr(text, "\nftrace_test_target_other\n") == NULL);
    kfree(text);

    rec->flags = saved;
    ftrace_hash_free(hash);
}

SELFTEST(ftrace_filter_commands)
{
    struct ftrace_hash *hash = ftrace_hash_alloc();

    ASSERT_TRUE(hash != NULL);
    EXPECT(ftrace_filter_command_find("fentros_no_such_command") == NULL);
    /* notrace takes no commands, known or not. */
    EXPECT_EQ(ftrace_filter_apply_token(hash, "ftrace_test_target:traceoff", NULL), -EINVAL);
    EXPECT_EQ(ftrace_filter_apply_token(hash, "ftrace_test_target:traceoff:3", NULL), -EINVAL);
    EXPECT_EQ(ftrace_filter_apply_token(hash, "!ftrace_test_target:traceoff", NULL), -EINVAL);
    /* An unknown or empty command name in the filter. */
    EXPECT_EQ(ftrace_filter_apply_token(hash, "ftrace_test_target:fentros_no_such_command",
                                        &trace_global),
              -EINVAL);
    EXPECT_EQ(ftrace_filter_apply_token(hash, "ftrace_test_target:", &trace_global), -EINVAL);
    EXPECT_EQ(ftrace_filter_apply_token(hash, ":", &trace_global), -EINVAL);
    EXPECT(ftrace_hash_empty(hash));
    /* Without ':' a token is a glob in both files. */
    EXPECT_EQ(ftrace_filter_apply_token(hash, "ftrace_test_target", NULL), 1);
    EXPECT_EQ(ftrace_filter_apply_token(hash, "ftrace_test_target_hot", &trace_global), 1);
    EXPECT_EQ(hash->count, 2);
    ftrace_hash_free(hash);
}
