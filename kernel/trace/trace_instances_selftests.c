/*
 * Self-tests of trace instances: mkdir and rmdir with their errnos (EBUSY while a file is
 * open, which the shell cannot keep across commands), markers and events that land in the
 * instance's buffer only, and a mkdir that fails at any allocation leaving nothing behind.
 */
#include <kernel/errno.h>
#include <kernel/fault_inject.h>
#include <kernel/mm.h>
#include <kernel/selftest.h>
#include <kernel/time.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "trace_internal.h"

#define INST_TEST_DIR TRACEFS_ROOT "/instances/"

static struct trace_array *inst_test_find(const char *name)
{
    for (unsigned slot = 0; slot < TRACE_INSTANCES_MAX; slot++)
        if (trace_instances[slot] && strcmp(trace_instances[slot]->name, name) == 0)
            return trace_instances[slot];
    return NULL;
}

/* Records of a marker text (text) or of an event (id, text NULL) in rb. */
static unsigned inst_test_count(struct ring_buffer *rb, const char *text, unsigned id)
{
    struct trace_iter *it = trace_iter_open_buffer(rb, false, -1);
    unsigned n = 0;
    while (it && trace_iter_next(it)) {
        const uint32_t ctx = *(const uint32_t *)it->rec.data;
        if (text) {
            const struct trace_print_event *ev = (const void *)it->rec.data;
            n += trace_ctx_type(ctx) == TRACE_PRINT && strcmp(ev->text, text) == 0;
        } else {
            const struct trace_event_common *c = (const void *)it->rec.data;
            n += trace_event_is_full_record(it->rec.data) && c->type == id;
        }
    }
    trace_iter_close(it);
    return n;
}

SELFTEST(instance_rmdir_busy)
{
    struct pfs_file *f;
    EXPECT_EQ(pfs_user_mkdir(NULL, INST_TEST_DIR "st"), 0);
    EXPECT_EQ(pfs_user_mkdir(NULL, INST_TEST_DIR "st"), -EEXIST);
    EXPECT_EQ(pfs_open(NULL, INST_TEST_DIR "st/trace_pipe", PFS_READ, &f), 0);
    EXPECT_EQ(pfs_user_rmdir(NULL, INST_TEST_DIR "st"), -EBUSY);
    pfs_close(f);
    EXPECT_EQ(pfs_open(NULL, INST_TEST_DIR "st/events/sched/enable", PFS_READ, &f), 0);
    EXPECT_EQ(pfs_user_rmdir(NULL, INST_TEST_DIR "st"), -EBUSY);
    pfs_close(f);
    EXPECT_EQ(pfs_user_rmdir(NULL, INST_TEST_DIR "st"), 0);
    EXPECT_EQ(pfs_user_rmdir(NULL, INST_TEST_DIR "st"), -ENOENT);
    EXPECT(inst_test_find("st") == NULL);
}

SELFTEST(instance_records_stay_apart)
{
    const struct trace_event_call *sw = trace_event_find("sched", "sched_switch");
    EXPECT(sw != NULL);
    if (!sw || trace_event_is_enabled(sw) || !trace_opt(TRACE_OPT_MARKERS))
        return; /* the boot's state is not the one this test needs */
    EXPECT_EQ(pfs_user_mkdir(NULL, INST_TEST_DIR "apart"), 0);
    struct trace_array *tr = inst_test_find("apart");
    EXPECT(tr != NULL);
    if (!tr)
        return;
    EXPECT_EQ(trace_array_print(tr, "inst-mark", 9), 0);
    EXPECT_EQ(inst_test_count(tr->buffer, "inst-mark", 0), 1);
    EXPECT_EQ(inst_test_count(trace_global.buffer, "inst-mark", 0), 0);
    EXPECT_EQ(trace_event_instance_enable(sw, tr, true), 0);
    EXPECT(trace_event_instance_is_enabled(sw, tr));
    EXPECT(!trace_event_is_registered(sw));
    for (int i = 0; i < 5; i++)
        sleep_ns(NSEC_PER_MSEC);
    EXPECT_EQ(trace_event_instance_enable(sw, tr, false), 0);
    EXPECT(!trace_event_is_emitting(sw));
    EXPECT(inst_test_count(tr->buffer, NULL, sw->state->id) > 0);
    EXPECT_EQ(inst_test_count(trace_global.buffer, NULL, sw->state->id), 0);
    /* Removed with an event on: its bit goes with it. */
    EXPECT_EQ(trace_event_instance_enable(sw, tr, true), 0);
    EXPECT_EQ(pfs_user_rmdir(NULL, INST_TEST_DIR "apart"), 0);
    EXPECT_EQ(sw->state->instance_mask, 0);
    EXPECT(!trace_event_is_emitting(sw));
}

static int inst_test_mkdir(void *arg) { return pfs_user_mkdir(NULL, arg); }
static bool inst_test_absent(void *arg)
{
    (void)arg;
    return inst_test_find("fail") == NULL;
}

/* mkdir with one allocation failing at any point: ENOMEM, and nothing made. */
static void inst_test_fail_each(struct selftest_ctx *t, struct fault_attr *attr, unsigned max_nth,
                                unsigned step)
{
    const struct selftest_alloc_failures f = {
        attr, max_nth, step, inst_test_mkdir, inst_test_absent, INST_TEST_DIR "fail"};
    if (selftest_alloc_failures(t, &f) == 0)
        EXPECT_EQ(pfs_user_rmdir(NULL, INST_TEST_DIR "fail"), 0);
}

SELFTEST(instance_mkdir_whole_on_failure)
{
    /* A first instance grows instances/'s own entry table, which stays: not a leak. */
    EXPECT_EQ(pfs_user_mkdir(NULL, INST_TEST_DIR "warm"), 0);
    EXPECT_EQ(pfs_user_rmdir(NULL, INST_TEST_DIR "warm"), 0);
    struct mm_stats before, after;
    mm_get_stats(&before);
    EXPECT_EQ(pfs_user_mkdir(NULL, INST_TEST_DIR "warm"), 0);
    EXPECT_EQ(pfs_user_rmdir(NULL, INST_TEST_DIR "warm"), 0);
    mm_get_stats(&after);
    EXPECT_EQ(after.heap_allocs - after.heap_frees, before.heap_allocs - before.heap_frees);
    inst_test_fail_each(t, &failslab, 6000, 41);
    inst_test_fail_each(t, &fail_page_alloc, 4096, 97);
}
