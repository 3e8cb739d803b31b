#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <kernel/compiler.h>

/* Halts every other CPU at once (panic uses it so only the panicking CPU prints). */
void smp_stop_other_cpus(void);

#endif
