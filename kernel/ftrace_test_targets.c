/*
 * Targets for ftrace's tests and benchmarks. noinline and noclone keep one real call
 * (and one call site) per function, with the name the tests look up.
 */
#include <kernel/errno.h>
#include <kernel/ftrace_test.h>
#include <kernel/shell.h>
#include <lib/string.h>

#define TARGET __attribute__((noinline, noclone, used))

TARGET unsigned long ftrace_test_target(unsigned long a, unsigned long b, unsigned long c)
{
    barrier();
    return a * 3 + b * 5 + c * 7;
}

TARGET unsigned long ftrace_test_target_hot(unsigned long a)
{
    barrier();
    return a + 1;
}

/* What an IPMODIFY op sends ftrace_test_target_hot's calls to: the same arguments. */
TARGET unsigned long ftrace_replacement_hot(unsigned long a)
{
    barrier();
    return a + 100;
}

TARGET unsigned long ftrace_test_target_other(unsigned long a)
{
    barrier();
    return a ^ 0x55;
}

TARGET void ftrace_test_empty(void) { barrier(); }

/* A three-level chain for function_graph's nesting tests. */
TARGET unsigned long ftrace_test_chain_c(unsigned long a) { return ftrace_test_target_hot(a) + 1; }
TARGET unsigned long ftrace_test_chain_b(unsigned long a) { return ftrace_test_chain_c(a) * 2; }
TARGET unsigned long ftrace_test_chain_a(unsigned long a) { return ftrace_test_chain_b(a) + 3; }

/* An int function failing with -EINVAL, for funcgraph-retval's error codes. */
TARGET int ftrace_errno_target(unsigned long a)
{
    barrier();
    return a == ~0UL ? 0 : -EINVAL;
}

/* `ftrace_test_call WHICH N`: calls a test target N times, so shell tests can trace it. */
SHELL_COMMAND(ftrace_test_call, "ftrace_test_call chain|target|hot|empty|errno N",
              "call a traced test function N times (for tracing tests)")
{
    unsigned long n;
    if (argc != 3 || kstrtoul(argv[2], 10, &n) != 0 || n > 10000000)
        return shell_usage(ctx);
    volatile unsigned long sink = 0;
    for (unsigned long i = 0; i < n; i++) {
        if (!strcmp(argv[1], "chain"))
            sink += ftrace_test_chain_a(i);
        else if (!strcmp(argv[1], "target"))
            sink += ftrace_test_target(i, 1, 2);
        else if (!strcmp(argv[1], "hot"))
            sink += ftrace_test_target_hot(i);
        else if (!strcmp(argv[1], "empty"))
            ftrace_test_empty();
        else if (!strcmp(argv[1], "errno"))
            sink += (unsigned long)ftrace_errno_target(i);
        else
            return shell_usage(ctx);
    }
    (void)sink;
    return 0;
}

/* Damages its own function_graph frame (when traced) and returns whether it could. */
TARGET unsigned long fgraph_mismatch_victim(void)
{
    return fgraph_test_damage_top_frame((unsigned long)fgraph_mismatch_victim);
}
