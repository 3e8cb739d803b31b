#include <arch/cpu.h>
#include <arch/crash.h>
#include <arch/power.h>

#include "x86_cpu.h"

#define DEBUG_EXIT_PORT 0xf4

void arch_poweroff(int status)
{
    arch_irq_disable();
    outb(DEBUG_EXIT_PORT, (uint8_t)status);
    /* QEMU's ACPI PM1a control (i440fx PIIX4, q35 ICH9): SLP_TYP=5 | SLP_EN. */
    __asm__ __volatile__("outw %0, %1" ::"a"((uint16_t)0x2000), "Nd"((uint16_t)0x604));
    __asm__ __volatile__("outw %0, %1" ::"a"((uint16_t)0x3400), "Nd"((uint16_t)0xb004));
    for (;;)
        arch_halt();
}

void arch_reboot(void)
{
    arch_irq_disable();
    /* The keyboard controller's reset line, then a triple fault if that did nothing. */
    for (int i = 0; i < 1000 && (inb(0x64) & 0x02); i++)
        ;
    outb(0x64, 0xfe);
    arch_crash_triple_fault();
}
