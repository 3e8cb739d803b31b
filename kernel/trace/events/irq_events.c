/*
 * irq and irq_vectors: device interrupts and the local APIC's vectors. Their definitions
 * are include/kernel/events/irq.h and irq_vectors.h.
 */
#include "event_core.h"

#define TRACE_EVENT_DEFINITIONS <kernel/events/irq.h>
#include "event_define.h"

#define TRACE_EVENT_DEFINITIONS <kernel/events/irq_vectors.h>
#include "event_define.h"
