#ifndef ARCH_X86_H
#define ARCH_X86_H

#include <arch/regs.h>
#include <kernel/compiler.h>

/*
 * The fault handler's side of copy_from_kernel_nofault (nofault.asm): moves a faulting
 * nofault copy to its error exit.
 */
bool arch_nofault_fixup(uintptr_t *ip);

#define X86_KERNEL_CS 0x08
#define X86_KERNEL_DS 0x10
#define X86_TSS_SEL 0x18

/* Interrupt stack table slots: faults that must not run on a possibly broken stack. */
#define X86_IST_DOUBLE_FAULT 1
#define X86_IST_NMI 2
#define X86_IST_MACHINE_CHECK 3
#define X86_IST_BREAKPOINT 4
#define X86_IST_COUNT 4
#define X86_IST_STACK_PAGES 4

#define X86_VEC_DE 0
#define X86_VEC_DB 1
#define X86_VEC_NMI 2
#define X86_VEC_BP 3
#define X86_VEC_UD 6
#define X86_VEC_DF 8
#define X86_VEC_GP 13
#define X86_VEC_PF 14
#define X86_VEC_MC 18

/* Legacy IRQs land at 0x20..0x2f; local APIC vectors sit above. */
#define X86_IRQ_BASE 0x20
#define X86_VEC_SPURIOUS 0xff

/* Sets up this CPU's GDT, TSS with IST stacks, and loads the shared IDT. */
void x86_cpu_tables_init(unsigned cpu);
void x86_idt_init(void);
/*
 * Moves the stack top of cpu's IST slot ist (1-based, as the IDT's) by delta bytes. Only
 * the CPU itself may move its own, with interrupts off, and moves it back before iretq.
 */
void x86_ist_move_top(unsigned cpu, unsigned ist, long delta);

/*
 * Handlers. An exception hook returns true when it handled the trap (for instance an
 * int3 on a site being patched); otherwise the fatal exception path runs.
 */
typedef bool (*x86_trap_hook_fn)(struct pt_regs *regs);
void x86_set_trap_hook(unsigned vector, x86_trap_hook_fn fn);
typedef void (*x86_irq_handler_fn)(struct pt_regs *regs, void *arg);
void x86_set_irq_handler(unsigned vector, x86_irq_handler_fn fn, void *arg);

/* The text-poke side of the #BP hook (arch/x86_64/text_poke.c); kprobes.c chains to it. */
bool x86_text_poke_int3(struct pt_regs *regs);
/* The kprobes side of the #BP hook (arch/x86_64/kprobes.c): it is the hook. */
bool x86_kprobe_int3(struct pt_regs *regs);
/* Interrupt controller end-of-interrupt for a vector (PIC or local APIC). */
extern void (*x86_irq_eoi)(unsigned vector);

/* Legacy 8259 PIC: remapped to X86_IRQ_BASE, all lines masked but those unmasked. */
void x86_pic_init(void);
void x86_pic_disable(void);

void x86_paging_init(void);

#endif
