/*
 * The faults `crash` raises on purpose that C cannot express, or that only this machine
 * defines: an invalid opcode, a divide error, a general protection fault. Inline, so the
 * report names the crash_* function that asked.
 */
#ifndef ARCH_CRASH_H
#define ARCH_CRASH_H

#include <kernel/compiler.h>

static __always_inline void arch_crash_invalid_opcode(void) { __asm__ __volatile__("ud2"); }

/* In C, dividing by zero is undefined and the compiler may drop the division: use div. */
static __always_inline void arch_crash_divide_error(void)
{
    unsigned long zero = 0, hi = 0, lo = 1;
    __asm__ __volatile__("divq %2" : "+a"(lo), "+d"(hi) : "r"(zero));
}

/* A non-canonical address raises #GP, not #PF. */
static __always_inline void arch_crash_general_protection(void)
{
    *(volatile unsigned long *)0x8000000000000000UL = 1;
}

/*
 * A triple fault: with an empty interrupt table, the breakpoint cannot be delivered, nor
 * the double fault that follows, and the CPU resets (QEMU resets the whole machine, keeping
 * RAM, unless it runs with -no-reboot, when it exits). Nothing is reported: nothing runs.
 */
static __always_inline __noreturn void arch_crash_triple_fault(void)
{
    struct {
        uint16_t limit;
        uint64_t base;
    } __packed empty_idt = {0, 0};
    __asm__ __volatile__("cli; lidt %0; int3" ::"m"(empty_idt));
    __builtin_unreachable();
}

#endif
