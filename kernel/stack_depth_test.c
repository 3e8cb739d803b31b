/*
 * A deep stack made on purpose, for the stack tracer's self-tests: a traced function that
 * calls itself with a buffer in every frame. noinline and noclone keep one real frame per
 * level under the name the tests look up; the buffer is touched after the inner call so
 * the compiler can neither drop it nor turn the recursion into a loop.
 */
#include <kernel/compiler.h>
#include <kernel/ftrace_test.h>

#define STACK_DEPTH_TEST_BUF 64

__attribute__((noinline, noclone, used)) unsigned long stack_depth_test_recurse(unsigned levels)
{
    volatile unsigned char buf[STACK_DEPTH_TEST_BUF];
    unsigned long sum;

    buf[0] = (unsigned char)levels;
    buf[STACK_DEPTH_TEST_BUF - 1] = (unsigned char)(levels * 3);
    if (levels == 0)
        return buf[0];
    sum = stack_depth_test_recurse(levels - 1);
    return sum + buf[0] + buf[STACK_DEPTH_TEST_BUF - 1];
}
