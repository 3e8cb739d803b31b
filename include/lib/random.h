#ifndef LIB_RANDOM_H
#define LIB_RANDOM_H

#include <stdint.h>

/*
 * xorshift64: a cheap, deterministic pseudo-random sequence for loads and tests, so a run
 * that fails reproduces from its seed. Not for anything that must be unpredictable. The
 * state must start non-zero (zero stays zero).
 */
static inline uint64_t xorshift64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

#endif
