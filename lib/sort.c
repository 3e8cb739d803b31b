#include <kernel/compiler.h>
#include <lib/sort.h>

typedef uint64_t __attribute__((may_alias)) sort_word_t;
typedef void (*swap_fn)(void *a, void *b, size_t size);

static void swap_bytes(void *a, void *b, size_t size)
{
    unsigned char *x = a, *y = b;

    for (; size > 0; size--, x++, y++) {
        unsigned char tmp = *x;

        *x = *y;
        *y = tmp;
    }
}

static void swap_words(void *a, void *b, size_t size)
{
    sort_word_t *x = a, *y = b;

    for (; size > 0; size -= sizeof(sort_word_t), x++, y++) {
        sort_word_t tmp = *x;

        *x = *y;
        *y = tmp;
    }
}

/* Restores the max-heap property below root, within the first n elements. */
static void sift_down(char *array, size_t root, size_t n, size_t size, cmp_fn cmp, swap_fn swap)
{
    /* root has a child while 2 * root + 1 < n; written so that it cannot overflow. */
    while (n >= 2 && root <= (n - 2) / 2) {
        size_t child = 2 * root + 1;

        if (child + 1 < n && cmp(array + child * size, array + (child + 1) * size) < 0)
            child++;
        if (cmp(array + root * size, array + child * size) >= 0)
            return;
        swap(array + root * size, array + child * size, size);
        root = child;
    }
}

void sort(void *base, size_t n, size_t size, cmp_fn cmp)
{
    char *array = base;
    swap_fn swap = swap_bytes;
    size_t i;

    if (n < 2 || size == 0)
        return;
    if (size % sizeof(sort_word_t) == 0 && (uintptr_t)base % sizeof(sort_word_t) == 0)
        swap = swap_words;

    for (i = n / 2; i > 0; i--)
        sift_down(array, i - 1, n, size, cmp, swap);
    for (i = n - 1; i > 0; i--) {
        swap(array, array + i * size, size);
        sift_down(array, 0, i, size, cmp, swap);
    }
}

void *bsearch(const void *key, const void *base, size_t n, size_t size, cmp_fn cmp)
{
    const char *low = base;

    while (n > 0) {
        size_t half = n / 2;
        const char *middle = low + half * size;
        int order = cmp(key, middle);

        if (order == 0)
            return (void *)middle;
        if (order > 0) {
            low = middle + size;
            n -= half + 1;
        } else {
            n = half;
        }
    }
    return NULL;
}
