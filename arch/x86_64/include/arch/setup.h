/*
 * Boot-time bring-up of the machine, as the generic boot path (kernel/main.c) sees it:
 * named steps it calls in order, each doing whatever this architecture needs.
 */
#ifndef ARCH_SETUP_H
#define ARCH_SETUP_H

#include <kernel/compiler.h>

/* What `uname -m` would say: the version banner and /proc/version print it. */
#define ARCH_NAME "x86_64"

/* Marks the boot instant of the clock, before anything else runs. */
void arch_boot_clock_start(void);
/* The boot CPU's descriptor tables and exception vectors: faults report from here on. */
void arch_cpu_setup_boot(void);
/* Kernel page tables with W^X permissions, once the page allocator runs. */
void arch_paging_init(void);
/* Calibrates the clock every time stamp comes from. */
void arch_clock_calibrate(void);
/* Firmware tables, interrupt controllers, and the console's receive interrupt. */
void arch_interrupts_init(void);
/* Starts this CPU's periodic scheduler tick at hz (the boot CPU calibrates it). */
void arch_tick_start(unsigned hz);
/*
 * One interrupt of this CPU's timer at deadline_ns (clock_ns() time) besides the tick,
 * which keeps its pace; 0 cancels. The interrupt calls cpu_timer_expired()
 * (<kernel/time.h>) once the deadline has passed, never before. Call with interrupts off.
 */
void arch_timer_oneshot(uint64_t deadline_ns);
/* Moves this CPU onto the stack whose top is given and calls fn there, for good. */
void __noreturn arch_switch_stack(void *top, void (*fn)(void));
/* What runs this kernel (bench's header): a hypervisor's name, or what can be said without
 * one; *emulated is set when instructions are emulated (TCG). */
const char *arch_machine_name(bool *emulated);
/* Called from NMI context on each CPU; returns true when it handled the NMI. */
struct pt_regs;
void arch_set_nmi_hook(bool (*fn)(struct pt_regs *regs));

#endif
