#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <kernel/compiler.h>
#include <kernel/list.h>
#include <kernel/percpu.h>

typedef uint32_t cpumask_t; /* bit n = CPU n; MAX_CPUS <= 32 */

#define CPUMASK_ALL ((cpumask_t)((1ULL << MAX_CPUS) - 1))

cpumask_t cpu_online_mask(void);

/* Starts every CPU the firmware listed; prints "smp: N CPUs online". */
void smp_boot_aps(void);
/* Installs the IPI vectors of cross-CPU calls; each CPU runs it as it comes up. */
void smp_init_ipis(void);

/*
 * Runs fn(arg) on every online CPU in mask (the caller's CPU included, if in the mask),
 * in interrupt context with interrupts off. With wait, returns after all have finished.
 */
void smp_call_function(cpumask_t mask, void (*fn)(void *arg), void *arg, bool wait);
void smp_call_function_single(unsigned cpu, void (*fn)(void *arg), void *arg, bool wait);

/*
 * A cross-CPU call whose storage the caller owns and keeps, for callers that may neither
 * allocate nor wait: any context but NMI. smp_call_async queues c for cpu (another CPU
 * than the caller's) and returns true, or returns false when c is still queued from an
 * earlier call, which then stands for both. fn(arg) runs there in interrupt context with
 * interrupts off; c may be queued again from the moment fn starts.
 */
struct smp_call {
    struct list_node node;
    void (*fn)(void *arg);
    void *arg;
    volatile bool queued;
    bool caller_owned; /* set by smp_call_async; smp_call_function's own entries clear it */
};
bool smp_call_async(unsigned cpu, struct smp_call *c);

/*
 * One broadcast sync round: every other online CPU takes an interrupt (whose return
 * serialises it) and acknowledges; returns when all have. Live code patching needs
 * exactly this between its steps.
 */
void smp_sync_all(void);
/* The same, and pcs[cpu] = where the interrupt found each other online CPU (the others'
 * entries are left as they were). */
void smp_sync_all_pcs(unsigned long pcs[MAX_CPUS]);
uint64_t smp_sync_rounds(void);

/* Halts every other CPU at once with an NMI (panic uses it). */
void smp_stop_other_cpus(void);

#endif
