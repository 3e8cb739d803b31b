#ifndef LIB_SORT_H
#define LIB_SORT_H

#include <stddef.h>

typedef int (*cmp_fn)(const void *a, const void *b);

/* In-place heapsort: O(n log n), no recursion, no allocation (safe at early boot). */
void sort(void *base, size_t n, size_t size, cmp_fn cmp);
/* cmp(key, element); returns the matching element or NULL. */
void *bsearch(const void *key, const void *base, size_t n, size_t size, cmp_fn cmp);

#endif
