/*
 * Self-tests of what a return probe reads (`selftest kretprobe_*`): every register, the
 * flags, the stack and the return address as the function left them, through the regs
 * return hook. The register fixture (<arch/regs_fixture.h>) returns with values the test
 * chose in every register; the probes are on its ftrace site and, by int3, on its twin
 * without one; then under function_graph and a second return probe on the same call, and
 * on a recursive function, one record per level; MAXACTIVE's limit on calls hooked at once;
 * a probe reading only what the partial hook saves, beside one reading every register; the
 * graph core's regs return handler in place of the return places' own.
 */
#include <arch/regs.h>
#include <arch/regs_fixture.h>
#include <kernel/ftrace_test.h>
#include <kernel/selftest.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "trace_internal.h"
#include "trace_kprobe.h"

/* Fields after the probed function and the return address: one x64 word each. */
#define RREGS_HEAD 24
/* The arguments after the registers: %flags $stack0 $retval %ip %sp +0(%sp) */
enum { ARG_FLAGS = FTRACE_TEST_REGS, ARG_STACK0, ARG_RETVAL, ARG_IP, ARG_SP, ARG_SP0, ARGS };
#define RREGS_MAX_RECORDS 8

struct rregs_record {
    unsigned long func, ret_ip;
    unsigned long arg[ARGS];
};

/* Makes return probe group/name on fn reading every register and the rest, and enables it. */
static const struct trace_event_call *rregs_probe(const char *name, const char *fn)
{
    char line[512];
    size_t n = (size_t)snprintf(line, sizeof(line), "r:selftest/%s %s", name, fn);
    for (unsigned i = 0; i < FTRACE_TEST_REGS; i++)
        n += (size_t)snprintf(line + n, sizeof(line) - n, " %%%s", ftrace_test_reg_names[i]);
    snprintf(line + n, sizeof(line) - n, " %%flags $stack0 $retval %%ip %%sp +0(%%sp)");
    if (kprobe_command(line))
        return NULL;
    const struct trace_event_call *call = trace_event_find("selftest", name);
    return call && trace_event_enable(call, true) == 0 ? call : NULL; /* the caller removes it */
}

static void rregs_remove(const char *name)
{
    const struct trace_event_call *call = trace_event_find("selftest", name);
    if (call)
        trace_event_enable(call, false);
    char line[64];
    snprintf(line, sizeof(line), "-:selftest/%s", name);
    kprobe_command(line);
}

/* This thread's records of call, oldest first, their arguments x64 words: how many (out
 * holds the first max). */
static unsigned rregs_collect(const struct trace_event_call *call, struct rregs_record *out,
                              unsigned max)
{
    int me = current_thread()->pid;
    unsigned n = 0;
    struct trace_iter *it = trace_iter_open(false, -1);
    while (it && trace_iter_next(it)) {
        const uint8_t *d = it->rec.data;
        const struct trace_event_common *c = (const void *)d;
        if (!trace_event_is_full_record(d) || c->type != call->state->id || c->pid != me)
            continue;
        if (n < max && it->rec.len >= RREGS_HEAD) {
            size_t len = it->rec.len - RREGS_HEAD;
            memset(&out[n], 0, sizeof(out[n]));
            memcpy(&out[n].func, d + 8, 8);
            memcpy(&out[n].ret_ip, d + 16, 8);
            memcpy(out[n].arg, d + RREGS_HEAD, len < sizeof(out[n].arg) ? len : sizeof(out[n].arg));
        }
        n++;
    }
    trace_iter_close(it);
    return n;
}

/* What a probe on fn recorded for one arch_regs_fixture_call(want, fn). */
static void rregs_check(struct selftest_ctx *t, const struct rregs_record *r,
                        const struct pt_regs *want, void (*fn)(const struct pt_regs *))
{
    EXPECT_EQ(r->func, (unsigned long)fn);
    for (unsigned i = 0; i < FTRACE_TEST_REGS; i++) {
        if (r->arg[i] != ftrace_test_reg_value(i))
            selftest_fail(t, __FILE__, __LINE__, "%%%s read %#lx, the fixture left %#lx",
                          ftrace_test_reg_names[i], r->arg[i], ftrace_test_reg_value(i));
    }
    EXPECT_EQ(r->arg[ARG_FLAGS] & ARCH_REGS_FIXTURE_FLAGS,
              FTRACE_TEST_REG_FLAGS & ARCH_REGS_FIXTURE_FLAGS);
    EXPECT_EQ(r->arg[ARG_RETVAL], ftrace_test_reg_value(0)); /* %ax */
    /* The caller pushed want last: it is the word at the stack pointer after the return. */
    EXPECT_EQ(r->arg[ARG_STACK0], (unsigned long)want);
    EXPECT_EQ(r->arg[ARG_SP0], (unsigned long)want);
    EXPECT(r->arg[ARG_SP] < (unsigned long)want && (unsigned long)want - r->arg[ARG_SP] < 1024);
    /* %ip is the real return address, inside the caller, as the record's head has it. */
    char sym[64];
    sym_format(sym, sizeof(sym), r->arg[ARG_IP]);
    EXPECT(strncmp(sym, "arch_regs_fixture_call+", 23) == 0);
    EXPECT_EQ(r->ret_ip, r->arg[ARG_IP]);
}

static void rregs_run(struct selftest_ctx *t, void (*fn)(const struct pt_regs *),
                      const char *fn_name)
{
    const struct trace_event_call *call = rregs_probe("rregs", fn_name);
    ASSERT_TRUE(call != NULL);
    trace_clear(-1);
    struct pt_regs want;
    ftrace_test_regs_want(&want);
    arch_regs_fixture_call(&want, fn);
    arch_regs_fixture_call(&want, fn);
    struct rregs_record r[RREGS_MAX_RECORDS];
    unsigned n = rregs_collect(call, r, RREGS_MAX_RECORDS);
    rregs_remove("rregs");
    EXPECT_EQ(n, 2);
    for (unsigned i = 0; i < n && i < RREGS_MAX_RECORDS; i++)
        rregs_check(t, &r[i], &want, fn);
}

SELFTEST(kretprobe_regs_ftrace_site) { rregs_run(t, arch_regs_fixture, "arch_regs_fixture"); }

SELFTEST(kretprobe_regs_int3)
{
    rregs_run(t, arch_regs_fixture_notrace, "arch_regs_fixture_notrace");
}

/*
 * Three hooks on one call: function_graph's (which keeps only the return value registers)
 * and two return probes. The probes' hooks run first and each reloads every register, so
 * both read the return as the fixture left it, whatever order the hooks were taken in.
 */
SELFTEST(kretprobe_regs_nested_hooks)
{
    const struct trace_event_call *a = rregs_probe("rregs_a", "arch_regs_fixture");
    const struct trace_event_call *b = rregs_probe("rregs_b", "arch_regs_fixture");
    EXPECT_EQ(fgraph_set_filter_text(false, "arch_regs_fixture"), 0);
    EXPECT_EQ(trace_set_tracer("function_graph"), 0);
    trace_clear(-1);
    struct pt_regs want;
    ftrace_test_regs_want(&want);
    for (int i = 0; i < 3; i++)
        arch_regs_fixture_call(&want, arch_regs_fixture);
    trace_set_on(false);
    struct rregs_record r[RREGS_MAX_RECORDS];
    unsigned na = a ? rregs_collect(a, r, RREGS_MAX_RECORDS) : 0;
    EXPECT_EQ(na, 3);
    for (unsigned i = 0; i < na && i < RREGS_MAX_RECORDS; i++)
        rregs_check(t, &r[i], &want, arch_regs_fixture);
    unsigned nb = b ? rregs_collect(b, r, RREGS_MAX_RECORDS) : 0;
    EXPECT_EQ(nb, 3);
    for (unsigned i = 0; i < nb && i < RREGS_MAX_RECORDS; i++)
        rregs_check(t, &r[i], &want, arch_regs_fixture);
    trace_set_on(true);
    trace_set_tracer("nop");
    fgraph_set_filter_text(false, "");
    rregs_remove("rregs_a");
    rregs_remove("rregs_b");
    EXPECT(!fgraph_is_dead());
}

/* The fixture's value of register name (ftrace_test_reg_names). */
static unsigned long rregs_value_of(const char *name)
{
    for (unsigned i = 0; i < FTRACE_TEST_REGS; i++)
        if (strcmp(ftrace_test_reg_names[i], name) == 0)
            return ftrace_test_reg_value(i);
    return 0;
}

/*
 * A return probe that reads only what the partial hook saves (return_to_handler_partial)
 * beside one that reads every register, on the same call, made in both orders, with
 * function_graph's hook on the call too: the partial one reads the return value registers,
 * the frame pointer, the stack and the return address as the fixture left them, and the
 * full one every register, whichever hook the calls took first.
 */
SELFTEST(kretprobe_partial_regs)
{
    static const char partial[] =
        "$retval %ax %dx %bp %sp %ip $stack0 +0(%sp)"; /* fields 0..7 of the record */
    EXPECT_EQ(fgraph_set_filter_text(false, "arch_regs_fixture"), 0);
    EXPECT_EQ(trace_set_tracer("function_graph"), 0);
    for (int order = 0; order < 2; order++) {
        char line[128];
        snprintf(line, sizeof(line), "r:selftest/rpart arch_regs_fixture %s", partial);
        const struct trace_event_call *full =
            order ? rregs_probe("rfull", "arch_regs_fixture") : NULL;
        ASSERT_EQ(kprobe_command(line), 0);
        const struct trace_event_call *part = trace_event_find("selftest", "rpart");
        ASSERT_TRUE(part != NULL);
        EXPECT_EQ(trace_event_enable(part, true), 0);
        if (!order)
            full = rregs_probe("rfull", "arch_regs_fixture");
        trace_clear(-1);
        struct pt_regs want;
        ftrace_test_regs_want(&want);
        for (int i = 0; i < 2; i++)
            arch_regs_fixture_call(&want, arch_regs_fixture);
        struct rregs_record r[RREGS_MAX_RECORDS];
        unsigned n = rregs_collect(part, r, RREGS_MAX_RECORDS);
        EXPECT_EQ(n, 2);
        for (unsigned i = 0; i < n && i < RREGS_MAX_RECORDS; i++) {
            EXPECT_EQ(r[i].arg[0], rregs_value_of("ax"));
            EXPECT_EQ(r[i].arg[1], rregs_value_of("ax"));
            EXPECT_EQ(r[i].arg[2], rregs_value_of("dx"));
            EXPECT_EQ(r[i].arg[3], rregs_value_of("bp"));
            EXPECT(r[i].arg[4] < (unsigned long)&want && (unsigned long)&want - r[i].arg[4] < 1024);
            EXPECT_EQ(r[i].arg[5], r[i].ret_ip);
            EXPECT_EQ(r[i].arg[6], (unsigned long)&want);
            EXPECT_EQ(r[i].arg[7], (unsigned long)&want);
        }
        n = full ? rregs_collect(full, r, RREGS_MAX_RECORDS) : 0;
        EXPECT_EQ(n, 2);
        for (unsigned i = 0; i < n && i < RREGS_MAX_RECORDS; i++)
            rregs_check(t, &r[i], &want, arch_regs_fixture);
        EXPECT_EQ(trace_event_enable(part, false), 0);
        EXPECT_EQ(kprobe_command("-:selftest/rpart"), 0);
        rregs_remove("rfull");
    }
    trace_set_tracer("nop");
    fgraph_set_filter_text(false, "");
    EXPECT(!fgraph_is_dead());
}

/*
 * Return places alone hook single returns, so the hooks call their own handler, the graph
 * core's return and theirs in one; the core's own handler, which hands a return to its
 * client's retfunc (the way when another client hooks single returns too), reads the same.
 */
SELFTEST(kretprobe_regs_core_handler)
{
    const struct trace_event_call *warm = rregs_probe("rwarm", "arch_regs_fixture");
    rregs_remove("rwarm"); /* binds the return places' client, if nothing had yet */
    EXPECT(warm != NULL);
    EXPECT(!fgraph_regs_return_force_core(true));
    rregs_run(t, arch_regs_fixture, "arch_regs_fixture");
    rregs_run(t, arch_regs_fixture_notrace, "arch_regs_fixture_notrace");
    /* The partial hook too: the return value, the stack and the return address. */
    ASSERT_EQ(kprobe_command("r:selftest/rcore arch_regs_fixture $retval %dx %sp %ip"), 0);
    const struct trace_event_call *part = trace_event_find("selftest", "rcore");
    EXPECT(part && trace_event_enable(part, true) == 0);
    trace_clear(-1);
    struct pt_regs want;
    ftrace_test_regs_want(&want);
    arch_regs_fixture_call(&want, arch_regs_fixture);
    struct rregs_record r[RREGS_MAX_RECORDS];
    unsigned n = part ? rregs_collect(part, r, RREGS_MAX_RECORDS) : 0;
    rregs_remove("rcore");
    EXPECT_EQ(n, 1);
    if (n == 1) {
        EXPECT_EQ(r[0].arg[0], rregs_value_of("ax"));
        EXPECT_EQ(r[0].arg[1], rregs_value_of("dx"));
        EXPECT(r[0].arg[2] < (unsigned long)&want && (unsigned long)&want - r[0].arg[2] < 1024);
        EXPECT_EQ(r[0].arg[3], r[0].ret_ip);
    }
    EXPECT(fgraph_regs_return_force_core(false));
    EXPECT(!fgraph_regs_return_force_core(false));
}

/*
 * A recursive function: one hooked return per level, each with its own level's stack
 * pointer and return value, innermost first.
 */
SELFTEST(kretprobe_regs_recursion)
{
    ASSERT_EQ(kprobe_command("r:selftest/rrec stack_depth_test_recurse $retval %sp %ip"), 0);
    const struct trace_event_call *call = trace_event_find("selftest", "rrec");
    ASSERT_TRUE(call != NULL);
    EXPECT_EQ(trace_event_enable(call, true), 0);
    trace_clear(-1);
    unsigned long got = stack_depth_test_recurse(5);
    struct rregs_record r[RREGS_MAX_RECORDS];
    unsigned n = rregs_collect(call, r, RREGS_MAX_RECORDS);
    EXPECT_EQ(trace_event_enable(call, false), 0);
    EXPECT_EQ(kprobe_command("-:selftest/rrec"), 0);
    ASSERT_EQ(n, 6);
    /* levels 0..5: r(0) = 0, r(n) = r(n - 1) + n + 3n */
    unsigned long want = 0;
    unsigned long self = sym_address("stack_depth_test_recurse");
    for (unsigned i = 0; i < 6; i++) {
        want += 4 * i;
        EXPECT_EQ(r[i].arg[0], want); /* $retval */
        if (i)
            EXPECT(r[i].arg[1] > r[i - 1].arg[1]); /* %sp */
        /* Every level but the outermost returns into the function itself. */
        uintptr_t start;
        EXPECT_EQ(sym_lookup(r[i].arg[2], &start, NULL) && start == self, i < 5);
    }
    EXPECT_EQ(got, want);
}

/*
 * MAXACTIVE: at most that many calls hooked at once. Six nested calls with r2: the two
 * outermost are hooked (their returns recorded, the outermost last), the four inside them
 * are misses; once they have returned, the next call is hooked again.
 */
SELFTEST(kretprobe_maxactive_nested)
{
    ASSERT_EQ(kprobe_command("r2:selftest/rmax stack_depth_test_recurse $retval"), 0);
    const struct trace_event_call *call = trace_event_find("selftest", "rmax");
    ASSERT_TRUE(call != NULL);
    EXPECT_EQ(trace_event_enable(call, true), 0);
    trace_clear(-1);
    uint64_t missed = 0;
    stack_depth_test_recurse(5);
    struct rregs_record r[RREGS_MAX_RECORDS];
    unsigned n = rregs_collect(call, r, RREGS_MAX_RECORDS);
    EXPECT_EQ(kprobe_hits("selftest", "rmax", &missed), 6);
    EXPECT_EQ(missed, 4);
    ASSERT_EQ(n, 2);
    /* r(4) = 40 for the call one level in, r(5) = 60 for the outermost. */
    EXPECT_EQ(r[0].arg[0], 40);
    EXPECT_EQ(r[1].arg[0], 60);
    /* Both came back: a call of one level is hooked again, twice over. */
    trace_clear(-1);
    stack_depth_test_recurse(1);
    EXPECT_EQ(rregs_collect(call, r, RREGS_MAX_RECORDS), 2);
    missed = 0;
    EXPECT_EQ(kprobe_hits("selftest", "rmax", &missed), 8);
    EXPECT_EQ(missed, 4);
    EXPECT_EQ(trace_event_enable(call, false), 0);
    EXPECT_EQ(kprobe_command("-:selftest/rmax"), 0);
}
