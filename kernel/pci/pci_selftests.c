#include <arch/pci.h>
#include <kernel/pci.h>
#include <kernel/selftest.h>

/* The walk starts at the host bridge: bus 0, device 0, function 0, class 06 subclass 00. */
SELFTEST(pci_host_bridge)
{
    ASSERT_TRUE(pci_device_count() > 0);
    const struct pci_device *bridge = pci_device_at(0);
    ASSERT_NOT_NULL(bridge);
    EXPECT_EQ(bridge->bus, 0);
    EXPECT_EQ(bridge->dev, 0);
    EXPECT_EQ(bridge->fn, 0);
    EXPECT_EQ(bridge->class_code, 0x06);
    EXPECT_EQ(bridge->subclass, 0x00);
    uint32_t ids = arch_pci_config_read32(0, 0, 0, 0);
    EXPECT_EQ(bridge->vendor, ids & 0xffff);
    EXPECT_EQ(bridge->device, ids >> 16);
    EXPECT(pci_find_device(bridge->vendor, bridge->device, NULL) == bridge);
}

/* Every function found answers at its address, and every BAR is a power of two in size
 * with its base aligned to that size, as sizing by all-ones requires. */
SELFTEST(pci_enumeration_consistent)
{
    unsigned n = pci_device_count();
    ASSERT_TRUE(n > 0);
    /* A second walk finds the same functions: sizing restored every BAR it probed. */
    struct pci_device first = *pci_device_at(n - 1);
    EXPECT_EQ(pci_enumerate(), n);
    const struct pci_device *again = pci_device_at(n - 1);
    EXPECT_EQ(again->vendor, first.vendor);
    for (unsigned b = 0; b < PCI_NUM_BARS; b++) {
        EXPECT_EQ(again->bars[b].base, first.bars[b].base);
        EXPECT_EQ(again->bars[b].size, first.bars[b].size);
    }
    for (unsigned i = 0; i < n; i++) {
        const struct pci_device *p = pci_device_at(i);
        uint32_t ids = arch_pci_config_read32(p->bus, p->dev, p->fn, 0);
        EXPECT_EQ(ids, (uint32_t)p->device << 16 | p->vendor);
        for (unsigned b = 0; b < PCI_NUM_BARS; b++) {
            const struct pci_bar *bar = &p->bars[b];
            if (!bar->size)
                continue;
            EXPECT_EQ(bar->size & (bar->size - 1), 0);
            EXPECT_EQ(bar->base & (bar->size - 1), 0);
        }
    }
    EXPECT(pci_find_device(0xffff, 0xffff, NULL) == NULL);
}
