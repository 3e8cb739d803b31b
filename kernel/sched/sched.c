/*
 * The scheduler: one run queue per CPU, round robin with a 10-tick slice, preemption when
 * an interrupt returns to a thread, and an idle thread per CPU that halts with interrupts
 * on. Threads never migrate, so a run queue is only ever changed under its own lock and
 * only its CPU switches threads.
 *
 * Real-time threads (SCHED_FIFO, SCHED_RR; priorities 1..99) come before every normal
 * one: the strongest ready one runs, a wakeup of one stronger than the running thread
 * preempts it, and equals take turns only under SCHED_RR (every RR_SLICE_TICKS). So that
 * one spinning forever cannot take its CPU for good, real-time threads get at most
 * RT_RUNTIME_TICKS of every RT_PERIOD_TICKS while a normal thread is ready (Linux's
 * sched_rt_runtime_us / sched_rt_period_us, 0.95 s a second): then the CPU's normal
 * threads, the shell among them, run for the rest of the period. A throttled CPU with no
 * normal thread ready still runs its real-time ones: idling would serve nobody.
 *
 * A thread marked preempt_on_wake (struct thread) that wakes goes to the front of its run
 * queue and preempts the running normal thread. A preempted thread resumes right after
 * its preempter with the rest of its slice (at the front of its priority, if real time):
 * the one who waits is the thread that was running, not every ready one.
 */
#include <arch/asm_calls.h>
#include <arch/cpu.h>
#include <arch/ftrace.h>
#include <arch/irq.h>
#include <arch/thread.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/irqflags.h>
#include <kernel/livepatch.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/sched.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/trace_events.h>
#include <kernel/trap.h>
#include <lib/string.h>

#define SLICE_TICKS 10
#define RR_SLICE_TICKS 100 /* Linux's sched_rr_timeslice_ms at a 1 ms tick */
#define RT_PERIOD_TICKS 1000
#define RT_RUNTIME_TICKS 950

struct run_queue {
    struct spinlock lock;
    struct list_node ready;    /* normal threads, in turn */
    struct list_node rt_ready; /* real-time threads, strongest first, in arrival within one */
    struct list_node timed_sleepers;
    struct thread *current;
    struct thread *idle;
    struct thread *prev;   /* the thread switched away from, for finish_switch */
    struct list_node dead; /* detached threads whose stacks can now be freed */
    unsigned nr_ready;     /* both lists */
    bool wakeup_preempts;  /* a wakeup is to preempt current */
    /* Real-time throttling: ticks real-time threads ran in the period begun at rt_period_start. */
    uint64_t rt_period_start;
    unsigned rt_ticks;
    bool rt_throttled;
    uint64_t rt_throttled_count;
} __cacheline_aligned;

static struct run_queue run_queues[MAX_CPUS];
static bool sched_ready[MAX_CPUS];

static inline struct run_queue *this_rq(void) { return &run_queues[this_cpu_id()]; }

struct thread *current_thread(void) { return this_cpu()->current; }

void preempt_disable(void)
{
    struct percpu *cpu = this_cpu();
    cpu->preempt_count++;
    PREEMPT_OFF_HOOK(cpu->preempt_count);
    barrier();
}

void preempt_enable(void)
{
    barrier();
    struct percpu *cpu = this_cpu();
    PREEMPT_ON_HOOK(cpu->preempt_count);
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

/*
 * Queues t behind the threads of its class and priority, or ahead of them when it was
 * preempted (it keeps its turn, as Linux keeps a preempted real-time task's).
 */
static void rq_enqueue(struct run_queue *rq, struct thread *t, bool front)
{
    rq->nr_ready++;
    if (!thread_is_rt(t)) {
        if (front)
            list_add_head(&rq->ready, &t->run_node);
        else
            list_add_tail(&rq->ready, &t->run_node);
        return;
    }
    struct list_node *pos = rq->rt_ready.next;
    for (; pos != &rq->rt_ready; pos = pos->next) {
        unsigned other = list_entry(pos, struct thread, run_node)->rt_priority;
        if (front ? other <= t->rt_priority : other < t->rt_priority)
            break;
    }
    list_insert_between(&t->run_node, pos->prev, pos);
}

static void rq_dequeue(struct run_queue *rq, struct thread *t)
{
    list_remove(&t->run_node);
    rq->nr_ready--;
}

/* The thread to run next, off its list; the idle thread when none is ready. */
static struct thread *rq_pick(struct run_queue *rq)
{
    bool rt_first = !rq->rt_throttled || list_empty(&rq->ready);
    struct list_node *n = NULL;
    if (rt_first)
        n = list_pop_head(&rq->rt_ready);
    if (!n)
        n = list_pop_head(&rq->ready);
    if (!n)
        n = list_pop_head(&rq->rt_ready);
    if (!n)
        return rq->idle;
    rq->nr_ready--;
    return list_entry(n, struct thread, run_node);
}

/* Whether t, just made ready, is to preempt rq's running thread. */
static bool rq_wakeup_preempts(const struct run_queue *rq, const struct thread *t)
{
    const struct thread *cur = rq->current;
    if (cur->is_idle)
        return false; /* the idle thread leaves at any wakeup anyway */
    if (thread_is_rt(t))
        return !rq->rt_throttled && (!thread_is_rt(cur) || t->rt_priority > cur->rt_priority);
    return READ_ONCE(t->preempt_on_wake) && !thread_is_rt(cur) && !cur->preempt_on_wake;
}

void schedule(void)
{
    /* A livepatch safe point: a thread that calls in here has a stack that can be read
     * whole, unless an interrupt preempted it (the check sees that and leaves it). */
    struct thread *self = this_cpu()->current;
    if (unlikely(self && self->patch_pending))
        klp_update_patch_state_self();
    unsigned long flags = local_irq_save();
    struct percpu *cpu = this_cpu();
    struct run_queue *rq = &run_queues[cpu->cpu];
    if (!sched_ready[cpu->cpu]) {
        local_irq_restore(flags);
        return;
    }
    if (cpu->preempt_count != 0 && !panic_in_progress)
        panic("schedule() with preemption disabled (count %d)", cpu->preempt_count);

    spin_lock(&rq->lock);
    cpu->need_resched = false;
    struct thread *prev = rq->current;
    bool requeue = prev->state == THREAD_RUNNING && !prev->is_idle;
    /* Preempted by a wakeup: prev goes back ahead of its equals, once the thread that woke
     * (which may be one of them, at the front) has been picked. */
    bool preempted = requeue && rq->wakeup_preempts;
    rq->wakeup_preempts = false;
    if (requeue) {
        prev->state = THREAD_READY;
        if (!preempted)
            rq_enqueue(rq, prev, false);
    }
    struct thread *next = rq_pick(rq);
    if (preempted) {
        if (next == rq->idle) {
            next = prev;
        } else {
            rq_enqueue(rq, prev, true);
            prev->resume_slice = true;
        }
    }
    if (next != prev) {
        trace_sched_switch(prev, next);
        if (unlikely(trace_sched_hooks_on))
            trace_sched_switch_latency(prev, next);
    }
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
    local_irq_restore(flags);
}

/* First code of every new thread, entered from arch_thread_start with interrupts off. */
void __noreturn thread_entry(void)
{
    finish_switch();
    struct thread *t = current_thread();
    local_irq_enable();
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
    bool preempt = rq_wakeup_preempts(rq, t);
    /* A preempt_on_wake thread goes ahead of its equals; a real-time one's priority is
     * its place. */
    rq_enqueue(rq, t, preempt && !thread_is_rt(t));
    rq->wakeup_preempts |= preempt;
    trace_sched_wakeup(t);
    if (unlikely(trace_sched_hooks_on))
        trace_sched_wakeup_latency(t);
    return preempt;
}

/* Whether rq's normal thread of long enough must give way to a ready real-time one. */
static bool rq_rt_waits(const struct run_queue *rq)
{
    return !rq->rt_throttled && !list_empty(&rq->rt_ready) && !thread_is_rt(rq->current);
}

/*
 * Real-time throttling, once a tick; true when the CPU must switch: its real-time threads
 * just used up their share of the period with a normal thread ready, or a new period let
 * them run again.
 */
static bool rq_rt_tick(struct run_queue *rq, const struct thread *cur, uint64_t tick)
{
    bool switch_now = false;
    if (tick - rq->rt_period_start >= RT_PERIOD_TICKS) {
        rq->rt_period_start = tick;
        rq->rt_ticks = 0;
        if (rq->rt_throttled) {
            rq->rt_throttled = false;
            switch_now = rq_rt_waits(rq);
        }
    }
    if (thread_is_rt(cur) && ++rq->rt_ticks >= RT_RUNTIME_TICKS && !rq->rt_throttled) {
        rq->rt_throttled = true;
        rq->rt_throttled_count++;
    }
    return switch_now || (rq->rt_throttled && thread_is_rt(cur) && !list_empty(&rq->ready));
}

/* Whether a real-time current has run its turn: SCHED_RR with an equal ready. */
static bool rq_rr_turn_over(struct run_queue *rq, struct thread *cur)
{
    if (cur->policy != SCHED_RR || ++cur->slice_ticks < RR_SLICE_TICKS)
        return false;
    cur->slice_ticks = 0;
    struct list_node *first = rq->rt_ready.next;
    return first != &rq->rt_ready &&
           list_entry(first, struct thread, run_node)->rt_priority == cur->rt_priority;
}

int sched_setscheduler(struct thread *t, int policy, int rt_priority)
{
    bool rt = policy == SCHED_FIFO || policy == SCHED_RR;
    if ((policy != SCHED_NORMAL && !rt) || t->is_idle)
        return -EINVAL;
    if (rt ? rt_priority < SCHED_RT_PRIO_MIN || rt_priority > SCHED_RT_PRIO_MAX : rt_priority)
        return -EINVAL;
    struct run_queue *rq = &run_queues[t->cpu];
    unsigned long flags = spin_lock_irqsave(&rq->lock);
    if (t->state == THREAD_DEAD) {
        spin_unlock_irqrestore(&rq->lock, flags);
        return -ESRCH;
    }
    bool queued = t->state == THREAD_READY;
    if (queued)
        rq_dequeue(rq, t);
    t->policy = (uint8_t)policy;
    t->rt_priority = (uint8_t)rt_priority;
    t->prio = rt ? MAX_RT_PRIO - 1 - rt_priority : SCHED_NORMAL_PRIO;
    if (queued)
        rq_enqueue(rq, t, false);
    spin_unlock_irqrestore(&rq->lock, flags);
    /* Whoever is now strongest on t's CPU gets it at its next interrupt. */
    if (t->cpu == this_cpu_id())
        this_cpu()->need_resched = true;
    else
        sched_kick_cpu(t->cpu);
    return 0;
}

uint64_t sched_rt_throttled_count(unsigned cpu) { return run_queues[cpu].rt_throttled_count; }

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
    preempt |= rq_rt_tick(rq, cur, cpu->ticks);
    if (thread_is_rt(cur))
        preempt |= rq_rr_turn_over(rq, cur);
    else if (rq_rt_waits(rq) ||
             (rq->nr_ready && (cur->is_idle || ++cur->slice_ticks >= SLICE_TICKS)))
        preempt = true;
    if (preempt)
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
    list_init(&rq->rt_ready);
    list_init(&rq->timed_sleepers);
    list_init(&rq->dead);
    struct thread *idle = kzalloc(sizeof(*idle));
    ASSERT(idle);
    idle->prio = SCHED_NORMAL_PRIO;
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
        local_irq_disable();
        reap_dead(rq);
        if (rq->nr_ready || this_cpu()->need_resched) {
            local_irq_enable();
            schedule();
            continue;
        }
        /* Enabling and halting is one step: a wakeup IPI after the check still ends the halt. */
        local_irq_enable_and_halt();
    }
}

void sched_enqueue_new(struct thread *t)
{
    struct run_queue *rq = &run_queues[t->cpu];
    unsigned long flags = spin_lock_irqsave(&rq->lock);
    bool was_idle = rq->current == rq->idle;
    t->state = THREAD_READY;
    rq_enqueue(rq, t, false);
    trace_sched_wakeup_new(t);
    if (unlikely(trace_sched_hooks_on))
        trace_sched_wakeup_latency(t);
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
