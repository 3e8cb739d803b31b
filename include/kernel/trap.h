#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H

#include <arch/regs.h>

/*
 * Called at the end of every hardware interrupt with interrupts still off, after the
 * controller got its EOI: the scheduler preempts the interrupted thread from here.
 */
void trap_irq_exit(struct pt_regs *regs);

#endif
