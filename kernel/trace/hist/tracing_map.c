/*
 * The histograms' lock-free map (tracing_map.h says what it promises).
 *
 * Open addressing over 2^(bits+1) slots, so the table is at most half full and probes stay
 * short. A slot holds a 32-bit key hash (0: free) and the index + 1 of its element. Slots go from
 * free to claimed to published and never back while the map is in use (only a claim that finds no
 * element left is undone), so a probe for a key that is in the table always meets it before a free
 * slot; two CPUs inserting the same new key at once both see the hash the first one claimed, and
 * the second waits for its element.
 */
#include <arch/cpu.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <lib/sort.h>
#include <lib/string.h>

#include "trace_hot.h"
#include "tracing_map.h"

/*
 * A slot is one 64-bit word, so that a claim says who made it: the low half is the key hash,
 * the high half the element's index + 1 once published, or SLOT_CLAIMED | cpu before.
 */
#define SLOT_CLAIMED 0x80000000u
struct tracing_map_slot {
    volatile uint64_t word;
};
static inline uint32_t slot_hash(uint64_t w) { return (uint32_t)w; }
static inline uint32_t slot_elt(uint64_t w) { return (uint32_t)(w >> 32); }

struct tracing_map {
    unsigned bits, max_elts, n_slots;
    unsigned key_size, n_added, n_sums, ncpus, private_size;
    size_t elt_size;
    size_t key_offset, private_offset; /* within an element */
    tracing_map_init_fn init;
    struct tracing_map_slot *slots;
    uint8_t *elts;
    volatile unsigned next_elt;
    /* Per CPU, as the added counters (tracing_map.h): each CPU counts in its own word. */
    uint64_t hits[MAX_CPUS], drops[MAX_CPUS];
};

/* Pauses an insert waits for another CPU to publish the key it wants (about a second). */
#define TRACING_MAP_WAIT_MAX (1ul << 26)

static size_t round_up8(size_t n) { return (n + 7) & ~(size_t)7; }

struct tracing_map *tracing_map_create(unsigned bits, unsigned key_size, unsigned n_added,
                                       unsigned n_sums, unsigned private_size,
                                       tracing_map_init_fn init)
{
    if (bits < TRACING_MAP_BITS_MIN || bits > TRACING_MAP_BITS_MAX || !key_size || key_size % 8 ||
        n_added > n_sums || n_added > 0xffff)
        return NULL;
    struct tracing_map *map = kzalloc(sizeof(*map));
    if (!map)
        return NULL;
    map->bits = bits;
    map->max_elts = 1u << bits;
    map->n_slots = 2u << bits;
    map->key_size = key_size;
    map->n_added = n_added;
    map->n_sums = n_sums;
    map->ncpus = READ_ONCE(cpus_online);
    map->private_size = private_size;
    map->init = init;
    size_t words = (size_t)n_added * map->ncpus + (n_sums - n_added);
    map->key_offset = sizeof(struct tracing_map_elt) + words * sizeof(uint64_t);
    map->private_offset = map->key_offset + key_size;
    map->elt_size = round_up8(map->private_offset + private_size);
    map->slots = kzalloc(map->n_slots * sizeof(struct tracing_map_slot));
    map->elts = kzalloc(map->max_elts * map->elt_size);
    if (!map->slots || !map->elts) {
        tracing_map_free(map);
        return NULL;
    }
    for (unsigned i = 0; i < map->max_elts; i++) {
        struct tracing_map_elt *elt = (struct tracing_map_elt *)(map->elts + i * map->elt_size);
        elt->index = i;
        elt->n_added = (uint16_t)n_added;
        elt->ncpus = (uint16_t)map->ncpus;
    }
    return map;
}

void tracing_map_free(struct tracing_map *map)
{
    if (!map)
        return;
    kfree(map->slots);
    kfree(map->elts);
    kfree(map);
}

static struct tracing_map_elt *elt_at(const struct tracing_map *map, unsigned i)
{
    return (struct tracing_map_elt *)(map->elts + (size_t)i * map->elt_size);
}

const void *tracing_map_key(const struct tracing_map *map, const struct tracing_map_elt *elt)
{
    return (const uint8_t *)elt + map->key_offset;
}

void *tracing_map_private(const struct tracing_map *map, const struct tracing_map_elt *elt)
{
    return (uint8_t *)elt + map->private_offset;
}

/* 64-bit words mixed as in a multiply-xorshift hash, folded to 32 bits; never 0. */
__trace_hot_trigger static uint32_t key_hash(const void *key, unsigned size)
{
    const uint64_t *w = key;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ size;
    for (unsigned i = 0; i < size / 8; i++) {
        h ^= w[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
    }
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    uint32_t folded = (uint32_t)(h ^ (h >> 32));
    return folded ? folded : 1;
}

/* Keys are whole words (tracing_map_create): compared and copied a word at a time. */
static bool keys_equal(const void *a, const void *b, unsigned size)
{
    const uint64_t *x = a, *y = b;
    for (unsigned i = 0; i < size / 8; i++)
        if (x[i] != y[i])
            return false;
    return true;
}

static void key_copy(void *dst, const void *src, unsigned size)
{
    uint64_t *d = dst;
    const uint64_t *s = src;
    for (unsigned i = 0; i < size / 8; i++)
        d[i] = s[i];
}

__trace_hot_trigger struct tracing_map_elt *tracing_map_insert(struct tracing_map *map,
                                                               const void *key, void *ctx)
{
    uint32_t hash = key_hash(key, map->key_size);
    unsigned mask = map->n_slots - 1, idx = hash & mask, probes = 0;
    unsigned long waits = 0;
    while (probes < map->n_slots) {
        struct tracing_map_slot *slot = &map->slots[idx];
        uint64_t seen = __atomic_load_n(&slot->word, __ATOMIC_ACQUIRE);
        if (slot_hash(seen) == hash) {
            uint32_t e = slot_elt(seen);
            if (e & SLOT_CLAIMED) {
                /* Another insert of a key with this hash is copying its key in. If it is
                 * the one this CPU interrupted, it cannot finish before we do: give up.
                 * Another CPU's finishes within its event (preemption is off there); the
                 * bound is for a CPU that stopped for good. */
                if ((e & ~SLOT_CLAIMED) == this_cpu_id() || ++waits > TRACING_MAP_WAIT_MAX)
                    break;
                arch_cpu_relax();
                continue;
            }
            if (e - 1 >= map->max_elts)
                break;
            struct tracing_map_elt *elt = elt_at(map, e - 1);
            if (keys_equal(tracing_map_key(map, elt), key, map->key_size)) {
                local_inc((unsigned long *)&map->hits[this_cpu_id()]);
                return elt;
            }
        } else if (seen == 0) {
            uint64_t expect = 0;
            uint64_t claim = hash | (uint64_t)(SLOT_CLAIMED | this_cpu_id()) << 32;
            if (!__atomic_compare_exchange_n(&slot->word, &expect, claim, false, __ATOMIC_ACQ_REL,
                                             __ATOMIC_ACQUIRE))
                continue; /* someone else took it: look at what they put there */
            unsigned n = __atomic_fetch_add(&map->next_elt, 1, __ATOMIC_RELAXED);
            if (n >= map->max_elts) {
                /* Full. The slot goes back, so that it is no different from one never
                 * claimed; inserts waiting on it see it free and find no element either. */
                __atomic_store_n(&slot->word, 0, __ATOMIC_RELEASE);
                break;
            }
            struct tracing_map_elt *elt = elt_at(map, n);
            key_copy((uint8_t *)elt + map->key_offset, key, map->key_size);
            if (map->init && map->private_size)
                map->init(tracing_map_private(map, elt), key, ctx);
            __atomic_store_n(&slot->word, hash | (uint64_t)(n + 1) << 32, __ATOMIC_RELEASE);
            local_inc((unsigned long *)&map->hits[this_cpu_id()]);
            return elt;
        }
        idx = (idx + 1) & mask;
        probes++;
    }
    local_inc((unsigned long *)&map->drops[this_cpu_id()]);
    return NULL;
}

struct tracing_map_elt *tracing_map_lookup(const struct tracing_map *map, const void *key)
{
    uint32_t hash = key_hash(key, map->key_size);
    unsigned mask = map->n_slots - 1, idx = hash & mask;
    for (unsigned probes = 0; probes < map->n_slots; probes++, idx = (idx + 1) & mask) {
        uint64_t seen = __atomic_load_n(&map->slots[idx].word, __ATOMIC_ACQUIRE);
        if (seen == 0)
            return NULL; /* a key in the table is met before any free slot */
        uint32_t e = slot_elt(seen);
        /* The bound is for a lookup racing tracing_map_clear's memset (a reference to
         * another trigger's variables may run while that trigger is being cleared). */
        if (slot_hash(seen) != hash || (e & SLOT_CLAIMED) || e - 1 >= map->max_elts)
            continue;
        struct tracing_map_elt *elt = elt_at(map, e - 1);
        if (keys_equal(tracing_map_key(map, elt), key, map->key_size))
            return elt;
    }
    return NULL;
}

static int elt_index_cmp(const void *a, const void *b)
{
    const struct tracing_map_elt *x = *(struct tracing_map_elt *const *)a;
    const struct tracing_map_elt *y = *(struct tracing_map_elt *const *)b;
    return x->index < y->index ? -1 : x->index > y->index;
}

size_t tracing_map_entries(const struct tracing_map *map, struct tracing_map_elt **out, size_t max)
{
    size_t n = 0;
    unsigned used = __atomic_load_n(&map->next_elt, __ATOMIC_ACQUIRE);
    if (used > map->max_elts)
        used = map->max_elts;
    /* Slot order is hash order; callers want insertion order, the element array's. */
    for (unsigned i = 0; i < map->n_slots && n < max; i++) {
        uint32_t e = slot_elt(__atomic_load_n(&map->slots[i].word, __ATOMIC_ACQUIRE));
        if (e && !(e & SLOT_CLAIMED) && e - 1 < used)
            out[n++] = elt_at(map, e - 1);
    }
    sort(out, n, sizeof(*out), elt_index_cmp);
    return n;
}

unsigned tracing_map_max_elts(const struct tracing_map *map) { return map->max_elts; }
unsigned tracing_map_bits(const struct tracing_map *map) { return map->bits; }
static uint64_t cpus_sum(const uint64_t *words)
{
    uint64_t sum = 0;
    for (unsigned c = 0; c < MAX_CPUS; c++)
        sum += READ_ONCE(words[c]);
    return sum;
}

uint64_t tracing_map_hits(const struct tracing_map *map) { return cpus_sum(map->hits); }
uint64_t tracing_map_drops(const struct tracing_map *map) { return cpus_sum(map->drops); }

void tracing_map_clear(struct tracing_map *map)
{
    memset(map->slots, 0, map->n_slots * sizeof(struct tracing_map_slot));
    unsigned used = map->next_elt < map->max_elts ? map->next_elt : map->max_elts;
    for (unsigned i = 0; i < used; i++) {
        struct tracing_map_elt *elt = elt_at(map, i);
        memset((uint8_t *)elt + sizeof(*elt), 0, map->elt_size - sizeof(*elt));
    }
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        WRITE_ONCE(map->hits[c], 0);
        WRITE_ONCE(map->drops[c], 0);
    }
    /* Last, with release: an insert that sees the emptied count sees the emptied slots. */
    __atomic_store_n(&map->next_elt, 0, __ATOMIC_RELEASE);
}
