#ifndef ARCH_IRQ_H
#define ARCH_IRQ_H

/* The interrupt interface generic code uses: vectors for IPIs and handler registration. */
#include <arch/apic.h>
#include <arch/x86.h>

#define ARCH_IPI_RESCHEDULE APIC_VEC_RESCHEDULE
#define ARCH_IPI_CALL_FUNCTION APIC_VEC_CALL_FUNCTION
#define ARCH_IPI_SYNC APIC_VEC_SYNC

typedef x86_irq_handler_fn arch_irq_handler_fn;

static inline void arch_set_irq_handler(unsigned vector, arch_irq_handler_fn fn, void *arg)
{
    x86_set_irq_handler(vector, fn, arg);
}

/* hw_id is struct percpu's: the CPU's local APIC id. */
static inline void arch_send_ipi(uint32_t hw_id, unsigned vector)
{
    lapic_send_ipi(hw_id, (uint8_t)vector);
}

/* Every online CPU but this one. */
static inline void arch_send_ipi_others(unsigned vector) { lapic_send_ipi_others((uint8_t)vector); }

/* A non-maskable interrupt to every other CPU: it reaches a CPU with interrupts off. */
static inline void arch_send_nmi_others(void) { lapic_send_nmi_others(); }

#endif

#ifndef ARCH_IRQ_LABEL_H
#define ARCH_IRQ_LABEL_H
/* "LAPIC  timer", "IPI    sync", ... for /proc/interrupts; NULL for unused vectors. */
const char *arch_vector_label(unsigned vector);
#endif
