#include <arch/setup.h>
#include <kernel/errno.h>
#include <kernel/irqflags.h>
#include <kernel/percpu.h>
#include <kernel/time.h>
#include <kernel/wait.h>

static struct wait_queue sleepers = WAIT_QUEUE_INIT(sleepers);

int sleep_ns_interruptible(uint64_t ns)
{
    if (ns == 0)
        return 0;
    int err = wait_event_timeout(&sleepers, NULL, NULL, ns, true);
    return err == -EINTR ? -EINTR : 0;
}

void sleep_ns(uint64_t ns)
{
    if (ns)
        wait_event_timeout(&sleepers, NULL, NULL, ns, false);
}

struct cpu_timer {
    void (*fn)(void *arg);
    void *arg;
};
static struct cpu_timer cpu_timers[MAX_CPUS];

void cpu_timer_arm(uint64_t deadline_ns, void (*fn)(void *arg), void *arg)
{
    /* Interrupts off: the interrupt this arms must not find the callback half written. */
    unsigned long flags = local_irq_save();
    struct cpu_timer *t = &cpu_timers[this_cpu_id()];
    t->fn = fn;
    t->arg = arg;
    /* 0 would cancel: a deadline of 0 is one long passed, which fires at once. */
    arch_timer_oneshot(deadline_ns ? deadline_ns : 1);
    local_irq_restore(flags);
}

void cpu_timer_cancel(void)
{
    unsigned long flags = local_irq_save();
    cpu_timers[this_cpu_id()].fn = NULL;
    arch_timer_oneshot(0);
    local_irq_restore(flags);
}

void cpu_timer_expired(void)
{
    struct cpu_timer *t = &cpu_timers[this_cpu_id()];
    void (*fn)(void *arg) = t->fn;
    t->fn = NULL;
    if (fn)
        fn(t->arg);
}
