#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

/*
 * Scheduling policies and priorities (kernel/sched/sched.c says what each does). Apart
 * from <kernel/thread.h> because its names are also C libraries': host builds of kernel
 * code (tests/host) include both that header and <sched.h>.
 */
#include <kernel/thread.h>

/* Linux's numbers (sched_setscheduler(2), chrt); SCHED_NORMAL is 0. */
enum sched_rt_policy {
    SCHED_FIFO = 1, /* real time: runs until it sleeps, yields or a stronger one wakes */
    SCHED_RR = 2,   /* real time: as FIFO, taking turns with its equals every 100 ticks */
};
#define SCHED_RT_PRIO_MIN 1
#define SCHED_RT_PRIO_MAX 99

/*
 * Sets t's policy and real-time priority, as sched_setscheduler(2): -EINVAL for a priority
 * outside the policy's range (0 for SCHED_NORMAL, 1..99 for the others) or an idle thread,
 * -ESRCH for a thread that has exited. Takes effect at once on t's CPU.
 */
int sched_setscheduler(struct thread *t, int policy, int rt_priority);
/* The same by pid (-ESRCH: no such thread), and the policy and priority a pid has. */
int sched_setscheduler_pid(int pid, int policy, int rt_priority);
int sched_getscheduler_pid(int pid, int *policy, int *rt_priority);
/* Times cpu's real-time threads were throttled (kernel/sched/sched.c). */
uint64_t sched_rt_throttled_count(unsigned cpu);

#endif
