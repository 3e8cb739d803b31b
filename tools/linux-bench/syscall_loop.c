/*
 * The guest side of `make bench-linux`: a static program run inside Debian's Linux.
 *
 *   syscall_loop N                  N getppid() system calls in a tight loop, pinned to
 *                                   CPU 0; prints "loop calls=N ns=... cycles=..."
 *   syscall_loop -w FILE TEXT       one open+write+close of TEXT to FILE (a tracefs file
 *                                   such as current_tracer); prints "write ns=... cycles=..."
 *                                   and exits 1 if the write failed
 *
 * Times are CLOCK_MONOTONIC and the TSC, read around the whole loop or write: the host
 * driver subtracts a run without tracing from a run with it.
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

static int run_loop(unsigned long calls)
{
    pin_to_cpu0();
    /* syscall() rather than getppid(): no C library may answer it from a cache. */
    syscall(SYS_getppid);
    uint64_t t0 = now_ns(), c0 = rdtsc();
    for (unsigned long i = 0; i < calls; i++)
        syscall(SYS_getppid);
    uint64_t c1 = rdtsc(), t1 = now_ns();
    printf("loop calls=%lu ns=%llu cycles=%llu\n", calls, (unsigned long long)(t1 - t0),
           (unsigned long long)(c1 - c0));
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
    char *end;
    unsigned long calls = argc == 2 ? strtoul(argv[1], &end, 10) : 0;
    if (argc != 2 || *end || calls == 0) {
        fprintf(stderr, "usage: syscall_loop N | syscall_loop -w FILE TEXT\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    return run_loop(calls);
}
