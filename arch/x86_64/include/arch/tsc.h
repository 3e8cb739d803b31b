#ifndef ARCH_TSC_H
#define ARCH_TSC_H

#include <kernel/compiler.h>

void tsc_mark_boot(void);
void tsc_calibrate(void);
void tsc_set_frequency(uint64_t hz);
uint64_t tsc_boot_value(void);

#endif
