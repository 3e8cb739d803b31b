/*
 * Checker commands of dynamic ftrace, for the shell tests and the torture run:
 *
 *   ftrace_check                   checks every call site against its record, read-only;
 *   ftrace_corrupt FUNCTION        rewrites one site with another harmless instruction, so
 *                                  that the next change of that site hits ftrace_bug();
 *   ftrace_test_op on GLOB... | off  one counting op with a filter, for shell tests.
 *
 * ftrace_site_check() is also what ftrace_torture runs after every step. Built without -pg,
 * as everything in kernel/torture/: the checker reads the sites it is checking.
 */
#include <arch/ftrace.h>
#include <arch/text_patch.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/shell.h>
#include <kernel/symbols.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "trace_internal.h"

/* ---- checking sites ---- */

static void format_insn(char *buf, size_t len, const uint8_t *b)
{
    snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4]);
}

static bool ftrace_tramp_is_regs(unsigned long tramp)
{
    if (tramp == arch_ftrace_list_addr(true))
        return true;
    for (unsigned s = 0; s < ARCH_FTRACE_TRAMP_SLOTS; s++)
        if (tramp == arch_ftrace_tramp_addr(s, true))
            return true;
    return false;
}

/*
 * Checks record i: its bytes are exactly what the record says the site calls (the NOP, or
 * a call to ftrace_rec_tramp_addr()), there is no patching breakpoint left in it, its flags agree
 * with each other and with that target, and, given `want`, with the ops that should want it.
 * Returns true when all holds; otherwise describes the first problem in why.
 */
bool ftrace_site_check(size_t i, const struct site_expect *want, char *why, size_t len)
{
    const struct dyn_ftrace *rec = ftrace_rec(i);
    uint8_t actual[ARCH_PATCH_INSN_SIZE], expected[ARCH_PATCH_INSN_SIZE];
    char a[16], e[16];

    if (arch_text_read(rec->ip, actual, sizeof(actual)) != 0) {
        snprintf(why, len, "site cannot be read");
        return false;
    }
    struct ftrace_ops *op;
    unsigned long func;
    unsigned long tramp = ftrace_rec_tramp_addr(rec, &op, &func);
    if (tramp)
        arch_ftrace_call_insn(expected, rec->ip, tramp);
    else
        memcpy(expected, arch_ftrace_nop, sizeof(expected));
    format_insn(a, sizeof(a), actual);
    format_insn(e, sizeof(e), expected);
    for (unsigned k = 0; k < ARCH_PATCH_INSN_SIZE; k++) {
        if (actual[k] == ARCH_PATCH_BREAKPOINT && expected[k] != ARCH_PATCH_BREAKPOINT) {
            snprintf(why, len, "int3 left at byte %u: holds %s, record says %s", k, a, e);
            return false;
        }
    }
    if (memcmp(actual, expected, sizeof(actual)) != 0) {
        snprintf(why, len, "holds %s, record says %s (%s)", a, e, tramp ? "call" : "nop");
        return false;
    }

    uint32_t flags = rec->flags;
    unsigned count = ftrace_rec_count(rec);
    bool enabled = flags & FTRACE_FL_ENABLED;
    const uint32_t state_bits =
        FTRACE_FL_REGS | FTRACE_FL_REGS_EN | FTRACE_FL_TRAMP | FTRACE_FL_TRAMP_EN;
    if (enabled != (tramp != 0) || (count == 0) != !enabled) {
        snprintf(why, len, "flags %x (count %u) disagree with the site (%s)", flags, count,
                 tramp ? "call" : "nop");
        return false;
    }
    if (!enabled && (flags & state_bits)) {
        snprintf(why, len, "flags %x on a NOP site", flags);
        return false;
    }
    if (enabled) {
        bool tramp_en = flags & FTRACE_FL_TRAMP_EN;
        bool regs_en = flags & FTRACE_FL_REGS_EN;
        if (tramp_en != (count == 1) || tramp_en != (op != NULL) ||
            tramp_en != !!(flags & FTRACE_FL_TRAMP)) {
            snprintf(why, len, "flags %x (count %u) but the site calls %s", flags, count,
                     op ? "an op's own trampoline" : "a list caller");
            return false;
        }
        if (regs_en != ftrace_tramp_is_regs(tramp) || regs_en != !!(flags & FTRACE_FL_REGS)) {
            snprintf(why, len, "flags %x but the site calls the %s variant", flags,
                     ftrace_tramp_is_regs(tramp) ? "regs" : "plain");
            return false;
        }
    }

    if (!want)
        return true;
    if (count != want->count) {
        snprintf(why, len, "count %u, but %u registered ops want it", count, want->count);
        return false;
    }
    if (count && want->regs != !!(flags & FTRACE_FL_REGS)) {
        snprintf(why, len, "flags %x, but an op wanting pt_regs is %s", flags,
                 want->regs ? "there" : "not there");
        return false;
    }
    unsigned long want_tramp = 0;
    if (count == 1)
        want_tramp = arch_ftrace_tramp_addr(want->only->tramp_slot, want->regs);
    else if (count > 1)
        want_tramp = arch_ftrace_list_addr(want->regs);
    if (tramp != want_tramp || (count == 1 && op != want->only)) {
        snprintf(why, len, "calls %lx (op %p), expected %lx (op %p)", tramp, (void *)op, want_tramp,
                 (void *)(count == 1 ? want->only : NULL));
        return false;
    }
    return true;
}

/* ---- ftrace_check ---- */

SHELL_COMMAND(ftrace_check, "ftrace_check",
              "check every ftrace call site against its record (bytes, flags, trampoline)")
{
    if (argc != 1)
        return shell_usage(ctx);
    size_t checked = 0, bad = 0;
    char why[160];
    for (size_t i = 0; i < ftrace_rec_total(); i++) {
        const struct dyn_ftrace *rec = ftrace_rec(i);
        if (rec->flags & FTRACE_FL_DISABLED)
            continue;
        checked++;
        if (ftrace_site_check(i, NULL, why, sizeof(why)))
            continue;
        bad++;
        shell_printf(ctx, "ftrace_check: %s (%016lx): %s\n", ftrace_rec_name(rec),
                     (unsigned long)rec->ip, why);
    }
    if (bad) {
        shell_printf(ctx, "ftrace_check: %zu of %zu sites inconsistent\n", bad, checked);
        return 1;
    }
    shell_printf(ctx, "ftrace_check: %zu sites consistent\n", checked);
    return 0;
}

/* ---- ftrace_corrupt ---- */

SHELL_COMMAND(ftrace_corrupt, "ftrace_corrupt FUNCTION",
              "test only: overwrite FUNCTION's idle call site with another 5-byte NOP")
{
    if (argc != 2)
        return shell_usage(ctx);
    struct dyn_ftrace *rec = ftrace_rec_lookup(sym_address(argv[1]));
    if (!rec || (rec->flags & FTRACE_FL_DISABLED)) {
        shell_eprintf(ctx, "ftrace_corrupt: %s: no such traced function\n", argv[1]);
        return 1;
    }
    if (rec->flags & FTRACE_FL_ENABLED) {
        shell_eprintf(ctx, "ftrace_corrupt: %s: its site is in use\n", argv[1]);
        return 1;
    }
    struct text_poke_site site = {.ip = rec->ip};
    memcpy(site.old, arch_ftrace_nop, sizeof(site.old));
    memcpy(site.new, arch_ftrace_other_nop, sizeof(site.new));
    /* A batch, so that CPUs running the function meanwhile are safe. */
    if (arch_text_poke_batch(&site, 1, NULL) != 0) {
        shell_eprintf(ctx, "ftrace_corrupt: %s: its site does not hold the NOP\n", argv[1]);
        return 1;
    }
    char was[16], now[16];
    format_insn(was, sizeof(was), site.old);
    format_insn(now, sizeof(now), site.new);
    shell_printf(ctx, "ftrace_corrupt: %s at %016lx: wrote %s (%s) over %s\n", argv[1],
                 (unsigned long)rec->ip, now, ARCH_FTRACE_OTHER_NOP_NAME, was);
    return 0;
}

/* ---- ftrace_test_op ---- */

static uint64_t test_op_hits;

static void test_op_count(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                          struct ftrace_regs *fregs)
{
    __atomic_fetch_add(&test_op_hits, 1, __ATOMIC_RELAXED);
}

static struct ftrace_ops test_op = {.func = test_op_count, .tramp_slot = -1};

SHELL_COMMAND(ftrace_test_op, "ftrace_test_op on GLOB... | ftrace_test_op off",
              "test only: register a counting ftrace op on the functions GLOB matches")
{
    if (argc >= 3 && strcmp(argv[1], "on") == 0) {
        if (test_op.flags & FTRACE_OPS_FL_ENABLED) {
            shell_eprintf(ctx, "ftrace_test_op: already on\n");
            return 1;
        }
        struct ftrace_hash *filter = ftrace_hash_alloc();
        if (!filter) {
            shell_eprintf(ctx, "ftrace_test_op: %s\n", strerror(ENOMEM));
            return 1;
        }
        for (int i = 2; i < argc; i++) {
            int matched = ftrace_hash_apply_glob(filter, argv[i]);
            if (matched < 0) {
                shell_eprintf(ctx, "ftrace_test_op: %s: %s\n", argv[i], strerror(-matched));
                ftrace_hash_free(filter);
                return 1;
            }
        }
        size_t functions = filter->count;
        ftrace_ops_set_hashes(&test_op, filter, NULL);
        test_op_hits = 0;
        int err = register_ftrace_function(&test_op);
        if (err) {
            ftrace_ops_set_hashes(&test_op, NULL, NULL);
            shell_eprintf(ctx, "ftrace_test_op: register: %s\n", strerror(-err));
            return 1;
        }
        shell_printf(ctx, "ftrace_test_op: on, %zu functions\n", functions);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "off") == 0) {
        if (!(test_op.flags & FTRACE_OPS_FL_ENABLED)) {
            shell_eprintf(ctx, "ftrace_test_op: not on\n");
            return 1;
        }
        int err = unregister_ftrace_function(&test_op);
        ftrace_ops_set_hashes(&test_op, NULL, NULL);
        if (err) {
            shell_eprintf(ctx, "ftrace_test_op: unregister: %s\n", strerror(-err));
            return 1;
        }
        shell_printf(ctx, "ftrace_test_op: off, %llu hits\n",
                     (unsigned long long)__atomic_load_n(&test_op_hits, __ATOMIC_RELAXED));
        return 0;
    }
    return shell_usage(ctx);
}
