#ifndef ARCH_ASM_CALLS_H
#define ARCH_ASM_CALLS_H

#include <arch/ftrace.h>
#include <arch/regs.h>
#include <kernel/compiler.h>

/*
 * C functions that only assembly calls, declared once so that the compiler checks their
 * definitions against what the callers pass. Each takes its arguments in the registers
 * the System V ABI gives them, as the .asm caller named beside it sets them up.
 */

/* boot/boot.asm: the bootstrap CPU, in long mode on its first stack. */
void kernel_main(uint32_t magic, uint64_t mbi_phys);

/* entry.asm: every exception and interrupt, with the registers saved in regs. */
void x86_trap_dispatch(struct pt_regs *regs);

/* switch.asm: where a new thread's first switch lands. */
void thread_entry(void) __noreturn;

/*
 * ftrace_tramp.asm: an op's own trampoline (slot >= 0) and the list callers (slot -1), with
 * ret_ip the return address the site's call pushed.
 */
void ftrace_tramp_dispatch(unsigned long ret_ip, unsigned long *parent_slot, int slot,
                           struct pt_regs *regs);
void ftrace_list_dispatch(unsigned long ret_ip, unsigned long *parent_slot, int slot,
                          struct pt_regs *regs);

/* ftrace_graph.asm: return_to_handler, with sp just above the hooked return slot; returns
 * the real return address. It calls through fgraph_return_callee (kernel/trace/fgraph.c),
 * which holds this or a graph client's return handler of the same type. */
unsigned long ftrace_return_to_handler(unsigned long sp, unsigned long retval);
/* ftrace_graph.asm: return_to_handler_regs, with every register as the hooked function
 * returned in regs (rsp just above its return slot, rip not yet known). Before it returns
 * it has put the real return address back in that slot, where the hook's ret takes it.
 * The hooks call through fgraph_regs_return_callee (kernel/trace/fgraph.c), which holds
 * this or a client's regs return handler of the same type. */
void ftrace_return_to_handler_regs(struct pt_regs *regs);

/*
 * Data that only assembly reads, declared here for the same reason: ftrace_tramp.asm calls
 * through an op slot's ftrace_tramp_callee entry (kernel/trace/ftrace.c), return_to_handler
 * through fgraph_return_callee and the regs hooks through fgraph_regs_return_callee
 * (kernel/trace/fgraph.c).
 */
extern unsigned long volatile ftrace_tramp_callee[ARCH_FTRACE_TRAMP_SLOTS];
extern unsigned long (*volatile fgraph_return_callee)(unsigned long sp, unsigned long retval);
extern void (*volatile fgraph_regs_return_callee)(struct pt_regs *regs);

#endif
