#ifndef KERNEL_PCI_H
#define KERNEL_PCI_H

#include <kernel/compiler.h>

/*
 * PCI devices, found once at boot by walking the buses from the host bridge (bus 0) down
 * through every PCI-to-PCI bridge. Configuration space itself is the architecture's
 * (<arch/pci.h>); this is what the rest of the kernel uses.
 */
#define PCI_MAX_DEVICES 64
#define PCI_NUM_BARS 6

#define PCI_BAR_IO 0x1       /* an I/O port range, else memory */
#define PCI_BAR_64 0x2       /* a 64-bit memory BAR (it takes two BAR slots) */
#define PCI_BAR_PREFETCH 0x4 /* memory without side effects on reads */

struct pci_bar {
    uint64_t base; /* bus address the firmware assigned; 0 when unassigned */
    uint64_t size; /* 0 when the device has no such BAR */
    unsigned flags;
};

struct pci_device {
    uint8_t bus, dev, fn;
    uint16_t vendor, device;
    uint8_t class_code, subclass, prog_if, revision;
    uint8_t header_type; /* 0 device, 1 PCI-to-PCI bridge, 2 CardBus bridge */
    struct pci_bar bars[PCI_NUM_BARS];
};

/* Walks the buses; the boot's initcall does it once. Returns how many functions it found. */
unsigned pci_enumerate(void);
unsigned pci_device_count(void);
const struct pci_device *pci_device_at(unsigned index);
/* The first device with these IDs after `from` (NULL: from the start), or NULL. */
const struct pci_device *pci_find_device(uint16_t vendor, uint16_t device,
                                         const struct pci_device *from);
/* Turns on the device's decoding of its memory BARs (and I/O BARs when it has some). */
void pci_enable_decoding(const struct pci_device *pdev);

uint32_t pci_config_read32(const struct pci_device *pdev, uint16_t offset);
void pci_config_write32(const struct pci_device *pdev, uint16_t offset, uint32_t value);

#endif
