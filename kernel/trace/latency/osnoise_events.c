/*
 * osnoise: the events thread_noise, irq_noise, nmi_noise and sample_threshold. Their
 * definitions are include/kernel/events/osnoise.h; the osnoise and timerlat tracers
 * (trace_osnoise.c) emit them, so while neither runs they never fire.
 */
#include "events/event_core.h"

#define TRACE_EVENT_DEFINITIONS <kernel/events/osnoise.h>
#include "events/event_define.h"
