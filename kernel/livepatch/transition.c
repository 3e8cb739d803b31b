/*
 * The consistency model (docs/livepatch.md). During a transition every thread has a patch
 * state, and the ftrace handler runs the version of a function that matches the calling
 * thread's state. A thread is switched to the target state only when its stack holds no
 * function the transition replaces, so a thread never mixes old and new versions of the
 * patch's functions within one call chain:
 *   - a thread that is not running is switched by its own CPU, from the timer tick with
 *     interrupts off (nothing can switch to it meanwhile), after a walk of its saved stack;
 *   - a running thread switches itself at a safe point: when it enters the scheduler, or
 *     at the top of the idle loop, after a walk of its own stack;
 *   - the walks are the arch's reliable ones (arch_stack_walk_reliable): they report every
 *     function a stack is inside, a preempted thread's interrupted code included, or
 *     fail, and a stack that cannot be read whole does not switch;
 *   - a new thread starts with nothing on its stack, so it starts in the target state.
 * A worker thread retries until no thread is left, then completes the transition.
 */
#include <arch/cpu.h>
#include <arch/unwind.h>
#include <kernel/errno.h>
#include <kernel/irqflags.h>
#include <kernel/livepatch.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/string.h>

#include "livepatch_internal.h"

#define KLP_RETRY_NS (10 * NSEC_PER_MSEC) /* between the worker's tries */

DEFINE_SPINLOCK(klp_state_lock);
struct klp_patch *klp_transition_patch;
int klp_target_state = KLP_UNDEFINED;

/* ---- Reading a stack ---- */

/* Whether pc, an address inside a function, is in one the running transition replaces. */
static bool klp_pc_replaced(unsigned long pc)
{
    struct klp_patch *patch = klp_transition_patch;
    struct klp_object *obj;
    struct klp_func *func;
    klp_for_each_object(patch, obj)
        klp_for_each_func(obj, func) {
            unsigned long start, size;
            if (klp_target_state == KLP_UNPATCHED) {
                start = (unsigned long)func->new_func;
                size = func->new_size;
            } else {
                klp_func_below(func, &start, &size);
            }
            if (pc >= start && pc < start + size)
                return true;
        }
    return false;
}

static bool klp_frame_unaffected(void *cookie, unsigned long pc) { return !klp_pc_replaced(pc); }

/*
 * Whether t can switch: its whole stack was read (a stack the arch cannot walk reliably
 * is taken as busy) and no frame in it runs a function the transition replaces. t is the
 * calling thread, or one that cannot run meanwhile.
 */
static bool klp_stack_clean(struct thread *t)
{
    return arch_stack_walk_reliable(klp_frame_unaffected, NULL, t) == 0;
}

static void klp_switch_thread(struct thread *t)
{
    WRITE_ONCE(t->patch_state, klp_target_state);
    WRITE_ONCE(t->patch_pending, false);
}

/* ---- Switching threads ---- */

void klp_thread_init(struct thread *t)
{
    t->patch_state = klp_transition_patch ? klp_target_state : KLP_UNDEFINED;
    t->patch_pending = false;
}

void klp_update_patch_state_self(void)
{
    unsigned long flags = spin_lock_irqsave(&klp_state_lock);
    struct thread *t = this_cpu()->current;
    if (t->patch_pending && klp_transition_patch) {
        if (klp_stack_clean(t))
            klp_switch_thread(t);
    }
    spin_unlock_irqrestore(&klp_state_lock, flags);
}

static void klp_switch_if_sleeping(struct thread *t, void *arg)
{
    unsigned cpu = *(const unsigned *)arg;
    if (t->cpu != cpu || !t->patch_pending || t == this_cpu()->current || t->state == THREAD_DEAD)
        return;
    if (klp_stack_clean(t))
        klp_switch_thread(t);
}

/*
 * Rounds of checks of the threads that are not running, one per CPU, run by each CPU's
 * timer tick: with interrupts off, none of its other threads can be switched to while it
 * reads their saved stacks. (Not a cross-CPU call: one that waits spins with preemption
 * off until every CPU has run it, where the driver sleeps and gives up after KLP_RETRY_NS,
 * and one that does not wait allocates its requests, which can fail. The tick also wakes
 * idle CPUs, whose idle loop then switches their idle thread.)
 */
static unsigned long klp_round_wanted;
static unsigned long klp_round_done[MAX_CPUS];

static void klp_switch_cpu_threads(void)
{
    unsigned cpu = this_cpu_id();
    spin_lock(&klp_state_lock);
    if (klp_transition_patch)
        thread_for_each_locked(klp_switch_if_sleeping, &cpu);
    spin_unlock(&klp_state_lock);
}

void klp_tick(void)
{
    unsigned cpu = this_cpu_id();
    unsigned long want = __atomic_load_n(&klp_round_wanted, __ATOMIC_ACQUIRE);
    if (likely(klp_round_done[cpu] == want))
        return;
    klp_switch_cpu_threads();
    __atomic_store_n(&klp_round_done[cpu], want, __ATOMIC_RELEASE);
}

static unsigned long klp_request_round(void)
{
    return __atomic_add_fetch(&klp_round_wanted, 1, __ATOMIC_RELEASE);
}

static bool klp_round_finished(unsigned long round)
{
    cpumask_t online = cpu_online_mask();
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if ((online >> cpu) & 1 &&
            (long)(__atomic_load_n(&klp_round_done[cpu], __ATOMIC_ACQUIRE) - round) < 0)
            return false;
    return true;
}

static void klp_count_pending(struct thread *t, void *arg)
{
    if (t->patch_pending && t->state != THREAD_DEAD)
        (*(size_t *)arg)++;
}

size_t klp_pending_threads(void)
{
    size_t n = 0;
    unsigned long flags = spin_lock_irqsave(&klp_state_lock);
    if (klp_transition_patch)
        thread_for_each_locked(klp_count_pending, &n);
    spin_unlock_irqrestore(&klp_state_lock, flags);
    return n;
}

struct klp_pending_list {
    struct klp_pending_thread *out;
    size_t n, max;
};

static void klp_collect_pending(struct thread *t, void *arg)
{
    struct klp_pending_list *l = arg;
    if (!t->patch_pending || t->state == THREAD_DEAD || l->n == l->max)
        return;
    struct klp_pending_thread *p = &l->out[l->n++];
    p->pid = t->pid;
    p->cpu = t->cpu;
    p->running = t->state == THREAD_RUNNING;
    strlcpy(p->name, t->name, sizeof(p->name));
}

size_t klp_list_pending(struct klp_pending_thread *out, size_t max)
{
    struct klp_pending_list l = {out, 0, max};
    unsigned long flags = spin_lock_irqsave(&klp_state_lock);
    if (klp_transition_patch)
        thread_for_each_locked(klp_collect_pending, &l);
    spin_unlock_irqrestore(&klp_state_lock, flags);
    return l.n;
}

/* ---- The transition ---- */

static void klp_set_initial(struct thread *t, void *arg)
{
    t->patch_state = *(const int *)arg;
    t->patch_pending = false;
}

static void klp_set_pending(struct thread *t, void *arg)
{
    if (t->patch_state != klp_target_state && t->state != THREAD_DEAD)
        t->patch_pending = true;
}

static void klp_set_undefined(struct thread *t, void *arg)
{
    t->patch_state = KLP_UNDEFINED;
    t->patch_pending = false;
}

static void klp_set_target(struct thread *t, void *arg)
{
    if (t->patch_pending)
        klp_switch_thread(t);
}

static void klp_set_funcs_transition(struct klp_patch *patch, bool on)
{
    struct klp_object *obj;
    struct klp_func *func;
    klp_for_each_object(patch, obj)
        klp_for_each_func(obj, func)
            WRITE_ONCE(func->transition, on);
}

void klp_init_transition(struct klp_patch *patch, int target)
{
    int initial = target == KLP_PATCHED ? KLP_UNPATCHED : KLP_PATCHED;
    unsigned long flags = spin_lock_irqsave(&klp_state_lock);
    klp_transition_patch = patch;
    klp_target_state = target;
    thread_for_each_locked(klp_set_initial, &initial);
    spin_unlock_irqrestore(&klp_state_lock, flags);
    /* Every state is in place before a handler can see the transition and read one. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    klp_set_funcs_transition(patch, true);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Ends the transition: no handler looks at a thread's state any more. */
static void klp_finish(struct klp_patch *patch)
{
    klp_set_funcs_transition(patch, false);
    /* A handler that read transition as set has finished with the state it read. */
    smp_sync_all();
    unsigned long flags = spin_lock_irqsave(&klp_state_lock);
    thread_for_each_locked(klp_set_undefined, NULL);
    klp_transition_patch = NULL;
    klp_target_state = KLP_UNDEFINED;
    spin_unlock_irqrestore(&klp_state_lock, flags);
}

void klp_cancel_transition(void) { klp_finish(klp_transition_patch); }

void klp_start_transition(void)
{
    /* Quiet: a transition ends in the worker at any time, and the console is the shell's.
     * The forced end, which the user asked for, is the one that prints. */
    unsigned long flags = spin_lock_irqsave(&klp_state_lock);
    thread_for_each_locked(klp_set_pending, NULL);
    spin_unlock_irqrestore(&klp_state_lock, flags);
}

static void klp_complete_transition(void)
{
    struct klp_patch *patch = klp_transition_patch;
    int target = klp_target_state;
    if (target == KLP_UNPATCHED) {
        /* Every thread runs the older versions now: the ops can go. */
        klp_unpatch_objects(patch);
    }
    klp_finish(patch);
}

bool klp_try_complete_transition(void)
{
    if (!klp_transition_patch)
        return true;
    klp_update_patch_state_self();
    /* This CPU's threads now; the other CPUs' at their next tick (the worker's rounds). */
    unsigned long flags = local_irq_save();
    klp_switch_cpu_threads();
    local_irq_restore(flags);
    if (klp_pending_threads())
        return false;
    klp_complete_transition();
    return true;
}

bool klp_patch_in_transition(const struct klp_patch *patch)
{
    return READ_ONCE(klp_transition_patch) == patch;
}

int klp_force_transition(struct klp_patch *patch)
{
    spin_lock(&klp_lock);
    int err = 0;
    if (!klp_transition_patch || klp_transition_patch != patch) {
        err = -EINVAL;
    } else {
        printk("livepatch: '%s': forcing %zu remaining threads to the %s state\n", patch->name,
               klp_pending_threads(), klp_target_state == KLP_PATCHED ? "patched" : "unpatched");
        unsigned long flags = spin_lock_irqsave(&klp_state_lock);
        thread_for_each_locked(klp_set_target, NULL);
        spin_unlock_irqrestore(&klp_state_lock, flags);
        patch->forced = true;
        klp_complete_transition();
    }
    spin_unlock(&klp_lock);
    return err;
}

/* ---- Driving a transition: the writer, waiters, and the worker ---- */

/*
 * One try: ask every CPU's tick for a round, wait until all have run it (at most
 * KLP_RETRY_NS), then switch what is left here and complete the transition if no
 * thread is pending. True once no transition runs.
 */
static bool klp_drive_once(void)
{
    if (!READ_ONCE(klp_transition_patch))
        return true;
    unsigned long round = klp_request_round();
    uint64_t deadline = clock_ns() + KLP_RETRY_NS;
    while (!klp_round_finished(round) && clock_ns() < deadline)
        sleep_ns(NSEC_PER_MSEC);
    spin_lock(&klp_lock);
    bool done = klp_try_complete_transition();
    spin_unlock(&klp_lock);
    return done;
}

bool klp_drive(uint64_t timeout_ns)
{
    uint64_t deadline = clock_ns() + timeout_ns;
    for (;;) {
        if (klp_drive_once())
            return true;
        if (clock_ns() >= deadline)
            return false;
    }
}

int klp_wait_transition(const struct klp_patch *patch, uint64_t timeout_ns)
{
    uint64_t deadline = clock_ns() + timeout_ns;
    while (klp_patch_in_transition(patch)) {
        if (clock_ns() >= deadline)
            return -ETIMEDOUT;
        klp_drive_once();
    }
    klp_reap_idle_worker();
    return 0;
}

int klp_wait_all(uint64_t timeout_ns)
{
    uint64_t deadline = clock_ns() + timeout_ns;
    while (READ_ONCE(klp_transition_patch)) {
        if (clock_ns() >= deadline)
            return -ETIMEDOUT;
        if (sleep_ns_interruptible(1000) == -EINTR) /* a Ctrl-C check */
            return -EINTR;
        klp_drive_once();
    }
    klp_reap_idle_worker();
    return 0;
}

/*
 * The worker, made only when the write that started a transition could not complete it
 * within KLP_WRITE_DRIVE_NS: it drives it to the end, however long that takes. Enabling
 * and disabling run one at a time (a second, concurrent one is EBUSY, as it would be once
 * the first has started its transition), so that the one worker can be joined, and its
 * memory given back, by the next change or by a wait.
 */
static bool klp_changing;
static struct thread *klp_worker; /* the last worker, joinable; under klp_changing */

static int klp_worker_main(void *arg)
{
    while (!klp_drive(NSEC_PER_SEC))
        ;
    return 0;
}

int klp_change_begin(void)
{
    return __atomic_exchange_n(&klp_changing, true, __ATOMIC_ACQUIRE) ? -EBUSY : 0;
}

void klp_change_end(void) { __atomic_store_n(&klp_changing, false, __ATOMIC_RELEASE); }

/* With klp_changing held and no transition running: the worker is ending, if not gone. */
void klp_reap_worker(void)
{
    if (klp_worker) {
        kthread_join(klp_worker);
        klp_worker = NULL;
    }
}

void klp_reap_idle_worker(void)
{
    if (klp_change_begin() == 0) {
        if (!READ_ONCE(klp_transition_patch))
            klp_reap_worker();
        klp_change_end();
    }
}

/*
 * With klp_changing held, a transition running. Without memory for a thread the
 * transition stays for `livepatch wait` (or anything that waits) or force to end.
 */
void klp_start_worker(void)
{
    klp_worker = kthread_create(klp_worker_main, NULL, "klp_transition", this_cpu_id());
    if (!klp_worker)
        printk("livepatch: no worker thread (%s): the transition ends on a wait or force\n",
               strerror(ENOMEM));
}
