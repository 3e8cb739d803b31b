#ifndef ARCH_PCI_H
#define ARCH_PCI_H

#include <kernel/compiler.h>

/*
 * PCI configuration space, as the machine reaches it. A function is named by bus, device
 * (0-31) and function (0-7); offsets are of 32-bit registers (multiples of 4, below 256).
 * Any context; accesses from several CPUs are serialised inside.
 */
uint32_t arch_pci_config_read32(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t offset);
void arch_pci_config_write32(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t offset, uint32_t value);
/* How configuration space is reached, for the boot log ("0xcf8/0xcfc ports"). */
const char *arch_pci_config_method(void);

#endif
