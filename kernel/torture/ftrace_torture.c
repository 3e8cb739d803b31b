/*
 * The stress test of dynamic ftrace, as a shell command:
 *
 *   ftrace_torture SECONDS [SEED]  registers, unregisters and re-filters several ops in
 *                                  random orders while every CPU runs the work load and
 *                                  calls traced functions in tight loops, and checks every
 *                                  call site after every step (ftrace_site_check, from
 *                                  ftrace_check.c, which also holds the checker commands).
 *
 * kernel/torture/ is built without -pg (the Makefile): the callbacks run inside the
 * tracer on every traced call, and the checker reads the sites it is checking. The load
 * comes from traced code elsewhere (test targets, heap, glob matching, the work load).
 */
#include <arch/cpu.h>
#include <arch/ftrace.h>
#include <arch/text_patch.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/shell.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/work.h>
#include <lib/glob.h>
#include <lib/printf.h>
#include <lib/random.h>
#include <lib/string.h>

#include "trace_internal.h"

#define TORTURE_MAX_SECONDS 3600
#define TORTURE_MAX_REPORTS 8 /* offending sites listed per failed check */

/* ---- ftrace_torture ---- */

/* Filters the re-filtered op draws from, one or two at a time, sometimes with a removal. */
static const char *const torture_globs[] = {
    "work_*",  "k*alloc", "*lock*", "ftrace_test_*", "sched*",     "*",      "thread_*", "*wake*",
    "shell_*", "pfs_*",   "wait_*", "kfree",         "glob_match", "*_irq*", "seq_*",    "k?alloc",
};
static const char *const torture_removals[] = {
    "!*lock*", "!shell_*", "!k*", "!ftrace_test_target_hot", "!work_*",
};
static const char *const torture_targets[] = {
    "ftrace_test_target",
    "ftrace_test_target_hot",
    "ftrace_test_target_other",
    "ftrace_test_target_*",
};

/* Per-CPU tallies of the callbacks, one cache line each so CPUs never share one. */
struct torture_cpu {
    uint64_t all_hits;
    uint64_t glob_hits;
    uint64_t regs_hits;
    uint64_t one_hits;
    uint64_t fixed_hits;
    volatile unsigned long arg; /* the argument this CPU's hammer is passing right now */
} __cacheline_aligned;

enum torture_op_id { OP_ALL, OP_GLOB, OP_REGS, OP_ONE, OP_FIXED, TORTURE_OPS };

struct torture_op {
    struct ftrace_ops ops;
    const char *name;
    bool registered;
};

struct torture_hammer {
    volatile bool stop;
    unsigned cpu;
    uint64_t calls;
    uint64_t wrong; /* calls that returned a wrong value */
    struct thread *thread;
};

struct torture_run {
    struct shell_ctx *ctx;
    uint64_t rng;
    uint64_t iterations, steps;
    bool interrupted;
    bool failed;
    char reason[160]; /* the first failure */
    struct torture_hammer *hammers;
    unsigned nhammers;
    struct work_run *work;
    uint64_t hammer_calls;
};

static struct torture_cpu torture_cpus[MAX_CPUS];
static struct torture_op torture_ops[TORTURE_OPS];
static bool torture_running;

/*
 * Calls the ops with fixed filters must never get, counted by their callbacks (which must
 * not print from inside the tracer): without the pt_regs asked for, with registers that
 * are not the arguments, or for a function outside the filter.
 */
static uint64_t bad_no_regs, bad_regs, bad_stray;
static unsigned long bad_first_ip;
static const char *bad_first_op;

static void torture_note_bad_call(uint64_t *counter, unsigned long ip, const char *op_name)
{
    if (__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED) == 0) {
        __atomic_store_n(&bad_first_ip, ip, __ATOMIC_RELAXED);
        __atomic_store_n(&bad_first_op, op_name, __ATOMIC_RELAXED);
    }
}

/* Runs on every traced call of every CPU while registered: one counter, nothing else. */
static void torture_count_all(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                              struct ftrace_regs *fregs)
{
    __atomic_fetch_add(&torture_cpus[this_cpu_id()].all_hits, 1, __ATOMIC_RELAXED);
}

static void torture_count_glob(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                               struct ftrace_regs *fregs)
{
    __atomic_fetch_add(&torture_cpus[this_cpu_id()].glob_hits, 1, __ATOMIC_RELAXED);
}

static void torture_count_one(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                              struct ftrace_regs *fregs)
{
    __atomic_fetch_add(&torture_cpus[this_cpu_id()].one_hits, 1, __ATOMIC_RELAXED);
}

/*
 * The fixed op traces ftrace_test_target_other and nothing else, for good: a call for
 * another function is a stray, such as a trampoline slot reached for the op that the
 * slot served before.
 */
static void torture_check_fixed(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                                struct ftrace_regs *fregs)
{
    __atomic_fetch_add(&torture_cpus[this_cpu_id()].fixed_hits, 1, __ATOMIC_RELAXED);
    if (ip != (unsigned long)ftrace_test_target_other)
        torture_note_bad_call(&bad_stray, ip, "fixed");
}

/*
 * The SAVE_REGS op wants only the three test targets, which only the hammers call, and
 * each hammer announces its argument before the call: so the saved registers must hold
 * exactly the arguments the hammer of this CPU passed, and the ip of the function.
 */
static void torture_check_regs(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                               struct ftrace_regs *fregs)
{
    struct pt_regs *regs = ftrace_get_regs(fregs);
    struct torture_cpu *c = &torture_cpus[this_cpu_id()];
    __atomic_fetch_add(&c->regs_hits, 1, __ATOMIC_RELAXED);
    if (!regs) {
        torture_note_bad_call(&bad_no_regs, ip, "regs");
        return;
    }
    unsigned long arg = c->arg;
    bool ok;
    if (ip == (unsigned long)ftrace_test_target) {
        ok = regs_get_kernel_argument(regs, 0) == arg &&
             regs_get_kernel_argument(regs, 1) == arg + 1 &&
             regs_get_kernel_argument(regs, 2) == arg + 2;
    } else if (ip == (unsigned long)ftrace_test_target_hot ||
               ip == (unsigned long)ftrace_test_target_other) {
        ok = regs_get_kernel_argument(regs, 0) == arg;
    } else {
        torture_note_bad_call(&bad_stray, ip, "regs");
        return;
    }
    /* Linux's meaning: the frame's ip is the address after the site's call. */
    if (!ok || arch_regs_ip(regs) != ip + ARCH_PATCH_INSN_SIZE)
        torture_note_bad_call(&bad_regs, ip, "regs");
}

/*
 * A hammer keeps one CPU calling traced functions and checks every result. Its sites
 * change under it all the time: NOP, a trampoline, a list caller, or the patching breakpoint
 * mid-batch.
 */
static int torture_hammer_main(void *arg)
{
    struct torture_hammer *h = arg;
    struct torture_cpu *c = &torture_cpus[h->cpu];
    uint64_t calls = 0, wrong = 0;
    for (unsigned long loop = 0; !READ_ONCE(h->stop); loop++) {
        unsigned long x = (unsigned long)(loop * 0x9e3779b97f4a7c15ULL) ^ h->cpu;
        WRITE_ONCE(c->arg, x);
        barrier();
        wrong += ftrace_test_target_hot(x) != x + 1;
        wrong += ftrace_test_target_other(x) != (x ^ 0x55);
        wrong += ftrace_test_target(x, x + 1, x + 2) != x * 3 + (x + 1) * 5 + (x + 2) * 7;
        calls += 3;
        if ((loop & 63) == 0) {
            /* Other traced code: the heap, and glob matching with a known answer. */
            void *p = kmalloc(32 + (calls & 255));
            wrong += p == NULL;
            kfree(p);
            wrong += !glob_match("ftrace_*_hot", "ftrace_test_target_hot");
            wrong += glob_match("ftrace_*_cold", "ftrace_test_target_hot");
            calls += 4;
        }
        WRITE_ONCE(h->calls, calls);
        WRITE_ONCE(h->wrong, wrong);
    }
    return 0;
}

static uint64_t torture_random(struct torture_run *run) { return xorshift64(&run->rng); }

static const char *torture_pick(struct torture_run *run, const char *const *list, size_t n)
{
    return list[torture_random(run) % n];
}

static void torture_say(struct torture_run *run, const char *fmt, ...) __printf(2, 3);
static void torture_fail(struct torture_run *run, const char *fmt, ...) __printf(2, 3);

static void torture_say(struct torture_run *run, const char *fmt, ...)
{
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    /* After Ctrl-C the shell refuses standard output; the verdict must still be seen. */
    if (run->interrupted)
        shell_eprintf(run->ctx, "%s", buf);
    else
        shell_printf(run->ctx, "%s", buf);
}

/* Keeps the first failure as the reason; the run stops at the end of the step. */
static void torture_fail(struct torture_run *run, const char *fmt, ...)
{
    va_list ap;
    if (run->failed)
        return;
    va_start(ap, fmt);
    vsnprintf(run->reason, sizeof(run->reason), fmt, ap);
    va_end(ap);
    run->failed = true;
}

static bool torture_op_wants(const struct torture_op *t, size_t i)
{
    const struct ftrace_ops *op = &t->ops;
    if (!t->registered || (ftrace_rec(i)->flags & FTRACE_FL_DISABLED))
        return false;
    if (ftrace_hash_test(op->notrace_hash, i))
        return false;
    return ftrace_hash_empty(op->filter_hash) || ftrace_hash_test(op->filter_hash, i);
}

/* Every site against its record and against the ops registered now. */
static void torture_check_all(struct torture_run *run, const char *step)
{
    size_t bad = 0;
    char why[160];
    for (size_t i = 0; i < ftrace_rec_total(); i++) {
        if (ftrace_rec(i)->flags & FTRACE_FL_DISABLED)
            continue;
        struct site_expect want = {0, false, NULL};
        for (int k = 0; k < TORTURE_OPS; k++) {
            if (!torture_op_wants(&torture_ops[k], i))
                continue;
            want.count++;
            want.only = &torture_ops[k].ops;
            want.regs |= (torture_ops[k].ops.flags & FTRACE_OPS_FL_SAVE_REGS) != 0;
        }
        if (ftrace_site_check(i, &want, why, sizeof(why)))
            continue;
        if (bad++ < TORTURE_MAX_REPORTS)
            torture_say(run, "ftrace_torture: after step %llu (%s): %s: %s\n",
                        (unsigned long long)run->steps, step, ftrace_rec_name(ftrace_rec(i)), why);
    }
    if (bad)
        torture_fail(run, "%zu inconsistent sites after step %llu (%s)", bad,
                     (unsigned long long)run->steps, step);
}

static void torture_step_done(struct torture_run *run, const char *step, int err)
{
    run->steps++;
    if (err)
        torture_fail(run, "%s: %s", step, strerror(-err));
    else
        torture_check_all(run, step);
}

static void torture_toggle(struct torture_run *run, struct torture_op *t)
{
    char step[48];
    int err;
    if (t->registered) {
        snprintf(step, sizeof(step), "unregister %s", t->name);
        err = unregister_ftrace_function(&t->ops);
        t->registered = false; /* even on an error: that is ftrace dying, which unregisters */
    } else {
        snprintf(step, sizeof(step), "register %s", t->name);
        err = register_ftrace_function(&t->ops);
        t->registered = err == 0;
    }
    torture_step_done(run, step, err);
}

static void torture_set_filter(struct torture_run *run, struct torture_op *t,
                               struct ftrace_hash *filter, struct ftrace_hash *excluded,
                               const char *what)
{
    char step[96];
    snprintf(step, sizeof(step), "filter %s: %s", t->name, what);
    torture_step_done(run, step, ftrace_ops_set_hashes(&t->ops, filter, excluded));
}

/* Globs that match nothing leave the hash as it was: possibly empty, that is everything. */
static void torture_hash_add(struct ftrace_hash *hash, const char *glob, char *what, size_t len)
{
    ftrace_hash_apply_glob(hash, glob);
    if (what[0])
        strlcat(what, " ", len);
    strlcat(what, glob, len);
}

static void torture_refilter_glob(struct torture_run *run)
{
    struct ftrace_hash *filter = ftrace_hash_alloc(), *excluded = NULL;
    char what[80] = "";
    if (!filter) {
        torture_fail(run, "%s", strerror(ENOMEM));
        return;
    }
    unsigned globs = 1 + torture_random(run) % 2;
    for (unsigned g = 0; g < globs; g++)
        torture_hash_add(filter, torture_pick(run, torture_globs, ARRAY_SIZE(torture_globs)), what,
                         sizeof(what));
    if (torture_random(run) % 4 == 0)
        torture_hash_add(filter, torture_pick(run, torture_removals, ARRAY_SIZE(torture_removals)),
                         what, sizeof(what));
    if (torture_random(run) % 4 == 0 && (excluded = ftrace_hash_alloc()) != NULL) {
        strlcat(what, ", notrace", sizeof(what));
        torture_hash_add(excluded, "ftrace_test_target_other", what, sizeof(what));
    }
    torture_set_filter(run, &torture_ops[OP_GLOB], filter, excluded, what);
}

static void torture_refilter_one(struct torture_run *run)
{
    struct ftrace_hash *filter = ftrace_hash_alloc();
    char what[40] = "";
    if (!filter) {
        torture_fail(run, "%s", strerror(ENOMEM));
        return;
    }
    torture_hash_add(filter, torture_pick(run, torture_targets, ARRAY_SIZE(torture_targets)), what,
                     sizeof(what));
    torture_set_filter(run, &torture_ops[OP_ONE], filter, NULL, what);
}

static struct ftrace_hash *torture_hash_of(const char *const *globs, size_t n)
{
    struct ftrace_hash *h = ftrace_hash_alloc();
    for (size_t i = 0; h && i < n; i++)
        ftrace_hash_apply_glob(h, globs[i]);
    return h;
}

static void torture_init_ops(void)
{
    static const struct {
        const char *name;
        ftrace_func_t func;
        unsigned long flags;
    } defs[TORTURE_OPS] = {
        [OP_ALL] = {"all", torture_count_all, 0},
        [OP_GLOB] = {"glob", torture_count_glob, 0},
        [OP_REGS] = {"regs", torture_check_regs, FTRACE_OPS_FL_SAVE_REGS},
        [OP_ONE] = {"one", torture_count_one, 0},
        [OP_FIXED] = {"fixed", torture_check_fixed, 0},
    };
    memset(torture_ops, 0, sizeof(torture_ops));
    for (int k = 0; k < TORTURE_OPS; k++) {
        torture_ops[k].name = defs[k].name;
        torture_ops[k].ops.func = defs[k].func;
        torture_ops[k].ops.flags = defs[k].flags;
        torture_ops[k].ops.tramp_slot = -1;
    }
    /* all: no filter. regs and fixed: set for good. one and glob: changed as it runs. */
    ftrace_ops_set_hashes(&torture_ops[OP_REGS].ops, torture_hash_of(torture_targets, 3), NULL);
    ftrace_ops_set_hashes(&torture_ops[OP_FIXED].ops, torture_hash_of(torture_targets + 2, 1),
                          NULL);
    ftrace_ops_set_hashes(&torture_ops[OP_ONE].ops, torture_hash_of(torture_targets + 1, 1), NULL);
    ftrace_ops_set_hashes(&torture_ops[OP_GLOB].ops, torture_hash_of(torture_targets + 1, 2), NULL);
}

/*
 * One iteration: a new glob filter, sometimes a new single-function filter, one or two
 * registrations flipped; all in a random order, each step checked.
 */
static void torture_iteration(struct torture_run *run)
{
    enum { ACT_GLOB, ACT_ONE, ACT_TOGGLE, ACT_MAYBE_TOGGLE, ACTIONS };
    int order[ACTIONS] = {ACT_GLOB, ACT_ONE, ACT_TOGGLE, ACT_MAYBE_TOGGLE};
    for (int i = ACTIONS - 1; i > 0; i--) {
        int j = (int)(torture_random(run) % (uint64_t)(i + 1));
        int tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    for (int i = 0; i < ACTIONS && !run->failed; i++) {
        switch (order[i]) {
        case ACT_GLOB:
            torture_refilter_glob(run);
            break;
        case ACT_ONE:
            if (torture_random(run) % 3 == 0)
                torture_refilter_one(run);
            break;
        case ACT_MAYBE_TOGGLE:
            if (torture_random(run) % 2 == 0)
                break;
            /* fall through */
        case ACT_TOGGLE:
            torture_toggle(run, &torture_ops[torture_random(run) % TORTURE_OPS]);
            break;
        }
    }
}

/* The work threads, and one hammer per CPU. The work stops when told, not by time. */
static void torture_start_load(struct torture_run *run)
{
    run->hammers = kzalloc(sizeof(*run->hammers) * MAX_CPUS);
    if (!run->hammers) {
        torture_fail(run, "%s", strerror(ENOMEM));
        return;
    }
    run->work = work_start((uint64_t)TORTURE_MAX_SECONDS * 2 * 1000, 1);
    if (!run->work || work_failed_thread(run->work)) {
        torture_fail(run, "cannot start the work load");
        return;
    }
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (!cpu_data(cpu)->online)
            continue;
        struct torture_hammer *h = &run->hammers[run->nhammers];
        char name[THREAD_NAME_LEN];
        snprintf(name, sizeof(name), "ftrace_ham/%u", cpu);
        h->cpu = cpu;
        h->thread = kthread_create(torture_hammer_main, h, name, cpu);
        if (!h->thread) {
            torture_fail(run, "cannot create thread %s", name);
            return;
        }
        run->nhammers++;
    }
}

static void torture_stop_load(struct torture_run *run)
{
    for (unsigned i = 0; i < run->nhammers; i++)
        WRITE_ONCE(run->hammers[i].stop, true);
    for (unsigned i = 0; i < run->nhammers; i++) {
        struct torture_hammer *h = &run->hammers[i];
        kthread_join(h->thread);
        run->hammer_calls += h->calls;
        if (h->wrong)
            torture_fail(run, "%llu wrong results on CPU %u", (unsigned long long)h->wrong, h->cpu);
    }
    kfree(run->hammers);
    if (run->work) {
        struct work_summary sum;
        work_finish(run->work, &sum);
        if (!sum.books_ok)
            torture_fail(run, "work books: %llu items handed off, %llu received",
                         (unsigned long long)sum.handed_off, (unsigned long long)sum.received);
    }
}

/* Unregisters what is left, while the load still runs, and checks every site once more. */
static void torture_unregister_all(struct torture_run *run)
{
    for (int k = 0; k < TORTURE_OPS; k++) {
        struct torture_op *t = &torture_ops[k];
        if (!t->registered)
            continue;
        int err = unregister_ftrace_function(&t->ops);
        t->registered = false;
        run->steps++;
        if (err)
            torture_fail(run, "final unregister %s: %s", t->name, strerror(-err));
    }
    torture_check_all(run, "final");
}

/* The end state and the tallies; returns the number of sites that are NOPs. */
static size_t torture_final_checks(struct torture_run *run, uint64_t *callbacks)
{
    for (int k = 0; k < TORTURE_OPS; k++) {
        if (torture_ops[k].ops.flags & FTRACE_OPS_FL_ENABLED)
            torture_fail(run, "op %s is still registered", torture_ops[k].name);
        ftrace_ops_set_hashes(&torture_ops[k].ops, NULL, NULL);
    }
    size_t nops = 0;
    for (size_t i = 0; i < ftrace_rec_total(); i++) {
        const struct dyn_ftrace *rec = ftrace_rec(i);
        uint8_t b[ARCH_PATCH_INSN_SIZE];
        if (rec->flags & FTRACE_FL_DISABLED)
            continue;
        if (ftrace_rec_count(rec) == 0 && arch_text_read(rec->ip, b, sizeof(b)) == 0 &&
            memcmp(b, arch_ftrace_nop, sizeof(b)) == 0)
            nops++;
        else
            torture_fail(run, "%s is not a NOP at the end", ftrace_rec_name(rec));
    }

    uint64_t all = 0, glob = 0, regs = 0, one = 0, fixed = 0;
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        const struct torture_cpu *c = &torture_cpus[cpu];
        all += c->all_hits;
        glob += c->glob_hits;
        regs += c->regs_hits;
        one += c->one_hits;
        fixed += c->fixed_hits;
        /* Every CPU runs a hammer, so each must have been seen by the op on everything. */
        if (!run->interrupted && cpu_data(cpu)->online && c->all_hits == 0)
            torture_fail(run, "op all saw no call on CPU %u", cpu);
    }
    *callbacks = all + glob + regs + one + fixed;
    if (!run->interrupted && (!glob || !regs || !one || !fixed))
        torture_fail(run, "hits: glob %llu, regs %llu, one %llu, fixed %llu",
                     (unsigned long long)glob, (unsigned long long)regs, (unsigned long long)one,
                     (unsigned long long)fixed);
    if (bad_no_regs || bad_regs || bad_stray)
        torture_fail(run,
                     "%llu calls without regs, %llu with wrong regs, %llu for functions the "
                     "op does not trace (first: op %s at %ps)",
                     (unsigned long long)bad_no_regs, (unsigned long long)bad_regs,
                     (unsigned long long)bad_stray, bad_first_op, (void *)bad_first_ip);
    return nops;
}

/* Whole seconds with up to three decimals, into milliseconds. */
static int torture_parse_seconds(const char *s, uint64_t *ms)
{
    unsigned long whole = 0, frac = 0, scale = 1000;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        whole = whole * 10 + (unsigned long)(*p - '0');
        if (whole > TORTURE_MAX_SECONDS)
            return -ERANGE;
    }
    if (p == s && *p != '.')
        return -EINVAL;
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++) {
            if (scale > 1) {
                scale /= 10;
                frac += (unsigned long)(*p - '0') * scale;
            }
        }
    }
    if (*p)
        return -EINVAL;
    *ms = whole * 1000 + frac;
    return *ms ? 0 : -EINVAL;
}

/* Refuses to start unless ftrace works and no other op holds a site (its counts would
 * not match the ops the checker knows). */
static bool torture_can_start(struct shell_ctx *ctx)
{
    if (torture_running) {
        shell_eprintf(ctx, "ftrace_torture: already running\n");
        return false;
    }
    if (ftrace_is_dead()) {
        shell_printf(ctx, "ftrace_torture: FAILED (dynamic ftrace is disabled)\n");
        return false;
    }
    for (size_t i = 0; i < ftrace_rec_total(); i++) {
        if (ftrace_rec_count(ftrace_rec(i)) != 0) {
            shell_printf(ctx, "ftrace_torture: FAILED (%s is traced by another op)\n",
                         ftrace_rec_name(ftrace_rec(i)));
            return false;
        }
    }
    return true;
}

SHELL_COMMAND(ftrace_torture, "ftrace_torture SECONDS [SEED]",
              "stress dynamic ftrace: ops on and off, changing filters, all CPUs busy")
{
    uint64_t ms;
    unsigned long seed = 0;
    if (argc < 2 || argc > 3 || torture_parse_seconds(argv[1], &ms) != 0 ||
        (argc == 3 && (kstrtoul(argv[2], 0, &seed) != 0 || seed == 0)))
        return shell_usage(ctx);
    if (!torture_can_start(ctx))
        return 1;
    torture_running = true;
    if (!seed)
        seed = (unsigned long)(arch_cycles() | 1);

    struct torture_run run = {.ctx = ctx, .rng = seed};
    struct mm_stats mm_before, mm_after;
    struct ftrace_stats st_before, st_after;
    mm_get_stats(&mm_before);
    memset(torture_cpus, 0, sizeof(torture_cpus));
    bad_no_regs = bad_regs = bad_stray = 0;
    bad_first_ip = 0;
    bad_first_op = "";
    torture_init_ops();
    ftrace_get_stats(&st_before);
    uint64_t rounds_before = smp_sync_rounds();
    uint64_t int3_before = arch_text_poke_int3_hits();
    uint64_t stale_before = arch_text_poke_stale_int3_hits();

    torture_start_load(&run);
    uint64_t start = clock_ns(), deadline = start + ms * NSEC_PER_MSEC;
    while (!run.failed && clock_ns() < deadline) {
        if (shell_interrupted()) {
            run.interrupted = true;
            break;
        }
        torture_iteration(&run);
        run.iterations++;
    }
    uint64_t elapsed_ms = (clock_ns() - start) / NSEC_PER_MSEC;
    torture_unregister_all(&run);
    torture_stop_load(&run);
    uint64_t callbacks;
    size_t nops = torture_final_checks(&run, &callbacks);
    mm_get_stats(&mm_after);
    if (mm_after.heap_bytes_in_use != mm_before.heap_bytes_in_use)
        torture_fail(&run, "heap in use changed from %llu to %llu bytes",
                     (unsigned long long)mm_before.heap_bytes_in_use,
                     (unsigned long long)mm_after.heap_bytes_in_use);
    ftrace_get_stats(&st_after);
    torture_running = false;

    torture_say(&run,
                "ftrace_torture: %llu.%03llu s on %u CPU%s, seed %#lx%s: %llu iterations, "
                "%llu steps, %llu batches, %llu sites patched, %llu sync rounds "
                "(%llu repeated for a CPU entering a callback), %llu int3 hits (%llu stale), %llu "
                "callbacks, %llu hammer calls, "
                "%zu sites back to NOP\n",
                (unsigned long long)(elapsed_ms / 1000), (unsigned long long)(elapsed_ms % 1000),
                cpus_online, cpus_online == 1 ? "" : "s", seed,
                run.interrupted ? " (interrupted)" : "", (unsigned long long)run.iterations,
                (unsigned long long)run.steps,
                (unsigned long long)(st_after.batches - st_before.batches),
                (unsigned long long)(st_after.sites_patched - st_before.sites_patched),
                (unsigned long long)(smp_sync_rounds() - rounds_before),
                (unsigned long long)(st_after.entry_waits - st_before.entry_waits),
                (unsigned long long)(arch_text_poke_int3_hits() - int3_before),
                (unsigned long long)(arch_text_poke_stale_int3_hits() - stale_before),
                (unsigned long long)callbacks, (unsigned long long)run.hammer_calls, nops);
    if (run.failed) {
        torture_say(&run, "ftrace_torture: FAILED (%s)\n", run.reason);
        return 1;
    }
    torture_say(&run, "ftrace_torture: ok\n");
    return run.interrupted ? 130 : 0;
}
