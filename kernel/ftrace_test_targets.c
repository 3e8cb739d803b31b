/*
 * Targets for ftrace's tests and benchmarks. noinline and noclone keep one real call
 * (and one call site) per function, with the name the tests look up.
 */
#include <kernel/errno.h>
#include <kernel/ftrace_test.h>
#include <kernel/shell.h>
#include <kernel/thread.h>
#include <kernel/trace_events.h>
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

/* One sched_switch tracepoint from the calling thread to itself: an event write at a call
 * site that fires only when asked to (tests/icount.py steps it). */
TARGET void ftrace_test_sched_switch(void)
{
    struct thread *me = current_thread();
    trace_sched_switch(me, me);
}

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

/*
 * For kprobe fetch arguments: a string, a struct to dereference into (a pointer inside
 * it, bytes, a bitfield) and a number. Every other call passes pointers that fault (a
 * page never mapped, a non-canonical address): the probe must record its fault marker
 * and the kernel go on. The function itself never touches them.
 */
struct ftrace_probe_item {
    unsigned long id;
    const char *label;
    uint8_t bytes[4];
    uint32_t flags;
};
static const struct ftrace_probe_item probe_item = {
    0x1122334455667788UL, "item-label", {1, 2, 3, 4}, 0xa5};

TARGET long ftrace_probe_target(const char *name, const struct ftrace_probe_item *item, long n)
{
    barrier();
    return n * 2;
}

static long call_probe_target(unsigned long i)
{
    long n = (long)i - 1;
    if (i % 2)
        return ftrace_probe_target((const char *)16,
                                   (const struct ftrace_probe_item *)0xdead000000000000UL, n);
    return ftrace_probe_target("probe-name", &probe_item, n);
}

/* `ftrace_test_call WHICH N`: calls a test target N times, so shell tests can trace it. */
SHELL_COMMAND(ftrace_test_call,
              "ftrace_test_call chain|target|hot|empty|errno|probe|sched_switch N",
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
        else if (!strcmp(argv[1], "probe"))
            sink += (unsigned long)call_probe_target(i);
        else if (!strcmp(argv[1], "sched_switch"))
            ftrace_test_sched_switch();
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
