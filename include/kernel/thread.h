#ifndef KERNEL_THREAD_H
#define KERNEL_THREAD_H

#include <arch/regs.h>
#include <kernel/compiler.h>
#include <kernel/list.h>
#include <kernel/wait.h>

#define THREAD_NAME_LEN 16
#define THREAD_STACK_PAGES 4

enum thread_state {
    THREAD_RUNNING,  /* on its CPU right now */
    THREAD_READY,    /* on its CPU's run queue */
    THREAD_SLEEPING, /* waiting for a wakeup or a timeout */
    THREAD_DEAD,     /* exited, waiting to be reaped */
};

/* The normal class's policy; the real-time ones are in <kernel/sched.h>. */
#define SCHED_NORMAL 0
/* Linux's kernel priorities, as sched events show them: 0..98 real time (99 - rt_priority,
 * lower is stronger), 120 for every normal thread (nice 0). */
#define MAX_RT_PRIO 100
#define SCHED_NORMAL_PRIO 120

/*
 * A kernel thread. It stays on the CPU it was created for: per-CPU run queues never
 * migrate work, which keeps the scheduler simple and per-CPU tracing buffers meaningful.
 */
struct thread {
    uintptr_t saved_sp; /* valid while not running; first: the switch code uses it */
    int pid;
    char name[THREAD_NAME_LEN];
    volatile enum thread_state state;
    unsigned cpu;
    bool is_idle;
    bool detached;
    volatile bool off_cpu; /* dead and switched away from: its stack can be freed */
    void *stack_top;
    size_t stack_pages;
    int (*fn)(void *arg);
    void *arg;
    int exit_code;
    uint64_t wake_deadline_ns; /* 0 when not in a timed sleep */
    uint64_t runtime_ns;
    uint64_t last_switch_in_ns;
    unsigned slice_ticks;
    uint8_t policy;      /* SCHED_NORMAL, or SCHED_FIFO or SCHED_RR (<kernel/sched.h>) */
    uint8_t rt_priority; /* 1..99 under SCHED_FIFO and SCHED_RR, else 0 */
    int prio;            /* what sched events show: kept with the two, loaded as is */
    /*
     * A thread that sleeps most of the time and must run soon after it wakes (a stream's
     * drain, which empties a CPU's trace buffer while that CPU's own threads fill it): its
     * wakeup preempts the running thread instead of waiting behind every ready one. Once
     * running it gets the usual slice and then goes to the back, so it never starves them.
     */
    bool preempt_on_wake;
    bool resume_slice; /* preempted by such a wakeup: runs next with the rest of its slice */
    struct list_node run_node; /* run queue or timed-sleep list */
    struct list_node sleep_node;
    struct list_node all_node;   /* every live thread, for ps */
    struct wait_queue exit_wait; /* kthread_join waits here */
    /* Function-graph shadow return stack and tracing state; owned by kernel/trace/. */
    void *trace_state;
    /* Live patching (kernel/livepatch/): the patch state this thread runs in during a
     * transition (KLP_*), and whether it has yet to switch to the transition's target. */
    int patch_state;
    volatile bool patch_pending;
    /* fault_inject_pause() depth: while nonzero this thread's allocations never fail. */
    unsigned fault_inject_paused;
};

/* Creates a thread that will run fn(arg) on `cpu`; returns NULL when out of memory. */
struct thread *kthread_create(int (*fn)(void *arg), void *arg, const char *name, unsigned cpu);
/* Waits for the thread to exit, frees it, returns its exit code. */
int kthread_join(struct thread *t);
/* The thread frees itself when it exits. */
void kthread_detach(struct thread *t);
void kthread_exit(int code) __noreturn;

struct thread *current_thread(void);
void schedule(void);
/* Makes a sleeping thread runnable; safe from any CPU and from interrupt handlers. */
void thread_wake(struct thread *t);
/* Sets current's state to SLEEPING (caller then calls schedule()). */
void thread_prepare_sleep(uint64_t deadline_ns);
static inline bool thread_is_rt(const struct thread *t) { return t->policy != SCHED_NORMAL; }
/* The priority Linux's sched events show for t. */
static inline int thread_trace_prio(const struct thread *t) { return t->prio; }
/* See struct thread's preempt_on_wake; takes effect at the thread's next wakeup. */
void thread_set_preempt_on_wake(struct thread *t, bool on);
void preempt_disable(void);
void preempt_enable(void);

size_t thread_count(void);
/* Calls fn for every idle thread and every live thread, with the thread list locked and
 * interrupts off: fn must not sleep nor create or free threads. */
void thread_for_each_locked(void (*fn)(struct thread *t, void *arg), void *arg);
/* Name of a live or recently exited thread; false when unknown. */
bool thread_comm_of(int pid, char *buf, size_t len);

void sched_init_cpu(unsigned cpu); /* turns the calling context into CPU's idle thread */
void sched_idle_loop(void) __noreturn;
void sched_tick(void);
void sched_kick_cpu(unsigned cpu);
/* Puts a thread kthread_create made on a run queue for the first time (kernel/sched/). */
void sched_enqueue_new(struct thread *t);
/* Frees a thread that exited, once no CPU runs on its stack (kernel/sched/). */
void thread_free(struct thread *t);
/* Time cpu's idle thread has run, and the sum over every CPU (/proc/uptime). */
uint64_t sched_idle_runtime_ns(unsigned cpu);
uint64_t idle_time_ns(void);

#endif
