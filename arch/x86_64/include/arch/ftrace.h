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
#define X86_OPCODE_CALL_REL32 0xe8 /* call rel32: what an enabled site holds */

extern const uint8_t arch_ftrace_nop[ARCH_PATCH_INSN_SIZE];

static inline void arch_ftrace_call_insn(uint8_t out[ARCH_PATCH_INSN_SIZE], unsigned long ip,
                                         unsigned long target)
{
    int32_t rel = (int32_t)(target - (ip + ARCH_PATCH_INSN_SIZE));
    out[0] = X86_OPCODE_CALL_REL32;
    __builtin_memcpy(&out[1], &rel, 4);
}

unsigned long arch_ftrace_fentry_addr(void);
unsigned long arch_ftrace_tramp_addr(unsigned slot, bool regs);
unsigned long arch_ftrace_list_addr(bool regs);
/*
 * The trampoline's frame as a callback sees it from parent_slot, the stack slot holding
 * the traced function's return address: the word below is the trampoline's own return
 * address into the traced function (its call site + 5), and the word below that is the
 * rbp the trampoline saved, the traced function's caller's frame.
 */
static inline unsigned long *arch_ftrace_site_return_slot(unsigned long *parent_slot)
{
    return parent_slot - 1;
}
static inline uintptr_t arch_ftrace_caller_frame(const unsigned long *parent_slot)
{
    return parent_slot[-2];
}

/* function_graph swaps a traced function's return address for this (ftrace_graph.asm). */
void return_to_handler(void);

/*
 * The code between a site's call and the moment a callback counts itself in: the
 * trampolines and the C dispatchers they call, all in one section. A thread is never
 * preempted there, and ftrace waits until no CPU is there before it gives a trampoline
 * slot to another op (see kernel/trace/ftrace.c).
 */
#define FTRACE_ENTRY_TEXT __attribute__((section(".text.ftrace_entry")))
static inline bool arch_ftrace_in_entry(unsigned long pc)
{
    extern const char __ftrace_entry_start[], __ftrace_entry_end[];
    return pc >= (unsigned long)__ftrace_entry_start && pc < (unsigned long)__ftrace_entry_end;
}

#endif
