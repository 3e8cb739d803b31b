/*
 * The numbers the assembly needs from C: struct pt_regs offsets, the trampoline slot count,
 * segment selectors. The build compiles this file to assembly only and turns each marker
 * line into a NASM %define (build/gen/asm-offsets.inc), so the .asm files can never drift
 * from the C layout they share.
 */
#include <arch/ftrace.h>
#include <arch/regs.h>
#include <arch/x86.h>
#include <kernel/compiler.h>

#define DEFINE(sym, val) __asm__ __volatile__("\n.ascii \"->" #sym " %c0\"" ::"i"(val))
#define OFFSET(sym, str, mem) DEFINE(sym, offsetof(struct str, mem))

void asm_offsets(void);
void asm_offsets(void)
{
    OFFSET(PT_R15, pt_regs, r15);
    OFFSET(PT_R14, pt_regs, r14);
    OFFSET(PT_R13, pt_regs, r13);
    OFFSET(PT_R12, pt_regs, r12);
    OFFSET(PT_R11, pt_regs, r11);
    OFFSET(PT_R10, pt_regs, r10);
    OFFSET(PT_R9, pt_regs, r9);
    OFFSET(PT_R8, pt_regs, r8);
    OFFSET(PT_RBP, pt_regs, rbp);
    OFFSET(PT_RDI, pt_regs, rdi);
    OFFSET(PT_RSI, pt_regs, rsi);
    OFFSET(PT_RDX, pt_regs, rdx);
    OFFSET(PT_RCX, pt_regs, rcx);
    OFFSET(PT_RBX, pt_regs, rbx);
    OFFSET(PT_RAX, pt_regs, rax);
    OFFSET(PT_VECTOR, pt_regs, vector);
    OFFSET(PT_ERROR, pt_regs, error_code);
    OFFSET(PT_RIP, pt_regs, rip);
    OFFSET(PT_CS, pt_regs, cs);
    OFFSET(PT_RFLAGS, pt_regs, rflags);
    OFFSET(PT_RSP, pt_regs, rsp);
    OFFSET(PT_SS, pt_regs, ss);
    DEFINE(PT_SIZE, sizeof(struct pt_regs));
    DEFINE(TRAMP_SLOTS, ARCH_FTRACE_TRAMP_SLOTS);
    DEFINE(KERNEL_CS, X86_KERNEL_CS);
    DEFINE(KERNEL_DS, X86_KERNEL_DS);
}
