/*
 * Self-tests of live patching: redirection, the per-thread consistency model (a thread
 * inside a replaced function keeps the old versions until it leaves), force, stacking,
 * every refusal with its errno, the sysfs files, and a fix applied while `work` runs.
 * Their patches are made with klp_init_patch only: they have no sysfs tree.
 */
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/livepatch.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/selftest.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/wait.h>
#include <kernel/work.h>
#include <lib/string.h>

#define KLP_TEST_WAIT_NS (5 * NSEC_PER_SEC)

/* ---- Targets and their new versions (global and noinline: one symbol each) ---- */

int klp_test_add(int a);
int klp_test_add_v1(int a);
int klp_test_add_v2(int a);
int klp_test_mul(int a);
int klp_test_mul_v1(int a);
struct klp_test_sleeper;
void klp_test_sleep_in(struct klp_test_sleeper *s);
void klp_test_sleep_in_v1(struct klp_test_sleeper *s);
void klp_test_untraced(void);

__noinline int klp_test_add(int a) { return a + 1; }
__noinline int klp_test_add_v1(int a) { return a + 100; }
__noinline int klp_test_add_v2(int a) { return a + 200; }
__noinline int klp_test_mul(int a) { return a * 2; }
__noinline int klp_test_mul_v1(int a) { return a * 3; }
notrace __noinline void klp_test_untraced(void) { barrier(); }

/* Through pointers the compiler cannot see through: every call is a real call. */
static int (*volatile klp_test_add_fn)(int) = klp_test_add;
static int (*volatile klp_test_mul_fn)(int) = klp_test_mul;

/*
 * A thread that stays inside klp_test_sleep_in until released, then calls klp_test_add
 * from there: a thread the transition has to wait for.
 */
struct klp_test_sleeper {
    struct wait_queue wq;
    volatile bool inside, release, done;
    volatile int result;  /* klp_test_add(5) as called from inside, after the release */
    volatile int version; /* 0: the old klp_test_sleep_in ran, 1: the new one */
};

static bool klp_test_released(void *arg) { return ((struct klp_test_sleeper *)arg)->release; }

__noinline void klp_test_sleep_in(struct klp_test_sleeper *s)
{
    s->inside = true;
    wait_event(&s->wq, klp_test_released, s);
    s->result = klp_test_add_fn(5);
    s->version = 0;
}

__noinline void klp_test_sleep_in_v1(struct klp_test_sleeper *s)
{
    s->inside = true;
    wait_event(&s->wq, klp_test_released, s);
    s->result = klp_test_add_fn(5);
    s->version = 1;
}

static void (*volatile klp_test_sleep_fn)(struct klp_test_sleeper *) = klp_test_sleep_in;

static int klp_test_sleeper_main(void *arg)
{
    struct klp_test_sleeper *s = arg;
    klp_test_sleep_fn(s);
    s->done = true;
    return 0;
}

/* A sleeper on cpu, parked inside klp_test_sleep_in; NULL (nothing left) if it cannot be. */
static struct thread *klp_test_start_sleeper(struct klp_test_sleeper **out, unsigned cpu)
{
    struct klp_test_sleeper *s = kzalloc(sizeof(*s));
    *out = s;
    if (!s)
        return NULL;
    wait_queue_init(&s->wq, "klp_test");
    struct thread *t = kthread_create(klp_test_sleeper_main, s, "klp_test", cpu);
    if (!t) {
        kfree(s);
        *out = NULL;
        return NULL;
    }
    for (int i = 0; i < 5000 && !s->inside; i++)
        sleep_ns(NSEC_PER_MSEC);
    /* Let it reach the scheduler: inside is set just before it sleeps. */
    sleep_ns(5 * NSEC_PER_MSEC);
    return t;
}

static int klp_test_stop_sleeper(struct klp_test_sleeper *s, struct thread *t)
{
    s->release = true;
    wait_queue_wake_all(&s->wq);
    return kthread_join(t);
}

/* ---- The test patches ---- */

static struct klp_func add_funcs_v1[] = {{.old_name = "klp_test_add", .new_func = klp_test_add_v1},
                                         {}};
static struct klp_object add_objs_v1[] = {{.funcs = add_funcs_v1}, {}};
static struct klp_patch add_patch_v1 = {.name = "klp_test_add_v1", .objs = add_objs_v1};

static struct klp_func add_funcs_v2[] = {{.old_name = "klp_test_add", .new_func = klp_test_add_v2},
                                         {}};
static struct klp_object add_objs_v2[] = {{.name = "vmlinux", .funcs = add_funcs_v2}, {}};
static struct klp_patch add_patch_v2 = {.name = "klp_test_add_v2", .objs = add_objs_v2};

/* Both the sleeper's function and klp_test_add: the sleeper holds up the transition. */
static struct klp_func sleep_funcs[] = {
    {.old_name = "klp_test_sleep_in", .new_func = klp_test_sleep_in_v1},
    {.old_name = "klp_test_add", .new_func = klp_test_add_v1},
    {}};
static struct klp_object sleep_objs[] = {{.funcs = sleep_funcs}, {}};
static struct klp_patch sleep_patch = {.name = "klp_test_sleep", .objs = sleep_objs};

static struct klp_func mul_funcs[] = {{.old_name = "klp_test_mul", .new_func = klp_test_mul_v1},
                                      {}};
static struct klp_object mul_objs[] = {{.funcs = mul_funcs}, {}};
static struct klp_patch mul_patch = {.name = "klp_test_mul", .objs = mul_objs};

static int klp_test_ready(struct klp_patch *p) { return p->initialized ? 0 : klp_init_patch(p); }

/* Enables or disables and waits for the transition to end; 0 or the error. */
static int klp_test_switch(struct klp_patch *p, bool on)
{
    int err = on ? klp_enable_patch(p) : klp_disable_patch(p);
    return err ? err : klp_wait_transition(p, KLP_TEST_WAIT_NS);
}

/* ---- Redirection ---- */

SELFTEST(livepatch_enable_redirects_call)
{
    ASSERT_EQ(klp_test_ready(&add_patch_v1), 0);
    EXPECT_EQ(klp_test_add_fn(1), 2);
    ASSERT_EQ(klp_test_switch(&add_patch_v1, true), 0);
    EXPECT(add_patch_v1.enabled);
    EXPECT(add_objs_v1[0].patched);
    EXPECT_EQ(klp_test_add_fn(1), 101);
    struct dyn_ftrace *rec = ftrace_rec_lookup((unsigned long)klp_test_add);
    EXPECT(rec && (rec->flags & FTRACE_FL_IPMODIFY) && (rec->flags & FTRACE_FL_ENABLED));
    EXPECT_EQ(klp_test_switch(&add_patch_v1, false), 0);
    EXPECT(!add_patch_v1.enabled);
    EXPECT(!add_objs_v1[0].patched);
    EXPECT_EQ(klp_test_add_fn(1), 2);
    EXPECT(rec && !(rec->flags & FTRACE_FL_ENABLED));
}

SELFTEST(livepatch_stacked_patches_any_order)
{
    ASSERT_EQ(klp_test_ready(&add_patch_v1), 0);
    ASSERT_EQ(klp_test_ready(&add_patch_v2), 0);
    ASSERT_EQ(klp_test_switch(&add_patch_v1, true), 0);
    EXPECT_EQ(klp_test_add_fn(1), 101);
    EXPECT_EQ(klp_test_switch(&add_patch_v2, true), 0);
    EXPECT_EQ(klp_test_add_fn(1), 201); /* the newest patch wins */
    EXPECT_EQ(klp_test_switch(&add_patch_v2, false), 0);
    EXPECT_EQ(klp_test_add_fn(1), 101);
    EXPECT_EQ(klp_test_switch(&add_patch_v2, true), 0);
    /* The older one goes first: the newer stays in effect, then the original is back. */
    EXPECT_EQ(klp_test_switch(&add_patch_v1, false), 0);
    EXPECT_EQ(klp_test_add_fn(1), 201);
    EXPECT_EQ(klp_test_switch(&add_patch_v2, false), 0);
    EXPECT_EQ(klp_test_add_fn(1), 2);
    EXPECT(ftrace_rec_lookup((unsigned long)klp_test_add) &&
           !(ftrace_rec_lookup((unsigned long)klp_test_add)->flags & FTRACE_FL_ENABLED));
}

/* ---- Refusals ---- */

SELFTEST(livepatch_enable_enabled_is_einval)
{
    ASSERT_EQ(klp_test_ready(&mul_patch), 0);
    EXPECT_EQ(klp_disable_patch(&mul_patch), -EINVAL);
    ASSERT_EQ(klp_test_switch(&mul_patch, true), 0);
    EXPECT_EQ(klp_enable_patch(&mul_patch), -EINVAL);
    EXPECT_EQ(klp_test_mul_fn(5), 15);
    EXPECT_EQ(klp_test_switch(&mul_patch, false), 0);
    EXPECT_EQ(klp_disable_patch(&mul_patch), -EINVAL);
    EXPECT_EQ(klp_test_mul_fn(5), 10);
}

SELFTEST(livepatch_force_without_transition_is_einval)
{
    ASSERT_EQ(klp_test_ready(&mul_patch), 0);
    EXPECT_EQ(klp_force_transition(&mul_patch), -EINVAL);
    ASSERT_EQ(klp_test_switch(&mul_patch, true), 0);
    EXPECT_EQ(klp_force_transition(&mul_patch), -EINVAL);
    EXPECT(!mul_patch.forced);
    EXPECT_EQ(klp_test_switch(&mul_patch, false), 0);
}

/* PERMANENT ops: no patch while ftrace_enabled is 0, and no 0 while a patch is on. */
SELFTEST(livepatch_ftrace_enabled_is_ebusy)
{
    ASSERT_EQ(klp_test_ready(&mul_patch), 0);
    ASSERT_EQ(ftrace_set_enabled(false), 0);
    EXPECT_EQ(klp_enable_patch(&mul_patch), -EBUSY);
    EXPECT(!mul_patch.enabled);
    EXPECT(!klp_patch_in_transition(&mul_patch));
    EXPECT_EQ(klp_test_mul_fn(5), 10);
    ASSERT_EQ(ftrace_set_enabled(true), 0);
    ASSERT_EQ(klp_test_switch(&mul_patch, true), 0);
    EXPECT_EQ(ftrace_set_enabled(false), -EBUSY);
    EXPECT(ftrace_get_enabled());
    EXPECT_EQ(klp_test_mul_fn(5), 15);
    EXPECT_EQ(klp_test_switch(&mul_patch, false), 0);
    EXPECT_EQ(ftrace_set_enabled(false), 0);
    EXPECT_EQ(ftrace_set_enabled(true), 0);
}

static void klp_test_other_ipmodify(unsigned long ip, unsigned long parent_ip,
                                    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

SELFTEST(livepatch_other_ipmodify_op_is_ebusy)
{
    ASSERT_EQ(klp_test_ready(&mul_patch), 0);
    struct ftrace_ops other = {.func = klp_test_other_ipmodify,
                               .flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
                               .tramp_slot = -1};
    ASSERT_EQ(ftrace_set_filter_ip(&other, (unsigned long)klp_test_mul, 0, 1), 0);
    ASSERT_EQ(register_ftrace_function(&other), 0);
    EXPECT_EQ(klp_enable_patch(&mul_patch), -EBUSY);
    EXPECT(!mul_patch.enabled);
    EXPECT(!klp_patch_in_transition(&mul_patch));
    EXPECT(!mul_objs[0].patched);
    EXPECT_EQ(unregister_ftrace_function(&other), 0);
    ftrace_ops_set_hashes(&other, NULL, NULL);
    /* And the other way round: the patch holds the function. */
    ASSERT_EQ(klp_test_switch(&mul_patch, true), 0);
    ASSERT_EQ(ftrace_set_filter_ip(&other, (unsigned long)klp_test_mul, 0, 1), 0);
    EXPECT_EQ(register_ftrace_function(&other), -EBUSY);
    ftrace_ops_set_hashes(&other, NULL, NULL);
    EXPECT_EQ(klp_test_mul_fn(5), 15);
    EXPECT_EQ(klp_test_switch(&mul_patch, false), 0);
}

static struct klp_func bad_unknown_funcs[] = {
    {.old_name = "klp_test_no_such_function", .new_func = klp_test_add_v1}, {}};
static struct klp_object bad_unknown_objs[] = {{.funcs = bad_unknown_funcs}, {}};
static struct klp_func bad_sympos_funcs[] = {
    {.old_name = "klp_test_add", .new_func = klp_test_add_v1, .old_sympos = 2}, {}};
static struct klp_object bad_sympos_objs[] = {{.funcs = bad_sympos_funcs}, {}};
static struct klp_func bad_nosite_funcs[] = {
    {.old_name = "klp_test_untraced", .new_func = klp_test_add_v1}, {}};
static struct klp_object bad_nosite_objs[] = {{.funcs = bad_nosite_funcs}, {}};
static struct klp_func bad_nonew_funcs[] = {{.old_name = "klp_test_add"}, {}};
static struct klp_object bad_nonew_objs[] = {{.funcs = bad_nonew_funcs}, {}};
static struct klp_func bad_twice_funcs[] = {
    {.old_name = "klp_test_add", .new_func = klp_test_add_v1},
    {.old_name = "klp_test_add", .new_func = klp_test_add_v2},
    {}};
static struct klp_object bad_twice_objs[] = {{.funcs = bad_twice_funcs}, {}};
static struct klp_func bad_module_funcs[] = {
    {.old_name = "klp_test_add", .new_func = klp_test_add_v1}, {}};
static struct klp_object bad_module_objs[] = {{.name = "e1000", .funcs = bad_module_funcs}, {}};
static struct klp_func bad_empty_funcs[] = {{}};
static struct klp_object bad_empty_objs[] = {{.funcs = bad_empty_funcs}, {}};

SELFTEST(livepatch_init_errors)
{
    struct klp_patch p;
#define KLP_TRY_INIT(objs_, name_, replace_, expected)                                             \
    do {                                                                                           \
        p = (struct klp_patch){.name = name_, .objs = objs_, .replace = replace_};                 \
        EXPECT_EQ(klp_init_patch(&p), expected);                                                   \
        EXPECT(!p.initialized);                                                                    \
    } while (0)
    KLP_TRY_INIT(bad_unknown_objs, "klp_test_bad", false, -EINVAL);
    KLP_TRY_INIT(bad_sympos_objs, "klp_test_bad", false, -EINVAL);
    KLP_TRY_INIT(bad_nosite_objs, "klp_test_bad", false, -EINVAL);
    KLP_TRY_INIT(bad_nonew_objs, "klp_test_bad", false, -EINVAL);
    KLP_TRY_INIT(bad_twice_objs, "klp_test_bad", false, -EINVAL);
    KLP_TRY_INIT(bad_module_objs, "klp_test_bad", false, -EINVAL);
    KLP_TRY_INIT(bad_empty_objs, "klp_test_bad", false, -EINVAL);
    KLP_TRY_INIT(add_objs_v1, "klp_test_bad", true, -EINVAL); /* atomic replace */
    KLP_TRY_INIT(add_objs_v1, "", false, -EINVAL);
    KLP_TRY_INIT(add_objs_v1, "a/b", false, -EINVAL);
    KLP_TRY_INIT(add_objs_v1, "livepatch_sample", false, -EEXIST);
#undef KLP_TRY_INIT
    EXPECT_EQ(klp_init_patch(NULL), -EINVAL);
    ASSERT_EQ(klp_test_ready(&add_patch_v1), 0);
    EXPECT_EQ(klp_init_patch(&add_patch_v1), -EINVAL); /* twice */
    p = (struct klp_patch){.name = "klp_test_never", .objs = add_objs_v1};
    EXPECT_EQ(klp_enable_patch(&p), -EINVAL); /* not initialised */
    EXPECT_EQ(klp_disable_patch(&p), -EINVAL);
}

/* A name the symbol table has twice needs its sympos; one it has once takes sympos 1. */
SELFTEST(livepatch_sympos)
{
    const char *dup = NULL, *name;
    uintptr_t addr;
    for (size_t i = 0; !dup && (name = sym_at(i, &addr)); i++) {
        unsigned count = 0;
        const char *other;
        uintptr_t a2;
        for (size_t j = 0; count < 2 && (other = sym_at(j, &a2)); j++)
            count += strcmp(name, other) == 0;
        if (count == 2 && ftrace_rec_lookup(addr))
            dup = name;
        if (i > 400)
            break; /* enough: the search is quadratic */
    }
    /* Static: a patch klp_init_patch took stays on its list for good. */
    static struct klp_func f1[] = {
        {.old_name = "klp_test_add", .new_func = klp_test_add_v1, .old_sympos = 1}, {}};
    static struct klp_object o1[] = {{.funcs = f1}, {}};
    static struct klp_patch p1 = {.name = "klp_test_sympos", .objs = o1};
    EXPECT_EQ(klp_test_ready(&p1), 0);
    EXPECT_EQ(f1[0].old_func, (unsigned long)klp_test_add);
    if (p1.initialized) {
        EXPECT_EQ(klp_test_switch(&p1, true), 0);
        EXPECT_EQ(klp_test_add_fn(1), 101);
        EXPECT_EQ(klp_test_switch(&p1, false), 0);
        EXPECT_EQ(klp_test_add_fn(1), 2);
    }
    if (!dup)
        return; /* no duplicate names among the first symbols: the rest cannot run */
    static struct klp_func f2[] = {{.new_func = klp_test_add_v1}, {}};
    static struct klp_object o2[] = {{.funcs = f2}, {}};
    static struct klp_patch p2 = {.name = "klp_test_sympos_dup", .objs = o2};
    f2[0].old_name = dup;
    f2[0].old_sympos = 0;
    if (!p2.initialized)
        EXPECT_EQ(klp_init_patch(&p2), -EINVAL);
    f2[0].old_sympos = 3;
    if (!p2.initialized)
        EXPECT_EQ(klp_init_patch(&p2), -EINVAL);
}

/* ---- The consistency model ---- */

SELFTEST(livepatch_transition_waits_for_thread_inside)
{
    ASSERT_EQ(klp_test_ready(&sleep_patch), 0);
    struct klp_test_sleeper *s;
    struct thread *th = klp_test_start_sleeper(&s, this_cpu_id());
    ASSERT_TRUE(th != NULL);
    EXPECT(s->inside);
    EXPECT_EQ(klp_enable_patch(&sleep_patch), 0);
    /* The sleeper is inside klp_test_sleep_in: the transition cannot end. */
    sleep_ns(100 * NSEC_PER_MSEC);
    EXPECT(klp_patch_in_transition(&sleep_patch));
    EXPECT_EQ(klp_pending_threads(), 1);
    EXPECT_EQ(th->patch_state, KLP_UNPATCHED);
    EXPECT(th->patch_pending);
    /* This thread switched: it runs the new version... */
    EXPECT_EQ(current_thread()->patch_state, KLP_PATCHED);
    EXPECT_EQ(klp_test_add_fn(5), 105);
    /* ...while the sleeper, inside an old function of the patch, still gets the old ones. */
    EXPECT_EQ(klp_test_stop_sleeper(s, th), 0);
    EXPECT_EQ(s->result, 6);
    EXPECT_EQ(s->version, 0);
    /* It left: nothing holds the transition any more. */
    EXPECT_EQ(klp_wait_transition(&sleep_patch, KLP_TEST_WAIT_NS), 0);
    EXPECT(!sleep_patch.forced);
    EXPECT_EQ(klp_test_add_fn(5), 105);
    EXPECT_EQ(current_thread()->patch_state, KLP_UNDEFINED);
    EXPECT_EQ(klp_test_switch(&sleep_patch, false), 0);
    EXPECT_EQ(klp_test_add_fn(5), 6);
    kfree(s);
}

SELFTEST(livepatch_busy_during_transition)
{
    ASSERT_EQ(klp_test_ready(&sleep_patch), 0);
    ASSERT_EQ(klp_test_ready(&mul_patch), 0);
    struct klp_test_sleeper *s;
    struct thread *th = klp_test_start_sleeper(&s, this_cpu_id());
    ASSERT_TRUE(th != NULL);
    EXPECT_EQ(klp_enable_patch(&sleep_patch), 0);
    EXPECT(klp_patch_in_transition(&sleep_patch));
    /* Any other change waits for the end of the transition, the same patch included. */
    EXPECT_EQ(klp_enable_patch(&mul_patch), -EBUSY);
    EXPECT_EQ(klp_disable_patch(&sleep_patch), -EBUSY);
    EXPECT_EQ(klp_enable_patch(&sleep_patch), -EBUSY);
    EXPECT(!mul_patch.enabled);
    EXPECT_EQ(klp_test_stop_sleeper(s, th), 0);
    EXPECT_EQ(klp_wait_transition(&sleep_patch, KLP_TEST_WAIT_NS), 0);
    EXPECT_EQ(klp_test_switch(&sleep_patch, false), 0);
    kfree(s);
}

SELFTEST(livepatch_force_completes_stuck_transition)
{
    ASSERT_EQ(klp_test_ready(&sleep_patch), 0);
    /* On another CPU when there is one: force must reach threads of every CPU. */
    unsigned cpu = cpus_online > 1 ? (this_cpu_id() + 1) % cpus_online : this_cpu_id();
    struct klp_test_sleeper *s;
    struct thread *th = klp_test_start_sleeper(&s, cpu);
    ASSERT_TRUE(th != NULL);
    EXPECT_EQ(klp_enable_patch(&sleep_patch), 0);
    EXPECT_EQ(klp_wait_transition(&sleep_patch, 100 * NSEC_PER_MSEC), -ETIMEDOUT);
    EXPECT_EQ(klp_force_transition(&sleep_patch), 0);
    EXPECT(!klp_patch_in_transition(&sleep_patch));
    EXPECT(sleep_patch.forced);
    EXPECT(!th->patch_pending);
    /* Forced: the sleeper's calls from now on go to the new versions, although it is still
     * in the old klp_test_sleep_in (what force gives up). */
    EXPECT_EQ(klp_test_stop_sleeper(s, th), 0);
    EXPECT_EQ(s->result, 105);
    EXPECT_EQ(s->version, 0);
    /* The next transition is an ordinary one again. */
    EXPECT_EQ(klp_test_switch(&sleep_patch, false), 0);
    EXPECT(!sleep_patch.forced);
    EXPECT_EQ(klp_test_add_fn(5), 6);
    kfree(s);
}

SELFTEST(livepatch_force_unpatch_transition)
{
    ASSERT_EQ(klp_test_ready(&sleep_patch), 0);
    ASSERT_EQ(klp_test_switch(&sleep_patch, true), 0);
    struct klp_test_sleeper *s;
    struct thread *th = klp_test_start_sleeper(&s, this_cpu_id());
    if (!th) {
        klp_test_switch(&sleep_patch, false);
        ASSERT_TRUE(th != NULL);
    }
    /* Inside the new version now: disabling waits for it. */
    EXPECT_EQ(klp_disable_patch(&sleep_patch), 0);
    EXPECT(!sleep_patch.enabled);
    EXPECT_EQ(klp_wait_transition(&sleep_patch, 100 * NSEC_PER_MSEC), -ETIMEDOUT);
    EXPECT_EQ(th->patch_state, KLP_PATCHED);
    EXPECT_EQ(current_thread()->patch_state, KLP_UNPATCHED);
    EXPECT_EQ(klp_test_add_fn(5), 6);
    EXPECT_EQ(klp_force_transition(&sleep_patch), 0);
    EXPECT(!sleep_objs[0].patched);
    EXPECT(!(ftrace_rec_lookup((unsigned long)klp_test_add)->flags & FTRACE_FL_ENABLED));
    EXPECT_EQ(klp_test_stop_sleeper(s, th), 0);
    EXPECT_EQ(s->version, 1); /* the new version it was in ran to its end */
    EXPECT_EQ(s->result, 6);
    kfree(s);
}

/* A thread made during a transition has an empty stack: it starts in the target state. */
SELFTEST(livepatch_new_thread_starts_switched)
{
    ASSERT_EQ(klp_test_ready(&sleep_patch), 0);
    struct klp_test_sleeper *s, *s2;
    struct thread *th = klp_test_start_sleeper(&s, this_cpu_id());
    ASSERT_TRUE(th != NULL);
    EXPECT_EQ(klp_enable_patch(&sleep_patch), 0);
    EXPECT(klp_patch_in_transition(&sleep_patch));
    struct thread *th2 = klp_test_start_sleeper(&s2, this_cpu_id());
    EXPECT(th2 != NULL);
    if (th2) {
        EXPECT_EQ(th2->patch_state, KLP_PATCHED);
        EXPECT(!th2->patch_pending);
        EXPECT_EQ(klp_test_stop_sleeper(s2, th2), 0);
        EXPECT_EQ(s2->version, 1); /* it entered the new version */
        EXPECT_EQ(s2->result, 105);
    }
    EXPECT_EQ(klp_test_stop_sleeper(s, th), 0);
    EXPECT_EQ(s->version, 0);
    EXPECT_EQ(klp_wait_transition(&sleep_patch, KLP_TEST_WAIT_NS), 0);
    EXPECT_EQ(klp_test_switch(&sleep_patch, false), 0);
    kfree(s);
    kfree(s2);
}

SELFTEST(livepatch_no_leak)
{
    ASSERT_EQ(klp_test_ready(&mul_patch), 0);
    ASSERT_EQ(klp_test_ready(&add_patch_v1), 0);
    /* One round first: what stays allocated for good (ftrace's per-slot state) is made then. */
    ASSERT_EQ(klp_test_switch(&mul_patch, true), 0);
    ASSERT_EQ(klp_test_switch(&add_patch_v1, true), 0);
    ASSERT_EQ(klp_test_switch(&mul_patch, false), 0);
    ASSERT_EQ(klp_test_switch(&add_patch_v1, false), 0);
    sleep_ns(20 * NSEC_PER_MSEC); /* the workers' threads are reaped by the idle loops */
    struct mm_stats before, after;
    mm_get_stats(&before);
    for (int i = 0; i < 10; i++) {
        EXPECT_EQ(klp_test_switch(&mul_patch, true), 0);
        EXPECT_EQ(klp_test_switch(&add_patch_v1, true), 0);
        EXPECT_EQ(klp_test_switch(&mul_patch, false), 0);
        EXPECT_EQ(klp_test_switch(&add_patch_v1, false), 0);
    }
    /* Refused changes allocate nothing either. */
    EXPECT_EQ(klp_disable_patch(&mul_patch), -EINVAL);
    ASSERT_EQ(ftrace_set_enabled(false), 0);
    EXPECT_EQ(klp_enable_patch(&mul_patch), -EBUSY);
    ASSERT_EQ(ftrace_set_enabled(true), 0);
    for (int i = 0; i < 100; i++) {
        sleep_ns(5 * NSEC_PER_MSEC);
        mm_get_stats(&after);
        if (after.heap_bytes_in_use <= before.heap_bytes_in_use)
            break;
    }
    EXPECT_EQ(after.heap_bytes_in_use, before.heap_bytes_in_use);
}

/* ---- The files ---- */

static ssize_t klp_test_write(const char *path, const char *text)
{
    struct pfs_file *f;
    int err = pfs_open("/sys/kernel/livepatch", path, PFS_WRITE | PFS_TRUNC, &f);
    if (err)
        return err;
    ssize_t n = pfs_write(f, text, strlen(text));
    int cerr = pfs_close(f);
    return n < 0 ? n : cerr ? cerr : n;
}

SELFTEST(livepatch_sysfs_files)
{
    struct pfs_node *n;
    static const struct {
        const char *path;
        unsigned mode;
    } files[] = {
        {"livepatch_sample/enabled", 0644},         {"livepatch_sample/transition", 0444},
        {"livepatch_sample/force", 0200},           {"livepatch_sample/replace", 0444},
        {"livepatch_sample/vmlinux/patched", 0444}, {"livepatch_work/enabled", 0644},
        {"livepatch_work/vmlinux/patched", 0444},
    };
    for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
        EXPECT_EQ(pfs_lookup("/sys/kernel/livepatch", files[i].path, &n), 0);
        EXPECT_EQ(pfs_mode(n), files[i].mode);
    }
    EXPECT_EQ(pfs_lookup("/sys/kernel/livepatch", "livepatch_sample/vmlinux/show_cmdline,1", &n),
              0);
    EXPECT(pfs_is_dir(n));
    EXPECT_EQ(pfs_lookup("/sys/kernel/livepatch", "livepatch_work/vmlinux/work_count_bits,1", &n),
              0);
    EXPECT(pfs_is_dir(n));
    EXPECT_EQ(pfs_lookup("/sys/kernel/livepatch", "klp_test_add_v1", &n), -ENOENT);
    EXPECT(klp_find_patch("livepatch_sample") != NULL);
    EXPECT(klp_find_patch("klp_test_add_v1") == NULL);
}

SELFTEST(livepatch_sysfs_writes)
{
    char buf[64];
    selftest_read_file_into("/proc", "cmdline", buf, sizeof(buf));
    EXPECT(strcmp(buf, "this has been live patched\n") != 0);
    EXPECT_EQ(klp_test_write("livepatch_sample/enabled", "maybe\n"), -EINVAL);
    EXPECT_EQ(klp_test_write("livepatch_sample/enabled", "0\n"), -EINVAL);
    EXPECT_EQ(klp_test_write("livepatch_sample/force", "1\n"), -EINVAL);
    EXPECT_EQ(klp_test_write("livepatch_sample/force", "x\n"), -EINVAL);
    EXPECT_EQ(klp_test_write("livepatch_sample/force", "0\n"), 2);
    EXPECT_EQ(klp_test_write("livepatch_sample/transition", "0\n"), -EACCES);
    EXPECT_EQ(klp_test_write("livepatch_sample/replace", "1\n"), -EACCES);
    EXPECT_EQ(klp_test_write("livepatch_sample/enabled", "on\n"), 3);
    struct klp_patch *p = klp_find_patch("livepatch_sample");
    ASSERT_NOT_NULL(p);
    EXPECT_EQ(klp_wait_transition(p, KLP_TEST_WAIT_NS), 0);
    selftest_read_file_into("/sys/kernel/livepatch", "livepatch_sample/enabled", buf, sizeof(buf));
    EXPECT_STREQ(buf, "1\n");
    selftest_read_file_into("/proc", "cmdline", buf, sizeof(buf));
    EXPECT_STREQ(buf, "this has been live patched\n");
    EXPECT_EQ(klp_test_write("livepatch_sample/enabled", "Y\n"), -EINVAL);
    EXPECT_EQ(klp_test_write("livepatch_sample/enabled", "off\n"), 4);
    EXPECT_EQ(klp_wait_transition(p, KLP_TEST_WAIT_NS), 0);
    selftest_read_file_into("/proc", "cmdline", buf, sizeof(buf));
    EXPECT(strcmp(buf, "this has been live patched\n") != 0);
}

/* ---- The work load's bug, fixed under load ---- */

SELFTEST(livepatch_work_fixed_while_running)
{
    struct klp_patch *p = klp_find_patch("livepatch_work");
    ASSERT_NOT_NULL(p);
    ASSERT_TRUE(!p->enabled);
    struct work_summary *sum = kzalloc(sizeof(*sum));
    ASSERT_NOT_NULL(sum);
    /* Long enough for any transition: it is stopped once the patched version ran a while. */
    struct work_run *run = work_start(30000, 2);
    if (!run) {
        kfree(sum);
        ASSERT_TRUE(run != NULL);
    }
    sleep_ns(200 * NSEC_PER_MSEC);
    EXPECT_EQ(klp_enable_patch(p), 0);
    EXPECT_EQ(klp_wait_transition(p, 4 * KLP_TEST_WAIT_NS), 0);
    EXPECT(!p->forced);
    sleep_ns(200 * NSEC_PER_MSEC);
    work_finish(run, sum);
    EXPECT(sum->books_ok);
    /* On every CPU: checks failed before the switch, and passed after it. */
    for (unsigned i = 0; i < sum->cpus; i++) {
        EXPECT(sum->bits_wrong_cpu[i] > 0);
        EXPECT(sum->bits_wrong_cpu[i] < sum->bit_checks_cpu[i]);
    }
    /* A whole run with the fix: nothing wrong. */
    run = work_start(200, 1);
    EXPECT(run != NULL);
    if (run) {
        sleep_ns(200 * NSEC_PER_MSEC);
        work_finish(run, sum);
        EXPECT(sum->bit_checks > 0);
        EXPECT_EQ(sum->bits_wrong, 0);
    }
    EXPECT_EQ(klp_disable_patch(p), 0);
    EXPECT_EQ(klp_wait_transition(p, KLP_TEST_WAIT_NS), 0);
    run = work_start(200, 1);
    EXPECT(run != NULL);
    if (run) {
        sleep_ns(200 * NSEC_PER_MSEC);
        work_finish(run, sum);
        EXPECT(sum->bit_checks > 0);
        EXPECT_EQ(sum->bits_wrong, sum->bit_checks);
    }
    kfree(sum);
}
