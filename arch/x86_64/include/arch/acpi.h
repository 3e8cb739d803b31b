#ifndef ARCH_ACPI_H
#define ARCH_ACPI_H

#include <kernel/compiler.h>
#include <kernel/percpu.h>

#define ACPI_MAX_IOAPICS 4
#define ACPI_MAX_OVERRIDES 16

struct acpi_irq_override {
    uint8_t source_irq;
    uint32_t gsi;
    bool active_low;
    bool level_triggered;
};

/* What the firmware told us about the machine's CPUs and interrupt controllers. */
struct acpi_machine {
    bool have_madt;
    uint64_t lapic_phys;
    unsigned ncpus;
    uint32_t cpu_apic_ids[MAX_CPUS];
    unsigned nioapics;
    struct {
        uint8_t id;
        uint64_t phys;
        uint32_t gsi_base;
    } ioapics[ACPI_MAX_IOAPICS];
    unsigned noverrides;
    struct acpi_irq_override overrides[ACPI_MAX_OVERRIDES];
    uint64_t hpet_phys; /* 0 when there is no HPET table */
};

extern struct acpi_machine acpi_machine;

/* Finds and checks the tables; on any failure falls back to one CPU and default addresses. */
void acpi_init(void);
/* The GSI a legacy ISA IRQ is wired to, with its polarity and trigger mode. */
struct acpi_irq_override acpi_isa_irq(uint8_t irq);

#endif
