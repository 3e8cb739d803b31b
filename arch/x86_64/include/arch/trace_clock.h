/*
 * The trace clocks this architecture adds to the generic ones (trace_clock lists them
 * after local, global, counter and uptime), as Linux's ARCH_TRACE_CLOCKS: here the raw
 * time-stamp counter, in cycles.
 */
#ifndef ARCH_TRACE_CLOCK_H
#define ARCH_TRACE_CLOCK_H

#include <arch/cpu.h>

uint64_t arch_trace_clock_tsc(void);

#define ARCH_TRACE_CLOCK_COUNT 1
/* Entries of the clock table: {name, read, counts nanoseconds}. */
#define ARCH_TRACE_CLOCKS {"x86-tsc", arch_trace_clock_tsc, false},

#endif
