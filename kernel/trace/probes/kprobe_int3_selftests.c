/*
 * Self-tests of kprobes at any instruction (int3): a probe on a mid-function instruction
 * of each kind the int3 path handles (a RIP-relative load and a push run out of line; a
 * call, a conditional jump both ways and a return emulated), checking that the function
 * still computes its result, that the probe hit once per call, and that the frame the
 * handlers saw holds the registers the code had there. Then a hit from inside a handler
 * (a miss, never a recursion), the refusals, and a probe's memory given back.
 */
#include <arch/kprobes.h>
#include <arch/regs.h>
#include <kernel/errno.h>
#include <kernel/ftrace_test.h>
#include <kernel/mm.h>
#include <kernel/selftest.h>
#include <kernel/symbols.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "trace_internal.h"
#include "trace_kprobe.h"

static struct pt_regs seen_regs;
static unsigned long seen_addr;
static volatile unsigned seen_count;

static void record_hit(const struct pt_regs *regs, unsigned long addr)
{
    seen_regs = *regs;
    seen_addr = addr;
    seen_count++;
}

static unsigned long reg(const struct pt_regs *regs, const char *name)
{
    return regs_get_register(regs, (unsigned)regs_query_register_offset(name));
}

struct int3_case {
    const char *fn;
    enum arch_kprobe_insn_class cls;
    unsigned nth;
    long (*call)(long);
    long arg;
    long result;
    const char *reg; /* a register the code holds a known value in at the probe */
    unsigned long reg_value;
};

static void run_case(struct selftest_ctx *t, const struct int3_case *c)
{
    unsigned long fn = sym_address(c->fn);
    ASSERT_TRUE(fn != 0);
    unsigned long at = arch_kprobe_find_insn(fn, c->cls, c->nth);
    ASSERT_TRUE(at != 0);
    char line[128];
    snprintf(line, sizeof(line), "p:selftest/int3 %s+%lu v=%%%s", c->fn, at - fn, c->reg);
    ASSERT_EQ(kprobe_command(line), 0);
    const struct trace_event_call *ev = trace_event_find("selftest", "int3");
    ASSERT_TRUE(ev != NULL);
    EXPECT_EQ(trace_event_enable(ev, true), 0);
    seen_count = 0;
    WRITE_ONCE(kprobe_int3_test_hook, record_hit);
    long got = c->call(c->arg);
    WRITE_ONCE(kprobe_int3_test_hook, NULL);
    EXPECT_EQ(got, c->result);
    EXPECT_EQ(seen_count, 1);
    EXPECT_EQ(seen_addr, at);
    EXPECT_EQ(reg(&seen_regs, c->reg), c->reg_value);
    /* The instruction pointer of an int3 hit: one past the breakpoint, as on Linux. */
    EXPECT_EQ(reg(&seen_regs, "ip"), at + 1);
    for (long i = 0; i < 100; i++)
        EXPECT_EQ(c->call(c->arg), c->result);
    EXPECT_EQ(kprobe_hits("selftest", "int3", NULL), 101);
    EXPECT_EQ(trace_event_enable(ev, false), 0);
    EXPECT_EQ(c->call(c->arg), c->result);
    EXPECT_EQ(kprobe_hits("selftest", "int3", NULL), 101);
    EXPECT_EQ(kprobe_command("-:selftest/int3"), 0);
}

SELFTEST(kprobe_int3_riprel)
{
    struct int3_case c = {
        "kprobe_int3_riprel", KPROBE_INSN_PC_RELATIVE, 0, kprobe_int3_riprel, 42, 1042, "di", 42};
    run_case(t, &c);
}

SELFTEST(kprobe_int3_call)
{
    /* At the call, the argument is already n + 1. */
    struct int3_case c = {
        "kprobe_int3_call", KPROBE_INSN_CALL, 0, kprobe_int3_call, 7, 26, "di", 8};
    run_case(t, &c);
}

SELFTEST(kprobe_int3_jcc)
{
    struct int3_case not_taken = {
        "kprobe_int3_jcc", KPROBE_INSN_COND_JUMP, 0, kprobe_int3_jcc, 5, 4, "di", 5};
    run_case(t, &not_taken);
    struct int3_case taken = {
        "kprobe_int3_jcc", KPROBE_INSN_COND_JUMP, 0, kprobe_int3_jcc, 20, 61, "di", 20};
    run_case(t, &taken);
}

SELFTEST(kprobe_int3_ret)
{
    /* At the return, the result is in %ax. */
    struct int3_case c = {
        "kprobe_int3_call", KPROBE_INSN_RETURN, 0, kprobe_int3_call, 10, 35, "ax", 35};
    run_case(t, &c);
}

SELFTEST(kprobe_int3_push_notrace)
{
    /* A notrace function's first instruction, a push: an int3, not an ftrace site. */
    struct int3_case c = {
        "kprobe_int3_notrace", KPROBE_INSN_PUSH, 0, kprobe_int3_notrace, 4, 7, "di", 4};
    ASSERT_EQ(arch_kprobe_find_insn(sym_address("kprobe_int3_notrace"), KPROBE_INSN_PUSH, 0),
              sym_address("kprobe_int3_notrace"));
    run_case(t, &c);
}

/* A handler that calls a probed function: that hit is a miss. */
static void call_probed(const struct pt_regs *regs, unsigned long addr)
{
    if (addr == sym_address("kprobe_int3_notrace"))
        kprobe_int3_riprel(1);
}

SELFTEST(kprobe_int3_nested_is_miss)
{
    unsigned long fn = sym_address("kprobe_int3_riprel");
    unsigned long at = arch_kprobe_find_insn(fn, KPROBE_INSN_PC_RELATIVE, 0);
    ASSERT_TRUE(at != 0);
    char line[96];
    snprintf(line, sizeof(line), "p:selftest/inner kprobe_int3_riprel+%lu", at - fn);
    ASSERT_EQ(kprobe_command(line), 0);
    ASSERT_EQ(kprobe_command("p:selftest/outer kprobe_int3_notrace"), 0);
    const struct trace_event_call *inner = trace_event_find("selftest", "inner");
    const struct trace_event_call *outer = trace_event_find("selftest", "outer");
    ASSERT_TRUE(inner && outer);
    EXPECT_EQ(trace_event_enable(inner, true), 0);
    EXPECT_EQ(trace_event_enable(outer, true), 0);
    WRITE_ONCE(kprobe_int3_test_hook, call_probed);
    EXPECT_EQ(kprobe_int3_notrace(2), 1);
    WRITE_ONCE(kprobe_int3_test_hook, NULL);
    EXPECT_EQ(kprobe_int3_riprel(3), 1003);
    uint64_t missed = 0;
    EXPECT_EQ(kprobe_hits("selftest", "outer", NULL), 1);
    /* One hit outside the handler, one miss inside it. */
    EXPECT_EQ(kprobe_hits("selftest", "inner", &missed), 1);
    EXPECT_EQ(missed, 1);
    EXPECT_EQ(trace_event_enable(inner, false), 0);
    EXPECT_EQ(trace_event_enable(outer, false), 0);
    EXPECT_EQ(kprobe_command("-:selftest/inner"), 0);
    EXPECT_EQ(kprobe_command("-:selftest/outer"), 0);
}

SELFTEST(kprobe_int3_refusals)
{
    /* Inside the two-byte mov after the push. */
    EXPECT_EQ(kprobe_command("p:selftest/bad kprobe_int3_notrace+2"), -EILSEQ);
    /* The int3 handler itself, and the probe machinery: blacklisted. */
    EXPECT_EQ(kprobe_command("p:selftest/bad x86_kprobe_int3"), -EINVAL);
    EXPECT_EQ(kprobe_command("p:selftest/bad kprobe_int3_hit+4"), -EINVAL);
    EXPECT(kprobe_blacklisted(sym_address("x86_text_poke_int3")));
    EXPECT(!kprobe_blacklisted(sym_address("kprobe_int3_notrace")));
    EXPECT(trace_event_find("selftest", "bad") == NULL);
}

SELFTEST(kprobe_int3_memory)
{
    struct mm_stats before, after;
    struct int3_case c = {
        "kprobe_int3_riprel", KPROBE_INSN_PC_RELATIVE, 0, kprobe_int3_riprel, 1, 1001, "di", 1};
    run_case(t, &c);
    mm_get_stats(&before);
    run_case(t, &c);
    mm_get_stats(&after);
    EXPECT_EQ(after.heap_bytes_in_use, before.heap_bytes_in_use);
}

/* A return probe on a function without an ftrace site: an int3 on its first instruction. */
SELFTEST(kprobe_int3_return_notrace)
{
    ASSERT_EQ(kprobe_command("r:selftest/iret kprobe_int3_notrace $retval"), 0);
    const struct trace_event_call *ev = trace_event_find("selftest", "iret");
    ASSERT_TRUE(ev != NULL);
    EXPECT_EQ(trace_event_enable(ev, true), 0);
    for (long i = 0; i < 50; i++)
        EXPECT_EQ(kprobe_int3_notrace(i), 3 * i - 5);
    uint64_t missed = 0;
    EXPECT_EQ(kprobe_hits("selftest", "iret", &missed), 50);
    EXPECT_EQ(missed, 0);
    EXPECT_EQ(trace_event_enable(ev, false), 0);
    EXPECT_EQ(kprobe_command("-:selftest/iret"), 0);
    /* An address inside the function is no entry. */
    char line[64];
    snprintf(line, sizeof(line), "r:selftest/iret 0x%lx", sym_address("kprobe_int3_notrace") + 1);
    EXPECT_EQ(kprobe_command(line), -EINVAL);
    snprintf(line, sizeof(line), "p:selftest/iaddr 0x%lx", sym_address("kprobe_int3_notrace") + 1);
    EXPECT_EQ(kprobe_command(line), 0);
    EXPECT_EQ(kprobe_command("-:selftest/iaddr"), 0);
}
