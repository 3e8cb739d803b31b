/*
 * Self-tests of tracepoint probes (t: lines): the event core's probe list on a tracepoint
 * (the arguments it hands over, the enabled byte's bit coming and going), and a t: event's
 * record of a tracepoint hit with known arguments: the tracepoint's own C values, a
 * dereference of one, a fault, read back from the trace.
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/selftest.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>
#include <kernel/trace_events.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "trace_internal.h"
#include "trace_kprobe.h"
#include "trace_probe.h"

/* tests/shell/kprobe/tprobe.t and tests/trace/probes.py read these fields of sched_switch's
 * thread arguments as +8($argN) and +12($argN). */
_Static_assert(offsetof(struct thread, pid) == 8, "the tests read a thread's pid at +8");
_Static_assert(offsetof(struct thread, name) == 12, "the tests read a thread's name at +12");

/* Tracepoint arguments no real interrupt has. */
#define TP_TEST_IRQ (-7777)
#define TP_TEST_RET 5

struct tp_catch {
    struct trace_event_tp_probe probe;
    unsigned hits;
    unsigned long ip;
    unsigned long args[2];
    unsigned nargs;
};

static void tp_catch_fire(struct trace_event_tp_probe *probe, unsigned long ip,
                          const unsigned long *args, unsigned nargs)
{
    struct tp_catch *c = container_of(probe, struct tp_catch, probe);
    /* Real interrupts hit the tracepoint too (on every CPU): only the test's call counts. */
    if (nargs != 2 || (int)args[0] != TP_TEST_IRQ)
        return;
    c->hits++;
    c->ip = ip;
    c->args[0] = args[0];
    c->args[1] = args[1];
    c->nargs = nargs;
}

SELFTEST(tprobe_core_attach)
{
    const struct trace_event_call *call = trace_event_find_tracepoint("irq_handler_exit");
    ASSERT_NOT_NULL(call);
    EXPECT_EQ(call->tp_nargs, 2);
    EXPECT(trace_event_find_tracepoint("sched_switch") != NULL);
    EXPECT_EQ(trace_event_find_tracepoint("sched_switch")->tp_nargs, 2);
    /* ftrace's own events and made ones have no tracepoint. */
    EXPECT(trace_event_find_tracepoint("function") == NULL);
    EXPECT(trace_event_find_tracepoint("nosuch_tracepoint") == NULL);

    struct tp_catch c = {.probe.fire = tp_catch_fire};
    /* Nothing attached: the tracepoint does not call the stub. */
    trace_irq_handler_exit(TP_TEST_IRQ, TP_TEST_RET);
    ASSERT_EQ(trace_event_tp_probe_attach(call, &c.probe), 0);
    EXPECT(trace_event_on_irq_handler_exit & TRACE_EVENT_ON_PROBE);
    EXPECT(!(trace_event_on_irq_handler_exit & TRACE_EVENT_ON_EMIT));
    trace_irq_handler_exit(TP_TEST_IRQ, TP_TEST_RET);
    trace_irq_handler_exit(TP_TEST_IRQ, TP_TEST_RET);
    trace_event_tp_probe_detach(call, &c.probe);
    EXPECT(!(trace_event_on_irq_handler_exit & TRACE_EVENT_ON_PROBE));
    trace_irq_handler_exit(TP_TEST_IRQ, TP_TEST_RET);
    EXPECT_EQ(c.hits, 2);
    EXPECT_EQ(c.nargs, 2);
    EXPECT_EQ((int)c.args[0], TP_TEST_IRQ);
    EXPECT_EQ(c.args[1], TP_TEST_RET);
    char sym[64];
    sym_format(sym, sizeof(sym), c.ip);
    EXPECT(strncmp(sym, "__probestub_irq_handler_exit+0x0/", 33) == 0);
}

/* Whether the trace holds a line with text (after the context columns). */
static bool trace_has(const char *text)
{
    ssize_t err;
    char *trace = selftest_read_file(TRACEFS_ROOT, "trace", 4096, &err);
    bool found = trace && strstr(trace, text) != NULL;
    kfree(trace);
    return found;
}

static void tprobe_cycle(struct selftest_ctx *t)
{
    static struct thread prev, next;
    prev.pid = 31001;
    strlcpy(prev.name, "tp-prev", sizeof(prev.name));
    next.pid = 31002;
    strlcpy(next.name, "tp-next", sizeof(next.name));
    ASSERT_EQ(kprobe_command("t:selftest/tp_sw sched_switch p=$arg1 n=$arg2 "
                             "npid=+8($arg2):s32 ncomm=+12($arg2):string pc=+12($arg1):string"),
              0);
    ASSERT_EQ(kprobe_command("t:selftest/tp_exit irq_handler_exit irq=$arg1:s32 ret=$arg2:u8 "
                             "bad=+0($arg2):x64 c=$comm"),
              0);
    const struct trace_event_call *sw = trace_event_find("selftest", "tp_sw");
    const struct trace_event_call *ex = trace_event_find("selftest", "tp_exit");
    ASSERT_TRUE(sw && ex);
    EXPECT(!(trace_event_on_sched_switch & TRACE_EVENT_ON_PROBE));
    trace_clear(-1);
    EXPECT_EQ(trace_event_enable(sw, true), 0);
    EXPECT_EQ(trace_event_enable(ex, true), 0);
    EXPECT(trace_event_on_sched_switch & TRACE_EVENT_ON_PROBE);
    trace_sched_switch(&prev, &next);
    trace_irq_handler_exit(TP_TEST_IRQ, TP_TEST_RET);
    EXPECT_EQ(trace_event_enable(sw, false), 0);
    EXPECT_EQ(trace_event_enable(ex, false), 0);
    EXPECT(!(trace_event_on_sched_switch & TRACE_EVENT_ON_PROBE));

    char want[192];
    snprintf(want, sizeof(want), "p=0x%lx n=0x%lx npid=31002 ncomm=\"tp-next\" pc=\"tp-prev\"\n",
             (unsigned long)&prev, (unsigned long)&next);
    EXPECT(trace_has(" tp_sw: (__probestub_sched_switch+0x0/"));
    EXPECT(trace_has(want));
    /* $arg2 is 5: the pointer faults, recorded as 0. */
    snprintf(want, sizeof(want), " irq=%d ret=%d bad=0x0 c=\"%s\"\n", TP_TEST_IRQ, TP_TEST_RET,
             current_thread()->name);
    EXPECT(trace_has(" tp_exit: (__probestub_irq_handler_exit+0x0/"));
    EXPECT(trace_has(want));
    EXPECT(kprobe_hits("selftest", "tp_exit", NULL) >= 1);

    EXPECT_EQ(kprobe_command("-:selftest/tp_sw"), 0);
    EXPECT_EQ(kprobe_command("-:selftest/tp_exit irq_handler_exit"), 0);
    EXPECT(trace_event_find("selftest", "tp_sw") == NULL);
    EXPECT_EQ(trace_event_on_irq_handler_exit & TRACE_EVENT_ON_PROBE, 0);
}

SELFTEST(tprobe_event_args)
{
    struct mm_stats before, after;
    /* The first cycle may make what lasts (the group's name); the second gives back all. */
    tprobe_cycle(t);
    mm_get_stats(&before);
    tprobe_cycle(t);
    mm_get_stats(&after);
    EXPECT_EQ(after.heap_bytes_in_use, before.heap_bytes_in_use);
    trace_clear(-1);
}

SELFTEST(tprobe_parse)
{
    struct probe_words w;
    struct probe_cmd cmd;
    struct probe_error e;
    ASSERT_EQ(probe_split_words("t sched_wakeup +8($arg1):s32 c=$comm", &w), 0);
    ASSERT_EQ(probe_parse(&w, &cmd, &e), 0);
    EXPECT_EQ(cmd.kind, 't');
    EXPECT_STREQ(cmd.group, "tracepoints");
    EXPECT_STREQ(cmd.event, "sched_wakeup");
    EXPECT(cmd.tracepoint == trace_event_find_tracepoint("sched_wakeup"));
    ASSERT_EQ(cmd.nargs, 2);
    EXPECT_EQ(cmd.args[0].base, FETCH_TP_ARG);
    EXPECT_EQ(cmd.args[0].param, 0);
    EXPECT_EQ(cmd.args[0].offset, 16);
    EXPECT_EQ(cmd.args[1].base, FETCH_COMM);
    probe_cmd_free(&cmd);
    probe_words_free(&w);

    /* sched_wakeup has one argument: $arg2 is refused where it is. */
    ASSERT_EQ(probe_split_words("t sched_wakeup x=+0($arg2)", &w), 0);
    EXPECT_EQ(probe_parse(&w, &cmd, &e), -EINVAL);
    EXPECT_STREQ(e.message, "Invalid argument number");
    EXPECT_EQ(e.word, 2);
    EXPECT_EQ(e.pos, 5);
    probe_cmd_free(&cmd);
    probe_words_free(&w);
}

/*
 * The inline hook saw a probe's bit, then the last probe went before the emitter read the
 * byte again (0 now): the emitter writes nothing for an event that is off.
 */
SELFTEST(tprobe_emitter_after_detach)
{
    const struct trace_event_call *call = trace_event_find_tracepoint("irq_handler_exit");
    ASSERT_NOT_NULL(call);
    EXPECT_EQ(trace_event_on_irq_handler_exit, 0);
    trace_clear(-1);
    /* What trace_irq_handler_exit() runs once it has seen the byte non-zero. */
    trace_event_emit_irq_handler_exit(TP_TEST_IRQ, TP_TEST_RET);
    EXPECT(!trace_has("irq=-7777"));
    trace_clear(-1);
}
