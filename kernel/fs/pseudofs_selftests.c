#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/pseudofs.h>
#include <kernel/selftest.h>
#include <lib/printf.h>
#include <lib/string.h>

/*
 * The tests build their files under /selftest-pfs on first use and find them again on later
 * runs, since nodes are never removed.
 */

#define PFS_TEST_DIR "/selftest-pfs"
#define PFS_TEST_LINES 300

struct pfs_test_seq {
    int shows;
    char stored[64];
    size_t stored_len;
    int stores;
};

static struct pfs_test_seq pfs_test_seq_data;

static int pfs_test_show(struct seqbuf *s, void *data)
{
    struct pfs_test_seq *d = data;
    int i;

    d->shows++;
    for (i = 0; i < PFS_TEST_LINES; i++)
        seq_printf(s, "line %d of the generated text\n", i);
    return 0;
}

static ssize_t pfs_test_store(void *data, const char *buf, size_t len)
{
    struct pfs_test_seq *d = data;
    size_t n = MIN(len, sizeof(d->stored) - 1 - d->stored_len);

    memcpy(d->stored + d->stored_len, buf, n);
    d->stored_len += n;
    d->stored[d->stored_len] = '\0';
    d->stores++;
    return (ssize_t)len;
}

static int pfs_test_release_fails(struct pfs_file *f)
{
    (void)f;
    return -EBUSY;
}

static ssize_t pfs_test_write_all(struct pfs_file *f, const char *buf, size_t len)
{
    (void)f;
    (void)buf;
    return (ssize_t)len;
}

static const struct pfs_ops pfs_test_failing_release_ops = {
    .write = pfs_test_write_all,
    .release = pfs_test_release_fails,
};

static struct pfs_node *pfs_test_tree(void)
{
    struct pfs_node *dir, *node;

    if (pfs_lookup(NULL, PFS_TEST_DIR, &dir) == 0)
        return dir;
    dir = pfs_mkdir(PFS_TEST_DIR "/a/b");
    if (!dir)
        return NULL;
    pfs_create_seq(dir, "text", 0644, pfs_test_show, pfs_test_store, &pfs_test_seq_data);
    pfs_create_seq(dir, "readonly", 0444, pfs_test_show, NULL, &pfs_test_seq_data);
    pfs_create_seq(dir, "showless", 0644, NULL, NULL, NULL);
    pfs_create(dir, "commit", 0200, &pfs_test_failing_release_ops, NULL);
    /* Created out of order: directories keep their entries sorted. */
    node = pfs_mkdir(PFS_TEST_DIR "/sorted");
    pfs_mkdir_at(node, "zeta");
    pfs_mkdir_at(node, "alpha");
    pfs_mkdir_at(node, "mid");
    pfs_lookup(NULL, PFS_TEST_DIR, &dir);
    return dir;
}

SELFTEST(pfs_path_resolution)
{
    struct pfs_node *dir = pfs_test_tree(), *text, *n;
    char path[64];

    ASSERT_TRUE(dir != NULL);
    EXPECT_EQ(pfs_lookup(NULL, PFS_TEST_DIR "/a/b/text", &text), 0);
    EXPECT_EQ(pfs_lookup("/", "//selftest-pfs///a/./b/../b/text", &n), 0);
    EXPECT(n == text);
    EXPECT_EQ(pfs_lookup(PFS_TEST_DIR "/a", "b/text", &n), 0);
    EXPECT(n == text);
    EXPECT_EQ(pfs_lookup(PFS_TEST_DIR "/a/b", "../../a/b/./text", &n), 0);
    EXPECT(n == text);
    EXPECT_EQ(pfs_lookup(PFS_TEST_DIR, "/../../..", &n), 0);
    EXPECT(n == pfs_root());
    EXPECT_EQ(pfs_lookup(NULL, "/", &n), 0);
    EXPECT(n == pfs_root());

    EXPECT_EQ(pfs_lookup(NULL, PFS_TEST_DIR "/a/b/text/", &n), -ENOTDIR);
    EXPECT_EQ(pfs_lookup(NULL, PFS_TEST_DIR "/a/b/text/x", &n), -ENOTDIR);
    EXPECT_EQ(pfs_lookup(NULL, PFS_TEST_DIR "/a/b/text/..", &n), -ENOTDIR);
    EXPECT_EQ(pfs_lookup(NULL, PFS_TEST_DIR "/nope", &n), -ENOENT);
    EXPECT_EQ(pfs_lookup(NULL, PFS_TEST_DIR "/nope/text", &n), -ENOENT);
    EXPECT_EQ(pfs_lookup(NULL, "", &n), -ENOENT);
    EXPECT(n == NULL);

    EXPECT_EQ(pfs_path(text, path, sizeof(path)), 0);
    EXPECT_STREQ(path, PFS_TEST_DIR "/a/b/text");
    EXPECT_EQ(pfs_path(pfs_root(), path, sizeof(path)), 0);
    EXPECT_STREQ(path, "/");
    EXPECT_EQ(pfs_path(text, path, 10), -ENAMETOOLONG);

    EXPECT(pfs_is_dir(dir));
    EXPECT(!pfs_is_dir(text));
    EXPECT_STREQ(pfs_name(text), "text");
    EXPECT_EQ(pfs_mode(text), 0644);
    EXPECT_EQ(pfs_mode(dir), 0555);
}

SELFTEST(pfs_tree_building)
{
    struct pfs_node *sorted, *b, *text;

    pfs_test_tree();
    EXPECT_EQ(pfs_lookup(NULL, PFS_TEST_DIR "/sorted", &sorted), 0);
    EXPECT_STREQ(pfs_name(pfs_child(sorted, 0)), "alpha");
    EXPECT_STREQ(pfs_name(pfs_child(sorted, 1)), "mid");
    EXPECT_STREQ(pfs_name(pfs_child(sorted, 2)), "zeta");
    EXPECT(pfs_child(sorted, 3) == NULL);

    EXPECT_EQ(pfs_lookup(NULL, PFS_TEST_DIR "/a/b", &b), 0);
    EXPECT_EQ(pfs_lookup(NULL, PFS_TEST_DIR "/a/b/text", &text), 0);
    /* An existing directory is returned; a name already used by a file is refused. */
    EXPECT(pfs_mkdir(PFS_TEST_DIR "/a/b") == b);
    EXPECT(pfs_mkdir_at(b, "text") == NULL);
    EXPECT(pfs_mkdir(PFS_TEST_DIR "/a/b/text/sub") == NULL);
    EXPECT(pfs_create_seq(b, "text", 0444, NULL, NULL, NULL) == NULL);
    EXPECT(pfs_create_seq(text, "x", 0444, NULL, NULL, NULL) == NULL);
    EXPECT(pfs_mkdir_at(b, "..") == NULL);
    EXPECT(pfs_mkdir_at(b, "a/b") == NULL);
    EXPECT(pfs_mkdir_at(b, "") == NULL);
}

SELFTEST(pfs_open_checks)
{
    struct pfs_file *f;

    pfs_test_tree();
    EXPECT_EQ(pfs_open(NULL, PFS_TEST_DIR "/a/b/readonly", PFS_WRITE | PFS_TRUNC, &f), -EACCES);
    EXPECT(f == NULL);
    EXPECT_EQ(pfs_open(NULL, PFS_TEST_DIR "/a/b/commit", PFS_READ, &f), -EACCES);
    EXPECT_EQ(pfs_open(NULL, PFS_TEST_DIR "/a", PFS_READ, &f), -EISDIR);
    EXPECT_EQ(pfs_open(NULL, PFS_TEST_DIR "/a", PFS_WRITE, &f), -EISDIR);
    EXPECT_EQ(pfs_open(NULL, PFS_TEST_DIR "/a/nope", PFS_READ, &f), -ENOENT);
    /* Files cannot be created: a redirection to a new name is refused as on tracefs. */
    EXPECT_EQ(pfs_open(NULL, PFS_TEST_DIR "/a/nope", PFS_WRITE, &f), -EACCES);
    EXPECT_EQ(pfs_open(NULL, PFS_TEST_DIR "/nope/x", PFS_WRITE, &f), -ENOENT);

    EXPECT_EQ(pfs_open(PFS_TEST_DIR "/a", "b/readonly", PFS_READ, &f), 0);
    if (f) {
        char c;
        EXPECT_EQ(pfs_write(f, "x", 1), -EBADF);
        EXPECT_EQ(pfs_read(f, &c, 1), 1);
        EXPECT_EQ(c, 'l');
        EXPECT_EQ(pfs_close(f), 0);
    }

    /* A release error is the result of close: that is where filter files commit. */
    EXPECT_EQ(pfs_open(NULL, PFS_TEST_DIR "/a/b/commit", PFS_WRITE, &f), 0);
    if (f) {
        char c;
        EXPECT_EQ(pfs_read(f, &c, 1), -EBADF);
        EXPECT_EQ(pfs_write(f, "abc", 3), 3);
        EXPECT_EQ(pfs_close(f), -EBUSY);
    }
}

SELFTEST(pfs_seq_partial_reads)
{
    static const size_t chunk_sizes[] = {1, 7, 64, 4096};
    struct seqbuf expected = {0};
    char *got;
    size_t i;
    int j;

    pfs_test_tree();
    for (j = 0; j < PFS_TEST_LINES; j++)
        seq_printf(&expected, "line %d of the generated text\n", j);
    EXPECT(!expected.overflow);
    got = kmalloc(expected.len + 4096);
    EXPECT(got != NULL);
    if (!got) {
        seqbuf_free(&expected);
        return;
    }

    for (i = 0; i < ARRAY_SIZE(chunk_sizes); i++) {
        struct pfs_file *f;
        size_t total = 0;
        int shows = pfs_test_seq_data.shows;
        ssize_t n;

        EXPECT_EQ(pfs_open(NULL, PFS_TEST_DIR "/a/b/text", PFS_READ, &f), 0);
        if (!f)
            continue;
        while ((n = pfs_read(f, got + total, chunk_sizes[i])) > 0) {
            EXPECT(n <= (ssize_t)chunk_sizes[i]);
            total += (size_t)n;
            EXPECT_EQ(f->pos, total);
            if (total > expected.len)
                break;
        }
        EXPECT_EQ(n, 0);
        EXPECT_EQ(total, expected.len);
        EXPECT(memcmp(got, expected.buf, expected.len) == 0);
        /* The text is produced once per open, not once per read. */
        EXPECT_EQ(pfs_test_seq_data.shows, shows + 1);
        EXPECT_EQ(pfs_read(f, got, 16), 0);
        EXPECT_EQ(pfs_close(f), 0);
    }
    kfree(got);
    seqbuf_free(&expected);
}

SELFTEST(pfs_seq_writes)
{
    struct pfs_file *f;
    int shows, stores;

    pfs_test_tree();
    pfs_test_seq_data.stored_len = 0;
    pfs_test_seq_data.stored[0] = '\0';
    shows = pfs_test_seq_data.shows;
    stores = pfs_test_seq_data.stores;

    EXPECT_EQ(pfs_open(NULL, PFS_TEST_DIR "/a/b/text", PFS_WRITE | PFS_TRUNC, &f), 0);
    if (f) {
        EXPECT_EQ(pfs_write(f, "hello ", 6), 6);
        EXPECT_EQ(pfs_write(f, "world\n", 6), 6);
        EXPECT_EQ(pfs_close(f), 0);
    }
    EXPECT_EQ(pfs_test_seq_data.stores, stores + 2);
    EXPECT_STREQ(pfs_test_seq_data.stored, "hello world\n");
    /* Opening for writing alone must not generate the text. */
    EXPECT_EQ(pfs_test_seq_data.shows, shows);

    EXPECT_EQ(pfs_open(NULL, PFS_TEST_DIR "/a/b/showless", PFS_READ | PFS_WRITE, &f), 0);
    if (f) {
        char c;
        EXPECT_EQ(pfs_read(f, &c, 1), 0);
        EXPECT_EQ(pfs_write(f, "x", 1), -EINVAL);
        EXPECT_EQ(pfs_close(f), 0);
    }
}

SELFTEST(seqbuf_growth)
{
    struct seqbuf s = {0};
    char big[600];
    int i;

    EXPECT_EQ(seq_puts(&s, "ab"), 0);
    EXPECT_EQ(seq_putc(&s, 'c'), 0);
    EXPECT_EQ(seq_printf(&s, "%d-%s", 42, "x"), 0);
    EXPECT_STREQ(s.buf, "abc42-x");
    EXPECT_EQ(s.len, 7);

    /* Longer than what is left: the buffer grows and the text is not cut. */
    for (i = 0; i < (int)sizeof(big) - 1; i++)
        big[i] = (char)('a' + i % 26);
    big[sizeof(big) - 1] = '\0';
    EXPECT_EQ(seq_printf(&s, "[%s]", big), 0);
    EXPECT_EQ(s.len, 7 + sizeof(big) + 1);
    EXPECT(s.buf[s.len] == '\0');
    EXPECT(s.buf[7] == '[' && s.buf[s.len - 1] == ']');
    EXPECT(memcmp(s.buf + 8, big, sizeof(big) - 1) == 0);
    EXPECT(!s.overflow);
    EXPECT_EQ(seq_write(&s, "", 0), 0);
    seqbuf_free(&s);
    EXPECT(s.buf == NULL);
    EXPECT_EQ(s.len, 0);
}

/*
 * A limit cuts the text at the last piece that fits, as Linux's trace_seq: a printf must
 * end below it, a puts, putc or write may reach it, and once one is refused so is every
 * piece after it.
 */
SELFTEST(seqbuf_limit)
{
    struct seqbuf s = {.limit = 10};
    EXPECT_EQ(seq_puts(&s, "12345"), 0);
    EXPECT_EQ(seq_printf(&s, "%s", "6789"), 0);
    EXPECT_EQ(seq_printf(&s, "%s", "0"), -ENOSPC); /* would end at the limit */
    EXPECT(s.full);
    EXPECT_EQ(seq_putc(&s, 'x'), -ENOSPC); /* would fit, but the text is cut already */
    EXPECT_STREQ(s.buf, "123456789");
    seqbuf_free(&s);

    s = (struct seqbuf){.limit = 10};
    EXPECT_EQ(seq_printf(&s, "%s", "123456789"), 0);
    EXPECT_EQ(seq_putc(&s, '0'), 0); /* a putc may reach it */
    EXPECT_EQ(seq_write(&s, "", 0), 0);
    EXPECT_EQ(seq_printf(&s, "%s", ""), -ENOSPC); /* a printf needs a byte left */
    EXPECT(s.full);
    EXPECT_STREQ(s.buf, "1234567890");
    seqbuf_free(&s);

    s = (struct seqbuf){.limit = 10};
    EXPECT_EQ(seq_puts(&s, "12345678901"), -ENOSPC);
    EXPECT_EQ(s.len, 0);
    s.full = false;
    s.limit = 0; /* no limit: anything goes */
    EXPECT_EQ(seq_puts(&s, "12345678901"), 0);
    EXPECT_EQ(s.len, 11);
    seqbuf_free(&s);
}
