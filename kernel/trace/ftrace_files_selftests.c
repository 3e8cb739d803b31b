/*
 * Self-tests of the ftrace tracefs files: set_ftrace_filter and set_ftrace_notrace (truncate,
 * append, tokens split across writes, commit at close), available_filter_functions,
 * enabled_functions and dyn_ftrace_total_info. They go through pfs_open/pfs_write/pfs_close
 * as the shell does, and put the global filter back after.
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

static volatile unsigned long ftrace_filter_test_sink;

/* Checks that a read of the whole file gives exactly expected. */
bool ftrace_test_file_is(struct selftest_ctx *t, const char *name, const char *expected)
{
    ssize_t err;
    char *text = selftest_read_file(TRACEFS_ROOT, name, 4096, &err);
    bool same = text && strcmp(text, expected) == 0;

    t->checks++;
    if (!same)
        selftest_fail(t, __FILE__, __LINE__, "%s reads \"%s\" (err %ld), not \"%s\"", name,
                      text ? text : "", (long)err, expected);
    kfree(text);
    return same;
}

struct ftrace_test_saved {
    struct ftrace_hash *filter;
    struct ftrace_hash *notrace_hash;
};

static bool ftrace_test_save(struct ftrace_test_saved *s)
{
    s->filter = ftrace_hash_copy(ftrace_global_ops->filter_hash);
    s->notrace_hash = ftrace_hash_copy(ftrace_global_ops->notrace_hash);
    return s->filter && s->notrace_hash;
}

static void ftrace_test_restore(struct ftrace_test_saved *s)
{
    ftrace_ops_set_hashes(ftrace_global_ops, s->filter, s->notrace_hash);
}

/* Writes text the way the shell does: what a call does not take is offered again. */
static ssize_t ftrace_test_write_all(struct pfs_file *f, const char *text)
{
    size_t len = strlen(text);

    while (len) {
        ssize_t n = pfs_write(f, text, len);

        if (n < 0)
            return n;
        if (n == 0 || (size_t)n > len)
            return -EIO;
        text += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Opens name with flags, writes each text in its own write(s), closes; returns the close. */
static int ftrace_test_echo(struct selftest_ctx *t, const char *name, int flags,
                            const char *const *texts, size_t n, ssize_t *write_err)
{
    struct pfs_file *f;
    size_t i;
    int err = pfs_open(TRACEFS_ROOT, name, PFS_WRITE | flags, &f);

    *write_err = 0;
    EXPECT_EQ(err, 0);
    if (err)
        return err;
    for (i = 0; i < n && !*write_err; i++)
        *write_err = ftrace_test_write_all(f, texts[i]);
    return pfs_close(f);
}

static int ftrace_test_echo1(struct selftest_ctx *t, const char *name, int flags, const char *text,
                             ssize_t *write_err)
{
    return ftrace_test_echo(t, name, flags, &text, 1, write_err);
}

/* The expected listing of a set of functions: their names in record order. */
static void ftrace_test_listing(char *buf, size_t len, void *const *fns, size_t n)
{
    size_t i, k, at = 0;

    buf[0] = '\0';
    for (i = 0; i < ftrace_rec_total(); i++)
        for (k = 0; k < n; k++)
            if (ftrace_test_index_of(fns[k]) == i)
                at += (size_t)scnprintf(buf + at, len - at, "%s\n", ftrace_rec_name(ftrace_rec(i)));
}

static const char ftrace_test_all_enabled[] = "#### all functions enabled ####\n";
static const char ftrace_test_none_disabled[] = "#### no functions disabled ####\n";

SELFTEST(ftrace_filter_file_truncate_append)
{
    void *both[] = {(void *)ftrace_test_target, (void *)ftrace_test_target_hot};
    void *hot_only[] = {(void *)ftrace_test_target_hot};
    struct ftrace_test_saved saved;
    char expected[256];
    ssize_t werr;

    if (ftrace_is_dead()) {
        struct pfs_file *f;

        EXPECT_EQ(pfs_open(TRACEFS_ROOT, "set_ftrace_filter", PFS_WRITE | PFS_TRUNC, &f), -ENODEV);
        EXPECT_EQ(pfs_open(TRACEFS_ROOT, "set_ftrace_filter", PFS_READ, &f), 0);
        pfs_close(f);
        return;
    }
    EXPECT(ftrace_test_save(&saved));

    EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_filter", PFS_TRUNC, "\n", &werr), 0);
    EXPECT_EQ(werr, 0);
    ftrace_test_file_is(t, "set_ftrace_filter", ftrace_test_all_enabled);

    EXPECT_EQ(
        ftrace_test_echo1(t, "set_ftrace_filter", PFS_TRUNC, "ftrace_test_target_hot\n", &werr), 0);
    EXPECT_EQ(werr, 0);
    ftrace_test_listing(expected, sizeof(expected), hot_only, 1);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);

    /* `>>` keeps what is there. */
    EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_filter", PFS_APPEND, "ftrace_test_target\n", &werr),
              0);
    EXPECT_EQ(werr, 0);
    ftrace_test_listing(expected, sizeof(expected), both, 2);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);

    /* The filter is the global ops' own, not a copy only the file sees. */
    EXPECT_EQ(ftrace_global_ops->filter_hash ? ftrace_global_ops->filter_hash->count : 0, 2);

    /* `>>` with '!' removes; `>` starts again from nothing. */
    EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_filter", PFS_APPEND, "!ftrace_test_target\n", &werr),
              0);
    ftrace_test_listing(expected, sizeof(expected), hot_only, 1);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);
    EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_filter", PFS_TRUNC,
                                "ftrace_test_target\n"
                                "ftrace_test_target_hot\n",
                                &werr),
              0);
    ftrace_test_listing(expected, sizeof(expected), both, 2);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);

    /* Tabs, spaces and several tokens in one write. */
    EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_filter", PFS_TRUNC,
                                " \tftrace_test_target_hot   ftrace_test_target\t\n", &werr),
              0);
    EXPECT_EQ(werr, 0);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);

    ftrace_test_restore(&saved);
}

SELFTEST(ftrace_filter_file_split_tokens)
{
    static const char *const split[] = {"ftrace_te", "st_target ftrace_test_tar", "get_hot\n"};
    static const char *const tail[] = {"ftrace_test_target_hot ", "ftrace_test_target"};
    void *both[] = {(void *)ftrace_test_target, (void *)ftrace_test_target_hot};
    struct ftrace_test_saved saved;
    char expected[256];
    struct pfs_file *f;
    ssize_t werr;

    if (ftrace_is_dead())
        SKIP("ftrace is dead");
    EXPECT(ftrace_test_save(&saved));
    ftrace_test_listing(expected, sizeof(expected), both, 2);

    /* A token cut by the end of one write is finished by the next. */
    EXPECT_EQ(ftrace_test_echo(t, "set_ftrace_filter", PFS_TRUNC, split, 3, &werr), 0);
    EXPECT_EQ(werr, 0);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);

    /* One still unfinished at close is applied then. */
    EXPECT_EQ(ftrace_test_echo(t, "set_ftrace_filter", PFS_TRUNC, tail, 2, &werr), 0);
    EXPECT_EQ(werr, 0);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);

    /* Each write takes at most one token, and tells how far it got. */
    EXPECT_EQ(pfs_open(TRACEFS_ROOT, "set_ftrace_filter", PFS_WRITE | PFS_TRUNC, &f), 0);
    EXPECT_EQ(pfs_write(f, "  ftrace_test_target ftrace_test_target_hot\n", 44), 21);
    EXPECT_EQ(pfs_write(f, "ftrace_test_target_hot\n", 23), 23);
    EXPECT_EQ(pfs_write(f, " \n\t", 3), 3);
    EXPECT_EQ(pfs_close(f), 0);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);

    ftrace_test_restore(&saved);
}

SELFTEST(ftrace_filter_file_commit_after_error)
{
    void *target_only[] = {(void *)ftrace_test_target};
    void *hot_only[] = {(void *)ftrace_test_target_hot};
    struct ftrace_test_saved saved;
    char expected[256], *long_token;
    ssize_t werr;

    if (ftrace_is_dead())
        SKIP("ftrace is dead");
    EXPECT(ftrace_test_save(&saved));

    /* `echo nosuch > set_ftrace_filter`: the write fails, the empty filter is installed. */
    EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_filter", PFS_TRUNC, "ftrace_test_target\n", &werr),
              0);
    EXPECT_EQ(
        ftrace_test_echo1(t, "set_ftrace_filter", PFS_TRUNC, "no_such_function_here\n", &werr), 0);
    EXPECT_EQ(werr, -EINVAL);
    ftrace_test_file_is(t, "set_ftrace_filter", ftrace_test_all_enabled);

    /* Tokens before the bad one count, the ones after it are never written. */
    EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_filter", PFS_TRUNC,
                                "ftrace_test_target_hot no_such_function_here ftrace_test_target\n",
                                &werr),
              0);
    EXPECT_EQ(werr, -EINVAL);
    ftrace_test_listing(expected, sizeof(expected), hot_only, 1);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);

    /* With `>>` a failed write leaves the filter as it was. */
    EXPECT_EQ(
        ftrace_test_echo1(t, "set_ftrace_filter", PFS_APPEND, "!no_such_function_here\n", &werr),
        0);
    EXPECT_EQ(werr, -EINVAL);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);

    /* Unknown commands fail the write too. */
    EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_filter", PFS_TRUNC,
                                "ftrace_test_target:fentros_no_such_command\n", &werr),
              0);
    EXPECT_EQ(werr, -EINVAL);
    ftrace_test_file_is(t, "set_ftrace_filter", ftrace_test_all_enabled);

    /* A token longer than the parser holds. */
    long_token = kmalloc(FTRACE_FILTER_TOKEN_MAX + 8);
    if (long_token) {
        memset(long_token, 'x', FTRACE_FILTER_TOKEN_MAX + 6);
        long_token[FTRACE_FILTER_TOKEN_MAX + 6] = '\n';
        long_token[FTRACE_FILTER_TOKEN_MAX + 7] = '\0';
        EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_filter", PFS_APPEND, long_token, &werr), 0);
        EXPECT_EQ(werr, -EINVAL);
        kfree(long_token);
    }
    ftrace_test_file_is(t, "set_ftrace_filter", ftrace_test_all_enabled);

    /* Everything before the failing token counts, removals included. */
    EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_filter", PFS_TRUNC,
                                "ftrace_test_target ftrace_test_target_hot !ftrace_test_target_hot"
                                " bad_token_here\n",
                                &werr),
              0);
    EXPECT_EQ(werr, -EINVAL);
    ftrace_test_listing(expected, sizeof(expected), target_only, 1);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);

    ftrace_test_restore(&saved);
}

SELFTEST(ftrace_filter_file_notrace)
{
    void *target_only[] = {(void *)ftrace_test_target};
    void *hot_only[] = {(void *)ftrace_test_target_hot};
    struct ftrace_test_saved saved;
    char expected[256];
    ssize_t werr;

    if (ftrace_is_dead())
        SKIP("ftrace is dead");
    EXPECT(ftrace_test_save(&saved));
    EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_filter", PFS_TRUNC, "ftrace_test_target\n", &werr),
              0);
    EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_notrace", PFS_TRUNC, "\n", &werr), 0);
    ftrace_test_file_is(t, "set_ftrace_notrace", ftrace_test_none_disabled);

    EXPECT_EQ(
        ftrace_test_echo1(t, "set_ftrace_notrace", PFS_TRUNC, "ftrace_test_target_hot\n", &werr),
        0);
    EXPECT_EQ(werr, 0);
    ftrace_test_listing(expected, sizeof(expected), hot_only, 1);
    ftrace_test_file_is(t, "set_ftrace_notrace", expected);
    /* Each file edits its own hash and leaves the other one alone. */
    ftrace_test_listing(expected, sizeof(expected), target_only, 1);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);

    /* Commands are refused here, and the (empty) copy is still installed. */
    EXPECT_EQ(ftrace_test_echo1(t, "set_ftrace_notrace", PFS_TRUNC, "ftrace_test_target:traceoff\n",
                                &werr),
              0);
    EXPECT_EQ(werr, -EINVAL);
    ftrace_test_file_is(t, "set_ftrace_notrace", ftrace_test_none_disabled);
    ftrace_test_file_is(t, "set_ftrace_filter", expected);

    ftrace_test_restore(&saved);
    ftrace_test_file_is(t, "set_ftrace_notrace", ftrace_test_none_disabled);
}

SELFTEST(ftrace_files_listing_reads)
{
    size_t visible = ftrace_test_visible_records(), lines = 0;
    static const size_t chunks[] = {1, 7, 64, 4093};
    char *whole, *line;
    ssize_t err;
    size_t i;

    whole = selftest_read_file(TRACEFS_ROOT, "available_filter_functions", 65536, &err);
    ASSERT_TRUE(whole != NULL);
    for (line = whole; *line; line = strchr(line, '\n') + 1) {
        const char *name = ftrace_rec_name(ftrace_rec(ftrace_test_record_of_line(lines + 1)));

        EXPECT(strchr(line, '\n') != NULL);
        if (!strchr(line, '\n'))
            break;
        if (strncmp(line, name, strlen(name)) != 0 || line[strlen(name)] != '\n') {
            selftest_fail(t, __FILE__, __LINE__, "line %zu is not %s", lines + 1, name);
            break;
        }
        lines++;
    }
    EXPECT_EQ(lines, visible);

    /* Small reads give the same bytes as one big one. */
    for (i = 0; i < ARRAY_SIZE(chunks); i++) {
        char *pieces =
            selftest_read_file(TRACEFS_ROOT, "available_filter_functions", chunks[i], &err);

        EXPECT(pieces != NULL && strcmp(pieces, whole) == 0);
        kfree(pieces);
    }
    kfree(whole);
}

static void ftrace_files_test_callback(unsigned long ip, unsigned long parent_ip,
                                       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static void ftrace_files_test_regs_callback(unsigned long ip, unsigned long parent_ip,
                                            struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

/* The enabled_functions line of the record at index, or "" when it has none. */
static void ftrace_test_enabled_line(char *buf, size_t len, size_t index)
{
    ssize_t err;
    char *text = selftest_read_file(TRACEFS_ROOT, "enabled_functions", 4096, &err);
    const char *name = ftrace_rec_name(ftrace_rec(index));
    size_t name_len = strlen(name);
    char *line;

    buf[0] = '\0';
    for (line = text; line && *line; line = strchr(line, '\n') + 1) {
        char *end = strchr(line, '\n');

        if (!end)
            break;
        if (strncmp(line, name, name_len) == 0 && line[name_len] == ' ') {
            *end = '\0';
            strlcpy(buf, line, len);
            break;
        }
    }
    kfree(text);
}

SELFTEST(ftrace_files_enabled_functions)
{
    size_t other = ftrace_test_index_of(ftrace_test_target_other);
    struct ftrace_ops plain = {.func = ftrace_files_test_callback, .tramp_slot = -1};
    struct ftrace_ops regs = {.func = ftrace_files_test_regs_callback,
                              .flags = FTRACE_OPS_FL_SAVE_REGS,
                              .tramp_slot = -1};
    char line[256], expected[256];
    struct ftrace_hash *hash;
    struct ftrace_ops *op;
    unsigned long tramp, func;

    if (ftrace_is_dead())
        SKIP("ftrace is dead");
    ASSERT_TRUE(other != (size_t)-1);
    /* Someone else tracing the target would change the count: nothing to check then. */
    if (ftrace_rec_count(ftrace_rec(other)) != 0)
        SKIP("the target is traced by another op");
    ftrace_test_enabled_line(line, sizeof(line), other);
    EXPECT_STREQ(line, "");

    hash = ftrace_hash_alloc();
    if (hash)
        ftrace_hash_set(hash, other);
    ftrace_ops_set_hashes(&plain, hash, NULL);
    EXPECT_EQ(register_ftrace_function(&plain), 0);
    ftrace_filter_test_sink = ftrace_test_target_other(1);
    tramp = ftrace_rec_tramp_addr(ftrace_rec(other), &op, &func);
    EXPECT(tramp != 0);
    EXPECT(op == &plain);
    EXPECT_EQ(func, (unsigned long)ftrace_files_test_callback);
    snprintf(expected, sizeof(expected),
             "ftrace_test_target_other (1)      \ttramp: 0x%lx (%pS) ->%pS", tramp,
             (void *)ftrace_files_test_callback, (void *)ftrace_files_test_callback);
    ftrace_test_enabled_line(line, sizeof(line), other);
    EXPECT_STREQ(line, expected);
    EXPECT(strstr(line, "(ftrace_files_test_callback+0x0/0x") != NULL);

    /* A second op that wants pt_regs: the site goes to the regs list caller. */
    hash = ftrace_hash_alloc();
    if (hash)
        ftrace_hash_set(hash, other);
    ftrace_ops_set_hashes(&regs, hash, NULL);
    EXPECT_EQ(register_ftrace_function(&regs), 0);
    ftrace_filter_test_sink = ftrace_test_target_other(2);
    tramp = ftrace_rec_tramp_addr(ftrace_rec(other), &op, &func);
    EXPECT(op == NULL);
    EXPECT(func != 0);
    snprintf(expected, sizeof(expected), "ftrace_test_target_other (2) R     ->%pS", (void *)func);
    ftrace_test_enabled_line(line, sizeof(line), other);
    EXPECT_STREQ(line, expected);

    /* Only the regs op left: its own trampoline, still R. */
    EXPECT_EQ(unregister_ftrace_function(&plain), 0);
    tramp = ftrace_rec_tramp_addr(ftrace_rec(other), &op, &func);
    EXPECT(op == &regs);
    snprintf(expected, sizeof(expected),
             "ftrace_test_target_other (1) R    \ttramp: 0x%lx (%pS) ->%pS", tramp,
             (void *)ftrace_files_test_regs_callback, (void *)ftrace_files_test_regs_callback);
    ftrace_test_enabled_line(line, sizeof(line), other);
    EXPECT_STREQ(line, expected);

    EXPECT_EQ(unregister_ftrace_function(&regs), 0);
    ftrace_test_enabled_line(line, sizeof(line), other);
    EXPECT_STREQ(line, "");
    ftrace_ops_set_hashes(&plain, NULL, NULL);
    ftrace_ops_set_hashes(&regs, NULL, NULL);
}

SELFTEST(ftrace_files_total_info)
{
    struct ftrace_stats st;
    char expected[96];

    ftrace_get_stats(&st);
    snprintf(expected, sizeof(expected), "%zu pages:%zu groups: 1\n", st.records - st.disabled,
             st.pages);
    ftrace_test_file_is(t, "dyn_ftrace_total_info", expected);
}
