/*
 * `livepatch_torture SECONDS`: enables and disables livepatch_work and livepatch_sample,
 * in every order, while the work load runs on every CPU. After each transition it checks
 * from here that the functions now answer as the patches' state says (a direct call of
 * work_count_bits, a read of /proc/cmdline); at the end, that the load's books balance
 * and that on every CPU the load ran both versions of work_count_bits.
 */
#include <kernel/errno.h>
#include <kernel/livepatch.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/selftest.h>
#include <kernel/shell.h>
#include <kernel/symbols.h>
#include <kernel/time.h>
#include <kernel/work.h>
#include <lib/random.h>
#include <lib/string.h>

#define TORTURE_TRANSITION_NS (10 * NSEC_PER_SEC) /* then it is forced, and counted */

static const char klp_sample_text[] = "this has been live patched\n";

struct torture_stats {
    uint64_t transitions, forced, wrong, max_ns;
};

/* One transition of p to `on`, waited for; false when a check failed. */
static bool torture_switch(struct shell_ctx *ctx, struct klp_patch *p, bool on,
                           struct torture_stats *st)
{
    uint64_t t0 = clock_ns();
    int err = on ? klp_enable_patch(p) : klp_disable_patch(p);
    if (err) {
        shell_eprintf(ctx, "livepatch_torture: %s %s: %s\n", on ? "enable" : "disable", p->name,
                      strerror(-err));
        return false;
    }
    if (klp_wait_transition(p, TORTURE_TRANSITION_NS) != 0) {
        st->forced++;
        if (klp_force_transition(p) != 0 && klp_patch_in_transition(p))
            return false;
    }
    uint64_t ns = clock_ns() - t0;
    if (ns > st->max_ns)
        st->max_ns = ns;
    st->transitions++;
    return true;
}

static bool torture_check(struct shell_ctx *ctx, unsigned (*count_bits)(uint64_t), bool work_on,
                          bool sample_on)
{
    unsigned bits = count_bits(~0ULL);
    char buf[128];
    selftest_read_file_into("/proc", "cmdline", buf, sizeof(buf));
    bool sample_seen = strcmp(buf, klp_sample_text) == 0;
    if (bits != (work_on ? 64u : 63u) || sample_seen != sample_on) {
        shell_eprintf(ctx,
                      "livepatch_torture: livepatch_work %s: work_count_bits(~0) = %u; "
                      "livepatch_sample %s: /proc/cmdline %s\n",
                      work_on ? "on" : "off", bits, sample_on ? "on" : "off",
                      sample_seen ? "patched" : "original");
        return false;
    }
    return true;
}

SHELL_COMMAND(livepatch_torture, "livepatch_torture SECONDS",
              "enable and disable the sample live patches in every order under the work load")
{
    unsigned long secs;
    if (argc != 2 || kstrtoul(argv[1], 10, &secs) != 0 || secs == 0 || secs > 3600)
        return shell_usage(ctx);
    struct klp_patch *pw = klp_find_patch("livepatch_work");
    struct klp_patch *ps = klp_find_patch("livepatch_sample");
    uintptr_t fn = sym_address("work_count_bits");
    if (!pw || !ps || !fn) {
        shell_eprintf(ctx, "livepatch_torture: %s\n", strerror(ENOENT));
        return 1;
    }
    if (pw->enabled || ps->enabled || klp_patch_in_transition(pw) || klp_patch_in_transition(ps)) {
        shell_eprintf(ctx, "livepatch_torture: the sample patches must be disabled: %s\n",
                      strerror(EBUSY));
        return 1;
    }
    unsigned (*count_bits)(uint64_t) = (unsigned (*)(uint64_t))fn;
    struct work_summary *sum = kzalloc(sizeof(*sum));
    struct work_run *run = sum ? work_start(secs * 1000, 2) : NULL;
    if (!run) {
        kfree(sum);
        shell_eprintf(ctx, "livepatch_torture: %s\n", strerror(ENOMEM));
        return 1;
    }
    struct torture_stats st = {0};
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    bool ok = !work_failed_thread(run), work_on = false, sample_on = false, interrupted = false;
    uint64_t deadline = clock_ns() + secs * NSEC_PER_SEC;
    /* The load runs a little before the first transition, so both versions run. */
    if (sleep_ns_interruptible(50 * NSEC_PER_MSEC) == -EINTR)
        interrupted = true;
    while (ok && !interrupted && clock_ns() < deadline) {
        bool work_side = xorshift64(&rng) & 1;
        struct klp_patch *p = work_side ? pw : ps;
        bool *on = work_side ? &work_on : &sample_on;
        ok = torture_switch(ctx, p, !*on, &st);
        if (ok)
            *on = !*on;
        ok = ok && torture_check(ctx, count_bits, work_on, sample_on);
        if (sleep_ns_interruptible((xorshift64(&rng) % 20) * NSEC_PER_MSEC) == -EINTR)
            interrupted = true;
    }
    /* Leave both disabled. */
    if (work_on && torture_switch(ctx, pw, false, &st))
        work_on = false;
    if (sample_on && torture_switch(ctx, ps, false, &st))
        sample_on = false;
    ok = ok && torture_check(ctx, count_bits, false, false);
    work_finish(run, sum);
    bool every_cpu_both = true;
    for (unsigned i = 0; i < sum->cpus; i++)
        if (sum->bits_wrong_cpu[i] == 0 || sum->bits_wrong_cpu[i] == sum->bit_checks_cpu[i])
            every_cpu_both = false;
    ok = ok && sum->books_ok && every_cpu_both && !work_on && !sample_on;
    shell_printf(ctx,
                 "livepatch_torture: %llu transitions (%llu forced, longest %llu ms), %zu threads "
                 "on %u CPUs, %llu of %llu bit counts wrong, both versions on every CPU: %s, "
                 "books: %s: %s\n",
                 (unsigned long long)st.transitions, (unsigned long long)st.forced,
                 (unsigned long long)(st.max_ns / NSEC_PER_MSEC), sum->threads, sum->cpus,
                 (unsigned long long)sum->bits_wrong, (unsigned long long)sum->bit_checks,
                 every_cpu_both ? "yes" : "no", sum->books_ok ? "ok" : "MISMATCH",
                 ok ? "ok" : "FAILED");
    kfree(sum);
    return interrupted ? 130 : ok ? 0 : 1;
}
