#ifndef KERNEL_WORK_H
#define KERNEL_WORK_H

#include <kernel/compiler.h>
#include <kernel/percpu.h>

/*
 * The mixed load the `work` command runs (heap churn, a contended shared table, cross-CPU
 * hand-off with sleeps and wakeups, computation), startable from C so that stress tests
 * can run it underneath whatever they stress.
 */
struct work_run;

#define WORK_MAX_THREADS_PER_CPU 8

struct work_summary {
    size_t threads;
    unsigned cpus;
    uint64_t allocations, table_ops, contended, handed_off, received;
    uint64_t alloc_failures; /* allocations of the heap churn and the table that failed */
    bool complete;           /* every thread asked for was created */
    bool books_ok;           /* every item handed off was received, and the checksum is zero */
    /* Results checked by counting their bits, and the counts found wrong; in total and by
     * CPU (index i is CPU cpu_ids[i], for i < cpus). */
    uint64_t bit_checks, bits_wrong;
    unsigned cpu_ids[MAX_CPUS];
    uint64_t bit_checks_cpu[MAX_CPUS], bits_wrong_cpu[MAX_CPUS];
};

/*
 * Starts per_cpu threads on every online CPU; they stop by themselves after ms
 * milliseconds. Returns NULL when out of memory. A thread that could not be created is
 * named by work_failed_thread(); the run then stops at once but still has to be finished.
 */
struct work_run *work_start(uint64_t ms, unsigned per_cpu);
const char *work_failed_thread(const struct work_run *run);
/* Asks the threads to stop now, and wakes the ones that sleep. */
void work_stop(struct work_run *run);
/* Stops the threads, joins them, checks the books, frees the run. */
void work_finish(struct work_run *run, struct work_summary *out);

#endif
