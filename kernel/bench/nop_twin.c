/*
 * The untraced twin of ftrace_test_empty, for `bench nop`: this file is in the Makefile's
 * NOTRACE_FILES, so the only difference between the two is the 5-byte NOP.
 */
#include <kernel/ftrace_test.h>

__attribute__((noinline, noclone, used)) void ftrace_test_empty_untraced(void)
{
    __asm__ __volatile__("" ::: "memory");
}
