/*
 * The scheduler: one run queue per CPU, round robin with a 10-tick slice, preemption when
 * an interrupt returns to a thread, and an idle thread per CPU that halts with interrupts
 * on. Threads never migrate, so a run queue is only ever changed under its own lock and
 * only its CPU switches threads.
 *
 * A thread marked preempt_on_wake (struct thread) that wakes goes to the front of its run
 * queue and preempts the running thread, which then resumes right after it with the rest
 * of its slice: the one who waits is the thread that was running, not every ready one.
 */
#include <arch/asm_calls.h>
#include <arch/cpu.h>
#include <arch/ftrace.h>
#include <arch/irq.h>
#include <arch/thread.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/livepatch.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/trace_events.h>
#include <kernel/trap.h>
#include <lib/string.h>

#define SLICE_TICKS 10

struct run_queue {
    struct spinlock lock;
    struct list_node ready;
    struct list_node timed_sleepers;
    struct thread *current;
    struct thread *idle;
    struct thread *prev;   /* the thread switched away from, for finish_switch */
    struct list_node dead; /* detached threads whose stacks can now be freed */
    unsigned nr_ready;
    bool wakeup_preempts; /* a preempt_on_wake thread was queued at the front for current */
} __cacheline_aligned;

static struct run_queue run_queues[MAX_CPUS];
static bool sched_ready[MAX_CPUS];

static inline struct run_queue *this_rq(void) { return &run_queues[this_cpu_id()]; }

struct thread *current_thread(void) { return this_cpu()->current; }

void preempt_disable(void)
{
    this_cpu()->preempt_count++;
    barrier();
}

void preempt_enable(void)
{
    barrier();
    struct percpu *cpu = this_cpu();
    if (--cpu->preempt_count == 0 && cpu->need_resched && arch_irqs_enabled() &&
        cpu->irq_depth == 0)
        schedule();
}

/* Runs on the new thread right after a switch: settles what the old thread left behind. */
static void finish_switch(void)
{
    struct run_queue *rq = this_rq();
    struct thread *prev = rq->prev;
    rq->prev = NULL;
    if (prev && prev->state == THREAD_DEAD) {
        if (prev->detached) {
            list_add_tail(&rq->dead, &prev->run_node);
        } else {
            /* Now off its stack for good: a joiner may free it. */
            __atomic_store_n(&prev->off_cpu, true, __ATOMIC_RELEASE);
            wait_queue_wake_all(&prev->exit_wait);
        }
    }
}

static void reap_dead(struct run_queue *rq)
{
    struct list_node *n;
    while ((n = list_pop_head(&rq->dead)))
        thread_free(list_entry(n, struct thread, run_node));
}

void schedule(void)
{
    /* A livepatch safe point: a thread that calls in here has a stack that can be read
     * whole, unless an interrupt preempted it (the check sees that and leaves it). */
    struct thread *self = this_cpu()->current;
    if (unlikely(self && self->patch_pending))
        klp_update_patch_state_self();
    unsigned long flags = arch_irq_save();
    struct percpu *cpu = this_cpu();
    struct run_queue *rq = &run_queues[cpu->cpu];
    if (!sched_ready[cpu->cpu]) {
        arch_irq_restore(flags);
        return;
    }
    if (cpu->preempt_count != 0 && !panic_in_progress)
        panic("schedule() with preemption disabled (count %d)", cpu->preempt_count);

    spin_lock(&rq->lock);
    cpu->need_resched = false;
    struct thread *prev = rq->current;
    bool requeue = prev->state == THREAD_RUNNING && !prev->is_idle;
    /* Preempted by a wakeup: prev goes back behind the thread that woke, not to the end. */
    bool resume_next = requeue && rq->wakeup_preempts && !list_empty(&rq->ready);
    rq->wakeup_preempts = false;
    if (requeue) {
        prev->state = THREAD_READY;
        if (!resume_next)
            list_add_tail(&rq->ready, &prev->run_node);
        rq->nr_ready++;
    }
    struct thread *next = rq->idle;
    struct list_node *n = list_pop_head(&rq->ready);
    if (n) {
        next = list_entry(n, struct thread, run_node);
        rq->nr_ready--;
    }
    if (resume_next) {
        list_add_head(&rq->ready, &prev->run_node);
        prev->resume_slice = true;
    }
    if (next != prev)
        trace_sched_switch(prev, next);
    next->state = THREAD_RUNNING;
    if (!next->resume_slice)
        next->slice_ticks = 0;
    next->resume_slice = false;
    rq->current = next;
    cpu->current = next;
    cpu->current_pid = next->pid;
    /* The lock is dropped before the switch: only this CPU ever runs prev or next, and
     * it cannot run anything else until the switch completes (interrupts are off). */
    spin_unlock(&rq->lock);

    if (next != prev) {
        uint64_t now = clock_ns();
        prev->runtime_ns += now - prev->last_switch_in_ns;
        next->last_switch_in_ns = now;
        rq->prev = prev;
        arch_tlb_catch_up();
        arch_context_switch(&prev->saved_sp, next->saved_sp);
        finish_switch();
    }
    arch_irq_restore(flags);
}

/* First code of every new thread, entered from arch_thread_start with interrupts off. */
void __noreturn thread_entry(void)
{
    finish_switch();
    struct thread *t = current_thread();
    arch_irq_enable();
    kthread_exit(t->fn(t->arg));
}

void thread_prepare_sleep(uint64_t deadline_ns)
{
    struct run_queue *rq = this_rq();
    unsigned long flags = spin_lock_irqsave(&rq->lock);
    struct thread *t = rq->current;
    t->state = THREAD_SLEEPING;
    t->wake_deadline_ns = deadline_ns;
    if (deadline_ns)
        list_add_tail(&rq->timed_sleepers, &t->sleep_node);
    spin_unlock_irqrestore(&rq->lock, flags);
}

/*
 * Called with t's run queue locked. Returns true when t must preempt the running thread
 * (the caller sees that it is told: need_resched, or an IPI to t's CPU).
 */
static bool wake_locked(struct run_queue *rq, struct thread *t)
{
    if (t->state != THREAD_SLEEPING)
        return false;
    if (t->wake_deadline_ns) {
        list_remove(&t->sleep_node);
        t->wake_deadline_ns = 0;
    }
    trace_sched_waking(t);
    if (rq->current == t) {
        /* It has not switched away yet: it simply will not sleep. */
        t->state = THREAD_RUNNING;
        trace_sched_wakeup(t);
        return false;
    }
    t->state = THREAD_READY;
    struct thread *cur = rq->current;
    bool preempt = READ_ONCE(t->preempt_on_wake) && !cur->is_idle && !cur->preempt_on_wake;
    if (preempt) {
        list_add_head(&rq->ready, &t->run_node);
        rq->wakeup_preempts = true;
    } else {
        list_add_tail(&rq->ready, &t->run_node);
    }
    rq->nr_ready++;
    trace_sched_wakeup(t);
    return preempt;
}

void thread_set_preempt_on_wake(struct thread *t, bool on) { WRITE_ONCE(t->preempt_on_wake, on); }

void thread_wake(struct thread *t)
{
    struct run_queue *rq = &run_queues[t->cpu];
    unsigned long flags = spin_lock_irqsave(&rq->lock);
    bool kick = rq->current == rq->idle;
    kick |= wake_locked(rq, t);
    spin_unlock_irqrestore(&rq->lock, flags);
    if (t->cpu == this_cpu_id())
        this_cpu()->need_resched |= kick;
    else if (kick)
        sched_kick_cpu(t->cpu);
}

void sched_kick_cpu(unsigned cpu)
{
    if (cpu != this_cpu_id() && cpu_data(cpu)->online)
        arch_send_ipi(cpu_data(cpu)->hw_id, ARCH_IPI_RESCHEDULE);
}

void sched_tick(void)
{
    struct percpu *cpu = this_cpu();
    struct run_queue *rq = &run_queues[cpu->cpu];
    cpu->ticks++;
    /* A CPU that keeps one thread (or idles) still drops freed stacks' translations
     * within a tick, so their slots can be reused (vmalloc_stack). */
    arch_tlb_catch_up();
    if (!sched_ready[cpu->cpu])
        return;
    uint64_t now = clock_ns();
    spin_lock(&rq->lock);
    struct list_node *pos, *tmp;
    bool preempt = false;
    list_for_each_safe(pos, tmp, &rq->timed_sleepers) {
        struct thread *t = list_entry(pos, struct thread, sleep_node);
        if (t->wake_deadline_ns <= now)
            preempt |= wake_locked(rq, t);
    }
    struct thread *cur = rq->current;
    if (rq->nr_ready && (cur->is_idle || ++cur->slice_ticks >= SLICE_TICKS || preempt))
        cpu->need_resched = true;
    spin_unlock(&rq->lock);
    klp_tick(); /* a livepatch transition's check of this CPU's other threads, if asked */
}

/*
 * Part of the interrupt exit path, which is never traced (it runs before the interrupt
 * returns). A thread interrupted on its way from a call site into an ftrace callback is
 * not preempted: it has not counted itself in yet, and ftrace relies on finding every
 * such thread running (arch_ftrace_in_entry). The next tick, a few instructions later,
 * preempts it.
 */
notrace void trap_irq_exit(struct pt_regs *regs)
{
    struct percpu *cpu = this_cpu();
    if (cpu->need_resched && cpu->preempt_count == 0 && cpu->irq_depth == 0 &&
        arch_regs_irqs_enabled(regs) && !arch_ftrace_in_entry(arch_regs_ip(regs)))
        schedule();
}

static void reschedule_ipi(struct pt_regs *regs, void *arg)
{
    this_cpu()->ipis_received++;
    this_cpu()->need_resched = true;
}

void sched_init_cpu(unsigned cpu)
{
    struct run_queue *rq = &run_queues[cpu];
    spin_init(&rq->lock, "run_queue");
    list_init(&rq->ready);
    list_init(&rq->timed_sleepers);
    list_init(&rq->dead);
    struct thread *idle = kzalloc(sizeof(*idle));
    ASSERT(idle);
    idle->pid = 0;
    strlcpy(idle->name, "<idle>", sizeof(idle->name));
    idle->state = THREAD_RUNNING;
    idle->cpu = cpu;
    idle->is_idle = true;
    idle->detached = true;
    wait_queue_init(&idle->exit_wait, "idle_exit");
    /* Interrupts nest on the idle thread's shadow stack like on any other. */
    ASSERT(ftrace_graph_init_thread(idle) == 0);
    list_init(&idle->run_node);
    list_init(&idle->sleep_node);
    idle->last_switch_in_ns = clock_ns();
    rq->idle = idle;
    rq->current = idle;
    cpu_data(cpu)->idle = idle;
    cpu_data(cpu)->current = idle;
    cpu_data(cpu)->current_pid = idle->pid;
    if (cpu == 0)
        arch_set_irq_handler(ARCH_IPI_RESCHEDULE, reschedule_ipi, NULL);
    __atomic_store_n(&sched_ready[cpu], true, __ATOMIC_RELEASE);
}

void sched_idle_loop(void)
{
    struct run_queue *rq = this_rq();
    for (;;) {
        /* The idle thread switches its livepatch state here, where its stack is short. */
        if (unlikely(this_cpu()->current->patch_pending))
            klp_update_patch_state_self();
        arch_irq_disable();
        reap_dead(rq);
        if (rq->nr_ready || this_cpu()->need_resched) {
            arch_irq_enable();
            schedule();
            continue;
        }
        /* Enabling and halting is one step: a wakeup IPI after the check still ends the halt. */
        arch_enable_and_halt();
    }
}

void sched_enqueue_new(struct thread *t)
{
    struct run_queue *rq = &run_queues[t->cpu];
    unsigned long flags = spin_lock_irqsave(&rq->lock);
    bool was_idle = rq->current == rq->idle;
    t->state = THREAD_READY;
    list_add_tail(&rq->ready, &t->run_node);
    rq->nr_ready++;
    trace_sched_wakeup_new(t);
    spin_unlock_irqrestore(&rq->lock, flags);
    if (t->cpu != this_cpu_id() && was_idle)
        sched_kick_cpu(t->cpu);
    else if (t->cpu == this_cpu_id())
        this_cpu()->need_resched = true;
}

uint64_t sched_idle_runtime_ns(unsigned cpu)
{
    struct run_queue *rq = &run_queues[cpu];
    if (!sched_ready[cpu])
        return 0;
    uint64_t t = rq->idle->runtime_ns;
    if (rq->current == rq->idle)
        t += clock_ns() - rq->idle->last_switch_in_ns;
    return t;
}
