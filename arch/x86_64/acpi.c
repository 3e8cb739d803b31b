/*
 * ACPI tables, only as far as an SMP kernel needs them: the RSDP (from the loader, else
 * the BIOS areas), the RSDT or XSDT, the MADT (CPUs, I/O APICs, ISA overrides) and the
 * HPET. Every table's checksum is verified; a bad or missing one is reported and the
 * kernel falls back to a single CPU with the standard PC addresses.
 */
#include <arch/acpi.h>
#include <arch/cpu.h>
#include <kernel/bootinfo.h>
#include <kernel/mm.h>
#include <kernel/printk.h>
#include <lib/string.h>

#include "x86_cpu.h"

struct acpi_rsdp {
    char signature[8];
    uint8_t checksum;
    char oem[6];
    uint8_t revision;
    uint32_t rsdt;
    uint32_t length;
    uint64_t xsdt;
    uint8_t ext_checksum;
    uint8_t reserved[3];
} __packed;

struct acpi_header {
    char signature[4];
    uint32_t length;
    uint8_t revision;
    uint8_t checksum;
    char oem[6];
    char oem_table[8];
    uint32_t oem_revision;
    uint32_t creator;
    uint32_t creator_revision;
} __packed;

struct acpi_madt {
    struct acpi_header h;
    uint32_t lapic_addr;
    uint32_t flags;
} __packed;

#define MADT_LAPIC 0
#define MADT_IOAPIC 1
#define MADT_OVERRIDE 2
#define MADT_LAPIC_OVERRIDE 5
#define MADT_X2APIC 9

struct acpi_machine acpi_machine;

static bool checksum_ok(const void *p, size_t len)
{
    uint8_t sum = 0;
    for (size_t i = 0; i < len; i++)
        sum += ((const uint8_t *)p)[i];
    return sum == 0;
}

/* Tables may sit in reserved RAM the direct map leaves out, so map each one. */
static const struct acpi_header *map_table(uint64_t phys)
{
    const struct acpi_header *h = arch_map_mmio(phys, sizeof(*h));
    uint32_t len = h->length;
    if (len < sizeof(*h) || len > (1u << 20))
        return NULL;
    return arch_map_mmio(phys, len);
}

static const struct acpi_rsdp *scan_for_rsdp(uint64_t start, uint64_t len)
{
    for (uint64_t p = start; p + 20 <= start + len; p += 16) {
        const struct acpi_rsdp *r = phys_to_virt(p);
        if (memcmp(r->signature, "RSD PTR ", 8) == 0 && checksum_ok(r, 20))
            return r;
    }
    return NULL;
}

static const struct acpi_rsdp *find_rsdp(void)
{
    if (boot_info.rsdp_revision >= 0) {
        const struct acpi_rsdp *r = (const void *)boot_info.rsdp;
        if (checksum_ok(r, 20))
            return r;
        printk("acpi: RSDP from the boot loader has a bad checksum; searching the BIOS areas\n");
    }
    uint64_t ebda = (uint64_t)(*(const uint16_t *)phys_to_virt(0x40e)) << 4;
    const struct acpi_rsdp *r = ebda ? scan_for_rsdp(ebda, 1024) : NULL;
    return r ? r : scan_for_rsdp(0xe0000, 0x20000);
}

static void parse_madt(const struct acpi_madt *madt)
{
    acpi_machine.lapic_phys = madt->lapic_addr;
    const uint8_t *p = (const uint8_t *)(madt + 1);
    const uint8_t *end = (const uint8_t *)madt + madt->h.length;
    while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
        uint8_t type = p[0];
        if (type == MADT_LAPIC || type == MADT_X2APIC) {
            uint32_t apic_id, flags;
            if (type == MADT_LAPIC) {
                apic_id = p[3];
                flags = *(const uint32_t *)(p + 4);
            } else {
                apic_id = *(const uint32_t *)(p + 4);
                flags = *(const uint32_t *)(p + 8);
            }
            /* bit 0: enabled; bit 1: can be brought online later (ignored here). */
            if (flags & 1) {
                if (acpi_machine.ncpus < MAX_CPUS)
                    acpi_machine.cpu_apic_ids[acpi_machine.ncpus++] = apic_id;
                else
                    printk("acpi: CPU with APIC id %u ignored (limit %d)\n", apic_id, MAX_CPUS);
            }
        } else if (type == MADT_IOAPIC && acpi_machine.nioapics < ACPI_MAX_IOAPICS) {
            unsigned i = acpi_machine.nioapics++;
            acpi_machine.ioapics[i].id = p[2];
            acpi_machine.ioapics[i].phys = *(const uint32_t *)(p + 4);
            acpi_machine.ioapics[i].gsi_base = *(const uint32_t *)(p + 8);
        } else if (type == MADT_OVERRIDE && acpi_machine.noverrides < ACPI_MAX_OVERRIDES) {
            struct acpi_irq_override *o = &acpi_machine.overrides[acpi_machine.noverrides++];
            uint16_t flags = *(const uint16_t *)(p + 8);
            o->source_irq = p[3];
            o->gsi = *(const uint32_t *)(p + 4);
            o->active_low = (flags & 3) == 3;
            o->level_triggered = ((flags >> 2) & 3) == 3;
        } else if (type == MADT_LAPIC_OVERRIDE) {
            acpi_machine.lapic_phys = *(const uint64_t *)(p + 4);
        }
        p += p[1];
    }
    acpi_machine.have_madt = acpi_machine.ncpus > 0;
}

static void use_defaults(void)
{
    uint32_t a, b, c, d;
    cpuid(1, 0, &a, &b, &c, &d);
    acpi_machine.have_madt = false;
    acpi_machine.lapic_phys = 0xfee00000;
    acpi_machine.ncpus = 1;
    acpi_machine.cpu_apic_ids[0] = b >> 24;
    acpi_machine.nioapics = 1;
    acpi_machine.ioapics[0].id = 0;
    acpi_machine.ioapics[0].phys = 0xfec00000;
    acpi_machine.ioapics[0].gsi_base = 0;
    acpi_machine.noverrides = 0;
    printk("acpi: no usable MADT; running on one CPU with default APIC addresses\n");
}

void acpi_init(void)
{
    const struct acpi_rsdp *rsdp = find_rsdp();
    if (!rsdp) {
        printk("acpi: no RSDP found\n");
        use_defaults();
        return;
    }
    bool use_xsdt = rsdp->revision >= 2 && rsdp->xsdt && checksum_ok(rsdp, rsdp->length);
    uint64_t root_phys = use_xsdt ? rsdp->xsdt : rsdp->rsdt;
    const struct acpi_header *root = map_table(root_phys);
    if (!root || !checksum_ok(root, root->length)) {
        printk("acpi: %s at %#lx has a bad checksum\n", use_xsdt ? "XSDT" : "RSDT",
               (unsigned long)root_phys);
        use_defaults();
        return;
    }
    size_t entry_size = use_xsdt ? 8 : 4;
    size_t n = (root->length - sizeof(*root)) / entry_size;
    const uint8_t *entries = (const uint8_t *)(root + 1);
    for (size_t i = 0; i < n; i++) {
        uint64_t phys =
            use_xsdt ? *(const uint64_t *)(entries + i * 8) : *(const uint32_t *)(entries + i * 4);
        const struct acpi_header *t = map_table(phys);
        if (!t)
            continue;
        if (!checksum_ok(t, t->length)) {
            printk("acpi: table %.4s at %#lx has a bad checksum; ignored\n", t->signature,
                   (unsigned long)phys);
            continue;
        }
        if (memcmp(t->signature, "APIC", 4) == 0)
            parse_madt((const struct acpi_madt *)t);
        else if (memcmp(t->signature, "HPET", 4) == 0)
            acpi_machine.hpet_phys = *(const uint64_t *)((const uint8_t *)t + 44);
    }
    if (!acpi_machine.have_madt) {
        use_defaults();
        return;
    }
    if (acpi_machine.nioapics == 0) {
        acpi_machine.nioapics = 1;
        acpi_machine.ioapics[0].phys = 0xfec00000;
    }
    printk("acpi: %s, %u CPU%s, %u I/O APIC%s, %u ISA override%s%s\n", use_xsdt ? "XSDT" : "RSDT",
           acpi_machine.ncpus, acpi_machine.ncpus == 1 ? "" : "s", acpi_machine.nioapics,
           acpi_machine.nioapics == 1 ? "" : "s", acpi_machine.noverrides,
           acpi_machine.noverrides == 1 ? "" : "s", acpi_machine.hpet_phys ? ", HPET" : "");
}

struct acpi_irq_override acpi_isa_irq(uint8_t irq)
{
    for (unsigned i = 0; i < acpi_machine.noverrides; i++)
        if (acpi_machine.overrides[i].source_irq == irq)
            return acpi_machine.overrides[i];
    /* ISA default: identity-mapped, active high, edge triggered. */
    struct acpi_irq_override o = {irq, irq, false, false};
    return o;
}
