/*
 * Self-tests of the filter commands, driven through the filter parser as a write to
 * set_ftrace_filter drives them, on the traced targets of kernel/fixtures/ftrace_test_targets.c.
 * Each test removes its probes and turns tracing back on before it ends.
 */
#include <kernel/errno.h>
#include <kernel/fault_inject.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/pseudofs.h>
#include <kernel/selftest.h>
#include <lib/string.h>

#include "trace_internal.h"

static volatile unsigned long cmd_test_sink;

/* A command as one token written to set_ftrace_filter. */
static int cmd_test_write(const char *token)
{
    struct ftrace_hash *unused = ftrace_hash_alloc();
    int err = unused ? ftrace_filter_apply_token(unused, token, &trace_global) : -ENOMEM;

    ftrace_hash_free(unused);
    return err < 0 ? err : 0;
}

static bool cmd_test_tracing_on(void) { return rb_record_is_on(trace_global.buffer); }

static void cmd_test_call_target(void) { cmd_test_sink += ftrace_test_target(1, 2, 3); }

/* Events of one type in the buffer, and (for stack events) how many start at func. */
static unsigned cmd_test_count_events(unsigned type, unsigned long func, unsigned *starting)
{
    struct trace_iter *it = trace_iter_open(false, -1);
    unsigned n = 0;

    *starting = 0;
    while (it && trace_iter_next(it)) {
        const uint32_t *ctx = (const uint32_t *)it->rec.data;
        if (trace_ctx_type(*ctx) != type)
            continue;
        n++;
        if (type == TRACE_STACK) {
            const struct trace_stack_event *ev = (const void *)it->rec.data;
            if (ev->nr && trace_addr_unpack(ev->calls[0]) == func)
                (*starting)++;
        }
    }
    trace_iter_close(it);
    return n;
}

static size_t cmd_test_read_filter(char *buf, size_t len)
{
    return selftest_read_file_into("/", TRACEFS_ROOT "/set_ftrace_filter", buf, len);
}

SELFTEST(ftrace_cmd_traceoff_counts_changes)
{
    trace_set_on(true);
    EXPECT_EQ(cmd_test_write("ftrace_test_target:traceoff:2"), 0);
    EXPECT_EQ(ftrace_probe_count("traceoff", "ftrace_test_target"), 2);

    cmd_test_call_target();
    EXPECT(!cmd_test_tracing_on());
    EXPECT_EQ(ftrace_probe_count("traceoff", "ftrace_test_target"), 1);
    /* Already off: nothing changes, nothing is spent. */
    cmd_test_call_target();
    EXPECT_EQ(ftrace_probe_count("traceoff", "ftrace_test_target"), 1);

    trace_set_on(true);
    cmd_test_call_target();
    EXPECT(!cmd_test_tracing_on());
    EXPECT_EQ(ftrace_probe_count("traceoff", "ftrace_test_target"), 0);
    trace_set_on(true);
    cmd_test_call_target();
    EXPECT(cmd_test_tracing_on());

    /* The counted probe goes with any parameter; then there is no such probe any more. */
    EXPECT_EQ(cmd_test_write("!ftrace_test_target:traceoff:0"), 0);
    EXPECT_EQ(ftrace_probe_count("traceoff", "ftrace_test_target"), -ENOENT);
    EXPECT_EQ(cmd_test_write("!ftrace_test_target:traceoff:0"), -ENODEV);
    trace_set_on(true);
}

SELFTEST(ftrace_cmd_traceon_unlimited)
{
    EXPECT_EQ(cmd_test_write("ftrace_test_target_hot:traceon"), 0);
    for (int i = 0; i < 3; i++) {
        trace_set_on(false);
        cmd_test_sink += ftrace_test_target_hot(i);
        EXPECT(cmd_test_tracing_on());
    }
    /* The unlimited probe is not the counted one. */
    EXPECT_EQ(cmd_test_write("!ftrace_test_target_hot:traceon:1"), -ENODEV);
    EXPECT_EQ(cmd_test_write("!ftrace_test_target_hot:traceon"), 0);
    trace_set_on(false);
    cmd_test_sink += ftrace_test_target_hot(9);
    EXPECT(!cmd_test_tracing_on());
    trace_set_on(true);
}

SELFTEST(ftrace_cmd_errors)
{
    EXPECT_EQ(cmd_test_write("ftrace_test_target:traceoff:3"), 0);
    /* Nothing new to add: Linux refuses, and the count stays. */
    EXPECT_EQ(cmd_test_write("ftrace_test_target:traceoff:5"), -EINVAL);
    EXPECT_EQ(ftrace_probe_count("traceoff", "ftrace_test_target"), 3);
    EXPECT_EQ(cmd_test_write("ftrace_test_target_hot:traceoff:abc"), -EINVAL);
    EXPECT_EQ(cmd_test_write("ftrace_test_target_hot:traceoff:-1"), -EINVAL);
    EXPECT_EQ(cmd_test_write("ftrace_test_target_hot:traceoff:99999999999999999999"), -ERANGE);
    EXPECT_EQ(cmd_test_write("ftrace_no_such_function:traceoff"), -EINVAL);
    EXPECT_EQ(cmd_test_write("ftrace_test_target:no_such_command"), -EINVAL);
    EXPECT_EQ(cmd_test_write(":traceoff"), -EINVAL);
    /* A probe of the kind exists, but not on these functions. */
    EXPECT_EQ(cmd_test_write("!ftrace_test_target_hot:traceoff:1"), -EINVAL);
    EXPECT_EQ(cmd_test_write("!ftrace_no_such*:traceoff:1"), -EINVAL);
    /* No probe of the kind at all. */
    EXPECT_EQ(cmd_test_write("!ftrace_test_target:traceon"), -ENODEV);
    EXPECT_EQ(cmd_test_write("!ftrace_test_target:dump"), -ENODEV);
    /* Commands are for set_ftrace_filter only. */
    EXPECT_EQ(ftrace_filter_apply_token(NULL, "ftrace_test_target:traceon", NULL), -EINVAL);
    /* Counts in base 0, up to the next ':'; an empty one is -1, which never fires. */
    EXPECT_EQ(cmd_test_write("ftrace_test_target_hot:traceoff:010:x"), 0);
    EXPECT_EQ(ftrace_probe_count("traceoff", "ftrace_test_target_hot"), 8);
    EXPECT_EQ(cmd_test_write("ftrace_test_target_other:traceoff:"), 0);
    EXPECT_EQ(ftrace_probe_count("traceoff", "ftrace_test_target_other"), -1);
    trace_set_on(true);
    cmd_test_sink += ftrace_test_target_other(1);
    EXPECT(cmd_test_tracing_on());
    /* dump always counts one, whatever the parameter. */
    EXPECT_EQ(cmd_test_write("ftrace_test_empty:dump:7"), 0);
    EXPECT_EQ(ftrace_probe_count("dump", "ftrace_test_empty"), 1);
    EXPECT_EQ(cmd_test_write("ftrace_test_empty:dump"), -EINVAL);

    EXPECT_EQ(cmd_test_write("!*:traceoff:"), 0);
    EXPECT_EQ(cmd_test_write("!ftrace_test_empty:dump:3"), 0);
    EXPECT_EQ(ftrace_probe_count("traceoff", "ftrace_test_target_hot"), -ENOENT);
    trace_set_on(true);
}

/* Each kind lists its functions, the kind made last first; echo > set_ftrace_filter keeps them. */
SELFTEST(ftrace_cmd_read_back)
{
    static char text[4096];
    static const char want[] = "ftrace_test_target:stacktrace:unlimited\n"
                               "ftrace_test_target:cpudump:unlimited\n"
                               "ftrace_test_target:dump:count=1\n"
                               "ftrace_test_target_hot:traceoff:count=3\n"
                               "ftrace_test_target_other:traceoff:count=3\n"
                               "ftrace_test_target:traceon:unlimited\n";
    struct pfs_file *f;

    EXPECT_EQ(cmd_test_write("ftrace_test_target:traceon"), 0);
    EXPECT_EQ(cmd_test_write("ftrace_test_target_[ho]*:traceoff:3"), 0);
    EXPECT_EQ(cmd_test_write("ftrace_test_target:dump"), 0);
    EXPECT_EQ(cmd_test_write("ftrace_test_target:cpudump"), 0);
    EXPECT_EQ(cmd_test_write("ftrace_test_target:stacktrace"), 0);
    cmd_test_read_filter(text, sizeof(text));
    EXPECT(strstr(text, want) != NULL);

    EXPECT_EQ(pfs_open("/", TRACEFS_ROOT "/set_ftrace_filter", PFS_WRITE | PFS_TRUNC, &f), 0);
    if (f)
        pfs_close(f);
    cmd_test_read_filter(text, sizeof(text));
    EXPECT(strstr(text, want) != NULL);

    EXPECT_EQ(cmd_test_write("!ftrace_test_target:traceon"), 0);
    EXPECT_EQ(cmd_test_write("!ftrace_test_target_o*:traceoff:"), 0);
    EXPECT_EQ(cmd_test_write("!*:dump"), 0);
    EXPECT_EQ(cmd_test_write("!:cpudump"), 0);
    EXPECT_EQ(cmd_test_write("!ftrace_test_target:stacktrace"), 0);
    cmd_test_read_filter(text, sizeof(text));
    EXPECT(strstr(text, "ftrace_test_target_hot:traceoff:count=3\n") != NULL);
    EXPECT(strstr(text, ":unlimited") == NULL);
    EXPECT(strstr(text, "dump") == NULL);
    EXPECT_EQ(cmd_test_write("!ftrace_test_target_hot:traceoff:1"), 0);
    cmd_test_read_filter(text, sizeof(text));
    EXPECT(strstr(text, ":traceoff") == NULL);
    trace_set_on(true);
}

SELFTEST(ftrace_cmd_stacktrace_count)
{
    unsigned starting = 0;

    trace_set_on(true);
    trace_clear(-1);
    EXPECT_EQ(cmd_test_write("ftrace_test_target:stacktrace:2"), 0);
    for (int i = 0; i < 3; i++)
        cmd_test_call_target();
    EXPECT_EQ(ftrace_probe_count("stacktrace", "ftrace_test_target"), 0);
    EXPECT_EQ(cmd_test_count_events(TRACE_STACK, (unsigned long)ftrace_test_target, &starting), 2);
    EXPECT_EQ(starting, 2);

    /* While tracing is off nothing is recorded and nothing spent. */
    EXPECT_EQ(cmd_test_write("ftrace_test_target_hot:stacktrace:1"), 0);
    trace_set_on(false);
    cmd_test_sink += ftrace_test_target_hot(1);
    EXPECT_EQ(ftrace_probe_count("stacktrace", "ftrace_test_target_hot"), 1);
    trace_set_on(true);
    EXPECT_EQ(cmd_test_write("!*:stacktrace:"), 0);
    trace_clear(-1);
}

SELFTEST(ftrace_cmd_dump_once)
{
    static const char marker[] = "ftrace_cmd_dump_once marker";
    unsigned starting = 0;

    trace_set_on(true);
    trace_clear(-1);
    EXPECT_EQ(trace_print(marker, sizeof(marker) - 1), 0);
    EXPECT_EQ(cmd_test_count_events(TRACE_PRINT, 0, &starting), 1);
    EXPECT_EQ(cmd_test_write("ftrace_test_target:dump"), 0);

    /* The dump prints the buffer to the console, consuming it, and stops tracing. */
    cmd_test_call_target();
    EXPECT(!cmd_test_tracing_on());
    EXPECT_EQ(cmd_test_count_events(TRACE_PRINT, 0, &starting), 0);
    EXPECT_EQ(ftrace_probe_count("dump", "ftrace_test_target"), 0);

    /* Spent: the next hit leaves the buffer and tracing alone. */
    trace_set_on(true);
    EXPECT_EQ(trace_print(marker, sizeof(marker) - 1), 0);
    cmd_test_call_target();
    EXPECT(cmd_test_tracing_on());
    EXPECT_EQ(cmd_test_count_events(TRACE_PRINT, 0, &starting), 1);

    EXPECT_EQ(cmd_test_write("!ftrace_test_target:dump"), 0);
    trace_clear(-1);
}

/* Probes run next to the function tracer, and traceoff stops what it records. */
SELFTEST(ftrace_cmd_with_function_tracer)
{
    trace_set_on(true);
    EXPECT_EQ(cmd_test_write("ftrace_test_target_other:traceoff"), 0);
    EXPECT_EQ(trace_set_tracer("function"), 0);
    cmd_test_sink += ftrace_test_target_hot(1);
    cmd_test_sink += ftrace_test_target_other(1);
    EXPECT(!cmd_test_tracing_on());
    cmd_test_sink += ftrace_test_target_hot(2);

    /* One call of target_hot before the traceoff, none after. (Read before the switch
     * back to nop, which clears the buffer.) */
    struct trace_iter *it = trace_iter_open(false, -1);
    unsigned hot = 0;
    while (it && trace_iter_next(it)) {
        const struct trace_fn_event *ev = (const void *)it->rec.data;
        if (trace_ctx_type(ev->ctx) == TRACE_FN &&
            trace_addr_unpack(ev->ip) == (unsigned long)ftrace_test_target_hot)
            hot++;
    }
    trace_iter_close(it);
    EXPECT_EQ(hot, 1);
    EXPECT_EQ(trace_set_tracer("nop"), 0);

    EXPECT_EQ(cmd_test_write("!ftrace_test_target_other:traceoff"), 0);
    trace_set_on(true);
    trace_clear(-1);
}

/*
 * A removal that cannot complete leaves the probe whole: each allocation on the way fails
 * in turn (the n-th from the start of the write), until one removal goes through.
 */
SELFTEST(ftrace_cmd_remove_whole_on_failure)
{
    unsigned long verbose = failslab.verbose;
    unsigned failed = 0;
    int err = -ENOMEM;

    EXPECT_EQ(cmd_test_write("ftrace_test_target:stacktrace:7"), 0);
    failslab.verbose = 0;
    for (unsigned nth = 1; nth <= 64 && err; nth++) {
        failslab.count = 0;
        failslab.interval = nth;
        failslab.space = 0;
        failslab.times = 1;
        WRITE_ONCE(failslab.probability, 100);
        err = cmd_test_write("!ftrace_test_target:stacktrace:0");
        WRITE_ONCE(failslab.probability, 0);
        if (err) {
            EXPECT_EQ(err, -ENOMEM);
            EXPECT_EQ(ftrace_probe_count("stacktrace", "ftrace_test_target"), 7);
            failed++;
        }
    }
    failslab.interval = 1;
    failslab.times = 1;
    failslab.verbose = verbose;
    EXPECT_EQ(err, 0);
    /* The write and the removal allocate: some of the attempts must have failed. */
    EXPECT(failed > 0);
    EXPECT_EQ(ftrace_probe_count("stacktrace", "ftrace_test_target"), -ENOENT);
}
