/*
 * `xfer -c --follow FILE...` / `xfer -c --stop`: files streamed to the host over the host
 * channel while the shell goes on running commands, as trace-cmd record drains every
 * CPU's trace_pipe_raw while the traced command runs. The frames are in
 * <kernel/hostchan_stream.h>.
 *
 * Each file is read, non-blocking, by a worker thread that polls it every STREAM_POLL_NS.
 * A file under per_cpu/cpuN/ is read by a worker on CPU N: draining a CPU's ring buffer
 * then takes that CPU's own time, during which its writers are not running, so the
 * reader keeps up with them whatever they do; other files by a worker on the shell's
 * CPU. A worker first reads into the file's staging buffer and then sends what it staged
 * as one frame (or several, when the ring carries less): a worker that finds the ring
 * taken by another, or full (the host late), goes on staging rather than wait, and waits
 * only once its stage is full. Its wakeups preempt its CPU's threads (preempt_on_wake). Stopping
 * wakes the workers, each reads its files until they have nothing left, and only then are the files
 * ended: the caller turns tracing off first, so nothing is left behind.
 *
 * The ring has one producer at a time: a worker holds the stream's send lock from the
 * reservation of a frame to its commit, and may sleep in between (a full ring), so the
 * lock is a flag with a wait queue, not a spinlock. Without the stage, a worker preempted
 * while it held the lock, or whose QEMU thread the host descheduled, kept the others
 * from reading for up to a quarter of a second at 2 CPUs under a loaded host: the
 * function tracer on work_* then lost about 1 % of its events.
 */
#include <kernel/errno.h>
#include <kernel/hostchan.h>
#include <kernel/hostchan_stream.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/shell.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/wait.h>
#include <lib/printf.h>
#include <lib/string.h>

/*
 * A file's bytes read and not yet sent: what a worker can take out of its CPU's buffer
 * while another worker holds the ring, possibly for tens of milliseconds when that
 * worker's CPU is preempted, or its QEMU thread descheduled by the host.
 */
#define STREAM_STAGE (128 * PAGE_SIZE)
/*
 * One tick. A CPU's default buffer holds about 30 ms of the function tracer's busiest
 * load under TCG; a worker that read its files dry sleeps a tick, and one that was
 * waiting for the CPU gets it within two 10-tick slices of `work`'s threads. A worker
 * whose files gave less than STREAM_BUSY sleeps STREAM_IDLE_POLL_NS: a few events a
 * tick need no faster reader, and each read would cost a page and two context switches
 * in the trace.
 */
#define STREAM_POLL_NS NSEC_PER_MSEC
#define STREAM_IDLE_POLL_NS (10 * NSEC_PER_MSEC)
#define STREAM_BUSY (4 * PAGE_SIZE)
/*
 * How long a worker reads before it sleeps a tick however much is left. Its wakeups
 * preempt its CPU's threads (preempt_on_wake), but a worker that ran out its 10-tick slice
 * would wait behind every ready thread's (20 ms with work's two a CPU, most of what the
 * default buffer holds); one that sleeps a tick first is back a tick later.
 */
#define STREAM_RUN_NS (5 * NSEC_PER_MSEC)
#define STREAM_MAX_FILES 64
/*
 * How long a stop goes on reading files that keep growing (tracing still on); what they
 * hold after that stays unread. A full default buffer drains in a few tens of ms.
 */
#define STREAM_STOP_NS NSEC_PER_SEC

struct stream_file {
    struct pfs_file *f;
    char *name;
    uint8_t *stage; /* read, not yet sent */
    size_t staged;
    bool raw_pages; /* a trace_pipe_raw: ring buffer pages */
    unsigned cpu;
    uint64_t total;
    int status; /* 0, or the -errno a read failed with (no more reads then) */
};

struct stream_worker {
    struct stream *s;
    unsigned cpu;
    struct thread *thread;
};

struct stream {
    struct hostchan_ring *ring;
    bool sending; /* the send lock */
    struct wait_queue send_wait;
    bool stopping;
    int channel_err; /* the first channel error: every worker stops sending */
    int nfiles;
    struct stream_file files[STREAM_MAX_FILES];
    unsigned nworkers;
    struct stream_worker workers[MAX_CPUS];
};

static struct stream *active_stream;

static bool stream_try_lock(void *arg)
{
    struct stream *s = arg;
    return !__atomic_exchange_n(&s->sending, true, __ATOMIC_ACQUIRE);
}

static void stream_lock(struct stream *s) { wait_event(&s->send_wait, stream_try_lock, s); }

static void stream_unlock(struct stream *s)
{
    __atomic_store_n(&s->sending, false, __ATOMIC_RELEASE);
    wait_queue_wake_all(&s->send_wait);
}

/*
 * trace_pipe_raw's pages are Linux's sub-buffers: a u64 time stamp, then a u64 commit
 * whose low 30 bits count the bytes of events on the page. A page less than half full was
 * taken from under its writers, or is the rest of one that was.
 */
#define RAW_PAGE_COMMIT_OFFSET 8
#define RAW_PAGE_COMMIT_BYTES ((1ULL << 30) - 1)

static bool stream_page_was_partial(const uint8_t *page)
{
    uint64_t commit;
    memcpy(&commit, page + RAW_PAGE_COMMIT_OFFSET, sizeof(commit));
    return (commit & RAW_PAGE_COMMIT_BYTES) < PAGE_SIZE / 2;
}

/*
 * Reads the file's next bytes into its staging buffer, without the send lock, so that a
 * CPU's worker keeps consuming its buffer while another worker sends, until deadline_ns
 * (a page at least: a pass that finds nothing is how a stop knows the file is done).
 * Returns how many.
 * A ring buffer's pages stop at the second page in a row that was being written when it
 * was read: reading on would take a page for every few events, and under a function
 * tracer that traces this very read, events of its own, without end. (Not the first: the
 * rest of a page the last pass took half written comes as a partial page too, however
 * full its writer has made it since.)
 */
static size_t stream_stage(struct stream_file *sf, uint64_t deadline_ns)
{
    size_t got = 0;
    unsigned partial = 0;
    while (sf->staged < STREAM_STAGE && !sf->status) {
        ssize_t n = pfs_read(sf->f, (char *)sf->stage + sf->staged, STREAM_STAGE - sf->staged);
        if (n == 0 || n == -EAGAIN)
            break;
        if (n < 0) {
            sf->status = (int)n;
            break;
        }
        sf->staged += (size_t)n;
        got += (size_t)n;
        if (sf->raw_pages && sf->staged % PAGE_SIZE == 0) {
            if (!stream_page_was_partial(sf->stage + sf->staged - PAGE_SIZE))
                partial = 0;
            else if (++partial == 2)
                break;
        }
        if (clock_ns() >= deadline_ns)
            break;
    }
    return got;
}

/*
 * Sends what the file has staged, in frames of up to what the ring carries. wait: take the
 * send lock and the ring's space even if that means sleeping (the stage is full, or the
 * stream is ending); otherwise a busy lock or a full ring leaves the bytes staged for the
 * next pass, and the worker goes on draining its CPU's buffer meanwhile.
 */
static void stream_flush(struct stream *s, int id, bool wait)
{
    struct stream_file *sf = &s->files[id];
    if (!sf->staged)
        return;
    if (wait)
        stream_lock(s);
    else if (!stream_try_lock(s))
        return;
    size_t cap = hostchan_ring_max_payload(s->ring) - sizeof(struct hostchan_stream_header);
    size_t off = 0;
    while (off < sf->staged && !s->channel_err) {
        size_t len = MIN(cap, sf->staged - off);
        uint8_t *payload;
        size_t frame = sizeof(struct hostchan_stream_header) + len;
        int err = wait ? hostchan_ring_reserve(s->ring, frame, (void **)&payload)
                       : hostchan_ring_try_reserve(s->ring, frame, (void **)&payload);
        /* A Ctrl-C typed at the shell is not this thread's to act on, and a full ring is
         * the host's to empty: the bytes stay staged for the next pass. */
        if (err == -EINTR || err == -EAGAIN)
            break;
        if (err) {
            s->channel_err = err;
            break;
        }
        struct hostchan_stream_header h = {.id = (uint32_t)id, .zero = 0};
        memcpy(payload, &h, sizeof(h));
        memcpy(payload + sizeof(h), sf->stage + off, len);
        hostchan_ring_commit(s->ring, HOSTCHAN_STREAM_DATA, sizeof(h) + len);
        off += len;
    }
    stream_unlock(s);
    sf->total += off;
    sf->staged -= off;
    if (sf->staged && off)
        memmove(sf->stage, sf->stage + off, sf->staged);
}

static int stream_worker_main(void *arg)
{
    struct stream_worker *w = arg;
    struct stream *s = w->s;
    uint64_t stop_seen = 0;
    uint64_t running_since = clock_ns();
    for (;;) {
        /* Loaded before the pass: a pass that began after the stop and found nothing
         * leaves nothing behind. */
        bool stopping = __atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE);
        if (stopping && !stop_seen)
            stop_seen = clock_ns();
        bool staged = false, dry = true;
        size_t moved = 0;
        for (int id = 0; id < s->nfiles; id++) {
            struct stream_file *sf = &s->files[id];
            if (sf->cpu != w->cpu)
                continue;
            moved += stream_stage(sf, running_since + STREAM_RUN_NS);
            dry &= sf->staged < STREAM_STAGE;
            stream_flush(s, id, stopping || sf->staged == STREAM_STAGE);
            staged |= sf->staged > 0;
        }
        if (__atomic_load_n(&s->channel_err, __ATOMIC_RELAXED) || (stopping && !moved && !staged))
            return 0;
        /* Tracing left on: the files never run dry, and the stop must still end. */
        if (stopping && clock_ns() - stop_seen >= STREAM_STOP_NS)
            return 0;
        /*
         * Files that ran dry have had their last whole page taken, and likely a part of
         * the page being written: read again at once, and it would be a page for every
         * few events (of the worker's own, under an unfiltered function tracer).
         */
        if (dry || clock_ns() - running_since >= STREAM_RUN_NS) {
            sleep_ns(!dry || moved >= STREAM_BUSY ? STREAM_POLL_NS : STREAM_IDLE_POLL_NS);
            running_since = clock_ns();
        }
    }
}

/* The CPU whose buffer a per_cpu/cpuN/ file reads, else the calling thread's. */
static unsigned stream_file_cpu(const char *path)
{
    const char *p = strstr(path, "per_cpu/cpu");
    if (p) {
        char *end;
        unsigned long cpu = strtoul(p + strlen("per_cpu/cpu"), &end, 10);
        if (end != p + strlen("per_cpu/cpu") && (*end == '/' || !*end) && cpu < MAX_CPUS &&
            cpu_data((unsigned)cpu)->online)
            return (unsigned)cpu;
    }
    return this_cpu_id();
}

static int stream_send_header(struct stream *s, uint16_t type, uint32_t id, const void *body,
                              size_t len)
{
    uint8_t *payload;
    int err = hostchan_ring_reserve(s->ring, sizeof(struct hostchan_stream_header) + len,
                                    (void **)&payload);
    if (err)
        return err;
    struct hostchan_stream_header h = {.id = id, .zero = 0};
    memcpy(payload, &h, sizeof(h));
    memcpy(payload + sizeof(h), body, len);
    hostchan_ring_commit(s->ring, type, sizeof(h) + len);
    return 0;
}

static void stream_free(struct stream *s)
{
    for (int i = 0; i < s->nfiles; i++) {
        if (s->files[i].f)
            pfs_close(s->files[i].f);
        kfree(s->files[i].name);
        kfree(s->files[i].stage);
    }
    if (s->ring)
        hostchan_release(s->ring);
    kfree(s);
}

/* Ends the workers (they have stopped or must stop now) and waits for them. */
static void stream_join(struct stream *s)
{
    __atomic_store_n(&s->stopping, true, __ATOMIC_RELEASE);
    for (unsigned i = 0; i < s->nworkers; i++)
        kthread_join(s->workers[i].thread);
    s->nworkers = 0;
}

int hostchan_stream_start(struct shell_ctx *ctx, const char *cwd, int nfiles, char **files)
{
    if (nfiles > STREAM_MAX_FILES) {
        shell_eprintf(ctx, "xfer: at most %d files to follow\n", STREAM_MAX_FILES);
        return 1;
    }
    if (__atomic_load_n(&active_stream, __ATOMIC_ACQUIRE)) {
        shell_eprintf(ctx, "xfer: already following files (xfer -c --stop ends that)\n");
        return 1;
    }
    struct stream *s = kzalloc(sizeof(*s));
    if (!s) {
        shell_eprintf(ctx, "xfer: %s\n", strerror(ENOMEM));
        return 1;
    }
    wait_queue_init(&s->send_wait, "hostchan_stream");
    int err;
    s->ring = hostchan_acquire(&err);
    if (!s->ring) {
        if (err == -ENODEV)
            shell_eprintf(ctx, "xfer: no host channel: boot QEMU with -device ivshmem-plain\n");
        else
            shell_eprintf(ctx, "xfer: host channel: %s\n", strerror(-err));
        stream_free(s);
        return 1;
    }
    for (int i = 0; i < nfiles; i++) {
        struct stream_file *sf = &s->files[i];
        sf->name = kstrdup(files[i]);
        sf->stage = kmalloc(STREAM_STAGE);
        err = sf->name && sf->stage ? pfs_open(cwd, files[i], PFS_READ | PFS_NONBLOCK, &sf->f)
                                    : -ENOMEM;
        s->nfiles = i + 1;
        if (err) {
            shell_eprintf(ctx, "xfer: %s: %s\n", files[i], strerror(-err));
            stream_free(s);
            return 1;
        }
        sf->cpu = stream_file_cpu(files[i]);
        const char *base = strrchr(files[i], '/');
        sf->raw_pages = strcmp(base ? base + 1 : files[i], "trace_pipe_raw") == 0;
    }
    for (int i = 0; i < nfiles; i++) {
        err = stream_send_header(s, HOSTCHAN_STREAM_FILE, (uint32_t)i, files[i], strlen(files[i]));
        if (err) {
            shell_eprintf(ctx, "xfer: %s: host channel: %s\n", files[i], strerror(-err));
            stream_free(s);
            return err == -EINTR ? -EINTR : 1;
        }
    }
    for (int i = 0; i < nfiles; i++) {
        unsigned cpu = s->files[i].cpu;
        bool have = false;
        for (unsigned w = 0; w < s->nworkers; w++)
            have |= s->workers[w].cpu == cpu;
        if (have)
            continue;
        struct stream_worker *w = &s->workers[s->nworkers];
        char name[THREAD_NAME_LEN];
        snprintf(name, sizeof(name), "xfer/%u", cpu);
        w->s = s;
        w->cpu = cpu;
        w->thread = kthread_create(stream_worker_main, w, name, cpu);
        if (!w->thread) {
            shell_eprintf(ctx, "xfer: %s\n", strerror(ENOMEM));
            stream_join(s);
            stream_free(s);
            return 1;
        }
        /* Each tick it sleeps, its CPU's writers fill the buffer it drains: it must not
         * wait for their slices on top (work's threads are two a CPU: 20 ms, two thirds of
         * what a CPU's default buffer holds of the function tracer on work_*). */
        thread_set_preempt_on_wake(w->thread, true);
        s->nworkers++;
    }
    __atomic_store_n(&active_stream, s, __ATOMIC_RELEASE);
    return 0;
}

int hostchan_stream_stop(struct shell_ctx *ctx)
{
    struct stream *s = __atomic_exchange_n(&active_stream, NULL, __ATOMIC_ACQ_REL);
    if (!s) {
        shell_eprintf(ctx, "xfer: not following any file\n");
        return 1;
    }
    stream_join(s);
    int status = 0;
    uint64_t sent = 0;
    for (int i = 0; i < s->nfiles && !s->channel_err; i++) {
        struct stream_file *sf = &s->files[i];
        struct hostchan_stream_end end = {
            .id = (uint32_t)i, .status = sf->status, .total = sf->total};
        s->channel_err = hostchan_send(s->ring, HOSTCHAN_STREAM_END, &end, sizeof(end));
        sent += sf->total;
        if (sf->status) {
            shell_eprintf(ctx, "xfer: %s: %s\n", sf->name, strerror(-sf->status));
            status = 1;
        }
    }
    if (s->channel_err) {
        shell_eprintf(ctx, "xfer: host channel: %s\n", strerror(-s->channel_err));
        status = 1;
    } else {
        shell_printf(ctx, "xfer: %d files, %llu bytes\n", s->nfiles, (unsigned long long)sent);
    }
    stream_free(s);
    return status;
}
