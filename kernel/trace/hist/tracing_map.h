/*
 * The histograms' table (tracing_map.c): a fixed-size map from a key of key_size bytes to an
 * element holding n_sums counters, in the manner of Linux's tracing_map.
 *
 * Everything is allocated when the map is made: 2^bits elements and twice as many slots.
 * An event inserts from any context (NMI included) without a lock and without allocating:
 * a slot is claimed with a compare-and-exchange of its key hash, an element is taken from
 * the preallocated array with one atomic add, and the element is published in the slot
 * only once its key is in place. When every element is taken, an insert of a new key
 * counts a drop and returns NULL; it never waits for another CPU (except, boundedly, for
 * one halfway through publishing the very key it is looking for).
 *
 * The counters an event only adds to (a histogram's hitcount and values) are kept per CPU:
 * each CPU adds to its own word with one unlocked instruction, and a read sums the CPUs'
 * words. A locked add on a word every CPU writes costs more than the rest of the insert
 * under emulation, and on hardware the line would bounce between CPUs.
 */
#ifndef KERNEL_TRACE_HIST_TRACING_MAP_H
#define KERNEL_TRACE_HIST_TRACING_MAP_H

#include <arch/local.h>
#include <kernel/compiler.h>
#include <kernel/percpu.h>

/* Linux's limits on a map's size: 2^7 .. 2^17 elements, 2^11 unless told. */
#define TRACING_MAP_BITS_MIN 7
#define TRACING_MAP_BITS_MAX 17
#define TRACING_MAP_BITS_DEFAULT 11

struct tracing_map_elt {
    uint32_t index;   /* in the element array: insertion order */
    uint16_t n_added; /* counters 0..n_added-1: added to only, one word per CPU each */
    uint16_t ncpus;   /* the CPUs those words are kept for */
    /* [cpu * n_added + i] for an added counter i, then the other counters in order */
    volatile uint64_t sums[];
};

/* Runs once on a new element with private data, before any other CPU can find it (ctx: the
 * inserter's). */
typedef void (*tracing_map_init_fn)(void *private_data, const void *key, void *ctx);

struct tracing_map;

/*
 * A map of 2^bits elements whose keys are key_size bytes (a multiple of 8), each with n_sums
 * counters, the first n_added of them only ever added to (tracing_map_add), and
 * private_size bytes of the user's own (filled by init on insertion). NULL when the memory
 * is not there. Process context.
 */
struct tracing_map *tracing_map_create(unsigned bits, unsigned key_size, unsigned n_added,
                                       unsigned n_sums, unsigned private_size,
                                       tracing_map_init_fn init);
void tracing_map_free(struct tracing_map *map);

/*
 * The element of key, made if new; NULL (counted in drops) when the table is full. Counts
 * a hit otherwise. Any context; ctx goes to init.
 */
struct tracing_map_elt *tracing_map_insert(struct tracing_map *map, const void *key, void *ctx);

/* The one word of counter i, one after the added ones. */
static __always_inline volatile uint64_t *tracing_map_word(const struct tracing_map_elt *elt,
                                                           unsigned i)
{
    return (volatile uint64_t *)&elt->sums[(unsigned)elt->ncpus * elt->n_added + i - elt->n_added];
}

/*
 * Adds v to counter i. An added counter: this CPU's word, with preemption off (as on the
 * event path), one add that an interrupt's add on the same word lands before or after.
 */
static __always_inline void tracing_map_add(struct tracing_map_elt *elt, unsigned i, uint64_t v)
{
    if (likely(i < elt->n_added))
        local_add((unsigned long *)&elt->sums[this_cpu_id() * elt->n_added + i], v);
    else
        __atomic_fetch_add(tracing_map_word(elt, i), v, __ATOMIC_RELAXED);
}
/* Variables live in counters after the added ones: set, not added. */
static inline void tracing_map_set(struct tracing_map_elt *elt, unsigned i, uint64_t v)
{
    __atomic_store_n(tracing_map_word(elt, i), v, __ATOMIC_RELAXED);
}
/* Takes the value (true) and leaves 0 behind, atomically: a variable read once. */
static inline uint64_t tracing_map_take(struct tracing_map_elt *elt, unsigned i)
{
    return __atomic_exchange_n(tracing_map_word(elt, i), 0, __ATOMIC_RELAXED);
}
/* Counter i: an added one summed over the CPUs' words. */
static inline uint64_t tracing_map_read(const struct tracing_map_elt *elt, unsigned i)
{
    if (i >= elt->n_added)
        return __atomic_load_n(tracing_map_word(elt, i), __ATOMIC_RELAXED);
    uint64_t sum = 0;
    for (unsigned c = 0; c < elt->ncpus; c++)
        sum += __atomic_load_n(&elt->sums[c * elt->n_added + i], __ATOMIC_RELAXED);
    return sum;
}

/* The element of key if there is one (no hit counted, nothing made). Any context. */
struct tracing_map_elt *tracing_map_lookup(const struct tracing_map *map, const void *key);

const void *tracing_map_key(const struct tracing_map *map, const struct tracing_map_elt *elt);
void *tracing_map_private(const struct tracing_map *map, const struct tracing_map_elt *elt);

/* Up to max published elements into out, in insertion order; returns how many. */
size_t tracing_map_entries(const struct tracing_map *map, struct tracing_map_elt **out, size_t max);
unsigned tracing_map_max_elts(const struct tracing_map *map);
unsigned tracing_map_bits(const struct tracing_map *map);
uint64_t tracing_map_hits(const struct tracing_map *map);
uint64_t tracing_map_drops(const struct tracing_map *map);

/* Empties the map and its counts. The caller makes sure no insert is running. */
void tracing_map_clear(struct tracing_map *map);

#endif
