#ifndef ARCH_TSC_H
#define ARCH_TSC_H

#include <arch/cpu.h>
#include <kernel/compiler.h>

/* clock_ns() = (rdtsc() - boot) * ns_mult >> 32, set once at boot. */
struct tsc_clock {
    uint64_t boot;
    uint64_t ns_mult;
};
extern struct tsc_clock tsc_clock;

/* clock_ns(), inline: the ring buffer reads it for every event. */
static __always_inline uint64_t tsc_clock_ns(void)
{
    return (uint64_t)(((unsigned __int128)(arch_cycles() - tsc_clock.boot) * tsc_clock.ns_mult) >>
                      32);
}

void tsc_mark_boot(void);
void tsc_calibrate(void);

#endif
