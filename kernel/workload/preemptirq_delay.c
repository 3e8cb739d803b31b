/*
 * `preemptirq_delay`: a known latency for the latency tracers to find, as Linux's
 * preemptirq_delay_test module makes one: a thread on the chosen CPU spins with
 * interrupts off (irq), preemption off (preempt) or the two by turns (alternate) for the
 * given time, burst times in a row; or (wakeup, for the wakeup tracers) wakes a SCHED_FIFO
 * thread of the same CPU with preemption off and keeps it waiting for the given time.
 * Built with -pg like the rest of the load, so that the tracers' function-trace shows
 * these functions inside the section.
 */
#include <kernel/errno.h>
#include <kernel/irqflags.h>
#include <kernel/percpu.h>
#include <kernel/sched.h>
#include <kernel/shell.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/string.h>

#define DELAY_MAX_USECS 1000000UL /* a second: the tracers' clock and the shell's patience */
#define DELAY_MAX_BURST 10UL      /* Linux's burst_size limit */

enum delay_mode { DELAY_IRQ, DELAY_PREEMPT, DELAY_ALTERNATE, DELAY_WAKEUP };

/* The real-time priority of the thread the wakeup test wakes (SCHED_FIFO). */
#define DELAY_WAKEE_PRIO 50

struct delay_request {
    enum delay_mode mode;
    unsigned long usecs;
    unsigned long burst;
};

static __noinline void preemptirq_delay_busy_wait(unsigned long usecs)
{
    uint64_t start = clock_ns();
    while (clock_ns() - start < (uint64_t)usecs * 1000)
        barrier();
}

static __noinline void preemptirq_delay_irqoff(unsigned long usecs)
{
    unsigned long flags = local_irq_save();
    preemptirq_delay_busy_wait(usecs);
    local_irq_restore(flags);
}

static __noinline void preemptirq_delay_preemptoff(unsigned long usecs)
{
    preempt_disable();
    preemptirq_delay_busy_wait(usecs);
    preempt_enable();
}

static int preemptirq_delay_wakee(void *arg)
{
    /* Woken by preemptirq_delay_wakeup; a stray early wakeup only ends the test sooner. */
    thread_prepare_sleep(0);
    schedule();
    return 0;
}

static __noinline int preemptirq_delay_wakeup(unsigned long usecs)
{
    struct thread *self = current_thread();
    struct thread *wakee =
        kthread_create(preemptirq_delay_wakee, NULL, "preemptirq_wakee", self->cpu);
    if (!wakee)
        return -ENOMEM;
    int err = sched_setscheduler(wakee, SCHED_FIFO, DELAY_WAKEE_PRIO);
    /* Being stronger, it runs at once and goes to sleep; wait until it has. */
    while (READ_ONCE(wakee->state) != THREAD_SLEEPING && READ_ONCE(wakee->state) != THREAD_DEAD)
        schedule();
    preempt_disable();
    thread_wake(wakee);
    preemptirq_delay_busy_wait(usecs);
    preempt_enable();
    kthread_join(wakee);
    return err;
}

static int preemptirq_delay_run(void *arg)
{
    const struct delay_request *req = arg;
    for (unsigned long i = 0; i < req->burst; i++) {
        if (req->mode == DELAY_WAKEUP) {
            int err = preemptirq_delay_wakeup(req->usecs);
            if (err)
                return err;
            continue;
        }
        bool irq = req->mode == DELAY_IRQ || (req->mode == DELAY_ALTERNATE && i % 2 == 0);
        if (irq)
            preemptirq_delay_irqoff(req->usecs);
        else
            preemptirq_delay_preemptoff(req->usecs);
    }
    return 0;
}

static int delay_invalid(struct shell_ctx *ctx, const char *what, const char *arg, int err)
{
    shell_eprintf(ctx, "preemptirq_delay: %s '%s': %s\n", what, arg, strerror(err));
    return 1;
}

SHELL_COMMAND(preemptirq_delay,
              "preemptirq_delay [-t irq|preempt|alternate|wakeup] [-d USECS] [-b BURST] [-c CPU]",
              "turn interrupts or preemption off for USECS (default 100) on CPU, BURST times")
{
    struct delay_request req = {.mode = DELAY_IRQ, .usecs = 100, .burst = 1};
    unsigned long cpu = this_cpu_id();
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (strcmp(opt, "-t") && strcmp(opt, "-d") && strcmp(opt, "-b") && strcmp(opt, "-c"))
            return delay_invalid(ctx, "invalid option", opt, EINVAL);
        if (i + 1 >= argc)
            return shell_usage(ctx);
        const char *val = argv[++i];
        unsigned long v = 0;
        if (opt[1] == 't') {
            if (strcmp(val, "irq") == 0)
                req.mode = DELAY_IRQ;
            else if (strcmp(val, "preempt") == 0)
                req.mode = DELAY_PREEMPT;
            else if (strcmp(val, "alternate") == 0)
                req.mode = DELAY_ALTERNATE;
            else if (strcmp(val, "wakeup") == 0)
                req.mode = DELAY_WAKEUP;
            else
                return delay_invalid(ctx, "invalid test mode", val, EINVAL);
            continue;
        }
        if (kstrtoul(val, 10, &v) != 0)
            return delay_invalid(ctx, "invalid number", val, EINVAL);
        if (opt[1] == 'd') {
            if (v == 0 || v > DELAY_MAX_USECS)
                return delay_invalid(ctx, "delay out of range (1..1000000 us)", val, ERANGE);
            req.usecs = v;
        } else if (opt[1] == 'b') {
            if (v == 0 || v > DELAY_MAX_BURST)
                return delay_invalid(ctx, "burst out of range (1..10)", val, ERANGE);
            req.burst = v;
        } else {
            if (v >= MAX_CPUS || !cpu_data(v)->online)
                return delay_invalid(ctx, "no such CPU", val, ENODEV);
            cpu = v;
        }
    }
    struct thread *t = kthread_create(preemptirq_delay_run, &req, "preemptirq_delay", cpu);
    if (!t) {
        shell_eprintf(ctx, "preemptirq_delay: %s\n", strerror(ENOMEM));
        return 1;
    }
    int err = kthread_join(t);
    if (err) {
        shell_eprintf(ctx, "preemptirq_delay: %s\n", strerror(-err));
        return 1;
    }
    return 0;
}
