/*
 * Self-tests of the histograms' map: one table hammered from every CPU at once, whose
 * hitcounts and sums must come out exact, and a full table that counts every refused
 * insert as a drop.
 */
#include <kernel/percpu.h>
#include <kernel/selftest.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/string.h>

#include "tracing_map.h"

/* Keys of two words, as a compound key is: the number and a tag from it. */
struct map_test_key {
    uint64_t n, tag;
};

#define MAP_KEYS 300     /* more keys than the first slots they hash to: probes collide */
#define MAP_ROUNDS 20000 /* inserts per CPU */

static struct {
    struct tracing_map *map;
    volatile unsigned ready, go;
    unsigned ncpus;
    volatile unsigned long inits;
} map_test;

static void map_test_key_of(unsigned i, struct map_test_key *k)
{
    k->n = i;
    k->tag = (uint64_t)i * 0x10001 + 7;
}

/* The private part: a copy of the key's number, to show init runs before publication. */
static void map_test_init(void *priv, const void *key, void *ctx)
{
    *(uint64_t *)priv = ((const struct map_test_key *)key)->n;
    __atomic_fetch_add(&map_test.inits, 1, __ATOMIC_RELAXED);
}

static int map_test_writer(void *arg)
{
    unsigned cpu = (unsigned)(uintptr_t)arg;
    __atomic_fetch_add(&map_test.ready, 1, __ATOMIC_SEQ_CST);
    while (!READ_ONCE(map_test.go))
        ;
    for (unsigned r = 0; r < MAP_ROUNDS; r++) {
        /* Every CPU walks the keys from a different place, so new keys race. */
        unsigned i = (r + cpu * 37) % MAP_KEYS;
        struct map_test_key k;
        map_test_key_of(i, &k);
        preempt_disable();
        struct tracing_map_elt *elt = tracing_map_insert(map_test.map, &k, NULL);
        if (elt) {
            tracing_map_add(elt, 0, 1);
            tracing_map_add(elt, 1, i);
            tracing_map_add(elt, 2, cpu + 1);
        }
        preempt_enable();
    }
    return 0;
}

/* What one CPU adds to key i: how many times it inserts it, and the cpu+1 sum. */
static unsigned map_test_expected_hits(unsigned i, unsigned cpu)
{
    unsigned hits = 0;
    for (unsigned r = 0; r < MAP_ROUNDS; r++)
        hits += (r + cpu * 37) % MAP_KEYS == i;
    return hits;
}

static unsigned map_test_run(unsigned bits)
{
    map_test.map = tracing_map_create(bits, sizeof(struct map_test_key), 3, 3, 8, map_test_init);
    if (!map_test.map)
        return 0;
    map_test.ready = map_test.go = 0;
    map_test.inits = 0;
    struct thread *writers[MAX_CPUS] = {0};
    cpumask_t online = cpu_online_mask();
    unsigned n = 0;
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if ((online >> cpu) & 1) {
            writers[cpu] = kthread_create(map_test_writer, (void *)(uintptr_t)cpu, "map_test", cpu);
            n += writers[cpu] != NULL;
        }
    while (READ_ONCE(map_test.ready) < n)
        sleep_ns(1000000);
    WRITE_ONCE(map_test.go, 1);
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (writers[cpu])
            kthread_join(writers[cpu]);
    return n;
}

SELFTEST(tracing_map_every_cpu_exact)
{
    unsigned ncpus = map_test_run(TRACING_MAP_BITS_DEFAULT);
    struct tracing_map *map = map_test.map;
    ASSERT_NOT_NULL(map);
    EXPECT(ncpus > 0);
    EXPECT_EQ(tracing_map_drops(map), 0);
    EXPECT_EQ(tracing_map_hits(map), (uint64_t)ncpus * MAP_ROUNDS);
    static struct tracing_map_elt *elts[MAP_KEYS + 1];
    size_t n = tracing_map_entries(map, elts, MAP_KEYS + 1);
    EXPECT_EQ(n, MAP_KEYS);
    EXPECT_EQ(map_test.inits, MAP_KEYS);
    cpumask_t online = cpu_online_mask();
    unsigned bad = 0;
    uint64_t total = 0;
    for (size_t e = 0; e < n; e++) {
        const struct map_test_key *k = tracing_map_key(map, elts[e]);
        unsigned i = (unsigned)k->n;
        uint64_t want_hits = 0, want_cpus = 0;
        for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
            if (!((online >> cpu) & 1))
                continue;
            unsigned h = map_test_expected_hits(i, cpu);
            want_hits += h;
            want_cpus += (uint64_t)h * (cpu + 1);
        }
        bad += k->tag != (uint64_t)i * 0x10001 + 7;
        bad += *(uint64_t *)tracing_map_private(map, elts[e]) != i;
        bad += tracing_map_read(elts[e], 0) != want_hits;
        bad += tracing_map_read(elts[e], 1) != want_hits * i;
        bad += tracing_map_read(elts[e], 2) != want_cpus;
        bad += e > 0 && elts[e]->index <= elts[e - 1]->index;
        total += tracing_map_read(elts[e], 0);
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(total, (uint64_t)ncpus * MAP_ROUNDS);

    /* Cleared, it starts again from nothing. */
    tracing_map_clear(map);
    EXPECT_EQ(tracing_map_entries(map, elts, MAP_KEYS + 1), 0);
    EXPECT_EQ(tracing_map_hits(map) + tracing_map_drops(map), 0);
    struct map_test_key k;
    map_test_key_of(5, &k);
    struct tracing_map_elt *elt = tracing_map_insert(map, &k, NULL);
    EXPECT(elt != NULL && tracing_map_read(elt, 0) == 0 && tracing_map_read(elt, 1) == 0);
    tracing_map_free(map);
}

/* 300 keys into 128 elements: exactly 128 get in; every insert of another is a drop. */
SELFTEST(tracing_map_full_counts_drops)
{
    unsigned ncpus = map_test_run(TRACING_MAP_BITS_MIN);
    struct tracing_map *map = map_test.map;
    ASSERT_NOT_NULL(map);
    static struct tracing_map_elt *elts[MAP_KEYS + 1];
    size_t n = tracing_map_entries(map, elts, MAP_KEYS + 1);
    EXPECT_EQ(n, 1u << TRACING_MAP_BITS_MIN);
    uint64_t in_table = 0;
    for (size_t e = 0; e < n; e++)
        in_table += tracing_map_read(elts[e], 0);
    EXPECT_EQ(in_table, tracing_map_hits(map));
    EXPECT_EQ(tracing_map_hits(map) + tracing_map_drops(map), (uint64_t)ncpus * MAP_ROUNDS);
    EXPECT(tracing_map_drops(map) > 0);
    tracing_map_free(map);

    /* Sizes outside Linux's bounds and keys that are not whole words are refused. */
    EXPECT(tracing_map_create(TRACING_MAP_BITS_MIN - 1, 8, 1, 1, 0, NULL) == NULL);
    EXPECT(tracing_map_create(TRACING_MAP_BITS_MAX + 1, 8, 1, 1, 0, NULL) == NULL);
    EXPECT(tracing_map_create(TRACING_MAP_BITS_MIN, 12, 1, 1, 0, NULL) == NULL);
}
