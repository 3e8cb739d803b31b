/*
 * Self-tests of dynamic ftrace in the spirit of Linux's boot-time ftrace self-test: ops
 * on dedicated traced functions (kernel/fixtures/ftrace_test_targets.c) must be called exactly as
 * often as those functions, filters and notrace must hold, several ops must share a site,
 * SAVE_REGS must show the arguments, unregistering must stop the calls, and a CPU that
 * runs a site in the middle of a batch must go through the int3 emulation correctly.
 */
#include <arch/asm_calls.h>
#include <arch/ftrace.h>
#include <arch/text_patch.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/selftest.h>
#include <kernel/thread.h>
#include <lib/string.h>

struct counting_op {
    struct ftrace_ops ops;
    volatile uint64_t hits;
    volatile unsigned long last_ip, last_parent;
    volatile unsigned long arg0, arg1, arg2;
    volatile bool had_regs;
};

static void count_hits(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                       struct ftrace_regs *fregs)
{
    struct pt_regs *regs = ftrace_get_regs(fregs);
    struct counting_op *c = container_of(op, struct counting_op, ops);
    __atomic_fetch_add(&c->hits, 1, __ATOMIC_RELAXED);
    c->last_ip = ip;
    c->last_parent = parent_ip;
    c->had_regs = regs != NULL;
    if (regs) {
        c->arg0 = regs_get_kernel_argument(regs, 0);
        c->arg1 = regs_get_kernel_argument(regs, 1);
        c->arg2 = regs_get_kernel_argument(regs, 2);
    }
}

static struct ftrace_hash *hash_of(unsigned long fn)
{
    struct ftrace_hash *h = ftrace_hash_alloc();
    struct dyn_ftrace *rec = ftrace_rec_lookup(fn);
    if (h && rec)
        ftrace_hash_set(h, ftrace_rec_index(rec));
    return h;
}

static void init_op(struct counting_op *c, unsigned long only_fn, unsigned long flags)
{
    memset(c, 0, sizeof(*c));
    c->ops.func = count_hits;
    c->ops.flags = flags;
    c->ops.tramp_slot = -1;
    if (only_fn)
        ftrace_ops_set_hashes(&c->ops, hash_of(only_fn), NULL);
}

static void drop_op(struct counting_op *c) { ftrace_ops_set_hashes(&c->ops, NULL, NULL); }

static bool site_is_nop(unsigned long fn)
{
    uint8_t b[5];
    return arch_text_read(fn, b, 5) == 0 && memcmp(b, arch_ftrace_nop, 5) == 0;
}

static volatile unsigned long sink;

SELFTEST(ftrace_records)
{
    EXPECT(ftrace_rec_total() > 100);
    struct dyn_ftrace *rec = ftrace_rec_lookup((unsigned long)ftrace_test_target);
    ASSERT_TRUE(rec != NULL);
    EXPECT_STREQ(ftrace_rec_name(rec), "ftrace_test_target");
    EXPECT(!(rec->flags & FTRACE_FL_DISABLED));
    EXPECT(site_is_nop((unsigned long)ftrace_test_target));
    /* Untraced code has no record. */
    EXPECT(ftrace_rec_lookup((unsigned long)ftrace_test_empty_untraced) == NULL);
    for (size_t i = 1; i < ftrace_rec_total(); i++)
        EXPECT(ftrace_rec(i - 1)->ip < ftrace_rec(i)->ip);
}

SELFTEST(ftrace_op_counts_exactly)
{
    struct counting_op c;
    init_op(&c, (unsigned long)ftrace_test_target, 0);
    EXPECT_EQ(register_ftrace_function(&c.ops), 0);
    EXPECT(!site_is_nop((unsigned long)ftrace_test_target));
    struct dyn_ftrace *rec = ftrace_rec_lookup((unsigned long)ftrace_test_target);
    EXPECT_EQ(ftrace_rec_count(rec), 1);
    EXPECT(rec->flags & FTRACE_FL_ENABLED);
    EXPECT(rec->flags & FTRACE_FL_TRAMP_EN);
    for (int i = 0; i < 1000; i++)
        sink = ftrace_test_target(i, 1, 2);
    EXPECT_EQ(c.hits, 1000);
    EXPECT_EQ(c.last_ip, (unsigned long)ftrace_test_target);
    EXPECT(!c.had_regs);
    /* Other functions are not called back. */
    sink = ftrace_test_target_other(1);
    EXPECT_EQ(c.hits, 1000);

    EXPECT_EQ(unregister_ftrace_function(&c.ops), 0);
    EXPECT(site_is_nop((unsigned long)ftrace_test_target));
    EXPECT_EQ(ftrace_rec_count(rec), 0);
    for (int i = 0; i < 100; i++)
        sink = ftrace_test_target(i, 1, 2);
    EXPECT_EQ(c.hits, 1000);
    drop_op(&c);
}

SELFTEST(ftrace_filter_and_notrace)
{
    struct counting_op c;
    init_op(&c, 0, 0);
    struct ftrace_hash *filter = hash_of((unsigned long)ftrace_test_target);
    ftrace_hash_set(filter,
                    ftrace_rec_index(ftrace_rec_lookup((unsigned long)ftrace_test_target_other)));
    struct ftrace_hash *excluded = hash_of((unsigned long)ftrace_test_target_other);
    ftrace_ops_set_hashes(&c.ops, filter, excluded);
    EXPECT_EQ(register_ftrace_function(&c.ops), 0);
    sink = ftrace_test_target(1, 2, 3);
    sink = ftrace_test_target_other(1);
    sink = ftrace_test_target_hot(1);
    /* notrace wins over filter; unfiltered functions stay NOPs. */
    EXPECT_EQ(c.hits, 1);
    EXPECT(site_is_nop((unsigned long)ftrace_test_target_other));
    EXPECT(site_is_nop((unsigned long)ftrace_test_target_hot));

    /* Changing the filter while registered re-patches only what changes. */
    struct ftrace_stats before, after;
    ftrace_get_stats(&before);
    ftrace_ops_set_hashes(&c.ops, hash_of((unsigned long)ftrace_test_target_hot), NULL);
    ftrace_get_stats(&after);
    EXPECT_EQ(after.batches, before.batches + 1);
    EXPECT_EQ(after.sites_patched, before.sites_patched + 2);
    sink = ftrace_test_target(1, 2, 3);
    sink = ftrace_test_target_hot(1);
    EXPECT_EQ(c.hits, 2);
    EXPECT_EQ(unregister_ftrace_function(&c.ops), 0);
    drop_op(&c);
}

SELFTEST(ftrace_two_ops_one_site)
{
    struct counting_op a, b;
    init_op(&a, (unsigned long)ftrace_test_target, 0);
    init_op(&b, (unsigned long)ftrace_test_target, 0);
    EXPECT_EQ(register_ftrace_function(&a.ops), 0);
    EXPECT_EQ(register_ftrace_function(&b.ops), 0);
    struct dyn_ftrace *rec = ftrace_rec_lookup((unsigned long)ftrace_test_target);
    EXPECT_EQ(ftrace_rec_count(rec), 2);
    EXPECT(!(rec->flags & FTRACE_FL_TRAMP_EN)); /* the list caller serves it */
    for (int i = 0; i < 50; i++)
        sink = ftrace_test_target(i, 0, 0);
    EXPECT_EQ(a.hits, 50);
    EXPECT_EQ(b.hits, 50);
    EXPECT_EQ(unregister_ftrace_function(&a.ops), 0);
    EXPECT(rec->flags & FTRACE_FL_TRAMP_EN); /* back to b's own trampoline */
    sink = ftrace_test_target(1, 0, 0);
    EXPECT_EQ(a.hits, 50);
    EXPECT_EQ(b.hits, 51);
    EXPECT_EQ(register_ftrace_function(&b.ops), -EBUSY);
    EXPECT_EQ(unregister_ftrace_function(&b.ops), 0);
    EXPECT_EQ(unregister_ftrace_function(&b.ops), -EINVAL);
    drop_op(&a);
    drop_op(&b);
}

/*
 * More ops than trampoline slots: every op registers; those without a slot are served by
 * the list caller, even one alone on a site, with and without SAVE_REGS.
 */
SELFTEST(ftrace_ops_beyond_trampoline_slots)
{
    enum { NOPS = ARCH_FTRACE_TRAMP_SLOTS + 3 };
    static struct counting_op ops[NOPS];
    static struct counting_op alone, alone_regs;
    for (int i = 0; i < NOPS; i++) {
        init_op(&ops[i], (unsigned long)ftrace_test_target, 0);
        EXPECT_EQ(register_ftrace_function(&ops[i].ops), 0);
    }
    int without_slot = 0;
    for (int i = 0; i < NOPS; i++)
        without_slot += ops[i].ops.tramp_slot < 0;
    /* Other ops of the running kernel may hold slots too: at least three go without. */
    EXPECT(without_slot >= 3);
    struct dyn_ftrace *rec = ftrace_rec_lookup((unsigned long)ftrace_test_target);
    ASSERT_NOT_NULL(rec);
    EXPECT_EQ(ftrace_rec_count(rec), NOPS);
    for (int i = 0; i < 20; i++)
        sink = ftrace_test_target(i, 0, 0);
    for (int i = 0; i < NOPS; i++)
        EXPECT_EQ(ops[i].hits, 20);

    /* An op with no slot, alone on its site: the list caller, which still calls it. */
    init_op(&alone, (unsigned long)ftrace_test_target_hot, 0);
    init_op(&alone_regs, (unsigned long)ftrace_test_target_other, FTRACE_OPS_FL_SAVE_REGS);
    EXPECT_EQ(register_ftrace_function(&alone.ops), 0);
    EXPECT_EQ(register_ftrace_function(&alone_regs.ops), 0);
    EXPECT(alone.ops.tramp_slot < 0);
    EXPECT(alone_regs.ops.tramp_slot < 0);
    struct dyn_ftrace *hot = ftrace_rec_lookup((unsigned long)ftrace_test_target_hot);
    struct dyn_ftrace *other = ftrace_rec_lookup((unsigned long)ftrace_test_target_other);
    ASSERT_NOT_NULL(hot);
    ASSERT_NOT_NULL(other);
    EXPECT(!(hot->flags & FTRACE_FL_TRAMP_EN));
    EXPECT(other->flags & FTRACE_FL_REGS_EN);
    for (int i = 0; i < 7; i++) {
        sink = ftrace_test_target_hot(i);
        sink = ftrace_test_target_other(i);
    }
    EXPECT_EQ(alone.hits, 7);
    EXPECT_EQ(alone_regs.hits, 7);
    EXPECT_EQ(alone_regs.last_ip, (unsigned long)ftrace_test_target_other);

    EXPECT_EQ(unregister_ftrace_function(&alone.ops), 0);
    EXPECT_EQ(unregister_ftrace_function(&alone_regs.ops), 0);
    for (int i = 0; i < NOPS; i++)
        EXPECT_EQ(unregister_ftrace_function(&ops[i].ops), 0);
    EXPECT(site_is_nop((unsigned long)ftrace_test_target));
    EXPECT(site_is_nop((unsigned long)ftrace_test_target_hot));
    EXPECT(site_is_nop((unsigned long)ftrace_test_target_other));
    for (int i = 0; i < NOPS; i++)
        drop_op(&ops[i]);
    drop_op(&alone);
    drop_op(&alone_regs);
}

static void redirect_to_patched(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                                struct ftrace_regs *fregs)
{
    count_hits(ip, parent_ip, op, fregs);
    ftrace_regs_set_instruction_pointer(fregs, (unsigned long)ftrace_replacement_hot);
}

/*
 * IPMODIFY: the frame's ip is the address after the site's call (Linux's meaning), and a new
 * one sends the call to another function with the original arguments; a second IPMODIFY
 * op on the same function is EBUSY, by registration or by a filter change; IPMODIFY
 * without SAVE_REGS is EINVAL; enabled_functions' record carries the I flag.
 */
SELFTEST(ftrace_ipmodify_redirects_once_per_function)
{
    struct counting_op a, b, c;
    init_op(&a, (unsigned long)ftrace_test_target_hot,
            FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY);
    a.ops.func = redirect_to_patched;
    EXPECT_EQ(ftrace_test_target_hot(5), 6);
    ASSERT_EQ(register_ftrace_function(&a.ops), 0);
    EXPECT_EQ(ftrace_test_target_hot(5), 105);
    EXPECT_EQ(ftrace_test_chain_c(1), 102); /* its caller gets the new function's result */
    EXPECT_EQ(a.hits, 2);
    struct dyn_ftrace *rec = ftrace_rec_lookup((unsigned long)ftrace_test_target_hot);
    ASSERT_NOT_NULL(rec);
    EXPECT(rec->flags & FTRACE_FL_IPMODIFY);

    init_op(&b, (unsigned long)ftrace_test_target_hot,
            FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY);
    EXPECT_EQ(register_ftrace_function(&b.ops), -EBUSY);
    drop_op(&b);
    init_op(&b, (unsigned long)ftrace_test_target_other,
            FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY);
    EXPECT_EQ(register_ftrace_function(&b.ops), 0);
    /* Moving b onto a's function is refused, and b keeps its old function. */
    EXPECT_EQ(ftrace_ops_set_hashes(&b.ops, hash_of((unsigned long)ftrace_test_target_hot), NULL),
              -EBUSY);
    sink = ftrace_test_target_other(1);
    EXPECT_EQ(b.hits, 1);
    EXPECT_EQ(b.last_ip, (unsigned long)ftrace_test_target_other);
    EXPECT(b.had_regs);

    init_op(&c, (unsigned long)ftrace_test_target, FTRACE_OPS_FL_IPMODIFY);
    EXPECT_EQ(register_ftrace_function(&c.ops), -EINVAL);
    drop_op(&c);

    EXPECT_EQ(unregister_ftrace_function(&a.ops), 0);
    EXPECT_EQ(ftrace_test_target_hot(5), 6);
    EXPECT(!(rec->flags & FTRACE_FL_IPMODIFY));
    EXPECT_EQ(unregister_ftrace_function(&b.ops), 0);
    drop_op(&a);
    drop_op(&b);
    EXPECT(site_is_nop((unsigned long)ftrace_test_target_hot));
}

/* PERMANENT ops and ftrace_enabled: each refuses the other, with EBUSY. */
SELFTEST(ftrace_permanent_and_ftrace_enabled)
{
    struct counting_op p, q;
    init_op(&p, (unsigned long)ftrace_test_target_hot, FTRACE_OPS_FL_PERMANENT);
    init_op(&q, (unsigned long)ftrace_test_target_other, 0);
    ASSERT_EQ(register_ftrace_function(&p.ops), 0);
    EXPECT_EQ(ftrace_set_enabled(false), -EBUSY);
    EXPECT(ftrace_get_enabled());
    EXPECT_EQ(unregister_ftrace_function(&p.ops), 0);

    ASSERT_EQ(register_ftrace_function(&q.ops), 0);
    EXPECT_EQ(ftrace_set_enabled(false), 0);
    EXPECT(site_is_nop((unsigned long)ftrace_test_target_other));
    sink = ftrace_test_target_other(1);
    EXPECT_EQ(q.hits, 0);
    EXPECT_EQ(register_ftrace_function(&p.ops), -EBUSY);
    EXPECT_EQ(ftrace_set_enabled(true), 0);
    sink = ftrace_test_target_other(1);
    EXPECT_EQ(q.hits, 1);
    EXPECT_EQ(unregister_ftrace_function(&q.ops), 0);
    drop_op(&p);
    drop_op(&q);
}

static void recurse_into_target(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                                struct ftrace_regs *fregs)
{
    count_hits(ip, parent_ip, op, fregs);
    /* A traced call from inside the callback: the guard must turn it away. */
    sink = ftrace_test_target(1, 2, 3);
}

/*
 * The core's recursion guard turns a callback's own traced call away and records it in
 * recursed_functions (shown as "caller:\tfunction", cleared by a truncating open); the
 * trylock an op takes itself refuses a second entry in the same context, and not after
 * unlock.
 */
SELFTEST(ftrace_recursion_recorded)
{
    ftrace_recursed_functions_clear();
    struct counting_op c;
    init_op(&c, (unsigned long)ftrace_test_target, FTRACE_OPS_FL_RECURSION);
    c.ops.func = recurse_into_target;
    ASSERT_EQ(register_ftrace_function(&c.ops), 0);
    sink = ftrace_test_target(4, 5, 6);
    EXPECT_EQ(unregister_ftrace_function(&c.ops), 0);
    EXPECT_EQ(c.hits, 1);
    EXPECT(c.ops.recursion_stopped >= 1);
    unsigned long ips[4], parents[4];
    EXPECT_EQ(ftrace_recursed_functions(ips, parents, 4), 1);
    EXPECT_EQ(ips[0], (unsigned long)ftrace_test_target);
    char text[256];
    EXPECT(selftest_read_file_into("/", "/sys/kernel/tracing/recursed_functions", text,
                                   sizeof(text)) > 0);
    EXPECT(strstr(text, ":\tftrace_test_target+0x0/") != NULL);
    struct pfs_file *f;
    ASSERT_EQ(pfs_open("/", "/sys/kernel/tracing/recursed_functions", PFS_WRITE | PFS_TRUNC, &f),
              0);
    pfs_close(f);
    EXPECT_EQ(ftrace_recursed_functions(ips, parents, 4), 0);
    drop_op(&c);

    int bit = ftrace_test_recursion_trylock(1, 2);
    EXPECT(bit >= 0);
    EXPECT_EQ(ftrace_test_recursion_trylock(1, 2), -1);
    ftrace_test_recursion_unlock(bit);
    bit = ftrace_test_recursion_trylock(1, 2);
    EXPECT(bit >= 0);
    ftrace_test_recursion_unlock(bit);
    ftrace_recursed_functions_clear();
}

static unsigned long fregs_args[3], fregs_ip, fregs_sp_word;

static void read_fregs(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                       struct ftrace_regs *fregs)
{
    count_hits(ip, parent_ip, op, fregs);
    for (unsigned n = 0; n < 3; n++)
        fregs_args[n] = ftrace_regs_get_argument(fregs, n);
    fregs_ip = ftrace_regs_get_instruction_pointer(fregs);
    fregs_sp_word = *(unsigned long *)ftrace_regs_get_stack_pointer(fregs);
}

/*
 * ftrace_regs, with and without SAVE_REGS: the arguments of the traced call, the
 * instruction pointer just after its site's call, and the stack pointer at entry pointing
 * at the return address (the parent); pt_regs only for SAVE_REGS.
 */
SELFTEST(ftrace_regs_accessors)
{
    for (int with_regs = 0; with_regs < 2; with_regs++) {
        struct counting_op c;
        init_op(&c, (unsigned long)ftrace_test_target, with_regs ? FTRACE_OPS_FL_SAVE_REGS : 0);
        c.ops.func = read_fregs;
        ASSERT_EQ(register_ftrace_function(&c.ops), 0);
        sink = ftrace_test_target(11, 22, 33);
        EXPECT_EQ(unregister_ftrace_function(&c.ops), 0);
        EXPECT_EQ(c.hits, 1);
        EXPECT_EQ(c.had_regs, with_regs);
        EXPECT_EQ(fregs_args[0], 11);
        EXPECT_EQ(fregs_args[1], 22);
        EXPECT_EQ(fregs_args[2], 33);
        EXPECT_EQ(fregs_ip, (unsigned long)ftrace_test_target + 5);
        EXPECT_EQ(fregs_sp_word, c.last_parent);
        drop_op(&c);
    }
}

/* Linux's setters: globs add or reset, !glob removes, by address too, errors whole. */
SELFTEST(ftrace_set_filter_notrace_ip)
{
    struct counting_op c;
    init_op(&c, 0, 0);
    struct dyn_ftrace *target = ftrace_rec_lookup((unsigned long)ftrace_test_target);
    struct dyn_ftrace *hot = ftrace_rec_lookup((unsigned long)ftrace_test_target_hot);
    struct dyn_ftrace *other = ftrace_rec_lookup((unsigned long)ftrace_test_target_other);
    ASSERT_TRUE(target && hot && other);
    size_t ti = (size_t)ftrace_rec_index(target), h = (size_t)ftrace_rec_index(hot),
           o = (size_t)ftrace_rec_index(other);

    EXPECT_EQ(ftrace_set_filter(&c.ops, "ftrace_test_target_hot ftrace_test_target", -1, 1), 0);
    EXPECT(ftrace_ops_wants(&c.ops, ti) && ftrace_ops_wants(&c.ops, h));
    EXPECT(!ftrace_ops_wants(&c.ops, o));
    EXPECT_EQ(ftrace_set_filter(&c.ops, "!ftrace_test_target", -1, 0), 0);
    EXPECT(!ftrace_ops_wants(&c.ops, ti) && ftrace_ops_wants(&c.ops, h));
    /* A glob that matches nothing: EINVAL, the filter as it was. */
    EXPECT_EQ(ftrace_set_filter(&c.ops, "no_such_function_at_all", -1, 1), -EINVAL);
    EXPECT(ftrace_ops_wants(&c.ops, h) && !ftrace_ops_wants(&c.ops, o));

    EXPECT_EQ(ftrace_set_filter_ip(&c.ops, (unsigned long)ftrace_test_target_other + 3, 0, 0), 0);
    EXPECT(ftrace_ops_wants(&c.ops, o));
    EXPECT_EQ(ftrace_set_filter_ip(&c.ops, (unsigned long)ftrace_test_target_other, 1, 0), 0);
    EXPECT(!ftrace_ops_wants(&c.ops, o));
    EXPECT_EQ(ftrace_set_filter_ip(&c.ops, (unsigned long)ftrace_test_target_other, 1, 0), -ENOENT);
    EXPECT_EQ(ftrace_set_filter_ip(&c.ops, 0x1000, 0, 0), -EINVAL);

    /* notrace keeps the filter; a registered op is re-patched on each change. */
    EXPECT_EQ(ftrace_set_filter(&c.ops, "ftrace_test_target*", -1, 1), 0);
    EXPECT_EQ(ftrace_set_notrace(&c.ops, "ftrace_test_target_hot", -1, 1), 0);
    EXPECT(ftrace_ops_wants(&c.ops, ti) && !ftrace_ops_wants(&c.ops, h));
    ASSERT_EQ(register_ftrace_function(&c.ops), 0);
    sink = ftrace_test_target_hot(1);
    EXPECT_EQ(c.hits, 0);
    EXPECT_EQ(ftrace_set_notrace(&c.ops, NULL, 0, 1), 0);
    EXPECT(c.ops.notrace_hash == NULL);
    sink = ftrace_test_target_hot(1);
    EXPECT_EQ(c.hits, 1);
    EXPECT_EQ(unregister_ftrace_function(&c.ops), 0);
    /* NULL with reset frees the hash: nothing is left for an op about to go. */
    EXPECT_EQ(ftrace_set_filter(&c.ops, NULL, 0, 1), 0);
    EXPECT(c.ops.filter_hash == NULL);
    drop_op(&c);
}

SELFTEST(ftrace_save_regs_sees_arguments)
{
    struct counting_op c;
    init_op(&c, (unsigned long)ftrace_test_target, FTRACE_OPS_FL_SAVE_REGS);
    EXPECT_EQ(register_ftrace_function(&c.ops), 0);
    struct dyn_ftrace *rec = ftrace_rec_lookup((unsigned long)ftrace_test_target);
    EXPECT(rec->flags & FTRACE_FL_REGS_EN);
    unsigned long r = ftrace_test_target(0x1111, 0x2222, 0x3333);
    EXPECT_EQ(r, 0x1111 * 3 + 0x2222 * 5 + 0x3333 * 7); /* the call still works */
    EXPECT_EQ(c.hits, 1);
    EXPECT(c.had_regs);
    EXPECT_EQ(c.arg0, 0x1111);
    EXPECT_EQ(c.arg1, 0x2222);
    EXPECT_EQ(c.arg2, 0x3333);

    /* A plain op joining the site moves it to the regs-saving list caller. */
    struct counting_op plain;
    init_op(&plain, (unsigned long)ftrace_test_target, 0);
    EXPECT_EQ(register_ftrace_function(&plain.ops), 0);
    EXPECT(rec->flags & FTRACE_FL_REGS_EN);
    sink = ftrace_test_target(7, 8, 9);
    EXPECT_EQ(c.arg0, 7);
    EXPECT_EQ(plain.hits, 1);
    EXPECT_EQ(unregister_ftrace_function(&c.ops), 0);
    EXPECT(!(rec->flags & FTRACE_FL_REGS_EN));
    EXPECT_EQ(unregister_ftrace_function(&plain.ops), 0);
    drop_op(&c);
    drop_op(&plain);
}

/* ---- the int3 path, on purpose ---- */

static volatile unsigned long hook_calls;

static void call_target_mid_batch(void)
{
    /* Runs between the steps of a batch, on the patching CPU: the site holds int3 now. */
    sink = ftrace_test_target_hot(hook_calls);
    hook_calls++;
}

struct hammer {
    volatile bool stop;
    volatile uint64_t calls;
    volatile bool wrong;
};

static int hammer_thread(void *arg)
{
    struct hammer *h = arg;
    while (!h->stop) {
        unsigned long r = ftrace_test_target_hot(h->calls);
        if (r != h->calls + 1)
            h->wrong = true;
        h->calls++;
    }
    return 0;
}

SELFTEST(ftrace_int3_emulation_mid_batch)
{
    struct counting_op c;
    init_op(&c, (unsigned long)ftrace_test_target_hot, 0);
    struct hammer h = {0};
    struct thread *other = NULL;
    for (unsigned cpu = 0; cpu < MAX_CPUS && !other; cpu++)
        if (cpu != this_cpu_id() && cpu_data(cpu)->online)
            other = kthread_create(hammer_thread, &h, "ftrace_hammer", cpu);

    uint64_t hits_before = arch_text_poke_int3_hits();
    hook_calls = 0;
    arch_text_poke_test_hook = call_target_mid_batch;
    for (int round = 0; round < 20; round++) {
        EXPECT_EQ(register_ftrace_function(&c.ops), 0);
        EXPECT_EQ(unregister_ftrace_function(&c.ops), 0);
    }
    arch_text_poke_test_hook = NULL;
    h.stop = true;
    if (other)
        kthread_join(other);

    /* Two hook calls per batch, both on a site holding int3, each emulated. */
    EXPECT_EQ(hook_calls, 80);
    EXPECT(arch_text_poke_int3_hits() - hits_before >= 80);
    EXPECT(!h.wrong);
    /* Mid-batch calls ran the new instruction: while enabling, a call; while disabling,
     * a NOP. So the op saw exactly the enabling half of the hook's calls, plus whatever
     * the other CPU did while it was registered. */
    EXPECT(c.hits >= 40);
    EXPECT(site_is_nop((unsigned long)ftrace_test_target_hot));
    drop_op(&c);
}

static void recursing_callback(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                               struct ftrace_regs *fregs)
{
    struct counting_op *c = container_of(op, struct counting_op, ops);
    c->hits++;
    /* Calls a function this op traces: the guard must stop the re-entry. */
    sink = ftrace_test_target_other(c->hits);
}

SELFTEST(ftrace_recursion_guard)
{
    struct counting_op c;
    init_op(&c, 0, 0);
    struct ftrace_hash *filter = hash_of((unsigned long)ftrace_test_target);
    ftrace_hash_set(filter,
                    ftrace_rec_index(ftrace_rec_lookup((unsigned long)ftrace_test_target_other)));
    ftrace_ops_set_hashes(&c.ops, filter, NULL);
    c.ops.func = recursing_callback;
    EXPECT_EQ(register_ftrace_function(&c.ops), 0);
    sink = ftrace_test_target(1, 2, 3);
    EXPECT_EQ(c.hits, 1);
    EXPECT_EQ(c.ops.recursion_stopped, 1);
    EXPECT_EQ(unregister_ftrace_function(&c.ops), 0);
    drop_op(&c);
}

/*
 * A trampoline slot goes to a new op only once no CPU is between a site and its callback:
 * the scheduler and unregistering both tell that code apart by address. Every trampoline,
 * dispatch stub and both dispatchers must be inside it, and nothing a callback or a
 * traced function runs may be.
 */
SELFTEST(ftrace_entry_code_is_known)
{
    for (unsigned s = 0; s < ARCH_FTRACE_TRAMP_SLOTS; s++) {
        EXPECT(arch_ftrace_in_entry(arch_ftrace_tramp_addr(s, false)));
        EXPECT(arch_ftrace_in_entry(arch_ftrace_tramp_addr(s, true)));
    }
    EXPECT(arch_ftrace_in_entry(arch_ftrace_list_addr(false)));
    EXPECT(arch_ftrace_in_entry(arch_ftrace_list_addr(true)));
    EXPECT(arch_ftrace_in_entry((unsigned long)ftrace_tramp_dispatch));
    EXPECT(arch_ftrace_in_entry((unsigned long)ftrace_list_dispatch));
    for (unsigned s = 0; s < ARCH_FTRACE_TRAMP_SLOTS; s++)
        EXPECT(arch_ftrace_in_entry(arch_ftrace_dispatch_stub[s]));
    EXPECT(!arch_ftrace_in_entry((unsigned long)ftrace_test_target));
    EXPECT(!arch_ftrace_in_entry((unsigned long)count_hits));
    EXPECT(!arch_ftrace_in_entry((unsigned long)return_to_handler));
    EXPECT(!arch_ftrace_in_entry(arch_ftrace_regs_return_hook(false, 0)));
    EXPECT(!arch_ftrace_in_entry(arch_ftrace_regs_return_hook(true, 0)));
    EXPECT(!arch_ftrace_in_entry((unsigned long)register_ftrace_function));
}
