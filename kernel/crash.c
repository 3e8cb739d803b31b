/*
 * `crash KIND`: faults on purpose, so the test harness can prove every fatal path prints
 * a named, symbolised report and then stops (or powers off under panic=poweroff).
 * The functions are never inlined nor cloned, so reports name them exactly.
 */
#include <arch/crash.h>
#include <kernel/panic.h>
#include <kernel/shell.h>
#include <lib/string.h>

#define CRASH_FN static __attribute__((noinline, noclone, used))

/* These functions do on purpose what the compiler rightly warns about. */
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Winfinite-recursion"

/* An address in no mapping: the lowest page is never mapped. */
CRASH_FN void crash_pf(void) { *(volatile uint64_t *)0x10 = 1; }

/* A non-canonical address raises #GP, not #PF. */
CRASH_FN void crash_gp(void) { *(volatile uint64_t *)0x8000000000000000ULL = 1; }

CRASH_FN void crash_ud(void) { arch_crash_invalid_opcode(); }

CRASH_FN void crash_de(void) { arch_crash_divide_error(); }

/* Kernel text is mapped read-only: this write must fault, not patch. */
CRASH_FN void crash_wtext(void) { *(volatile uint8_t *)(uintptr_t)crash_ud = 0x90; }

/* Recurses into the guard page below the shell's stack. */
CRASH_FN unsigned long crash_stack(unsigned long depth)
{
    volatile char frame[512];
    frame[0] = (char)depth;
    return crash_stack(depth + 1) + frame[0];
}

CRASH_FN void crash_panic(void) { panic("crash: panic requested from the shell"); }

static const struct {
    const char *kind;
    const char *what;
} crash_kinds[] = {
    {"pf", "page fault on an unmapped address"},
    {"gp", "general protection fault (non-canonical address)"},
    {"ud", "invalid opcode"},
    {"de", "divide error"},
    {"wtext", "write to read-only kernel text"},
    {"stack", "kernel stack overflow into the guard page"},
    {"panic", "panic()"},
};

SHELL_COMMAND(crash, "crash pf|gp|ud|de|wtext|stack|panic",
              "crash the kernel on purpose to test the fault path")
{
    if (argc != 2)
        return shell_usage(ctx);
    const char *k = argv[1];
    for (size_t i = 0; i < sizeof(crash_kinds) / sizeof(crash_kinds[0]); i++) {
        if (strcmp(k, crash_kinds[i].kind) != 0)
            continue;
        shell_printf(ctx, "crash: %s\n", crash_kinds[i].what);
        if (!strcmp(k, "pf"))
            crash_pf();
        else if (!strcmp(k, "gp"))
            crash_gp();
        else if (!strcmp(k, "ud"))
            crash_ud();
        else if (!strcmp(k, "de"))
            crash_de();
        else if (!strcmp(k, "wtext"))
            crash_wtext();
        else if (!strcmp(k, "stack"))
            crash_stack(0);
        else
            crash_panic();
        shell_eprintf(ctx, "crash: %s did not crash\n", k);
        return 1;
    }
    shell_eprintf(ctx, "crash: unknown kind '%s'\n", k);
    return shell_usage(ctx);
}
