/*
 * Targets for ftrace's tests and benchmarks. noinline and noclone keep one real call
 * (and one call site) per function, with the name the tests look up.
 */
#include <kernel/ftrace_test.h>

#define TARGET __attribute__((noinline, noclone, used))

TARGET unsigned long ftrace_test_target(unsigned long a, unsigned long b, unsigned long c)
{
    __asm__ __volatile__("" ::: "memory");
    return a * 3 + b * 5 + c * 7;
}

TARGET unsigned long ftrace_test_target_hot(unsigned long a)
{
    __asm__ __volatile__("" ::: "memory");
    return a + 1;
}

TARGET unsigned long ftrace_test_target_other(unsigned long a)
{
    __asm__ __volatile__("" ::: "memory");
    return a ^ 0x55;
}

TARGET void ftrace_test_empty(void) { __asm__ __volatile__("" ::: "memory"); }
