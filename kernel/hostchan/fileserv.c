/*
 * The host channel's file service: the host opens, reads, writes and releases files of the
 * pseudo file system, and stats and lists it, through requests in shared memory (the layout
 * is in <kernel/hostchan_fileserv.h>). A kernel thread polls for requests and runs them one
 * at a time, so the host's calls reach pfs_* exactly as a shell command's would: one write
 * request is one pfs_write, a release's status is the release's.
 *
 * Nothing the host writes is trusted: a request is copied out of shared memory, then its
 * length, checksum, sequence number and format are checked on the copy; a handle is an
 * index and a generation, both checked. A blocking read is never left waiting here (that
 * would stall every other request): files are opened PFS_NOWAIT, a read that would wait
 * says -EAGAIN, and the host waits and asks again, or gives up when its reader is
 * interrupted.
 */
#include <arch/cpu.h>
#include <kernel/errno.h>
#include <kernel/fault_inject.h>
#include <kernel/hostchan.h>
#include <kernel/hostchan_fileserv.h>
#include <kernel/init.h>
#include <kernel/mm.h>
#include <kernel/printk.h>
#include <kernel/pseudofs.h>
#include <kernel/shell.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/crc32.h>
#include <lib/string.h>

#define FRAME_HEADER sizeof(struct hostchan_frame)
#define FRAME_HEADER_CHECKED offsetof(struct hostchan_frame, crc)
#define HANDLE_INDEX_BITS 8
#define HANDLE_GENERATION_MASK ((1u << (32 - HANDLE_INDEX_BITS)) - 1)
#define OPEN_FLAGS (PFS_READ | PFS_WRITE | PFS_TRUNC | PFS_APPEND | PFS_NONBLOCK)
/* The most a read skips to reach its offset: far more than any file the tree makes. */
#define FILESERV_SKIP_MAX (256ULL << 20)

_Static_assert(sizeof(struct fileserv_shared) == FILESERV_HEADER_SIZE, "fileserv header");
_Static_assert(offsetof(struct fileserv_shared, taken) == 64, "kernel-written fields");
_Static_assert(offsetof(struct fileserv_shared, posted) == 192, "host-written field");
_Static_assert(FILESERV_MAX_HANDLES == 1u << HANDLE_INDEX_BITS, "handle index bits");

size_t fileserv_area_size(size_t bar_size)
{
    size_t buffer = MIN(FILESERV_BUFFER_MAX, ALIGN_DOWN(bar_size / 8, PAGE_SIZE));
    if (buffer < FILESERV_BUFFER_MIN)
        return 0;
    return FILESERV_HEADER_SIZE + 2 * buffer;
}

int fileserv_init(struct fileserv *fs, void *mem, size_t len, uint8_t *copy, size_t copy_len)
{
    if (len < FILESERV_HEADER_SIZE + 2 * FILESERV_BUFFER_MIN)
        return -EINVAL;
    size_t buffer = ALIGN_DOWN((len - FILESERV_HEADER_SIZE) / 2, HOSTCHAN_FRAME_ALIGN);
    buffer = MIN(buffer, MIN(copy_len, (size_t)FILESERV_BUFFER_MAX));
    struct fileserv_shared *shared = mem;
    memset(fs, 0, sizeof(*fs));
    fs->shared = shared;
    fs->buffer_size = (uint32_t)buffer;
    fs->request = (uint8_t *)mem + FILESERV_HEADER_SIZE;
    fs->response = fs->request + buffer;
    fs->copy = copy;

    /* A host must not post before magic: the request it wrote could be wiped here. */
    __atomic_store_n(&shared->magic, 0, __ATOMIC_RELEASE);
    memset(shared, 0, sizeof(*shared));
    shared->version = FILESERV_VERSION;
    shared->buffer_size = fs->buffer_size;
    shared->max_handles = FILESERV_MAX_HANDLES;
    shared->request_offset = FILESERV_HEADER_SIZE;
    shared->response_offset = FILESERV_HEADER_SIZE + buffer;
    __atomic_store_n(&shared->magic, FILESERV_MAGIC, __ATOMIC_RELEASE);
    return 0;
}

/* ---- handles ---- */

static uint32_t handle_number(const struct fileserv *fs, const struct fileserv_handle *h)
{
    return h->generation << HANDLE_INDEX_BITS | (uint32_t)(h - fs->handles);
}

static struct fileserv_handle *handle_lookup(struct fileserv *fs, uint32_t number)
{
    struct fileserv_handle *h = &fs->handles[number & (FILESERV_MAX_HANDLES - 1)];
    if (!h->in_use || h->generation != number >> HANDLE_INDEX_BITS)
        return NULL;
    return h;
}

static void fault_pause(const struct fileserv_handle *h)
{
    if (h->fault_files)
        fault_inject_pause();
}

static void fault_resume(const struct fileserv_handle *h)
{
    if (h->fault_files)
        fault_inject_resume();
}

static int handle_close(struct fileserv *fs, struct fileserv_handle *h)
{
    fault_pause(h);
    int err = pfs_close(h->file);
    fault_resume(h);
    h->file = NULL;
    h->in_use = false;
    fs->shared->open_handles--;
    return err;
}

void fileserv_reset(struct fileserv *fs)
{
    for (size_t i = 0; i < FILESERV_MAX_HANDLES; i++)
        if (fs->handles[i].in_use)
            handle_close(fs, &fs->handles[i]);
}

/* ---- operations ---- */

static int64_t op_open(struct fileserv *fs, const char *path, uint32_t flags)
{
    if (flags & ~OPEN_FLAGS)
        return -EINVAL;
    struct fileserv_handle *h = NULL;
    for (size_t i = 0; i < FILESERV_MAX_HANDLES && !h; i++)
        if (!fs->handles[i].in_use)
            h = &fs->handles[i];
    if (!h)
        return -EMFILE;
    struct pfs_node *node;
    /* The node is only compared, but a walk's result is used under the control mutex. */
    pfs_control_lock();
    h->fault_files = pfs_lookup(NULL, path, &node) == 0 && fault_inject_owns_file(node);
    pfs_control_unlock();
    /* The host does the waiting of a blocking read (see above). */
    int pfs_flags = (int)flags | (flags & PFS_NONBLOCK ? 0 : PFS_NOWAIT);
    fault_pause(h);
    int err = pfs_open(NULL, path, pfs_flags, &h->file);
    fault_resume(h);
    if (err)
        return err;
    h->in_use = true;
    h->generation = (h->generation + 1) & HANDLE_GENERATION_MASK;
    if (!h->generation)
        h->generation = 1;
    fs->shared->open_handles++;
    return handle_number(fs, h);
}

/*
 * A read that goes back is served by a new open that skips to the offset: the same bytes
 * for the files whose content is made at open, and fresh ones, as from Linux's seq_file
 * after a seek to 0, for the others. A handle that can write is not reopened: its release
 * is a commit that the host did not ask for.
 */
static int reopen(struct fileserv *fs, struct fileserv_handle *h)
{
    struct pfs_file *old = h->file;
    if (old->flags & PFS_WRITE)
        return -ESPIPE;
    int err = pfs_path(old->node, fs->path, sizeof(fs->path));
    if (err)
        return err;
    pfs_close(old);
    h->file = NULL;
    return pfs_open(NULL, fs->path, old->flags & ~PFS_TRUNC, &h->file);
}

static ssize_t op_read(struct fileserv *fs, struct fileserv_handle *h, uint64_t offset, char *buf,
                       size_t size)
{
    if (!h->file)
        return -EIO;
    if (offset < h->file->pos) {
        int err = reopen(fs, h);
        if (err)
            return err;
    }
    /* A consuming file fed faster than it is read would keep a skip going for ever. */
    if (offset - h->file->pos > FILESERV_SKIP_MAX)
        return -EINVAL;
    while (h->file->pos < offset) {
        ssize_t n = pfs_read(h->file, buf, MIN(size, offset - h->file->pos));
        if (n <= 0)
            return n;
    }
    return pfs_read(h->file, buf, size);
}

/* mkdir and rmdir: what the shell's commands do (tracefs's instances/ takes them). */
static int64_t op_mkdir(const char *path) { return pfs_user_mkdir(NULL, path); }

static int64_t op_rmdir(const char *path) { return pfs_user_rmdir(NULL, path); }

/* Copies a path out of the request, NUL-terminated. */
static int take_path(struct fileserv *fs, const uint8_t *data, size_t len)
{
    if (len == 0)
        return -ENOENT;
    if (len > FILESERV_PATH_MAX)
        return -ENAMETOOLONG;
    if (memchr(data, '\0', len))
        return -EINVAL;
    memcpy(fs->path, data, len);
    fs->path[len] = '\0';
    return 0;
}

/* Runs a checked request; the result, and *out_len bytes of data in out. */
static int64_t run_request(struct fileserv *fs, uint16_t op, const struct fileserv_args *args,
                           const uint8_t *data, size_t data_len, uint8_t *out, size_t out_max,
                           size_t *out_len)
{
    bool path_op = op == FILESERV_STAT || op == FILESERV_LISTDIR || op == FILESERV_OPEN ||
                   op == FILESERV_MKDIR || op == FILESERV_RMDIR;
    if (path_op) {
        int err = take_path(fs, data, data_len);
        if (err)
            return err;
    }
    struct fileserv_handle *h = NULL;
    if (op == FILESERV_READ || op == FILESERV_WRITE || op == FILESERV_RELEASE) {
        h = handle_lookup(fs, args->handle);
        if (!h)
            return -EBADF;
    }
    int64_t result = 0;
    switch (op) {
    case FILESERV_RESET:
        fileserv_reset(fs);
        break;
    case FILESERV_STAT: {
        struct fileserv_stat st = {0};
        bool is_dir;
        unsigned mode;
        result = pfs_stat(fs->path, &is_dir, &mode);
        if (result)
            break;
        st.is_dir = is_dir;
        st.mode = mode & 0777;
        memcpy(out, &st, sizeof(st));
        *out_len = sizeof(st);
        break;
    }
    case FILESERV_LISTDIR:
        result = pfs_list_names(fs->path, args->offset, (char *)out, out_max, out_len);
        break;
    case FILESERV_OPEN:
        result = op_open(fs, fs->path, args->flags);
        break;
    case FILESERV_READ:
        fault_pause(h);
        result = op_read(fs, h, args->offset, (char *)out, MIN(args->size, out_max));
        fault_resume(h);
        if (result > 0)
            *out_len = (size_t)result;
        break;
    case FILESERV_WRITE:
        if (!h->file) {
            result = -EIO;
            break;
        }
        fault_pause(h);
        result = pfs_write(h->file, (const char *)data, data_len);
        fault_resume(h);
        break;
    case FILESERV_RELEASE:
        result = handle_close(fs, h);
        break;
    case FILESERV_MKDIR:
        result = op_mkdir(fs->path);
        break;
    case FILESERV_RMDIR:
        result = op_rmdir(fs->path);
        break;
    }
    return result;
}

static void respond(struct fileserv *fs, uint64_t number, uint16_t type, int64_t result,
                    size_t data_len)
{
    struct hostchan_frame *f = (struct hostchan_frame *)fs->response;
    struct fileserv_result *r = (struct fileserv_result *)(f + 1);
    r->result = result;
    f->type = type;
    f->flags = 0;
    f->len = (uint32_t)(sizeof(*r) + data_len);
    f->seq = (uint32_t)number;
    f->crc = crc32(crc32(0, f, FRAME_HEADER_CHECKED), r, f->len);
    /* The frame is whole before the host may look at it. */
    __atomic_store_n(&fs->shared->answered, number, __ATOMIC_RELEASE);
}

static void reject(struct fileserv *fs, uint64_t number, uint64_t *reason)
{
    (*reason)++;
    fs->shared->dropped++;
    respond(fs, number, FILESERV_REJECTED, -EIO, 0);
}

static bool known_op(uint16_t op) { return op >= FILESERV_RESET && op <= FILESERV_RMDIR; }

/* Whether the host posted a request since the last one taken. Polled in a loop: not
 * traced, or an idle service would fill the function tracer's buffer. */
static notrace bool fileserv_pending(const struct fileserv *fs)
{
    return __atomic_load_n(&fs->shared->posted, __ATOMIC_ACQUIRE) != fs->last_posted;
}

bool fileserv_poll(struct fileserv *fs)
{
    if (!fileserv_pending(fs))
        return false;
    struct fileserv_shared *shared = fs->shared;
    uint64_t number = __atomic_load_n(&shared->posted, __ATOMIC_ACQUIRE);
    fs->last_posted = number;
    __atomic_store_n(&shared->taken, number, __ATOMIC_RELEASE);

    struct hostchan_frame header;
    memcpy(&header, fs->request, sizeof(header));
    size_t max_payload = fs->buffer_size - FRAME_HEADER;
    if (header.len > max_payload || header.len < sizeof(struct fileserv_args)) {
        reject(fs, number, &shared->dropped_length);
        return true;
    }
    memcpy(fs->copy, fs->request + FRAME_HEADER, header.len);
    if (crc32(crc32(0, &header, FRAME_HEADER_CHECKED), fs->copy, header.len) != header.crc) {
        reject(fs, number, &shared->dropped_checksum);
        return true;
    }
    if (header.seq != (uint32_t)number) {
        reject(fs, number, &shared->dropped_sequence);
        return true;
    }
    struct fileserv_args args;
    memcpy(&args, fs->copy, sizeof(args));
    if (header.flags || args.zero || !known_op(header.type)) {
        reject(fs, number, &shared->dropped_format);
        return true;
    }

    size_t out_len = 0;
    uint8_t *out = fs->response + FRAME_HEADER + sizeof(struct fileserv_result);
    size_t out_max = fs->buffer_size - FRAME_HEADER - sizeof(struct fileserv_result);
    int64_t result = run_request(fs, header.type, &args, fs->copy + sizeof(args),
                                 header.len - sizeof(args), out, out_max, &out_len);
    shared->served++;
    respond(fs, number, header.type, result, result < 0 ? 0 : out_len);
    return true;
}

/* ---- the device's service ---- */

/*
 * After a request the next one tends to follow at once (a reader's next chunk, a
 * script's next file): poll without sleeping for a while, then sleep between polls, a
 * little and then longer, so that an idle service costs the guest next to nothing. The
 * middle step covers a blocked reader's host, which asks again every 10 ms.
 */
#define FILESERV_SPIN_NS (2 * NSEC_PER_MSEC)
#define FILESERV_DOZE_NS (200 * NSEC_PER_MSEC)
#define FILESERV_DOZE_POLL_NS NSEC_PER_MSEC
#define FILESERV_NAP_NS (5 * NSEC_PER_SEC)
#define FILESERV_NAP_POLL_NS (10 * NSEC_PER_MSEC)
#define FILESERV_IDLE_POLL_NS (50 * NSEC_PER_MSEC)

static struct fileserv device_fileserv;
static bool device_fileserv_running;
/* Where a request is checked and run: its own memory, which the host cannot touch. */
static uint8_t device_request_copy[FILESERV_BUFFER_MAX] __aligned(16);

static notrace int fileserv_thread(void *arg)
{
    struct fileserv *fs = arg;
    uint64_t last_request = clock_ns();
    for (;;) {
        if (fileserv_pending(fs)) {
            fileserv_poll(fs);
            last_request = clock_ns();
            continue;
        }
        uint64_t idle = clock_ns() - last_request;
        if (idle < FILESERV_SPIN_NS)
            arch_cpu_relax();
        else if (idle < FILESERV_DOZE_NS)
            sleep_ns(FILESERV_DOZE_POLL_NS);
        else if (idle < FILESERV_NAP_NS)
            sleep_ns(FILESERV_NAP_POLL_NS);
        else
            sleep_ns(FILESERV_IDLE_POLL_NS);
    }
    return 0;
}

void fileserv_start(void *mem, size_t len)
{
    if (fileserv_init(&device_fileserv, mem, len, device_request_copy,
                      sizeof(device_request_copy))) {
        printk("hostchan: %zu bytes cannot hold the file service\n", len);
        return;
    }
    /* The last CPU: away from the shell, which runs on CPU 0. */
    cpumask_t online = cpu_online_mask();
    unsigned cpu = online ? 31 - (unsigned)__builtin_clz(online) : 0;
    struct thread *t = kthread_create(fileserv_thread, &device_fileserv, "fileserv", cpu);
    if (!t) {
        printk("hostchan: no thread for the file service: %s\n", strerror(ENOMEM));
        __atomic_store_n(&device_fileserv.shared->magic, 0, __ATOMIC_RELEASE);
        return;
    }
    kthread_detach(t);
    device_fileserv_running = true;
    printk("hostchan: file service on CPU %u, %u KiB a request\n", cpu,
           device_fileserv.buffer_size / 1024);
}

/* Called in a panic, with the other CPUs stopped: one store, no lock, nothing traced. A
 * host waiting for an answer sees the area go and gives up, rather than time out. */
notrace void fileserv_panic(void)
{
    if (device_fileserv_running)
        __atomic_store_n(&device_fileserv.shared->magic, 0, __ATOMIC_RELEASE);
}

void fileserv_show_status(struct shell_ctx *ctx)
{
    if (!device_fileserv_running) {
        shell_printf(ctx, "file service: off\n");
        return;
    }
    const struct fileserv_shared *s = device_fileserv.shared;
    shell_printf(ctx,
                 "file service: %llu requests, %llu dropped (%llu length, %llu checksum, "
                 "%llu sequence, %llu format), %llu open\n",
                 (unsigned long long)s->served, (unsigned long long)s->dropped,
                 (unsigned long long)s->dropped_length, (unsigned long long)s->dropped_checksum,
                 (unsigned long long)s->dropped_sequence, (unsigned long long)s->dropped_format,
                 (unsigned long long)s->open_handles);
}
