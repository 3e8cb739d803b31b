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
/*
 * One timer per CPU at a precise time, for a tracer that measures how late a timer
 * interrupt and the thread it wakes come (timerlat): fn(arg) runs in this CPU's timer
 * interrupt once clock_ns() has reached deadline_ns. Arming again replaces the deadline
 * and the callback; cancel makes sure neither runs. Both act on the calling CPU, from
 * thread context with preemption off or from the callback itself.
 */
void cpu_timer_arm(uint64_t deadline_ns, void (*fn)(void *arg), void *arg);
void cpu_timer_cancel(void);
/* Called by the architecture's timer interrupt once the armed deadline has passed. */
void cpu_timer_expired(void);
/* Spins for ns without sleeping (for hardware delays). */
void udelay(uint64_t usecs);

#endif
