#ifndef ARCH_POWER_H
#define ARCH_POWER_H

#include <kernel/compiler.h>

/*
 * QEMU's isa-debug-exit device (port 0xf4) ends QEMU with status (value << 1) | 1: 1 for a
 * clean poweroff, 3 for a failure. Without the device, ACPI-less shutdown paths are tried
 * and the CPU halts.
 */
#define ARCH_EXIT_SUCCESS 0
#define ARCH_EXIT_FAILURE 1

void arch_poweroff(int status) __noreturn;
void arch_reboot(void) __noreturn;

#endif
