#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <kernel/compiler.h>

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

/* Monotonic nanoseconds since boot, from the calibrated TSC; usable from any context. */
uint64_t clock_ns(void);
/* Converts between TSC cycles and nanoseconds with the boot calibration. */
uint64_t tsc_to_ns(uint64_t cycles);
uint64_t tsc_hz(void);
/* Sleeps for ns; returns 0, or -EINTR when Ctrl-C came first. */
int sleep_ns_interruptible(uint64_t ns);
void sleep_ns(uint64_t ns);
/* Spins for ns without sleeping (for hardware delays). */
void udelay(uint64_t usecs);

#endif
