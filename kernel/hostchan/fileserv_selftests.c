/*
 * The file service over memory of the test's own, with this file as the host: requests
 * written as tools/fentros_trace/fileclient.py writes them, then every kind of damage a
 * host can do (a wrong checksum, length, sequence number, flag or operation, a bad handle
 * or path), which must be refused and counted, never run.
 */
#include <kernel/errno.h>
#include <kernel/hostchan.h>
#include <kernel/hostchan_fileserv.h>
#include <kernel/mm.h>
#include <kernel/pseudofs.h>
#include <kernel/selftest.h>
#include <lib/crc32.h>
#include <lib/string.h>

#define TEST_AREA (FILESERV_HEADER_SIZE + 2 * FILESERV_BUFFER_MIN)

struct test_host {
    struct fileserv *fs;
    void *mem;
    uint8_t *copy;
    uint64_t number;
    /* The last response. */
    uint16_t type;
    int64_t result;
    uint8_t data[FILESERV_BUFFER_MIN];
    size_t data_len;
};

/* Damage to do to one request. */
struct damage {
    uint32_t crc_xor;
    uint32_t seq_delta;
    uint16_t flags;
    bool claim_len;
    uint32_t len;
};

static bool test_host_init(struct test_host *h)
{
    memset(h, 0, sizeof(*h));
    h->fs = kzalloc(sizeof(*h->fs));
    h->mem = kzalloc(TEST_AREA);
    h->copy = kmalloc(FILESERV_BUFFER_MIN);
    if (!h->fs || !h->mem || !h->copy)
        return false;
    return fileserv_init(h->fs, h->mem, TEST_AREA, h->copy, FILESERV_BUFFER_MIN) == 0;
}

static void test_host_free(struct test_host *h)
{
    if (h->fs && h->fs->shared)
        fileserv_reset(h->fs);
    kfree(h->copy);
    kfree(h->mem);
    kfree(h->fs);
}

/*
 * Posts one request and has the service run it; false when the service saw nothing to
 * run or its response is not a whole frame answering this request.
 */
static bool request_damaged(struct test_host *h, uint16_t op, uint32_t handle, uint32_t flags,
                            uint64_t offset, uint32_t size, const void *data, size_t len,
                            const struct damage *d)
{
    struct fileserv *fs = h->fs;
    struct hostchan_frame *f = (struct hostchan_frame *)fs->request;
    struct fileserv_args args = {handle, flags, offset, size, 0};
    uint8_t *payload = (uint8_t *)(f + 1);
    memcpy(payload, &args, sizeof(args));
    if (len)
        memcpy(payload + sizeof(args), data, len);
    h->number++;
    f->type = op;
    f->flags = d ? d->flags : 0;
    f->len = (uint32_t)(sizeof(args) + len);
    f->seq = (uint32_t)h->number + (d ? d->seq_delta : 0);
    f->crc = crc32(crc32(0, f, offsetof(struct hostchan_frame, crc)), payload, f->len);
    if (d) {
        f->crc ^= d->crc_xor;
        if (d->claim_len)
            f->len = d->len;
    }
    __atomic_store_n(&fs->shared->posted, h->number, __ATOMIC_RELEASE);
    if (!fileserv_poll(fs) || fileserv_poll(fs))
        return false;
    if (fs->shared->taken != h->number || fs->shared->answered != h->number)
        return false;

    const struct hostchan_frame *r = (const struct hostchan_frame *)fs->response;
    const uint8_t *rp = (const uint8_t *)(r + 1);
    if (r->seq != (uint32_t)h->number || r->len < sizeof(int64_t) ||
        r->len > FILESERV_BUFFER_MIN - sizeof(*r))
        return false;
    if (crc32(crc32(0, r, offsetof(struct hostchan_frame, crc)), rp, r->len) != r->crc)
        return false;
    h->type = r->type;
    memcpy(&h->result, rp, sizeof(h->result));
    h->data_len = r->len - sizeof(int64_t);
    memcpy(h->data, rp + sizeof(int64_t), h->data_len);
    return true;
}

static int64_t request(struct test_host *h, uint16_t op, uint32_t handle, uint32_t flags,
                       uint64_t offset, uint32_t size, const void *data, size_t len)
{
    if (!request_damaged(h, op, handle, flags, offset, size, data, len, NULL))
        return -1000;
    return h->type == op ? h->result : -1001;
}

static int64_t path_request(struct test_host *h, uint16_t op, uint32_t flags, const char *path)
{
    return request(h, op, 0, flags, 0, 0, path, strlen(path));
}

/* What the shell would read from the file. */
static size_t read_whole(const char *path, char *buf, size_t len)
{
    struct pfs_file *f;
    size_t got = 0;
    if (pfs_open(NULL, path, PFS_READ, &f))
        return 0;
    ssize_t n;
    while (got < len && (n = pfs_read(f, buf + got, len - got)) > 0)
        got += (size_t)n;
    pfs_close(f);
    return got;
}

/* stat, readdir, open, read (sequential, skipping ahead, going back), release. */
SELFTEST(fileserv_reads_the_tree)
{
    struct test_host *h = kzalloc(sizeof(*h));
    char *want = kmalloc(512);
    ASSERT_TRUE(h && want);
    ASSERT_TRUE(test_host_init(h));
    EXPECT_EQ(h->fs->shared->magic, FILESERV_MAGIC);
    EXPECT_EQ(h->fs->shared->buffer_size, FILESERV_BUFFER_MIN);

    EXPECT_EQ(path_request(h, FILESERV_STAT, 0, "/proc/version"), 0);
    struct fileserv_stat st;
    memcpy(&st, h->data, sizeof(st));
    EXPECT_EQ(h->data_len, sizeof(st));
    EXPECT_EQ(st.is_dir, 0);
    EXPECT_EQ(st.mode, 0444);
    EXPECT_EQ(st.size, 0);
    EXPECT_EQ(path_request(h, FILESERV_STAT, 0, "/sys/kernel/tracing/"), 0);
    memcpy(&st, h->data, sizeof(st));
    EXPECT_EQ(st.is_dir, 1);
    EXPECT_EQ(path_request(h, FILESERV_STAT, 0, "/proc/nope"), -ENOENT);
    EXPECT_EQ(path_request(h, FILESERV_STAT, 0, "/proc/version/x"), -ENOTDIR);

    EXPECT(path_request(h, FILESERV_LISTDIR, 0, "/proc") >= 5);
    bool seen = false;
    for (size_t at = 0; at < h->data_len; at += strlen((char *)h->data + at) + 1)
        seen |= strcmp((char *)h->data + at, "version") == 0;
    EXPECT(seen);
    EXPECT_EQ(request(h, FILESERV_LISTDIR, 0, 0, 1000, 0, "/proc", 5), 0);
    EXPECT_EQ(path_request(h, FILESERV_LISTDIR, 0, "/proc/version"), -ENOTDIR);

    size_t want_len = read_whole("/proc/version", want, 512);
    ASSERT_TRUE(want_len > 10);
    int64_t fh = path_request(h, FILESERV_OPEN, PFS_READ, "/proc/version");
    ASSERT_TRUE(fh > 0);
    EXPECT_EQ(h->fs->shared->open_handles, 1);
    EXPECT_EQ(request(h, FILESERV_READ, (uint32_t)fh, 0, 0, 4, NULL, 0), 4);
    EXPECT_EQ(memcmp(h->data, want, 4), 0);
    EXPECT_EQ(request(h, FILESERV_READ, (uint32_t)fh, 0, 4, 4096, NULL, 0), (int64_t)want_len - 4);
    EXPECT_EQ(memcmp(h->data, want + 4, want_len - 4), 0);
    EXPECT_EQ(request(h, FILESERV_READ, (uint32_t)fh, 0, want_len, 4096, NULL, 0), 0);
    /* Back to the start: a new open gives the same bytes. */
    EXPECT_EQ(request(h, FILESERV_READ, (uint32_t)fh, 0, 0, 4096, NULL, 0), (int64_t)want_len);
    EXPECT_EQ(memcmp(h->data, want, want_len), 0);
    EXPECT_EQ(request(h, FILESERV_READ, (uint32_t)fh, 0, 3, 5, NULL, 0), 5);
    EXPECT_EQ(memcmp(h->data, want + 3, 5), 0);
    /* Ahead: skipped. */
    EXPECT_EQ(request(h, FILESERV_READ, (uint32_t)fh, 0, 10, 2, NULL, 0), 2);
    EXPECT_EQ(memcmp(h->data, want + 10, 2), 0);
    EXPECT_EQ(request(h, FILESERV_READ, (uint32_t)fh, 0, 1ULL << 40, 4, NULL, 0), -EINVAL);
    EXPECT_EQ(request(h, FILESERV_WRITE, (uint32_t)fh, 0, 0, 0, "x", 1), -EBADF);
    EXPECT_EQ(request(h, FILESERV_RELEASE, (uint32_t)fh, 0, 0, 0, NULL, 0), 0);
    EXPECT_EQ(h->fs->shared->open_handles, 0);
    /* A released handle stays refused, even when its slot is taken again. */
    EXPECT_EQ(request(h, FILESERV_READ, (uint32_t)fh, 0, 0, 4, NULL, 0), -EBADF);
    int64_t again = path_request(h, FILESERV_OPEN, PFS_READ, "/proc/version");
    EXPECT(again > 0 && again != fh);
    EXPECT_EQ(request(h, FILESERV_RELEASE, (uint32_t)fh, 0, 0, 0, NULL, 0), -EBADF);
    EXPECT_EQ(request(h, FILESERV_RELEASE, (uint32_t)again, 0, 0, 0, NULL, 0), 0);
    EXPECT_EQ(h->fs->shared->served, h->number);
    EXPECT_EQ(h->fs->shared->dropped, 0);
    test_host_free(h);
    kfree(h);
    kfree(want);
}

/* Opens, writes and the directory operations say what Linux says. */
SELFTEST(fileserv_refusals)
{
    struct test_host *h = kzalloc(sizeof(*h));
    ASSERT_NOT_NULL(h);
    ASSERT_TRUE(test_host_init(h));
    EXPECT_EQ(path_request(h, FILESERV_OPEN, PFS_WRITE, "/proc/version"), -EACCES);
    EXPECT_EQ(path_request(h, FILESERV_OPEN, PFS_READ, "/proc"), -EISDIR);
    EXPECT_EQ(path_request(h, FILESERV_OPEN, PFS_READ, "/proc/nope"), -ENOENT);
    EXPECT_EQ(path_request(h, FILESERV_OPEN, PFS_WRITE, "/proc/nope"), -EACCES);
    EXPECT_EQ(path_request(h, FILESERV_OPEN, 0x100 | PFS_READ, "/proc/version"), -EINVAL);
    EXPECT_EQ(path_request(h, FILESERV_OPEN, 0, "/proc/version"), -EINVAL);
    EXPECT_EQ(path_request(h, FILESERV_MKDIR, 0, "/proc"), -EEXIST);
    EXPECT_EQ(path_request(h, FILESERV_MKDIR, 0, "/proc/new"), -EPERM);
    EXPECT_EQ(path_request(h, FILESERV_MKDIR, 0, "/proc/new/"), -EPERM);
    EXPECT_EQ(path_request(h, FILESERV_MKDIR, 0, "/nope/new"), -ENOENT);
    EXPECT_EQ(path_request(h, FILESERV_MKDIR, 0, "/proc/version/new"), -ENOTDIR);
    EXPECT_EQ(path_request(h, FILESERV_RMDIR, 0, "/proc"), -EPERM);
    EXPECT_EQ(path_request(h, FILESERV_RMDIR, 0, "/proc/version"), -ENOTDIR);
    EXPECT_EQ(path_request(h, FILESERV_RMDIR, 0, "/proc/nope"), -ENOENT);
    /* Paths: empty, with a NUL inside, too long. */
    EXPECT_EQ(request(h, FILESERV_STAT, 0, 0, 0, 0, "", 0), -ENOENT);
    EXPECT_EQ(request(h, FILESERV_STAT, 0, 0, 0, 0, "/proc\0/version", 14), -EINVAL);
    char *long_path = kmalloc(FILESERV_PATH_MAX + 2);
    ASSERT_NOT_NULL(long_path);
    memset(long_path, 'a', FILESERV_PATH_MAX + 1);
    long_path[0] = '/';
    EXPECT_EQ(request(h, FILESERV_STAT, 0, 0, 0, 0, long_path, FILESERV_PATH_MAX + 1),
              -ENAMETOOLONG);
    kfree(long_path);
    /* Handles that were never given out. */
    EXPECT_EQ(request(h, FILESERV_READ, 0, 0, 0, 16, NULL, 0), -EBADF);
    EXPECT_EQ(request(h, FILESERV_WRITE, 0xffffffffu, 0, 0, 0, "1", 1), -EBADF);
    EXPECT_EQ(request(h, FILESERV_RELEASE, 1u << 8 | 7, 0, 0, 0, NULL, 0), -EBADF);
    EXPECT_EQ(h->fs->shared->dropped, 0);
    test_host_free(h);
    kfree(h);
}

/* Damaged requests are answered REJECTED, counted by reason, and run nothing. */
SELFTEST(fileserv_damaged_requests)
{
    struct test_host *h = kzalloc(sizeof(*h));
    ASSERT_NOT_NULL(h);
    ASSERT_TRUE(test_host_init(h));
    struct fileserv_shared *s = h->fs->shared;
    const char *path = "/proc/version";
    size_t len = strlen(path);
    const struct damage crc = {.crc_xor = 1};
    const struct damage seq = {.seq_delta = 1};
    const struct damage flags = {.flags = 1};
    const struct damage too_long = {.claim_len = true, .len = FILESERV_BUFFER_MIN};
    const struct damage huge = {.claim_len = true, .len = 0xfffffff0u};
    const struct damage too_short = {.claim_len = true, .len = sizeof(struct fileserv_args) - 1};

    EXPECT(request_damaged(h, FILESERV_OPEN, 0, PFS_READ, 0, 0, path, len, &crc));
    EXPECT_EQ(h->type, FILESERV_REJECTED);
    EXPECT_EQ(h->result, -EIO);
    EXPECT_EQ(s->dropped_checksum, 1);
    EXPECT(request_damaged(h, FILESERV_OPEN, 0, PFS_READ, 0, 0, path, len, &seq));
    EXPECT_EQ(s->dropped_sequence, 1);
    EXPECT(request_damaged(h, FILESERV_OPEN, 0, PFS_READ, 0, 0, path, len, &flags));
    EXPECT(request_damaged(h, 77, 0, PFS_READ, 0, 0, path, len, NULL));
    EXPECT(request_damaged(h, FILESERV_REJECTED, 0, PFS_READ, 0, 0, path, len, NULL));
    EXPECT(request_damaged(h, 0, 0, 0, 0, 0, NULL, 0, NULL));
    EXPECT_EQ(s->dropped_format, 4);
    EXPECT(request_damaged(h, FILESERV_OPEN, 0, PFS_READ, 0, 0, path, len, &too_long));
    EXPECT(request_damaged(h, FILESERV_OPEN, 0, PFS_READ, 0, 0, path, len, &huge));
    EXPECT(request_damaged(h, FILESERV_OPEN, 0, PFS_READ, 0, 0, path, len, &too_short));
    EXPECT_EQ(s->dropped_length, 3);
    EXPECT_EQ(h->type, FILESERV_REJECTED);
    EXPECT_EQ(s->dropped, 9);
    EXPECT_EQ(s->served, 0);
    EXPECT_EQ(s->open_handles, 0);

    /* The args' reserved word must be 0. */
    struct hostchan_frame *f = (struct hostchan_frame *)h->fs->request;
    struct fileserv_args *args = (struct fileserv_args *)(f + 1);
    EXPECT(request_damaged(h, FILESERV_STAT, 0, 0, 0, 0, path, len, NULL));
    EXPECT_EQ(h->type, FILESERV_STAT);
    args->zero = 1;
    f->seq = (uint32_t)(h->number + 1);
    f->crc = crc32(crc32(0, f, offsetof(struct hostchan_frame, crc)), args, f->len);
    __atomic_store_n(&s->posted, ++h->number, __ATOMIC_RELEASE);
    EXPECT(fileserv_poll(h->fs));
    EXPECT_EQ(s->dropped_format, 5);

    /* Nothing posted: nothing run. A request posted again under its old number is not
     * run twice, and any new number is taken, whatever it is. */
    EXPECT(!fileserv_poll(h->fs));
    __atomic_store_n(&s->posted, 12345, __ATOMIC_RELEASE);
    EXPECT(fileserv_poll(h->fs));
    EXPECT(!fileserv_poll(h->fs));
    EXPECT_EQ(s->dropped_sequence, 2);
    h->number = 12345;
    EXPECT_EQ(path_request(h, FILESERV_STAT, 0, path), 0);
    test_host_free(h);
    kfree(h);
}

/* A new session releases the old one's handles; a full table says EMFILE. */
SELFTEST(fileserv_reset_releases_handles)
{
    struct test_host *h = kzalloc(sizeof(*h));
    ASSERT_NOT_NULL(h);
    ASSERT_TRUE(test_host_init(h));
    int64_t first = 0;
    unsigned opened = 0;
    for (unsigned i = 0; i < FILESERV_MAX_HANDLES; i++) {
        int64_t fh = path_request(h, FILESERV_OPEN, PFS_READ, "/proc/version");
        if (fh <= 0)
            break;
        if (!first)
            first = fh;
        opened++;
    }
    EXPECT_EQ(opened, FILESERV_MAX_HANDLES);
    EXPECT_EQ(path_request(h, FILESERV_OPEN, PFS_READ, "/proc/version"), -EMFILE);
    EXPECT_EQ(h->fs->shared->open_handles, FILESERV_MAX_HANDLES);
    EXPECT_EQ(request(h, FILESERV_RESET, 0, 0, 0, 0, NULL, 0), 0);
    EXPECT_EQ(h->fs->shared->open_handles, 0);
    EXPECT_EQ(request(h, FILESERV_READ, (uint32_t)first, 0, 0, 4, NULL, 0), -EBADF);
    EXPECT(path_request(h, FILESERV_OPEN, PFS_READ, "/proc/version") > 0);
    test_host_free(h);
    kfree(h);
}
