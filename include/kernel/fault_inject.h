#ifndef KERNEL_FAULT_INJECT_H
#define KERNEL_FAULT_INJECT_H

#include <kernel/compiler.h>

/*
 * Allocation-failure injection, as Linux's fault-injection framework: kmalloc fails as
 * /sys/kernel/debug/failslab/ says, the page allocator as fail_page_alloc/ says, each with
 * probability (percent), interval, times, space and verbose, or from the boot parameters
 * failslab= and fail_page_alloc= (<interval>,<probability>,<space>,<times>).
 */
struct fault_attr {
    const char *name;
    unsigned long probability;        /* percent; 0 turns the injection off */
    unsigned long interval;           /* fail at most every interval-th eligible call */
    long times;                       /* failures left; -1: no limit */
    long space;                       /* bytes allowed to succeed before failures start */
    unsigned long verbose;            /* 1: a line per failure, 2: and a stack trace */
    bool task_filter;                 /* only marked threads (none here) and interrupts fail */
    unsigned long count;              /* calls counted for interval */
    uint64_t last_report_ns, reports; /* rate limit of the verbose lines */
};

extern struct fault_attr failslab;
extern struct fault_attr fail_page_alloc;

/* True when this allocation of size bytes must fail. Any context. */
bool should_fail(struct fault_attr *attr, size_t size);

/*
 * The calling thread's allocations do not fail until the matching resume (pairs nest);
 * interrupts on its CPU meanwhile still may. The shell runs a command that opens a
 * fault-injection file this way, so the command turning injection off cannot itself be
 * failed by it (see README, "Allocation-failure injection").
 */
void fault_inject_pause(void);
void fault_inject_resume(void);

struct pfs_node;
/* Whether n is one of the files of /sys/kernel/debug/failslab/ or fail_page_alloc/. */
bool fault_inject_owns_file(const struct pfs_node *n);

#endif
