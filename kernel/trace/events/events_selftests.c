/*
 * Self-tests of the event core: Linux's record layout and ids, the enabled byte, the
 * reader's dispatch and line text, the pid lists, saved_cmdlines, and trace_printk's
 * bprint/bputs records.
 */
#include <arch/cpu.h>
#include <kernel/errno.h>
#include <kernel/pseudofs.h>
#include <kernel/selftest.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_files.h"
#include "trace_internal.h"

struct evt_saved {
    bool on;
    uint32_t cpumask;
};

static void evt_begin(struct evt_saved *s)
{
    s->on = rb_record_is_on(trace_global.buffer);
    s->cpumask = trace_global.cpumask;
    trace_set_on(false);
    trace_clear(-1);
    trace_set_cpumask(cpu_online_mask());
    trace_set_on(true);
}

static void evt_end(struct evt_saved *s)
{
    trace_set_on(false);
    trace_clear(-1);
    trace_set_cpumask(s->cpumask);
    trace_set_on(s->on);
}

/* Where the tests collect records: a record holds a page of payload, so not on the stack. */
static struct rb_record evt_recs[4];

/* Copies out the records of event `id`, up to max, with their text; returns how many. */
static unsigned evt_collect(unsigned id, struct rb_record *out, unsigned max, struct seqbuf *text)
{
    struct trace_iter *it = trace_iter_open(false, -1);
    unsigned n = 0;
    if (!it)
        return 0;
    while (trace_iter_next(it)) {
        const uint8_t *d = it->rec.data;
        if (!trace_event_is_full_record(d) || ((const struct trace_event_common *)d)->type != id)
            continue;
        if (n < max)
            out[n] = it->rec;
        if (text)
            trace_format_default(it, text);
        n++;
    }
    trace_iter_close(it);
    return n;
}

/* Does the line holding `at` contain `what` before `at`? */
static bool evt_line_has(const char *buf, const char *at, const char *what)
{
    if (!buf || !at)
        return false;
    const char *line = at;
    while (line > buf && line[-1] != '\n')
        line--;
    const char *hit = strstr(line, what);
    return hit && hit < at;
}

static const struct trace_event_call *evt_single_entry(void)
{
    return trace_event_find("irq_vectors", "call_function_single_entry");
}

SELFTEST(events_ids)
{
    static const struct {
        const char *name;
        unsigned id;
    } fixed[] = {{"function", 1},        {"kernel_stack", 4},     {"print", 5},  {"bprint", 6},
                 {"funcgraph_exit", 10}, {"funcgraph_entry", 11}, {"bputs", 14}, {"raw_data", 18}};
    for (size_t i = 0; i < ARRAY_SIZE(fixed); i++) {
        const struct trace_event_call *c = trace_event_find("ftrace", fixed[i].name);
        EXPECT(c != NULL);
        if (c)
            EXPECT_EQ(c->state->id, fixed[i].id);
    }
    /* Every id is unique, the dynamic ones above Linux's fixed ones, and maps back. */
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        EXPECT(trace_event_by_id(c->state->id) == c);
        if (!c->fixed_id)
            EXPECT(c->state->id >= TRACE_EVENT_ID_FIRST_DYNAMIC);
        EXPECT(c->fixed_id || c->state->enabled != NULL);
    }
    EXPECT(trace_event_find("sched", "sched_switch") != NULL);
    EXPECT(trace_event_find("sched", "nosuch") == NULL);
    EXPECT(trace_event_by_id(0) == NULL);
}

SELFTEST(events_record_layout)
{
    const struct trace_event_call *call = evt_single_entry();
    EXPECT(call != NULL);
    if (!call)
        return;
    struct evt_saved s;
    evt_begin(&s);

    /* Off: the tracepoint writes nothing. */
    trace_call_function_single_entry(1);
    EXPECT_EQ(trace_event_enable(call, true), 0);
    EXPECT(trace_event_on_call_function_single_entry & TRACE_EVENT_ON_RECORD);
    trace_call_function_single_entry(4660);
    unsigned long irq = arch_irq_save();
    trace_call_function_single_entry(4661);
    arch_irq_restore(irq);
    EXPECT_EQ(trace_event_enable(call, false), 0);
    EXPECT(!trace_event_on_call_function_single_entry);
    trace_call_function_single_entry(2);

    struct rb_record *recs = evt_recs;
    struct seqbuf text = {0};
    unsigned n = evt_collect(call->state->id, recs, 4, &text);
    EXPECT_EQ(n, 2);
    for (unsigned i = 0; i < n && i < 2; i++) {
        const struct trace_event_common *c = (const void *)recs[i].data;
        EXPECT_EQ(recs[i].len, 12);
        EXPECT_EQ(c->type, call->state->id);
        EXPECT_EQ(c->pid, current_thread()->pid);
        EXPECT_EQ(c->preempt_count >> 4, 0);
        EXPECT_EQ(*(const int32_t *)(recs[i].data + 8), 4660 + (int)i);
        EXPECT_EQ(c->flags & TRACE_EVENT_FLAG_IRQS_OFF, i == 1 ? TRACE_EVENT_FLAG_IRQS_OFF : 0);
    }
    /* The line: Linux's context columns from the common fields, then name and text. */
    const char *first =
        text.buf ? strstr(text.buf, ": call_function_single_entry: vector=4660\n") : NULL;
    const char *second =
        text.buf ? strstr(text.buf, ": call_function_single_entry: vector=4661\n") : NULL;
    EXPECT(first && second && first < second);
    /* The flag columns of each: irqs on and off, no preemption shown. */
    EXPECT(evt_line_has(text.buf, first, "] ..... "));
    EXPECT(evt_line_has(text.buf, second, "] d.... "));
    seqbuf_free(&text);
    evt_end(&s);
}

SELFTEST(events_pid_lists)
{
    const struct trace_event_call *call = evt_single_entry();
    if (!call)
        return;
    struct evt_saved s;
    evt_begin(&s);
    struct trace_event_pids *allow = &trace_event_pids[TRACE_EVENT_PIDS_TRACE];
    struct trace_event_pids *deny = &trace_event_pids[TRACE_EVENT_PIDS_NOTRACE];
    unsigned saved_allow = allow->count, saved_deny = deny->count;
    int me = current_thread()->pid;
    trace_event_enable(call, true);

    allow->pids[0] = me + 1000;
    allow->count = 1;
    deny->count = 0;
    trace_event_pids_changed();
    trace_call_function_single_entry(1); /* not listed: refused */
    allow->pids[0] = me;
    trace_event_pids_changed();
    trace_call_function_single_entry(2); /* listed */
    deny->pids[0] = me;
    deny->count = 1;
    trace_event_pids_changed();
    trace_call_function_single_entry(3); /* notrace wins */
    allow->count = saved_allow;
    deny->count = saved_deny;
    trace_event_pids_changed();
    trace_event_enable(call, false);

    struct rb_record *recs = evt_recs;
    unsigned n = evt_collect(call->state->id, recs, 4, NULL);
    EXPECT_EQ(n, 1);
    if (n == 1)
        EXPECT_EQ(*(const int32_t *)(recs[0].data + 8), 2);
    evt_end(&s);
}

SELFTEST(events_saved_cmdlines)
{
    unsigned size = trace_cmdlines_size();
    EXPECT_EQ(trace_cmdlines_resize(0), -EINVAL);
    EXPECT_EQ(trace_cmdlines_resize(TRACE_CMDLINES_MAX + 1), -EINVAL);
    EXPECT_EQ(trace_cmdlines_size(), size);
    EXPECT_EQ(trace_cmdlines_resize(2), 0);
    trace_event_save_cmdline(40001, "first");
    trace_event_save_cmdline(40002, "second");
    trace_event_save_cmdline(40001, "renamed"); /* same pid: its slot is updated */
    struct seqbuf s = {0};
    trace_cmdlines_show(&s, false);
    EXPECT(s.buf && strcmp(s.buf, "40001 renamed\n40002 second\n") == 0);
    seqbuf_free(&s);
    trace_event_save_cmdline(40003, "third"); /* the oldest slot goes */
    trace_event_save_cmdline(0, "idle");      /* never saved, as Linux */
    memset(&s, 0, sizeof(s));
    trace_cmdlines_show(&s, false);
    EXPECT(s.buf && strcmp(s.buf, "40003 third\n40002 second\n") == 0);
    seqbuf_free(&s);
    memset(&s, 0, sizeof(s));
    trace_cmdlines_show(&s, true);
    EXPECT(s.buf && strcmp(s.buf, "40002 40002\n40003 40003\n") == 0);
    seqbuf_free(&s);
    EXPECT_EQ(trace_cmdlines_resize(size), 0);
}

extern const char *const __start_trace_printk_fmt[], *const __stop_trace_printk_fmt[];

static bool evt_fmt_listed(const char *fmt)
{
    for (const char *const *f = __start_trace_printk_fmt; f < __stop_trace_printk_fmt; f++)
        if (*f == fmt)
            return true;
    return false;
}

SELFTEST(events_trace_printk)
{
    struct evt_saved s;
    evt_begin(&s);
    trace_printk("value %d %s %lx %c%%\n", -42, "str", 0xabcdef012UL, 'c');
    trace_printk("plain text\n");
    struct rb_record *recs = evt_recs;
    struct seqbuf text = {0};
    EXPECT_EQ(evt_collect(TRACE_EVENT_ID_BPRINT, recs, 2, &text), 1);
    EXPECT_EQ(evt_collect(TRACE_EVENT_ID_BPUTS, recs + 1, 1, &text), 1);
    /* The caller's symbol, then the text, with no event name: Linux's bprint line. */
    EXPECT(text.buf && strstr(text.buf, ": selftest_fn_events_trace_printk: value -42 str "
                                        "abcdef012 c%\n"));
    EXPECT(text.buf && strstr(text.buf, ": selftest_fn_events_trace_printk: plain text\n"));
    /* Both formats are listed in printk_formats, at the address the records hold. */
    EXPECT(evt_fmt_listed((const char *)(uintptr_t) * (const uint64_t *)(recs[0].data + 16)));
    EXPECT(evt_fmt_listed((const char *)(uintptr_t) * (const uint64_t *)(recs[1].data + 16)));
    /* Linux's packing: -42 as a u32 at 24, "str\0" at 28, the long at 32 (two u32). */
    EXPECT_EQ(*(const int32_t *)(recs[0].data + 24), -42);
    EXPECT(memcmp(recs[0].data + 28, "str", 4) == 0);
    EXPECT_EQ(*(const uint64_t *)(recs[0].data + 32), 0xabcdef012ULL);
    seqbuf_free(&text);
    evt_end(&s);
}

/*
 * Linux's TRACE_BUF_SIZE bounds a trace_printk's packed arguments: 1024 bytes record (here
 * a string of 1019 characters, its NUL and an int), 1028 record nothing.
 */
SELFTEST(events_trace_printk_limit)
{
    struct evt_saved s;
    evt_begin(&s);
    static char text[1024];
    memset(text, 'x', sizeof(text));
    text[1019] = '\0';
    trace_printk("%s %d\n", text, 1019);
    text[1019] = 'x';
    text[1020] = '\0';
    trace_printk("%s %d\n", text, 1020);
    struct rb_record *recs = evt_recs;
    EXPECT_EQ(evt_collect(TRACE_EVENT_ID_BPRINT, recs, 2, NULL), 1);
    /* common, ip, fmt, then the string, its NUL and the int at 1020 */
    EXPECT_EQ(recs[0].len, 24 + 1024);
    EXPECT_EQ(recs[0].data[24 + 1018], 'x');
    EXPECT_EQ(recs[0].data[24 + 1019], '\0');
    EXPECT_EQ(*(const int32_t *)(recs[0].data + 24 + 1020), 1019);
    evt_end(&s);
}

/* A thread the thread cache has forgotten is still named from saved_cmdlines, as Linux
 * names every task in a trace. */
SELFTEST(events_comm_from_saved_cmdlines)
{
    char buf[32];
    /* A pid far above any thread made so far: no thread cache entry can match it. */
    int pid = 30000 + 17;
    EXPECT(!trace_cmdline_lookup(pid, buf, sizeof(buf)));
    EXPECT_STREQ(trace_comm_of(pid, buf, sizeof(buf)), "<...>");
    trace_event_save_cmdline(pid, "cmdline-test");
    EXPECT(trace_cmdline_lookup(pid, buf, sizeof(buf)));
    EXPECT_STREQ(buf, "cmdline-test");
    EXPECT_STREQ(trace_comm_of(pid, buf, sizeof(buf)), "cmdline-test");
    /* As the other saved_cmdlines test leaves it: an empty cache of the same size. */
    EXPECT_EQ(trace_cmdlines_resize(trace_cmdlines_size()), 0);
}
