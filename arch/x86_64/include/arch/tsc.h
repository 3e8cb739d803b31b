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
    /*
     * (TSC - boot) * ns_mult >> 32, the middle 64 bits of the 128-bit product, in six
     * instructions: it runs in every traced event.
     */
    uint64_t ns, hi;
    __asm__ __volatile__("rdtsc\n\t"
                         "shlq $32, %%rdx\n\t"
                         "orq %%rdx, %%rax\n\t"
                         "subq %2, %%rax\n\t"
                         "mulq %3\n\t"
                         "shrdq $32, %%rdx, %%rax"
                         : "=&a"(ns), "=&d"(hi)
                         : "m"(tsc_clock.boot), "m"(tsc_clock.ns_mult));
    return ns;
}

void tsc_mark_boot(void);
void tsc_calibrate(void);

#endif
