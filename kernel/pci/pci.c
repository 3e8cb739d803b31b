/*
 * PCI enumeration: a depth-first walk from bus 0, following each PCI-to-PCI bridge to its
 * secondary bus, so only buses that exist are scanned (a blind scan of all 256 buses costs
 * 16384 configuration reads, each a VM exit). Each function's BARs are sized the standard
 * way: with decoding off, write all ones, read back which address bits stick, restore.
 */
#include <arch/pci.h>
#include <kernel/init.h>
#include <kernel/pci.h>
#include <kernel/printk.h>
#include <kernel/shell.h>

#define PCI_VENDOR_ID 0x00
#define PCI_COMMAND 0x04
#define PCI_CLASS_REVISION 0x08
#define PCI_HEADER_TYPE 0x0c /* byte 2 of the register at 0x0c */
#define PCI_BAR0 0x10
#define PCI_BRIDGE_BUSES 0x18 /* primary, secondary, subordinate bus numbers */

#define PCI_COMMAND_IO 0x1
#define PCI_COMMAND_MEMORY 0x2
#define PCI_HEADER_MULTIFUNCTION 0x80
#define PCI_NO_DEVICE 0xffff

static struct pci_device pci_devices[PCI_MAX_DEVICES];
static unsigned nr_pci_devices;
static bool pci_table_full;

uint32_t pci_config_read32(const struct pci_device *pdev, uint16_t offset)
{
    return arch_pci_config_read32(pdev->bus, pdev->dev, pdev->fn, offset);
}

void pci_config_write32(const struct pci_device *pdev, uint16_t offset, uint32_t value)
{
    arch_pci_config_write32(pdev->bus, pdev->dev, pdev->fn, offset, value);
}

/* Sizes BAR `i`; returns how many BAR slots it used (2 for a 64-bit memory BAR). */
static unsigned size_bar(struct pci_device *pdev, unsigned i, unsigned nr_bars)
{
    uint16_t reg = PCI_BAR0 + 4 * i;
    uint32_t orig = pci_config_read32(pdev, reg);
    struct pci_bar *bar = &pdev->bars[i];

    pci_config_write32(pdev, reg, 0xffffffff);
    uint32_t mask = pci_config_read32(pdev, reg);
    pci_config_write32(pdev, reg, orig);

    if (orig & 1) {
        bar->flags = PCI_BAR_IO;
        bar->base = orig & ~3u;
        mask &= ~3u;
        /* The upper half of an I/O BAR may read back as zero on devices that decode 16 bits. */
        bar->size = mask ? (uint32_t)(~(mask | 0xffff0000u) + 1) : 0;
        return 1;
    }
    bar->flags = (orig & 0x8) ? PCI_BAR_PREFETCH : 0;
    uint64_t base = orig & ~0xfu;
    uint64_t size_mask = mask & ~0xfu;
    unsigned used = 1;
    if (((orig >> 1) & 3) == 2 && i + 1 < nr_bars) {
        uint32_t orig_hi = pci_config_read32(pdev, reg + 4);
        pci_config_write32(pdev, reg + 4, 0xffffffff);
        uint32_t mask_hi = pci_config_read32(pdev, reg + 4);
        pci_config_write32(pdev, reg + 4, orig_hi);
        base |= (uint64_t)orig_hi << 32;
        size_mask |= (uint64_t)mask_hi << 32;
        bar->flags |= PCI_BAR_64;
        used = 2;
    } else {
        size_mask |= 0xffffffff00000000ull; /* a 32-bit BAR decodes no address bits above */
    }
    bar->base = base;
    bool implemented = used == 2 ? size_mask != 0 : (mask & ~0xfu) != 0;
    bar->size = implemented ? ~size_mask + 1 : 0;
    return used;
}

static void read_bars(struct pci_device *pdev)
{
    unsigned nr_bars = pdev->header_type == 0 ? 6 : pdev->header_type == 1 ? 2 : 0;
    /* The dword's upper half is the status register, whose bits a 1 clears: never written back. */
    uint32_t command = pci_config_read32(pdev, PCI_COMMAND) & 0xffff;
    /* A BAR being sized decodes a garbage address range: nothing must be decoded meanwhile. */
    pci_config_write32(pdev, PCI_COMMAND,
                       command & ~(uint32_t)(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
    for (unsigned i = 0; i < nr_bars;)
        i += size_bar(pdev, i, nr_bars);
    pci_config_write32(pdev, PCI_COMMAND, command);
}

static void scan_bus(uint8_t bus, unsigned depth);

static void add_function(uint8_t bus, uint8_t dev, uint8_t fn, uint32_t ids, unsigned depth)
{
    if (nr_pci_devices == PCI_MAX_DEVICES) {
        pci_table_full = true;
        return;
    }
    struct pci_device *pdev = &pci_devices[nr_pci_devices++];
    pdev->bus = bus;
    pdev->dev = dev;
    pdev->fn = fn;
    pdev->vendor = ids & 0xffff;
    pdev->device = ids >> 16;
    uint32_t class_rev = pci_config_read32(pdev, PCI_CLASS_REVISION);
    pdev->class_code = class_rev >> 24;
    pdev->subclass = class_rev >> 16;
    pdev->prog_if = class_rev >> 8;
    pdev->revision = class_rev;
    pdev->header_type = (pci_config_read32(pdev, PCI_HEADER_TYPE) >> 16) & 0x7f;
    read_bars(pdev);

    if (pdev->header_type == 1) {
        uint8_t secondary = pci_config_read32(pdev, PCI_BRIDGE_BUSES) >> 8;
        /* A bridge the firmware left unconfigured (secondary 0) or a loop is not followed. */
        if (secondary > bus && depth < 32)
            scan_bus(secondary, depth + 1);
    }
}

static void scan_bus(uint8_t bus, unsigned depth)
{
    for (uint8_t dev = 0; dev < 32; dev++) {
        uint32_t ids = arch_pci_config_read32(bus, dev, 0, PCI_VENDOR_ID);
        if ((ids & 0xffff) == PCI_NO_DEVICE)
            continue;
        bool multi =
            (arch_pci_config_read32(bus, dev, 0, PCI_HEADER_TYPE) >> 16) & PCI_HEADER_MULTIFUNCTION;
        add_function(bus, dev, 0, ids, depth);
        for (uint8_t fn = 1; multi && fn < 8; fn++) {
            ids = arch_pci_config_read32(bus, dev, fn, PCI_VENDOR_ID);
            if ((ids & 0xffff) != PCI_NO_DEVICE)
                add_function(bus, dev, fn, ids, depth);
        }
    }
}

unsigned pci_enumerate(void)
{
    nr_pci_devices = 0;
    pci_table_full = false;
    scan_bus(0, 0);
    return nr_pci_devices;
}

unsigned pci_device_count(void) { return nr_pci_devices; }

const struct pci_device *pci_device_at(unsigned index)
{
    return index < nr_pci_devices ? &pci_devices[index] : NULL;
}

const struct pci_device *pci_find_device(uint16_t vendor, uint16_t device,
                                         const struct pci_device *from)
{
    unsigned i = from ? (unsigned)(from - pci_devices) + 1 : 0;
    for (; i < nr_pci_devices; i++)
        if (pci_devices[i].vendor == vendor && pci_devices[i].device == device)
            return &pci_devices[i];
    return NULL;
}

void pci_enable_decoding(const struct pci_device *pdev)
{
    uint32_t want = 0;
    for (unsigned i = 0; i < PCI_NUM_BARS; i++)
        if (pdev->bars[i].size)
            want |= pdev->bars[i].flags & PCI_BAR_IO ? PCI_COMMAND_IO : PCI_COMMAND_MEMORY;
    uint32_t command = pci_config_read32(pdev, PCI_COMMAND);
    if ((command & want) != want)
        pci_config_write32(pdev, PCI_COMMAND, (command & 0xffff) | want);
}

static void pci_init(void)
{
    unsigned n = pci_enumerate();
    printk("pci: %u functions (configuration space through %s)%s\n", n, arch_pci_config_method(),
           pci_table_full ? "; table full, the rest ignored" : "");
}
ARCH_INITCALL(pci_init);

/* As `lspci -n`: slot, class, vendor:device, revision; with -v, the BARs. */
SHELL_COMMAND(lspci, "lspci [-v]", "list PCI devices (IDs, class; -v: BARs)")
{
    bool verbose = argc == 2 && argv[1][0] == '-' && argv[1][1] == 'v' && !argv[1][2];
    if (argc > 2 || (argc == 2 && !verbose))
        return shell_usage(ctx);
    for (unsigned i = 0; i < nr_pci_devices; i++) {
        const struct pci_device *p = &pci_devices[i];
        shell_printf(ctx, "%02x:%02x.%x %02x%02x: %04x:%04x (rev %02x)\n", p->bus, p->dev, p->fn,
                     p->class_code, p->subclass, p->vendor, p->device, p->revision);
        for (unsigned b = 0; verbose && b < PCI_NUM_BARS; b++) {
            const struct pci_bar *bar = &p->bars[b];
            if (!bar->size)
                continue;
            shell_printf(ctx, "\tBAR%u: %s at %#llx, size %#llx%s%s\n", b,
                         bar->flags & PCI_BAR_IO ? "I/O ports" : "memory",
                         (unsigned long long)bar->base, (unsigned long long)bar->size,
                         bar->flags & PCI_BAR_64 ? ", 64-bit" : "",
                         bar->flags & PCI_BAR_PREFETCH ? ", prefetchable" : "");
        }
    }
    return 0;
}
