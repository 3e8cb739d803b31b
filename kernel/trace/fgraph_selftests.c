/*
 * Self-tests of function_graph and the profiler on the known call tree of
 * kernel/fixtures/ftrace_test_targets.c: a -> b -> c -> target_hot.
 */
#include <arch/ftrace.h>
#include <arch/unwind.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/selftest.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>

#include "trace_internal.h"

struct graph_event {
    unsigned type;
    unsigned long func;
    unsigned depth;
    uint64_t duration;
    unsigned cpu;
};

static bool in_chain(unsigned long f)
{
    return f == (unsigned long)ftrace_test_chain_a || f == (unsigned long)ftrace_test_chain_b ||
           f == (unsigned long)ftrace_test_chain_c || f == (unsigned long)ftrace_test_target_hot;
}

/*
 * Runs the chain `calls` times under function_graph and collects this thread's events of
 * the chain's functions. (Interrupts taken inside the chain are traced too, on this
 * thread, as in Linux; they are not part of what is checked here.)
 */
static size_t run_chain(struct graph_event *out, size_t max, int calls)
{
    int me = current_thread()->pid;
    trace_clear(-1);
    trace_set_tracer("function_graph");
    for (int i = 0; i < calls; i++)
        ftrace_test_chain_a(i);
    trace_set_on(false);
    size_t n = 0;
    struct trace_iter *it = trace_iter_open(false, -1);
    while (it && trace_iter_next(it)) {
        const uint32_t *ctx = (const uint32_t *)it->rec.data;
        if ((int)trace_ctx_pid(*ctx) != me || n == max)
            continue;
        unsigned type = trace_ctx_type(*ctx);
        if (type == TRACE_GRAPH_ENT) {
            const struct trace_graph_ent_event *e = (const void *)it->rec.data;
            if (in_chain(trace_addr_unpack(e->func)))
                out[n++] = (struct graph_event){type, trace_addr_unpack(e->func), e->depth & 0xffff,
                                                0, it->rec.cpu};
        } else if (type == TRACE_GRAPH_RET) {
            const struct trace_graph_ret_event *r = (const void *)it->rec.data;
            uint64_t d = ((uint64_t)r->duration_hi << 32) | r->duration_lo;
            if (in_chain(trace_addr_unpack(r->func)))
                out[n++] = (struct graph_event){type, trace_addr_unpack(r->func), r->depth & 0x7ff,
                                                d, it->rec.cpu};
        }
    }
    trace_iter_close(it);
    trace_set_tracer("nop");
    trace_set_on(true);
    return n;
}

static struct graph_event events[256];

SELFTEST(fgraph_tree_is_nested)
{
    fgraph_set_filter_text(false, "ftrace_test_chain_a");
    size_t n = run_chain(events, 256, 3);
    fgraph_set_filter_text(false, "");
    /* Per call: 4 entries and 4 returns, a b c hot, properly nested. */
    EXPECT_EQ(n, 3 * 8);
    unsigned long order[8] = {
        (unsigned long)ftrace_test_chain_a,    (unsigned long)ftrace_test_chain_b,
        (unsigned long)ftrace_test_chain_c,    (unsigned long)ftrace_test_target_hot,
        (unsigned long)ftrace_test_target_hot, (unsigned long)ftrace_test_chain_c,
        (unsigned long)ftrace_test_chain_b,    (unsigned long)ftrace_test_chain_a};
    unsigned depth[8] = {0, 1, 2, 3, 3, 2, 1, 0};
    for (size_t i = 0; i < n && i < 24; i++) {
        EXPECT_EQ(events[i].type, (i % 8) < 4 ? TRACE_GRAPH_ENT : TRACE_GRAPH_RET);
        EXPECT_EQ(events[i].func, order[i % 8]);
        EXPECT_EQ(events[i].depth, depth[i % 8]);
    }
    /* A parent lasts at least as long as the child it waited for. */
    for (size_t call = 0; call + 8 <= n; call += 8) {
        EXPECT(events[call + 5].duration >= events[call + 4].duration);
        EXPECT(events[call + 6].duration >= events[call + 5].duration);
        EXPECT(events[call + 7].duration >= events[call + 6].duration);
    }
}

SELFTEST(fgraph_max_depth_and_thresh)
{
    fgraph_set_filter_text(false, "ftrace_test_chain_a");
    graph_test_set_limits(1, 0);
    size_t n = run_chain(events, 256, 2);
    EXPECT_EQ(n, 2 * 2); /* only a's entry and return */
    for (size_t i = 0; i < n; i++)
        EXPECT_EQ(events[i].func, (unsigned long)ftrace_test_chain_a);
    /* A threshold no call reaches: nothing, not even entries. */
    graph_test_set_limits(0, 10ULL * 1000000000ULL);
    n = run_chain(events, 256, 2);
    EXPECT_EQ(n, 0);
    graph_test_set_limits(0, 0);
    fgraph_set_filter_text(false, "");
}

SELFTEST(fgraph_notrace_suspends)
{
    fgraph_set_filter_text(false, "ftrace_test_chain_a");
    fgraph_set_filter_text(true, "ftrace_test_chain_b");
    size_t n = run_chain(events, 256, 1);
    /* b and everything it calls are not traced; a is. */
    EXPECT_EQ(n, 2);
    EXPECT_EQ(events[0].func, (unsigned long)ftrace_test_chain_a);
    fgraph_set_filter_text(true, "");
    fgraph_set_filter_text(false, "");
}

/*
 * Clients of one return see one return time: a client that asks for it after the
 * function_graph tracer wrote its return event gets that event's time, not a second
 * clock read. This client registers after the tracer, so its slot comes later and the
 * tracer runs first; it records target_hot's return time.
 */
static uint64_t shared_rettime;
static unsigned shared_returns;

static bool shared_time_entry(struct fgraph_frame *f, const struct fgraph_thread *g,
                              struct fgraph_ops *gops)
{
    return f->func == (unsigned long)ftrace_test_target_hot;
}

static void shared_time_return(const struct fgraph_frame *f, struct fgraph_ret *ret,
                               struct fgraph_ops *gops)
{
    shared_rettime = fgraph_ret_time(ret);
    shared_returns++;
}

static struct fgraph_ops shared_time_gops = {.entryfunc = shared_time_entry,
                                             .retfunc = shared_time_return};

SELFTEST(fgraph_clients_share_the_return_time)
{
    int me = current_thread()->pid;
    trace_clear(-1);
    trace_set_tracer("function_graph");
    EXPECT_EQ(register_ftrace_graph(&shared_time_gops), 0);
    shared_returns = 0;
    ftrace_test_chain_a(1);
    unregister_ftrace_graph(&shared_time_gops);
    trace_set_on(false);
    /* target_hot's return event: its entry's time plus its duration is its return time. */
    uint64_t entry_ts = 0, event_rettime = 0;
    struct trace_iter *it = trace_iter_open(false, -1);
    while (it && trace_iter_next(it)) {
        const uint32_t *ctx = (const uint32_t *)it->rec.data;
        if ((int)trace_ctx_pid(*ctx) != me)
            continue;
        if (trace_ctx_type(*ctx) == TRACE_GRAPH_ENT) {
            const struct trace_graph_ent_event *e = (const void *)it->rec.data;
            if (trace_addr_unpack(e->func) == (unsigned long)ftrace_test_target_hot)
                entry_ts = it->rec.ts;
        } else if (trace_ctx_type(*ctx) == TRACE_GRAPH_RET) {
            const struct trace_graph_ret_event *r = (const void *)it->rec.data;
            if (trace_addr_unpack(r->func) == (unsigned long)ftrace_test_target_hot)
                event_rettime = entry_ts + (((uint64_t)r->duration_hi << 32) | r->duration_lo);
        }
    }
    trace_iter_close(it);
    trace_set_tracer("nop");
    trace_set_on(true);
    EXPECT_EQ(shared_returns, 1);
    EXPECT(entry_ts != 0);
    EXPECT_EQ(shared_rettime, event_rettime);
}

SELFTEST(profiler_counts_calls)
{
    EXPECT_EQ(trace_profile_set(true), 0);
    for (int i = 0; i < 250; i++)
        ftrace_test_chain_a(i);
    uint64_t time_a = 0, time_b = 0;
    EXPECT_EQ(profile_test_hits((unsigned long)ftrace_test_chain_a, &time_a), 250);
    EXPECT_EQ(profile_test_hits((unsigned long)ftrace_test_chain_b, &time_b), 250);
    EXPECT(time_a >= time_b);
    EXPECT(time_b > 0);
    /* Enabling again starts from zero. */
    EXPECT_EQ(trace_profile_set(false), 0);
    EXPECT_EQ(trace_profile_set(true), 0);
    EXPECT_EQ(profile_test_hits((unsigned long)ftrace_test_chain_a, &time_a), 0);
    EXPECT_EQ(trace_profile_set(false), 0);
}

/*
 * The unwinder names real callers while function_graph has swapped the return addresses
 * for return_to_handler: an op on target_hot walks its own stack from inside the chain
 * a -> b -> c -> target_hot, as the stacktrace command and func_stack_trace do.
 */
#define UNWIND_TEST_FRAMES 4
static unsigned long unwind_test_rets[UNWIND_TEST_FRAMES];
static unsigned unwind_test_nr;
static bool unwind_test_saw_hook;

static void unwind_test_callback(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                                 struct ftrace_regs *fregs)
{
    unsigned long *parent_slot = (unsigned long *)ftrace_regs_get_stack_pointer(fregs);
    struct thread *t = current_thread();
    if (unwind_test_nr)
        return;
    unwind_test_saw_hook |= *parent_slot == (unsigned long)return_to_handler;
    unwind_test_rets[unwind_test_nr++] = unwind_real_return(t, *parent_slot, parent_slot);
    struct unwind_state st;
    unwind_start(&st, t, arch_ftrace_caller_frame(parent_slot), (uintptr_t)(parent_slot + 1),
                 (uintptr_t)t->stack_top);
    while (unwind_test_nr < UNWIND_TEST_FRAMES && unwind_next(&st))
        unwind_test_rets[unwind_test_nr++] = st.ret;
}

static bool returns_into(unsigned long ret, void *fn)
{
    uintptr_t start;
    size_t size;
    return sym_lookup(ret, &start, &size) && start == (uintptr_t)fn;
}

SELFTEST(unwind_through_graph_hooks)
{
    size_t hot = ftrace_test_index_of(ftrace_test_target_hot);
    ASSERT_TRUE(hot != (size_t)-1);
    struct thread *self = current_thread();
    if (!self->stack_top)
        SKIP("the test thread has no stack of its own");
    struct ftrace_ops op = {.func = unwind_test_callback, .tramp_slot = -1};
    struct ftrace_hash *hash = ftrace_hash_alloc();
    ASSERT_NOT_NULL(hash);
    ftrace_hash_set(hash, hot);
    EXPECT_EQ(ftrace_ops_set_hashes(&op, hash, NULL), 0);
    EXPECT_EQ(trace_set_tracer("function_graph"), 0);
    EXPECT_EQ(register_ftrace_function(&op), 0);
    unwind_test_nr = 0;
    unwind_test_saw_hook = false;
    ftrace_test_chain_a(1);
    unregister_ftrace_function(&op);
    trace_set_tracer("nop");
    ftrace_ops_set_hashes(&op, NULL, NULL);
    /* The hooks were in place, and every frame still names the caller it returns to. */
    EXPECT(unwind_test_saw_hook);
    ASSERT_EQ(unwind_test_nr, UNWIND_TEST_FRAMES);
    for (unsigned i = 0; i < UNWIND_TEST_FRAMES; i++)
        EXPECT(unwind_test_rets[i] != (unsigned long)return_to_handler);
    EXPECT(returns_into(unwind_test_rets[0], ftrace_test_chain_c));
    EXPECT(returns_into(unwind_test_rets[1], ftrace_test_chain_b));
    EXPECT(returns_into(unwind_test_rets[2], ftrace_test_chain_a));
}
