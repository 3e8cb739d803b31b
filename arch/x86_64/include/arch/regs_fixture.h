/*
 * Test fixtures for what a return probe reads (arch/x86_64/regs_fixture.asm): functions
 * that return with every general register and the status flags loaded from a struct
 * pt_regs the caller filled (by name: regs_query_register_offset), so a test knows what
 * each register held at the return.
 */
#ifndef ARCH_REGS_FIXTURE_H
#define ARCH_REGS_FIXTURE_H

#include <arch/regs.h>

/* With an ftrace site (a return probe rides it) and without one (an int3 at its entry). */
void arch_regs_fixture(const struct pt_regs *want);
void arch_regs_fixture_notrace(const struct pt_regs *want);
/*
 * Calls fn(want), one of the two, keeping the caller's callee-saved registers. want is the
 * word at the stack pointer after fn's return: a return probe's $stack0 reads it.
 */
void arch_regs_fixture_call(const struct pt_regs *want, void (*fn)(const struct pt_regs *want));
/* The flags the fixtures set from want's (CF PF AF ZF SF OF); the others stay as they were. */
#define ARCH_REGS_FIXTURE_FLAGS 0x8d5UL

#endif
