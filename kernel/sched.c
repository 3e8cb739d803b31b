#include <kernel/trap.h>

void trap_irq_exit(struct pt_regs *regs) { (void)regs; }
