#ifndef ARCH_REGS_H
#define ARCH_REGS_H

#include <kernel/compiler.h>

/*
 * The register frame built by the interrupt entry stubs (arch/x86_64/entry.asm), lowest
 * address first. The last five words are the CPU's own interrupt frame; a handler may
 * change rip and rsp, and iretq resumes there (int3 emulation depends on it).
 */
struct pt_regs {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector;
    uint64_t error_code;
    uint64_t rip, cs, rflags, rsp, ss;
};

/* What generic code may ask of a frame. */
static inline unsigned long arch_regs_ip(const struct pt_regs *regs) { return regs->rip; }
static inline bool arch_regs_irqs_enabled(const struct pt_regs *regs)
{
    return regs->rflags & (1UL << 9); /* RFLAGS.IF */
}

#endif
