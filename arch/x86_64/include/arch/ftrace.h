#ifndef ARCH_FTRACE_H
#define ARCH_FTRACE_H

#include <arch/text_patch.h>
#include <kernel/compiler.h>

/*
 * The x86 side of dynamic ftrace: what a call site looks like, and the trampolines a site
 * can call. Each op slot has its own trampoline (one op at a site: called directly), and
 * the list callers serve sites wanted by several ops. Every trampoline has a variant that
 * saves a full pt_regs.
 */
#define ARCH_FTRACE_TRAMP_SLOTS 8

extern const uint8_t arch_ftrace_nop[ARCH_PATCH_INSN_SIZE];

static inline void arch_ftrace_call_insn(uint8_t out[ARCH_PATCH_INSN_SIZE], unsigned long ip,
                                         unsigned long target)
{
    int32_t rel = (int32_t)(target - (ip + ARCH_PATCH_INSN_SIZE));
    out[0] = 0xe8;
    __builtin_memcpy(&out[1], &rel, 4);
}

unsigned long arch_ftrace_fentry_addr(void);
unsigned long arch_ftrace_tramp_addr(unsigned slot, bool regs);
unsigned long arch_ftrace_list_addr(bool regs);

#endif
