/*
 * Self-tests of the stack tracer on a stack made deep on purpose: a traced function that
 * recurses with a buffer in every frame (kernel/fixtures/stack_depth_test.c). Each test limits the
 * tracer to that function with its filter and puts the tracer's state back afterwards.
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/selftest.h>
#include <kernel/smp.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "trace_internal.h"

#define STACK_TEST_LEVELS 20
#define STACK_TEST_MAX 128

struct stack_test_saved {
    int enabled;
    unsigned long max;
    struct ftrace_hash *filter;
};

static struct stack_trace_entry stack_test_entries[STACK_TEST_MAX];

/* Switches the tracer off, keeps what the user had, and aims it at the recursion only. */
static bool stack_test_begin(struct selftest_ctx *t, struct stack_test_saved *saved)
{
    struct ftrace_hash *only = ftrace_hash_alloc();

    saved->enabled = stack_tracer_get_enabled();
    saved->max = stack_trace_max_size();
    saved->filter = stack_trace_filter_copy();
    EXPECT(only != NULL && saved->filter != NULL);
    if (!only || !saved->filter) {
        ftrace_hash_free(only);
        return false;
    }
    EXPECT_EQ(stack_tracer_set_enabled(0), 0);
    EXPECT_EQ(ftrace_hash_apply_glob(only, "stack_depth_test_recurse"), 1);
    EXPECT_EQ(stack_trace_set_filter(only), 0);
    stack_trace_set_max_size(0);
    return true;
}

static void stack_test_end(struct selftest_ctx *t, struct stack_test_saved *saved)
{
    EXPECT_EQ(stack_tracer_set_enabled(0), 0);
    stack_trace_set_filter(saved->filter);
    stack_trace_set_max_size(saved->max);
    stack_tracer_set_enabled(saved->enabled);
}

static bool stack_test_in(unsigned long ip, const char *name, size_t *offset)
{
    uintptr_t start;
    const char *sym = sym_lookup(ip, &start, NULL);

    if (!sym || strcmp(sym, name) != 0)
        return false;
    if (offset)
        *offset = ip - start;
    return true;
}

static unsigned stack_test_run(unsigned levels, unsigned long *max)
{
    stack_tracer_set_enabled(1);
    stack_depth_test_recurse(levels);
    stack_tracer_set_enabled(0);
    return stack_trace_snapshot(stack_test_entries, STACK_TEST_MAX, max);
}

/* Reads a file whole, as cat does, into buf (cut to fit); returns its length there. */
static size_t stack_test_read(const char *path, char *buf, size_t len)
{
    return selftest_read_file_into("/", path, buf, len);
}

SELFTEST(stack_tracer_finds_deep_chain)
{
    struct stack_test_saved saved;
    unsigned long max = 0;
    size_t offset = 0;
    unsigned n, in_recursion = 0;

    if (!stack_test_begin(t, &saved))
        return;
    n = stack_test_run(STACK_TEST_LEVELS, &max);

    /* The deepest call is the innermost level: its own entry, then one return address
     * into each of the levels above it, then this test. */
    EXPECT(n > STACK_TEST_LEVELS + 1);
    for (unsigned i = 0; i < n; i++)
        in_recursion += stack_test_in(stack_test_entries[i].ip, "stack_depth_test_recurse", NULL);
    EXPECT_EQ(in_recursion, STACK_TEST_LEVELS + 1);
    EXPECT(stack_test_in(stack_test_entries[0].ip, "stack_depth_test_recurse", &offset));
    EXPECT_EQ(offset, 5); /* the return from the call site: Linux's func+0x5 */
    for (unsigned i = 1; i <= STACK_TEST_LEVELS && i < n; i++)
        EXPECT(stack_test_in(stack_test_entries[i].ip, "stack_depth_test_recurse", NULL));
    if (n > STACK_TEST_LEVELS + 1)
        EXPECT(!stack_test_in(stack_test_entries[STACK_TEST_LEVELS + 1].ip,
                              "stack_depth_test_recurse", NULL));
    EXPECT_EQ(max, stack_test_entries[0].depth);

    /* Depths fall towards the top of the stack, every level's frame is the same size and
     * holds the 64-byte buffer, and the outermost frame ends inside the thread stack. */
    for (unsigned i = 1; i < n; i++)
        EXPECT(stack_test_entries[i].depth < stack_test_entries[i - 1].depth);
    unsigned long frame = stack_test_entries[1].depth - stack_test_entries[2].depth;
    EXPECT(frame >= 64 + 16);
    for (unsigned i = 2; i < STACK_TEST_LEVELS && i + 1 < n; i++)
        EXPECT_EQ(stack_test_entries[i].depth - stack_test_entries[i + 1].depth, frame);
    if (n)
        EXPECT(stack_test_entries[n - 1].depth <= THREAD_STACK_PAGES * PAGE_SIZE);
    EXPECT(max > STACK_TEST_LEVELS * frame);

    stack_test_end(t, &saved);
}

/* stack_trace shows the same numbers in Linux's table. */
SELFTEST(stack_tracer_table_text)
{
    struct stack_test_saved saved;
    static char text[8192];
    char want[160];
    unsigned long max = 0;
    unsigned n;

    if (!stack_test_begin(t, &saved))
        return;
    n = stack_test_run(3, &max);
    EXPECT_EQ(stack_test_read(TRACEFS_ROOT "/stack_trace", text, sizeof(text)) > 0, 1);

    snprintf(want, sizeof(want),
             "        Depth    Size   Location    (%u entries)\n"
             "        -----    ----   --------\n",
             n);
    EXPECT(strncmp(text, want, strlen(want)) == 0);
    snprintf(want, sizeof(want), "  0) %8lu   %5lu   stack_depth_test_recurse+0x5/0x",
             stack_test_entries[0].depth,
             stack_test_entries[0].depth - stack_test_entries[1].depth);
    EXPECT(strstr(text, want) != NULL);
    snprintf(want, sizeof(want), "%3u) %8lu   %5lu   arch_thread_start+0x", n - 1,
             stack_test_entries[n - 1].depth, stack_test_entries[n - 1].depth);
    EXPECT(n > 0 && strstr(text, want) != NULL);
    /* Enabled, or holding a maximum: no "disabled" hint. */
    EXPECT(strstr(text, "Stack tracer disabled") == NULL);

    char num[32];
    snprintf(want, sizeof(want), "%lu\n", max);
    stack_test_read(TRACEFS_ROOT "/stack_max_size", num, sizeof(num));
    EXPECT_STREQ(num, want);

    stack_test_end(t, &saved);
}

/* A new maximum needs a deeper stack; writing stack_max_size lets a shallower one in. */
SELFTEST(stack_tracer_keeps_deepest)
{
    struct stack_test_saved saved;
    unsigned long deep = 0, after = 0;
    unsigned n_deep, n;

    if (!stack_test_begin(t, &saved))
        return;
    n_deep = stack_test_run(10, &deep);
    n = stack_test_run(3, &after);
    EXPECT_EQ(after, deep);
    EXPECT_EQ(n, n_deep);

    stack_trace_set_max_size(0);
    n = stack_test_run(3, &after);
    EXPECT(after < deep);
    EXPECT_EQ(n, n_deep - 7);

    /* Disabled, nothing is measured even when deeper. */
    stack_trace_set_max_size(0);
    stack_depth_test_recurse(12);
    EXPECT_EQ(stack_trace_max_size(), 0);

    stack_test_end(t, &saved);
}

/*
 * Only the thread's own stack is measured: a call made in an interrupt on an idle CPU runs
 * on that CPU's boot stack, which no thread owns. The call itself checks that its CPU is
 * idle as it runs (an interrupted thread would own the stack), and a busy CPU is asked
 * again a little later, so a thread passing through does not cost the test its check.
 */
#define STACK_TEST_IDLE_TRIES 100

static void stack_test_on_cpu(void *arg)
{
    bool *ran_idle = arg;

    *ran_idle = this_cpu()->current == this_cpu()->idle;
    if (*ran_idle)
        stack_depth_test_recurse(STACK_TEST_LEVELS);
}

SELFTEST(stack_tracer_skips_foreign_stacks)
{
    struct stack_test_saved saved;
    unsigned other = this_cpu_id() == 0 ? 1 : 0;
    bool ran_idle = false;

    if (cpus_online < 2 || !cpu_data(other)->online)
        SKIP("needs a second CPU");
    if (!stack_test_begin(t, &saved))
        return;
    EXPECT_EQ(stack_tracer_set_enabled(1), 0);
    for (int i = 0; i < STACK_TEST_IDLE_TRIES && !ran_idle; i++) {
        smp_call_function_single(other, stack_test_on_cpu, &ran_idle, true);
        if (!ran_idle)
            sleep_ns(NSEC_PER_MSEC);
    }
    if (ran_idle)
        EXPECT_EQ(stack_trace_max_size(), 0);
    stack_test_end(t, &saved);
    if (!ran_idle)
        SKIP("the other CPU was busy at every try");
}

/* The sysctl takes what Linux's proc_dointvec takes. */
SELFTEST(stack_tracer_sysctl_parse)
{
    int v = 7;

    EXPECT_EQ(trace_parse_sysctl_int("1\n", 2, &v), 0);
    EXPECT_EQ(v, 1);
    EXPECT_EQ(trace_parse_sysctl_int(" -1\n", 4, &v), 0);
    EXPECT_EQ(v, -1);
    EXPECT_EQ(trace_parse_sysctl_int("2 3\n", 4, &v), 0);
    EXPECT_EQ(v, 2);
    EXPECT_EQ(trace_parse_sysctl_int("0x10", 4, &v), 0);
    EXPECT_EQ(v, 16);
    EXPECT_EQ(trace_parse_sysctl_int("abc\n", 4, &v), -EINVAL);
    EXPECT_EQ(trace_parse_sysctl_int("1x\n", 3, &v), -EINVAL);
    EXPECT_EQ(trace_parse_sysctl_int("\n", 1, &v), -EINVAL);
    EXPECT_EQ(trace_parse_sysctl_int("2147483648", 10, &v), -EINVAL);
    EXPECT_EQ(trace_parse_sysctl_int("-2147483648", 11, &v), 0);
    EXPECT_EQ(v, (int)(-2147483647 - 1));
}
