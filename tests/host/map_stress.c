/*
 * Host stress test of kernel/trace/hist/tracing_map.c, compiled unchanged against the
 * kernel's headers. Each thread is a CPU (its GS base points at its own struct percpu, so
 * this_cpu_id() works as in the kernel) and inserts keys into one shared map as fast as it
 * can, adding to three counters; the keys race (every thread starts at another place of the
 * same key set). Rounds alternate between a map with room for every key, whose hitcounts,
 * sums and private data must come out exact, and a full one (more keys than elements),
 * whose hits and drops must add up to the inserts and whose entries to its hits. Run under
 * ASan/UBSan and ThreadSanitizer by the Makefile.
 *
 *   make -C tests/host map_stress && tests/host/map_stress [-t seconds] [-w threads]
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* glibc's <sys/cdefs.h> and the kernel's compiler.h both define this one. */
#undef __always_inline
#include <kernel/percpu.h>

#include "hist/tracing_map.h"

#define MAX_THREADS 16
#define KEYS 700

/* ---- kernel shims: the heap is malloc's ---- */

void *kmalloc(size_t size) { return malloc(size ? size : 1); }
void *kzalloc(size_t size) { return calloc(1, size ? size : 1); }
void kfree(void *p) { free(p); }

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "map_stress: FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* Each thread is a CPU (set_cpu): the map keeps a word per CPU for its added counters. */
unsigned cpus_online = MAX_THREADS;

static void set_cpu(struct percpu *pc, unsigned cpu)
{
    memset(pc, 0, sizeof(*pc));
    pc->self = pc;
    pc->cpu = cpu;
    if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)pc) != 0)
        fail("arch_prctl(ARCH_SET_GS) failed");
    if (this_cpu_id() != cpu)
        fail("this_cpu_id() does not read the GS base");
}

/* ---- one round ---- */

struct key {
    uint64_t n, tag;
};

static struct {
    struct tracing_map *map;
    unsigned threads, inserts;
    _Atomic unsigned ready;
    _Atomic int go;
} round_;

static void key_of(unsigned i, struct key *k)
{
    k->n = i;
    k->tag = i * 0x9e3779b97f4a7c15ull;
}

static void init_private(void *priv, const void *key, void *ctx)
{
    (void)ctx;
    *(uint64_t *)priv = ((const struct key *)key)->n ^ 0x5a5a;
}

static unsigned key_at(unsigned r, unsigned cpu) { return (r + cpu * 101) % KEYS; }

static void *worker(void *arg)
{
    unsigned cpu = (unsigned)(uintptr_t)arg;
    struct percpu pc;
    set_cpu(&pc, cpu);
    atomic_fetch_add(&round_.ready, 1);
    while (!atomic_load(&round_.go))
        ;
    for (unsigned r = 0; r < round_.inserts; r++) {
        unsigned i = key_at(r, cpu);
        struct key k;
        key_of(i, &k);
        struct tracing_map_elt *elt = tracing_map_insert(round_.map, &k, NULL);
        if (elt) {
            tracing_map_add(elt, 0, 1);
            tracing_map_add(elt, 1, i);
            tracing_map_add(elt, 2, cpu + 1);
        }
    }
    return NULL;
}

static void run_round(unsigned bits, unsigned threads, unsigned inserts)
{
    round_.map = tracing_map_create(bits, sizeof(struct key), 3, 3, 8, init_private);
    if (!round_.map)
        fail("tracing_map_create(%u) failed", bits);
    round_.threads = threads;
    round_.inserts = inserts;
    atomic_store(&round_.ready, 0);
    atomic_store(&round_.go, 0);
    pthread_t t[MAX_THREADS];
    for (unsigned c = 0; c < threads; c++)
        if (pthread_create(&t[c], NULL, worker, (void *)(uintptr_t)c))
            fail("pthread_create");
    while (atomic_load(&round_.ready) < threads)
        ;
    atomic_store(&round_.go, 1);
    for (unsigned c = 0; c < threads; c++)
        pthread_join(t[c], NULL);

    struct tracing_map *map = round_.map;
    static struct tracing_map_elt *elts[1u << TRACING_MAP_BITS_MAX];
    size_t n = tracing_map_entries(map, elts, sizeof(elts) / sizeof(elts[0]));
    uint64_t total = (uint64_t)threads * inserts, in_table = 0;
    for (size_t e = 0; e < n; e++) {
        const struct key *k = tracing_map_key(map, elts[e]);
        if (k->tag != k->n * 0x9e3779b97f4a7c15ull)
            fail("entry %zu: torn key", e);
        if (*(uint64_t *)tracing_map_private(map, elts[e]) != (k->n ^ 0x5a5a))
            fail("entry %zu: private data not made before publication", e);
        in_table += tracing_map_read(elts[e], 0);
    }
    if (tracing_map_hits(map) + tracing_map_drops(map) != total)
        fail("hits %llu + drops %llu != %llu inserts", (unsigned long long)tracing_map_hits(map),
             (unsigned long long)tracing_map_drops(map), (unsigned long long)total);
    if (in_table != tracing_map_hits(map))
        fail("entries hold %llu hits, the map counted %llu", (unsigned long long)in_table,
             (unsigned long long)tracing_map_hits(map));
    if ((1u << bits) >= KEYS) {
        /* Room for all: nothing dropped, and each key's counters exact. */
        if (tracing_map_drops(map) || n != KEYS)
            fail("room for every key, yet %zu entries and %llu drops", n,
                 (unsigned long long)tracing_map_drops(map));
        for (size_t e = 0; e < n; e++) {
            unsigned i = (unsigned)((const struct key *)tracing_map_key(map, elts[e]))->n;
            uint64_t hits = 0, cpus = 0;
            for (unsigned c = 0; c < threads; c++)
                for (unsigned r = 0; r < inserts; r++)
                    if (key_at(r, c) == i) {
                        hits++;
                        cpus += c + 1;
                    }
            if (tracing_map_read(elts[e], 0) != hits || tracing_map_read(elts[e], 1) != hits * i ||
                tracing_map_read(elts[e], 2) != cpus)
                fail("key %u: counters wrong", i);
        }
    } else if (n != (1u << bits) || !tracing_map_drops(map)) {
        fail("a full map of %u has %zu entries and %llu drops", 1u << bits, n,
             (unsigned long long)tracing_map_drops(map));
    }
    tracing_map_free(map);
}

int main(int argc, char **argv)
{
    double seconds = 5;
    unsigned threads = 4;
    int opt;
    while ((opt = getopt(argc, argv, "t:w:")) != -1) {
        if (opt == 't')
            seconds = atof(optarg);
        else if (opt == 'w')
            threads = (unsigned)atoi(optarg);
        else
            fail("usage: map_stress [-t seconds] [-w threads]");
    }
    if (threads < 1 || threads > MAX_THREADS)
        fail("1 to %d threads", MAX_THREADS);
    struct percpu main_pc;
    set_cpu(&main_pc, MAX_THREADS);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned rounds = 0;
    do {
        run_round(rounds % 2 ? TRACING_MAP_BITS_MIN + 2 : TRACING_MAP_BITS_DEFAULT, threads, 20000);
        rounds++;
        clock_gettime(CLOCK_MONOTONIC, &t1);
    } while ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
    printf("map_stress: %u rounds of %u threads x 20000 inserts: ok\n", rounds, threads);
    return 0;
}
