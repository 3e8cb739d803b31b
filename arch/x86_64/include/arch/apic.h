#ifndef ARCH_APIC_H
#define ARCH_APIC_H

#include <kernel/compiler.h>

/* Vectors of the local APIC's own interrupts and of IPIs; highest = most urgent. */
#define APIC_VEC_TIMER 0xe0
#define APIC_VEC_RESCHEDULE 0xf0
#define APIC_VEC_CALL_FUNCTION 0xf1
#define APIC_VEC_SYNC 0xf2
#define APIC_VEC_SPURIOUS 0xff

void lapic_init_bsp(void); /* maps the APIC, picks xAPIC or x2APIC, enables it */
void lapic_init_ap(void);
uint32_t lapic_id(void);
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_send_ipi_others(uint8_t vector);
void lapic_send_nmi_others(void);
void lapic_send_init(uint32_t apic_id);
void lapic_send_startup(uint32_t apic_id, uint8_t page);
/* Calibrates against the TSC once, then runs a periodic timer at hz on this CPU. */
void lapic_timer_start(unsigned hz);

void ioapic_init(void);
/* Routes a legacy ISA IRQ (after ACPI overrides) to vector on the CPU with apic_id. */
void ioapic_route_isa_irq(uint8_t irq, uint8_t vector, uint32_t apic_id);

#endif
