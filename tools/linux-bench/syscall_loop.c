/*
 * The guest side of `make bench-linux`: a static program run inside Debian's Linux.
 *
 *   syscall_loop N [CHUNK]          N getppid() system calls in a tight loop, pinned to
 *                                   CPU 0, timed in chunks of CHUNK calls (default 20);
 *                                   prints "loop calls=N chunk=CHUNK ns=... cycles=...
 *                                   chunk_min=... chunk_median=..." (chunk times in TSC
 *                                   cycles)
 *   syscall_loop -w FILE TEXT       one open+write+close of TEXT to FILE (a tracefs file
 *                                   such as current_tracer); prints "write ns=... cycles=..."
 *                                   and exits 1 if the write failed
 *   syscall_loop -n N FILE TEXT     FILE opened once, then N write()s of TEXT to it (such as
 *                                   `1` to snapshot: a swap each), pinned to CPU 0, each
 *                                   write timed; prints "writes n=N ns=... cycles=...
 *                                   min=... median=..." (per write, in TSC cycles) and exits
 *                                   1 if a write failed
 *   syscall_loop -p N [CHUNK]       N round trips between two threads of this process over two
 *                                   pipes: each writes a byte that wakes the other, then
 *                                   blocks reading. Both are named bench_pingpong, pinned to
 *                                   CPU 0 and SCHED_FIFO at priority 1, so that a wakeup never
 *                                   preempts the waker: a round trip is two wakeups and two
 *                                   switches, within one address space as fentros's kernel
 *                                   threads. Timed in chunks of CHUNK round trips (default
 *                                   20); prints "pingpong trips=N chunk=CHUNK ns=... cycles=...
 *                                   chunk_min=... chunk_median=..."
 *
 * Times are CLOCK_MONOTONIC and the TSC, read around the whole loop or write: the host
 * driver subtracts a run without tracing from a run with it. The chunks exist for the
 * same reason fentros's `bench` rows time short samples: under an emulator on a busy
 * host the vCPU thread is descheduled now and then, and the guest's clocks run on. The
 * minimum and the median of short chunks leave those pauses out; a whole loop does not.
 *
 * Build: gcc -static -O2 -pthread -o syscall_loop syscall_loop.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* One CPU for the whole loop: events land in one per-CPU buffer, and a migration does
 * not land in the middle of a measurement. */
static void pin_to_cpu0(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0)
        fprintf(stderr, "syscall_loop: sched_setaffinity: %s\n", strerror(errno));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int run_loop(unsigned long calls, unsigned long chunk)
{
    unsigned long chunks = calls / chunk;
    uint64_t *samples = calloc(chunks, sizeof(*samples));
    if (!samples) {
        fprintf(stderr, "syscall_loop: out of memory\n");
        return 1;
    }
    pin_to_cpu0();
    /* syscall() rather than getppid(): no C library may answer it from a cache. */
    syscall(SYS_getppid);
    uint64_t t0 = now_ns(), c0 = rdtsc();
    for (unsigned long c = 0; c < chunks; c++) {
        uint64_t start = rdtsc();
        for (unsigned long i = 0; i < chunk; i++)
            syscall(SYS_getppid);
        samples[c] = rdtsc() - start;
    }
    uint64_t c1 = rdtsc(), t1 = now_ns();
    qsort(samples, chunks, sizeof(*samples), cmp_u64);
    printf("loop calls=%lu chunk=%lu ns=%llu cycles=%llu chunk_min=%llu chunk_median=%llu\n",
           chunks * chunk, chunk, (unsigned long long)(t1 - t0), (unsigned long long)(c1 - c0),
           (unsigned long long)samples[0], (unsigned long long)samples[chunks / 2]);
    free(samples);
    return 0;
}

static int timed_write(const char *path, const char *text)
{
    size_t len = strlen(text);
    uint64_t t0 = now_ns(), c0 = rdtsc();
    int fd = open(path, O_WRONLY | O_TRUNC);
    ssize_t n = fd >= 0 ? write(fd, text, len) : -1;
    int err = n < 0 ? errno : 0;
    if (fd >= 0 && close(fd) != 0 && !err)
        err = errno;
    uint64_t c1 = rdtsc(), t1 = now_ns();
    if (err || (size_t)n != len) {
        fprintf(stderr, "syscall_loop: write %s: %s\n", path, strerror(err ? err : EIO));
        return 1;
    }
    printf("write ns=%llu cycles=%llu\n", (unsigned long long)(t1 - t0),
           (unsigned long long)(c1 - c0));
    return 0;
}

static int repeated_write(unsigned long n, const char *path, const char *text)
{
    size_t len = strlen(text);
    uint64_t *samples = calloc(n, sizeof(*samples));
    if (!samples) {
        fprintf(stderr, "syscall_loop: out of memory\n");
        return 1;
    }
    pin_to_cpu0();
    /* Opened once: each write is the operation measured, as fentros's snapshot.write. */
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        fprintf(stderr, "syscall_loop: open %s: %s\n", path, strerror(errno));
        free(samples);
        return 1;
    }
    int err = 0;
    uint64_t t0 = now_ns(), c0 = rdtsc();
    for (unsigned long i = 0; i < n && !err; i++) {
        uint64_t start = rdtsc();
        ssize_t done = write(fd, text, len);
        samples[i] = rdtsc() - start;
        if (done != (ssize_t)len)
            err = done < 0 ? errno : EIO;
    }
    uint64_t c1 = rdtsc(), t1 = now_ns();
    close(fd);
    if (err) {
        fprintf(stderr, "syscall_loop: write %s: %s\n", path, strerror(err));
        free(samples);
        return 1;
    }
    qsort(samples, n, sizeof(*samples), cmp_u64);
    printf("writes n=%lu ns=%llu cycles=%llu min=%llu median=%llu\n", n,
           (unsigned long long)(t1 - t0), (unsigned long long)(c1 - c0),
           (unsigned long long)samples[0], (unsigned long long)samples[n / 2]);
    free(samples);
    return 0;
}

/* One byte to fd, then one from the other pipe: the peer woken, this process asleep. */
static int pass_turn(int out, int in)
{
    char c = 0;
    return write(out, &c, 1) == 1 && read(in, &c, 1) == 1 ? 0 : -1;
}

static int to_echo[2], from_echo[2];

/* The other thread: every byte back until the timing thread closes its end. */
static void *echo_bytes(void *arg)
{
    char c;
    (void)arg;
    while (read(to_echo[0], &c, 1) == 1)
        if (write(from_echo[1], &c, 1) != 1)
            return (void *)1;
    return NULL;
}

static int run_pingpong(unsigned long trips, unsigned long chunk)
{
    unsigned long chunks = trips / chunk;
    uint64_t *samples = calloc(chunks, sizeof(*samples));
    if (!samples || pipe(to_echo) != 0 || pipe(from_echo) != 0) {
        fprintf(stderr, "syscall_loop: %s\n", samples ? strerror(errno) : "out of memory");
        return 1;
    }
    /* Inherited by the echo thread: the same CPU, name and policy for both. */
    pin_to_cpu0();
    prctl(PR_SET_NAME, "bench_pingpong");
    struct sched_param param = {.sched_priority = 1};
    if (sched_setscheduler(0, SCHED_FIFO, &param) != 0)
        fprintf(stderr, "syscall_loop: sched_setscheduler: %s\n", strerror(errno));
    pthread_t echo;
    int err = pthread_create(&echo, NULL, echo_bytes, NULL);
    if (err) {
        fprintf(stderr, "syscall_loop: pthread_create: %s\n", strerror(err));
        return 1;
    }
    int failed = 0;
    /* One untimed chunk first: both processes have run. */
    for (unsigned long i = 0; i < chunk && !failed; i++)
        failed = pass_turn(to_echo[1], from_echo[0]);
    uint64_t t0 = now_ns(), c0 = rdtsc();
    for (unsigned long c = 0; c < chunks && !failed; c++) {
        uint64_t start = rdtsc();
        for (unsigned long i = 0; i < chunk && !failed; i++)
            failed = pass_turn(to_echo[1], from_echo[0]);
        samples[c] = rdtsc() - start;
    }
    uint64_t c1 = rdtsc(), t1 = now_ns();
    close(to_echo[1]);
    void *echo_failed = NULL;
    pthread_join(echo, &echo_failed);
    if (failed || echo_failed) {
        fprintf(stderr, "syscall_loop: the ping-pong stopped before its end\n");
        free(samples);
        return 1;
    }
    qsort(samples, chunks, sizeof(*samples), cmp_u64);
    printf("pingpong trips=%lu chunk=%lu ns=%llu cycles=%llu chunk_min=%llu chunk_median=%llu\n",
           chunks * chunk, chunk, (unsigned long long)(t1 - t0), (unsigned long long)(c1 - c0),
           (unsigned long long)samples[0], (unsigned long long)samples[chunks / 2]);
    free(samples);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: syscall_loop N [CHUNK] | syscall_loop -w FILE TEXT | "
                    "syscall_loop -n N FILE TEXT | syscall_loop -p N [CHUNK]\n");
    return 2;
}

int main(int argc, char **argv)
{
    char *end = "";
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 4 && strcmp(argv[1], "-w") == 0)
        return timed_write(argv[2], argv[3]);
    if (argc == 5 && strcmp(argv[1], "-n") == 0) {
        unsigned long n = strtoul(argv[2], &end, 10);
        return *end || n == 0 ? usage() : repeated_write(n, argv[3], argv[4]);
    }
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "-p") == 0) {
        unsigned long trips = strtoul(argv[2], &end, 10), chunk = 20;
        if (argc == 4 && !*end)
            chunk = strtoul(argv[3], &end, 10);
        return *end || chunk == 0 || trips < chunk ? usage() : run_pingpong(trips, chunk);
    }
    unsigned long calls = argc >= 2 ? strtoul(argv[1], &end, 10) : 0;
    unsigned long chunk = 20;
    if (argc == 3 && !*end)
        chunk = strtoul(argv[2], &end, 10);
    if (argc < 2 || argc > 3 || *end || chunk == 0 || calls < chunk)
        return usage();
    return run_loop(calls, chunk);
}
