/*
 * Kernel threads: creation on a chosen CPU, exit, join and reaping, and the list of every
 * thread that ps walks. A thread's stack has an unmapped guard page below it.
 */
#include <arch/cpu.h>
#include <arch/thread.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/irqflags.h>
#include <kernel/livepatch.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/sched.h>
#include <kernel/shell.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/trace_events.h>
#include <lib/printf.h>
#include <lib/string.h>

static struct list_node all_threads = LIST_INIT(all_threads);

/*
 * Names of recent threads by pid, kept after they exit, so a trace read later can still
 * say who ran (Linux's saved_cmdlines). Slot = pid % size; a newer pid evicts an older.
 */
#define COMM_CACHE_SIZE 1024
static struct {
    int pid;
    char name[THREAD_NAME_LEN];
} comm_cache[COMM_CACHE_SIZE];

bool thread_comm_of(int pid, char *buf, size_t len)
{
    if (pid <= 0)
        return false;
    unsigned slot = (unsigned)pid % COMM_CACHE_SIZE;
    /* Racy by design against a concurrent create: the worst case is a stale name. */
    if (READ_ONCE(comm_cache[slot].pid) != pid)
        return false;
    strlcpy(buf, comm_cache[slot].name, len < THREAD_NAME_LEN ? len : THREAD_NAME_LEN);
    return true;
}
static DEFINE_SPINLOCK(all_threads_lock);
static int next_pid = 1;
static size_t nr_threads;

struct thread *kthread_create(int (*fn)(void *arg), void *arg, const char *name, unsigned cpu)
{
    if (cpu >= MAX_CPUS || !cpu_data(cpu)->online)
        return NULL;
    struct thread *t = kzalloc(sizeof(*t));
    if (!t)
        return NULL;
    t->stack_top = vmalloc_stack(THREAD_STACK_PAGES);
    if (!t->stack_top) {
        kfree(t);
        return NULL;
    }
    t->stack_pages = THREAD_STACK_PAGES;
    t->prio = SCHED_NORMAL_PRIO; /* and policy SCHED_NORMAL, 0, from kzalloc */
    if (ftrace_graph_init_thread(t) != 0) {
        vfree_stack(t->stack_top, t->stack_pages);
        kfree(t);
        return NULL;
    }
    t->saved_sp = arch_thread_init_stack(t->stack_top);
    strlcpy(t->name, name, sizeof(t->name));
    t->cpu = cpu;
    t->fn = fn;
    t->arg = arg;
    wait_queue_init(&t->exit_wait, "thread_exit");
    list_init(&t->run_node);
    list_init(&t->sleep_node);

    unsigned long flags = spin_lock_irqsave(&all_threads_lock);
    t->pid = next_pid++;
    /* Under the list lock, so a livepatch transition sees the thread or sets its state. */
    klp_thread_init(t);
    list_add_tail(&all_threads, &t->all_node);
    unsigned slot = (unsigned)t->pid % COMM_CACHE_SIZE;
    strlcpy(comm_cache[slot].name, t->name, THREAD_NAME_LEN);
    WRITE_ONCE(comm_cache[slot].pid, t->pid);
    nr_threads++;
    spin_unlock_irqrestore(&all_threads_lock, flags);

    trace_sched_process_fork(current_thread(), t);
    sched_enqueue_new(t);
    return t;
}

void thread_free(struct thread *t)
{
    trace_sched_process_free(t);
    unsigned long flags = spin_lock_irqsave(&all_threads_lock);
    list_remove(&t->all_node);
    nr_threads--;
    spin_unlock_irqrestore(&all_threads_lock, flags);
    vfree_stack(t->stack_top, t->stack_pages);
    ftrace_graph_free_thread(t);
    kfree(t);
}

static bool thread_reapable(void *arg)
{
    return __atomic_load_n(&((struct thread *)arg)->off_cpu, __ATOMIC_ACQUIRE);
}

int kthread_join(struct thread *t)
{
    wait_event(&t->exit_wait, thread_reapable, t);
    int code = t->exit_code;
    thread_free(t);
    return code;
}

void kthread_detach(struct thread *t) { t->detached = true; }

void kthread_exit(int code)
{
    struct thread *t = current_thread();
    ASSERT(!t->is_idle);
    t->exit_code = code;
    trace_sched_process_exit(t);
    local_irq_disable();
    /* The state change and the switch happen with interrupts off, so nothing runs this
     * thread again; finish_switch on the next thread tells the joiner. */
    t->state = THREAD_DEAD;
    schedule();
    panic("dead thread %d was scheduled again", t->pid);
}

void thread_for_each_locked(void (*fn)(struct thread *t, void *arg), void *arg)
{
    unsigned long flags = spin_lock_irqsave(&all_threads_lock);
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (cpu_data(cpu)->online && cpu_data(cpu)->idle)
            fn(cpu_data(cpu)->idle, arg);
    struct list_node *pos;
    list_for_each(pos, &all_threads)
        fn(list_entry(pos, struct thread, all_node), arg);
    spin_unlock_irqrestore(&all_threads_lock, flags);
}

/* The read-only walk is the same walk with a callback that takes a const thread. */
struct thread_visit_const {
    void (*fn)(const struct thread *t, void *arg);
    void *arg;
};

static void visit_const(struct thread *t, void *arg)
{
    struct thread_visit_const *v = arg;
    v->fn(t, v->arg);
}

static void thread_for_each(void (*fn)(const struct thread *t, void *arg), void *arg)
{
    struct thread_visit_const v = {fn, arg};
    thread_for_each_locked(visit_const, &v);
}

size_t thread_count(void) { return nr_threads; }

/* A thread's policy and priority by pid, under the list lock so it cannot be freed meanwhile. */
struct sched_by_pid {
    int pid;
    bool set;
    int policy, rt_priority;
    int err; /* -ESRCH until the thread is found */
};

static void sched_by_pid_visit(struct thread *t, void *arg)
{
    struct sched_by_pid *op = arg;
    if (t->pid != op->pid || t->is_idle || op->err != -ESRCH)
        return;
    if (op->set) {
        op->err = sched_setscheduler(t, op->policy, op->rt_priority);
        return;
    }
    op->err = t->state == THREAD_DEAD ? -ESRCH : 0;
    op->policy = t->policy;
    op->rt_priority = t->rt_priority;
}

int sched_getscheduler_pid(int pid, int *policy, int *rt_priority)
{
    struct sched_by_pid op = {.pid = pid, .err = -ESRCH};
    thread_for_each_locked(sched_by_pid_visit, &op);
    *policy = op.policy;
    *rt_priority = op.rt_priority;
    return op.err;
}

int sched_setscheduler_pid(int pid, int policy, int rt_priority)
{
    struct sched_by_pid op = {
        .pid = pid, .set = true, .policy = policy, .rt_priority = rt_priority, .err = -ESRCH};
    thread_for_each_locked(sched_by_pid_visit, &op);
    return op.err;
}

/* ps output is collected first: the shell must not write while holding the list lock. */
struct ps_row {
    int pid;
    unsigned cpu;
    char state;
    uint8_t policy;
    uint8_t rt_priority;
    char name[THREAD_NAME_LEN];
    uint64_t runtime_ms;
};

struct ps_collect {
    struct ps_row *rows;
    size_t n, cap;
};

static void ps_collect_one(const struct thread *t, void *arg)
{
    struct ps_collect *c = arg;
    if (c->n == c->cap)
        return;
    static const char state_chars[] = {'R', 'R', 'S', 'Z'};
    struct ps_row *r = &c->rows[c->n++];
    r->pid = t->pid;
    r->cpu = t->cpu;
    r->state = t->state == THREAD_READY ? 'R' : state_chars[t->state];
    if (t->state == THREAD_SLEEPING && t->is_idle)
        r->state = 'R';
    r->policy = t->policy;
    r->rt_priority = t->rt_priority;
    strlcpy(r->name, t->name, sizeof(r->name));
    uint64_t runtime = t->runtime_ns;
    if (t->state == THREAD_RUNNING && cpu_data(t->cpu)->current == t)
        runtime += clock_ns() - t->last_switch_in_ns;
    r->runtime_ms = runtime / 1000000;
}

SHELL_COMMAND(ps, "ps",
              "list threads: pid, CPU, state (R running/ready, S sleeping, Z dead), class (TS "
              "normal, FF fifo, RR round robin), real-time priority")
{
    if (argc != 1)
        return shell_usage(ctx);
    struct ps_collect c = {.cap = thread_count() + MAX_CPUS + 16};
    c.rows = kmalloc(c.cap * sizeof(*c.rows));
    if (!c.rows) {
        shell_eprintf(ctx, "ps: %s\n", strerror(ENOMEM));
        return 1;
    }
    thread_for_each(ps_collect_one, &c);
    /* CLS and RTPRIO as Linux's ps -o cls,rtprio shows them. */
    static const char *const classes[] = {
        [SCHED_NORMAL] = "TS", [SCHED_FIFO] = "FF", [SCHED_RR] = "RR"};
    int err = shell_printf(ctx, "  PID CPU S CLS RTPRIO    TIME NAME\n");
    for (size_t i = 0; i < c.n && err >= 0; i++) {
        const struct ps_row *r = &c.rows[i];
        char rtprio[4] = "-";
        if (r->policy != SCHED_NORMAL)
            snprintf(rtprio, sizeof(rtprio), "%u", r->rt_priority);
        err = shell_printf(ctx, "%5d %3u %c %3s %6s %5llu.%02llu %s\n", r->pid, r->cpu, r->state,
                           classes[r->policy], rtprio, (unsigned long long)(r->runtime_ms / 1000),
                           (unsigned long long)(r->runtime_ms / 10 % 100), r->name);
    }
    kfree(c.rows);
    return 0;
}
