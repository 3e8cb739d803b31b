/*
 * PCI configuration mechanism #1: a function's register is selected by writing its
 * address to port 0xcf8 and then read or written at port 0xcfc. The two steps must not
 * interleave with another CPU's, hence the lock. QEMU's default machine (i440fx) has no
 * ECAM window (no ACPI MCFG table), and the first 256 bytes of every function, all this
 * kernel reads, are reachable this way on every PC.
 */
#include <arch/pci.h>
#include <kernel/spinlock.h>

#include "x86_cpu.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA 0xcfc
#define PCI_CONFIG_ENABLE (1u << 31)

static DEFINE_SPINLOCK(pci_config_lock);

static uint32_t config_address(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t offset)
{
    return PCI_CONFIG_ENABLE | (uint32_t)bus << 16 | (uint32_t)(dev & 31) << 11 |
           (uint32_t)(fn & 7) << 8 | (offset & 0xfc);
}

uint32_t arch_pci_config_read32(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t offset)
{
    unsigned long irq = spin_lock_irqsave(&pci_config_lock);
    outl(PCI_CONFIG_ADDRESS, config_address(bus, dev, fn, offset));
    uint32_t v = inl(PCI_CONFIG_DATA);
    spin_unlock_irqrestore(&pci_config_lock, irq);
    return v;
}

void arch_pci_config_write32(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t offset, uint32_t value)
{
    unsigned long irq = spin_lock_irqsave(&pci_config_lock);
    outl(PCI_CONFIG_ADDRESS, config_address(bus, dev, fn, offset));
    outl(PCI_CONFIG_DATA, value);
    spin_unlock_irqrestore(&pci_config_lock, irq);
}

const char *arch_pci_config_method(void) { return "0xcf8/0xcfc ports"; }
