#include <kernel/compiler.h>
#include <kernel/errno.h>
#include <kernel/selftest.h>
#include <lib/random.h>
#include <lib/sort.h>
#include <lib/string.h>

#include "lib_selftests.h"

/* Deterministic pseudo-random numbers, so a failure reproduces on every boot. */
static uint64_t test_random_state = 0x9e3779b97f4a7c15ULL;

static uint64_t test_random(void) { return xorshift64(&test_random_state); }

struct sort_record {
    uint32_t key;
    uint32_t serial;
    uint32_t pad;
};

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static int compare_record(const void *a, const void *b)
{
    return compare_u32(&((const struct sort_record *)a)->key,
                       &((const struct sort_record *)b)->key);
}

#define SORT_MAX 1000
#define SORT_KEY_RANGE 64

SELFTEST(sort_random)
{
    static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 33, 100, 255, SORT_MAX};
    static uint32_t words[SORT_MAX];
    static uint64_t wide[SORT_MAX];
    static struct sort_record records[SORT_MAX];
    static bool seen[SORT_MAX];
    static unsigned int histogram_before[SORT_KEY_RANGE], histogram_after[SORT_KEY_RANGE];

    for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
        size_t n = sizes[s];
        bool ordered = true, permutation = true;

        /* Small key range so most arrays have many duplicates. */
        memset(histogram_before, 0, sizeof(histogram_before));
        memset(histogram_after, 0, sizeof(histogram_after));
        for (size_t i = 0; i < n; i++) {
            words[i] = (uint32_t)(test_random() % SORT_KEY_RANGE);
            histogram_before[words[i]]++;
        }
        sort(words, n, sizeof(words[0]), compare_u32);
        for (size_t i = 0; i < n; i++) {
            if (i > 0 && words[i - 1] > words[i])
                ordered = false;
            histogram_after[words[i]]++;
        }
        for (size_t k = 0; k < SORT_KEY_RANGE; k++) {
            if (histogram_before[k] != histogram_after[k])
                permutation = false;
        }
        EXPECT(ordered);
        EXPECT(permutation);

        /* 8-byte elements take the word-swap path; full-range keys. */
        ordered = true;
        for (size_t i = 0; i < n; i++)
            wide[i] = test_random();
        wide[n / 2] = TEST_UINT64_MAX;
        wide[0] = 0;
        sort(wide, n, sizeof(wide[0]), compare_u64);
        for (size_t i = 1; i < n; i++) {
            if (wide[i - 1] > wide[i])
                ordered = false;
        }
        EXPECT(ordered);
        if (n > 1)
            EXPECT(wide[0] == 0 && wide[n - 1] == TEST_UINT64_MAX);

        /* 12-byte records take the byte-swap path; every record must survive intact. */
        ordered = true;
        permutation = true;
        for (size_t i = 0; i < n; i++) {
            records[i].key = (uint32_t)(test_random() % SORT_KEY_RANGE);
            records[i].serial = (uint32_t)i;
            records[i].pad = records[i].key ^ 0x5a5a5a5a;
            seen[i] = false;
        }
        sort(records, n, sizeof(records[0]), compare_record);
        for (size_t i = 0; i < n; i++) {
            if (i > 0 && records[i - 1].key > records[i].key)
                ordered = false;
            if (records[i].serial >= n || seen[records[i].serial] ||
                records[i].pad != (records[i].key ^ 0x5a5a5a5a))
                permutation = false;
            else
                seen[records[i].serial] = true;
        }
        EXPECT(ordered);
        EXPECT(permutation);
    }

    /* Already sorted, reversed and constant inputs. */
    for (size_t i = 0; i < 100; i++)
        words[i] = (uint32_t)i;
    sort(words, 100, sizeof(words[0]), compare_u32);
    EXPECT(words[0] == 0 && words[50] == 50 && words[99] == 99);
    for (size_t i = 0; i < 100; i++)
        words[i] = (uint32_t)(99 - i);
    sort(words, 100, sizeof(words[0]), compare_u32);
    EXPECT(words[0] == 0 && words[50] == 50 && words[99] == 99);
    for (size_t i = 0; i < 100; i++)
        words[i] = 7;
    sort(words, 100, sizeof(words[0]), compare_u32);
    EXPECT(words[0] == 7 && words[99] == 7);
}

/* Bounds of the array under search, so the comparison can catch probes outside it. */
static const uint32_t *bsearch_first, *bsearch_end;
static bool bsearch_out_of_bounds;

static int compare_u32_in_bounds(const void *key, const void *element)
{
    if ((const uint32_t *)element < bsearch_first || (const uint32_t *)element >= bsearch_end) {
        bsearch_out_of_bounds = true;
        return -1;
    }
    return compare_u32(key, element);
}

SELFTEST(sort_bsearch)
{
    static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 100, 255, 256};
    /* One slot past the largest search, so a stray probe reads a plausible value. */
    static uint32_t table[257];
    uint32_t key;

    for (size_t i = 0; i < ARRAY_SIZE(table); i++)
        table[i] = (uint32_t)(10 + 3 * i);

    for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
        size_t n = sizes[s];
        bool all_found = true, none_spurious = true;

        bsearch_first = table;
        bsearch_end = table + n;
        bsearch_out_of_bounds = false;
        for (size_t i = 0; i < n; i++) {
            key = table[i];
            if (bsearch(&key, table, n, sizeof(table[0]), compare_u32_in_bounds) != &table[i])
                all_found = false;
            key = table[i] + 1;
            if (bsearch(&key, table, n, sizeof(table[0]), compare_u32_in_bounds) != NULL)
                none_spurious = false;
        }
        EXPECT(all_found);
        EXPECT(none_spurious);

        key = 9;
        EXPECT(bsearch(&key, table, n, sizeof(table[0]), compare_u32_in_bounds) == NULL);
        /* The value just past the end is in memory but not in the array. */
        key = table[n];
        EXPECT(bsearch(&key, table, n, sizeof(table[0]), compare_u32_in_bounds) == NULL);
        if (n > 0) {
            key = table[0];
            EXPECT(bsearch(&key, table, n, sizeof(table[0]), compare_u32_in_bounds) == table);
            key = table[n - 1];
            EXPECT(bsearch(&key, table, n, sizeof(table[0]), compare_u32_in_bounds) ==
                   &table[n - 1]);
        }
        EXPECT(!bsearch_out_of_bounds);
    }
}
