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
 *
 * Times are CLOCK_MONOTONIC and the TSC, read around the whole loop or write: the host
 * driver subtracts a run without tracing from a run with it. The chunks exist for the
 * same reason fentros's `bench` rows time short samples: under an emulator on a busy
 * host the vCPU thread is descheduled now and then, and the guest's clocks run on. The
 * minimum and the median of short chunks leave those pauses out; a whole loop does not.
 *
 * Build: gcc -static -O2 -o syscall_loop syscall_loop.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "-w") == 0)
        return timed_write(argv[2], argv[3]);
    char *end = "";
    unsigned long calls = argc >= 2 ? strtoul(argv[1], &end, 10) : 0;
    unsigned long chunk = 20;
    if (argc == 3 && !*end)
        chunk = strtoul(argv[2], &end, 10);
    if (argc < 2 || argc > 3 || *end || chunk == 0 || calls < chunk) {
        fprintf(stderr, "usage: syscall_loop N [CHUNK] | syscall_loop -w FILE TEXT\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    return run_loop(calls, chunk);
}
