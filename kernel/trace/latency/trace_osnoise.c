/*
 * The osnoise and timerlat tracers, as Linux 6.1's (Documentation/trace/osnoise-tracer.rst
 * and timerlat-tracer.rst), with their files under osnoise/ and the osnoise: events.
 *
 * osnoise: a thread per CPU of osnoise/cpus reads the clock in a loop for runtime_us of
 * every period_us with interrupts and preemption on. A gap between two reads of at least
 * tracing_thresh (5 us when it is 0) is noise; the sum, the largest gap and how many
 * interrupts, NMIs and other threads came meanwhile (counted by the hooks below) make one
 * summary line per CPU and period. A gap during which none of them came counts as HW: on
 * hardware an SMI, under an emulator the emulator. There are no softirqs here: SIRQ is 0.
 *
 * timerlat: a SCHED_FIFO 95 thread per CPU arms this CPU's timer (cpu_timer_arm) for the
 * next multiple of timerlat_period_us; the timer's interrupt records how late it came
 * (context irq) and wakes the thread, which records how late it runs (context thread).
 * Both are measured from the same expected time, so the thread's is never the smaller.
 *
 * The hooks: every interrupt and NMI (the entry code, <kernel/ftrace.h>) and every context
 * switch (the scheduler's switch hook) of a CPU that samples are counted and timed, and
 * become the osnoise: events with net durations (an interrupt's time is taken out of the
 * thread it interrupted). They cost one byte's test while neither tracer runs. Everything
 * per CPU is written only by that CPU: its thread, its interrupts, its switches.
 *
 * The tracer switch may sleep (a mutex), so reset stops the threads and joins them: no
 * thread of an old run is left when the next tracer starts.
 */
#include <arch/cpu.h>
#include <arch/unwind.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/init.h>
#include <kernel/irqflags.h>
#include <kernel/mutex.h>
#include <kernel/percpu.h>
#include <kernel/sched.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/trace_events.h>
#include <kernel/wait.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "latency.h"

#define OSNOISE_DEFAULT_PERIOD_US 1000000ULL
#define OSNOISE_DEFAULT_RUNTIME_US 1000000ULL
#define OSNOISE_DEFAULT_THRESH_NS 5000ULL
#define TIMERLAT_DEFAULT_PERIOD_US 1000ULL
#define TIMERLAT_MIN_PERIOD_US 100ULL
#define TIMERLAT_MAX_PERIOD_US 1000000ULL
#define TIMERLAT_PRIO 95

/* The files of osnoise/ (us); the threads read them afresh every period. */
static volatile uint64_t osnoise_period_us = OSNOISE_DEFAULT_PERIOD_US;
static volatile uint64_t osnoise_runtime_us = OSNOISE_DEFAULT_RUNTIME_US;
static volatile uint64_t osnoise_stop_us;
static volatile uint64_t osnoise_stop_total_us;
static volatile uint64_t timerlat_period_us = TIMERLAT_DEFAULT_PERIOD_US;
static volatile uint64_t timerlat_print_stack_us;
static cpumask_t osnoise_cpumask;
static bool osnoise_cpumask_set;

enum osnoise_mode { OSNOISE_MODE_OFF, OSNOISE_MODE_OSNOISE, OSNOISE_MODE_TIMERLAT };

#define TIMERLAT_STACK_MAX TRACE_STACK_MAX

/* Linux's osnoise_variables and timerlat_variables, one per CPU. */
struct osnoise_cpu {
    struct thread *thread;
    struct wait_queue sleep; /* osnoise's wait between two runtimes */
    volatile bool stop;
    volatile bool sampling; /* the hooks count and time only while set */
    /* Counts since the start (the thread takes differences), incremented at entry. */
    volatile uint64_t nmi_count, irq_count, thread_count;
    /* Interference under way: when it began, and the start its net duration is taken
     * from (moved on by what interrupted it); 0: none. */
    uint64_t irq_arrival, irq_delta_start;
    uint64_t nmi_arrival;
    uint64_t thread_arrival, thread_delta_start;
    /* timerlat */
    uint64_t abs_period;          /* when the timer is to fire */
    volatile bool fired;          /* the timer fired since the thread armed it */
    volatile bool tracing_thread; /* between the timer's interrupt and the thread's line */
    uint32_t seqnum;
    uint32_t stack_nr;
    uint32_t stack[TIMERLAT_STACK_MAX];
};

static struct osnoise_cpu osnoise_cpus[MAX_CPUS];
static volatile enum osnoise_mode osnoise_mode;
static DEFINE_MUTEX(osnoise_lock); /* starting and stopping the threads */

volatile uint8_t trace_osnoise_hooks_on;

static inline struct osnoise_cpu *this_osnoise(void) { return &osnoise_cpus[this_cpu_id()]; }

/* ---- the hooks ---- */

void trace_osnoise_irq_entry(void)
{
    struct osnoise_cpu *o = this_osnoise();
    if (!o->sampling)
        return;
    uint64_t now = clock_ns();
    o->irq_arrival = now;
    o->irq_delta_start = now;
    o->irq_count++;
}

void trace_osnoise_irq_exit(const char *desc, int number)
{
    struct osnoise_cpu *o = this_osnoise();
    if (!o->sampling || !o->irq_arrival)
        return;
    uint64_t now = clock_ns();
    uint64_t duration = now - o->irq_delta_start;
    trace_irq_noise(number, desc, o->irq_arrival, duration);
    o->irq_arrival = 0;
    if (o->thread_arrival)
        o->thread_delta_start += duration;
}

void trace_osnoise_nmi_entry(void)
{
    struct osnoise_cpu *o = this_osnoise();
    if (!o->sampling)
        return;
    o->nmi_arrival = clock_ns();
    o->nmi_count++;
}

void trace_osnoise_nmi_exit(void)
{
    struct osnoise_cpu *o = this_osnoise();
    if (!o->sampling || !o->nmi_arrival)
        return;
    uint64_t duration = clock_ns() - o->nmi_arrival;
    trace_nmi_noise(o->nmi_arrival, duration);
    o->nmi_arrival = 0;
    if (o->irq_arrival)
        o->irq_delta_start += duration;
    if (o->thread_arrival)
        o->thread_delta_start += duration;
}

static const char *osnoise_comm(const struct thread *t) { return t->is_idle ? "<idle>" : t->name; }

void osnoise_sched_switch(struct thread *prev, struct thread *next)
{
    struct osnoise_cpu *o = this_osnoise();
    if (!o->sampling)
        return;
    uint64_t now = clock_ns();
    if (prev != o->thread && o->thread_arrival) {
        /* Under timerlat only what delays the thread after its timer fired is noise. */
        if (osnoise_mode != OSNOISE_MODE_TIMERLAT || o->tracing_thread)
            trace_thread_noise(osnoise_comm(prev), prev->pid, o->thread_arrival,
                               now - o->thread_delta_start);
        o->thread_arrival = 0;
    }
    if (next != o->thread) {
        o->thread_arrival = now;
        o->thread_delta_start = now;
        o->thread_count++;
    }
}

/* ---- what both tracers write ---- */

/* Linux's osnoise_stop_tracing: a line that says why, then tracing_on goes to 0. */
static void osnoise_stop_tracing(void)
{
    trace_printk("stop tracing hit on cpu %u\n", this_cpu_id());
    trace_set_on(false);
}

static void osnoise_record_sample(uint64_t runtime_us, uint64_t noise_us, uint64_t max_us,
                                  uint32_t hw, uint32_t nmi, uint32_t irq, uint32_t thread)
{
    struct percpu *cpu = this_cpu();
    if (!trace_should_record_on(cpu))
        return;
    struct rb_reservation res;
    struct trace_osnoise_event *ev = rb_reserve(trace_global.buffer, sizeof(*ev), &res);
    if (!ev)
        return;
    ev->ctx = trace_ctx_on(cpu, TRACE_OSNOISE, 0);
    ev->runtime_lo = (uint32_t)runtime_us;
    ev->runtime_hi = (uint32_t)(runtime_us >> 32);
    ev->noise_lo = (uint32_t)noise_us;
    ev->noise_hi = (uint32_t)(noise_us >> 32);
    ev->max_sample_lo = (uint32_t)max_us;
    ev->max_sample_hi = (uint32_t)(max_us >> 32);
    ev->hw_count = hw;
    ev->nmi_count = nmi;
    ev->irq_count = irq;
    ev->softirq_count = 0;
    ev->thread_count = thread;
    rb_commit(trace_global.buffer, &res);
}

static void timerlat_record(uint32_t seqnum, bool thread_context, uint64_t latency_ns)
{
    struct percpu *cpu = this_cpu();
    if (!trace_should_record_on(cpu))
        return;
    struct rb_reservation res;
    struct trace_timerlat_event *ev = rb_reserve(trace_global.buffer, sizeof(*ev), &res);
    if (!ev)
        return;
    ev->ctx = trace_ctx_on(cpu, TRACE_TIMERLAT, 0);
    ev->seqnum = seqnum;
    ev->context = thread_context;
    ev->latency_lo = (uint32_t)latency_ns;
    ev->latency_hi = (uint32_t)(latency_ns >> 32);
    rb_commit(trace_global.buffer, &res);
}

/* ---- osnoise ---- */

static uint64_t osnoise_interference(const struct osnoise_cpu *o)
{
    return o->nmi_count + o->irq_count + o->thread_count;
}

/*
 * The clock and the interference count of the same instant: read again when an
 * interrupt or a switch came between the two reads (Linux's set_int_safe_time).
 */
static uint64_t osnoise_time_and_count(const struct osnoise_cpu *o, uint64_t *time)
{
    uint64_t count;
    do {
        count = osnoise_interference(o);
        __asm__ __volatile__("" ::: "memory");
        *time = clock_ns();
        __asm__ __volatile__("" ::: "memory");
    } while (count != osnoise_interference(o));
    return count;
}

static void osnoise_run(struct osnoise_cpu *o)
{
    uint64_t threshold = tracing_thresh_ns();
    if (!threshold)
        threshold = OSNOISE_DEFAULT_THRESH_NS;
    uint64_t runtime = osnoise_runtime_us * NSEC_PER_USEC;
    uint64_t stop_in = osnoise_stop_us * NSEC_PER_USEC;
    uint64_t nmi0 = o->nmi_count, irq0 = o->irq_count, thread0 = o->thread_count;
    uint64_t last_sample, sample, total = 0, sum_noise = 0, max_noise = 0;
    uint32_t hw_count = 0;
    uint64_t last_count = osnoise_time_and_count(o, &last_sample);
    uint64_t start = last_sample;
    do {
        uint64_t count = osnoise_time_and_count(o, &sample);
        uint64_t noise = sample - last_sample;
        total = sample - start;
        if (noise >= threshold) {
            uint64_t interference = count - last_count;
            if (noise > max_noise)
                max_noise = noise;
            if (!interference)
                hw_count++;
            sum_noise += noise;
            trace_sample_threshold(last_sample, noise, interference);
            if (stop_in && noise > stop_in)
                osnoise_stop_tracing();
        }
        last_count = count;
        last_sample = sample;
    } while (total < runtime && !READ_ONCE(o->stop));
    uint64_t noise_us = sum_noise / NSEC_PER_USEC;
    osnoise_record_sample(total / NSEC_PER_USEC, noise_us, max_noise / NSEC_PER_USEC, hw_count,
                          (uint32_t)(o->nmi_count - nmi0), (uint32_t)(o->irq_count - irq0),
                          (uint32_t)(o->thread_count - thread0));
    uint64_t stop_total = osnoise_stop_total_us;
    if (stop_total && noise_us > stop_total)
        osnoise_stop_tracing();
}

static bool osnoise_should_wake(void *arg)
{
    const struct osnoise_cpu *o = arg;
    return READ_ONCE(o->stop);
}

static int osnoise_main(void *arg)
{
    struct osnoise_cpu *o = arg;
    /* Before anything compares against it: the creator may not have stored it yet. */
    WRITE_ONCE(o->thread, current_thread());
    while (!READ_ONCE(o->stop)) {
        o->sampling = true;
        osnoise_run(o);
        o->sampling = false;
        o->thread_arrival = 0;
        uint64_t period = osnoise_period_us, runtime = osnoise_runtime_us;
        if (period > runtime)
            wait_event_timeout(&o->sleep, osnoise_should_wake, o,
                               (period - runtime) * NSEC_PER_USEC, false);
        else
            schedule(); /* no rest: let the CPU's other threads have their turn */
    }
    return 0;
}

/* ---- timerlat ---- */

static void timerlat_save_stack(struct osnoise_cpu *o)
{
    struct unwind_state st;
    unwind_start(&st, this_cpu()->current, arch_frame_pointer(), 0, 0);
    uint32_t nr = 0;
    while (nr < TIMERLAT_STACK_MAX && unwind_next(&st))
        o->stack[nr++] = trace_addr_pack(st.ret);
    o->stack_nr = nr;
}

/* Linux's timerlat_dump_stack: the stack the timer's interrupt saved, if the latency
 * (us) reaches print_stack. */
static void timerlat_dump_stack(struct osnoise_cpu *o, uint64_t latency_us)
{
    uint64_t print_stack = timerlat_print_stack_us;
    if (!print_stack || print_stack > latency_us || !o->stack_nr)
        return;
    struct percpu *cpu = this_cpu();
    if (!trace_should_record_on(cpu))
        return;
    struct rb_reservation res;
    struct trace_stack_event *ev = rb_reserve(trace_global.buffer, 8 + o->stack_nr * 4, &res);
    if (!ev)
        return;
    ev->ctx = trace_ctx_on(cpu, TRACE_STACK, 1);
    ev->nr = o->stack_nr;
    memcpy(ev->calls, o->stack, o->stack_nr * 4);
    rb_commit(trace_global.buffer, &res);
}

/* The timer's interrupt: the irq latency, then the thread's wakeup. */
static void timerlat_irq(void *arg)
{
    struct osnoise_cpu *o = arg;
    uint64_t now = clock_ns();
    o->fired = true;
    if (READ_ONCE(o->stop) || !o->sampling) {
        thread_wake(o->thread);
        return;
    }
    /* The thread that runs now delays the timerlat thread from here on. */
    if (o->thread_arrival) {
        o->thread_arrival = now;
        o->thread_delta_start = now;
    }
    o->tracing_thread = true;
    uint64_t diff = now > o->abs_period ? now - o->abs_period : 0;
    o->seqnum++;
    timerlat_record(o->seqnum, false, diff);
    uint64_t stop_us = osnoise_stop_us;
    if (stop_us && diff / NSEC_PER_USEC >= stop_us) {
        /* As Linux, the stack is shown now when print_stack would have shown it, and
         * the thread is not woken: it waits until the tracer stops. */
        if (stop_us <= timerlat_print_stack_us) {
            timerlat_save_stack(o);
            timerlat_dump_stack(o, diff / NSEC_PER_USEC);
        }
        osnoise_stop_tracing();
        return;
    }
    if (timerlat_print_stack_us)
        timerlat_save_stack(o);
    thread_wake(o->thread);
}

/* Sleeps until the timer armed for abs_period fired, or the tracer stops. */
static void timerlat_wait(struct osnoise_cpu *o)
{
    o->fired = false;
    while (!READ_ONCE(o->fired) && !READ_ONCE(o->stop)) {
        /* Interrupts off from being marked asleep to the timer armed: an interrupt that
         * preempted in between would switch away before the timer that wakes it exists. */
        unsigned long flags = local_irq_save();
        thread_prepare_sleep(0);
        cpu_timer_arm(o->abs_period, timerlat_irq, o);
        /* A wakeup that came before the thread was marked asleep is not lost. */
        if (READ_ONCE(o->fired) || READ_ONCE(o->stop))
            thread_wake(o->thread);
        local_irq_restore(flags);
        schedule();
    }
}

static int timerlat_main(void *arg)
{
    struct osnoise_cpu *o = arg;
    /* Before the timer is armed: its interrupt wakes o->thread, which the creator may not
     * have stored yet (this thread preempts it when they share a CPU). */
    WRITE_ONCE(o->thread, current_thread());
    sched_setscheduler(o->thread, SCHED_FIFO, TIMERLAT_PRIO);
    /* timerlat samples all along: the noise before its thread runs is what it explains. */
    o->sampling = true;
    o->abs_period = clock_ns();
    while (!READ_ONCE(o->stop)) {
        uint64_t period = timerlat_period_us * NSEC_PER_USEC;
        uint64_t now = clock_ns();
        o->abs_period += period;
        /* A period missed altogether starts over from now (Linux's wait_next_period). */
        if (o->abs_period < now)
            o->abs_period = now + period;
        timerlat_wait(o);
        if (READ_ONCE(o->stop))
            break;
        now = clock_ns();
        uint64_t diff = now > o->abs_period ? now - o->abs_period : 0;
        timerlat_record(o->seqnum, true, diff);
        timerlat_dump_stack(o, diff / NSEC_PER_USEC);
        o->tracing_thread = false;
        uint64_t stop_total = osnoise_stop_total_us;
        if (stop_total && diff / NSEC_PER_USEC >= stop_total)
            osnoise_stop_tracing();
    }
    cpu_timer_cancel();
    return 0;
}

/* ---- starting and stopping ---- */

static void osnoise_stop_threads(void)
{
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        struct osnoise_cpu *o = &osnoise_cpus[c];
        if (!o->thread)
            continue;
        WRITE_ONCE(o->stop, true);
        wait_queue_wake_all(&o->sleep);
        thread_wake(o->thread);
    }
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        struct osnoise_cpu *o = &osnoise_cpus[c];
        if (!o->thread)
            continue;
        kthread_join(o->thread);
        o->thread = NULL;
        o->sampling = false;
    }
}

/* osnoise/cpus: every online CPU until a write chose some (read when used, so a tracer
 * started at boot before the other CPUs came up does not keep the boot CPU alone). */
static cpumask_t osnoise_mask(void)
{
    return osnoise_cpumask_set ? osnoise_cpumask : cpu_online_mask();
}

/* With osnoise_lock held. */
static int osnoise_start_threads(enum osnoise_mode mode)
{
    cpumask_t mask = osnoise_mask() & cpu_online_mask();
    /* Cleared while the hooks are off: from here on only each CPU writes its own. */
    WRITE_ONCE(trace_osnoise_hooks_on, 0);
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        struct osnoise_cpu *o = &osnoise_cpus[c];
        if (!(mask & (1u << c)))
            continue;
        memset(o, 0, sizeof(*o));
        wait_queue_init(&o->sleep, "osnoise");
    }
    osnoise_mode = mode;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    WRITE_ONCE(trace_osnoise_hooks_on, 1);
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!(mask & (1u << c)))
            continue;
        char name[THREAD_NAME_LEN];
        snprintf(name, sizeof(name), "%s/%u",
                 mode == OSNOISE_MODE_TIMERLAT ? "timerlat" : "osnoise", c);
        struct osnoise_cpu *o = &osnoise_cpus[c];
        struct thread *t = kthread_create(
            mode == OSNOISE_MODE_TIMERLAT ? timerlat_main : osnoise_main, o, name, c);
        if (!t) {
            osnoise_stop_threads();
            return -ENOMEM;
        }
        WRITE_ONCE(o->thread, t);
    }
    return 0;
}

static int osnoise_start(enum osnoise_mode mode)
{
    mutex_lock(&osnoise_lock);
    __atomic_fetch_or(&trace_sched_hooks_on, (uint8_t)TRACE_SCHED_HOOKS_OSNOISE, __ATOMIC_SEQ_CST);
    int err = osnoise_start_threads(mode);
    if (err) {
        WRITE_ONCE(trace_osnoise_hooks_on, 0);
        __atomic_fetch_and(&trace_sched_hooks_on, (uint8_t)~TRACE_SCHED_HOOKS_OSNOISE,
                           __ATOMIC_SEQ_CST);
        osnoise_mode = OSNOISE_MODE_OFF;
    }
    mutex_unlock(&osnoise_lock);
    return err;
}

static void osnoise_reset(void)
{
    mutex_lock(&osnoise_lock);
    osnoise_stop_threads();
    osnoise_mode = OSNOISE_MODE_OFF;
    WRITE_ONCE(trace_osnoise_hooks_on, 0);
    __atomic_fetch_and(&trace_sched_hooks_on, (uint8_t)~TRACE_SCHED_HOOKS_OSNOISE,
                       __ATOMIC_SEQ_CST);
    mutex_unlock(&osnoise_lock);
}

static int osnoise_init(void) { return osnoise_start(OSNOISE_MODE_OSNOISE); }
static int timerlat_init(void) { return osnoise_start(OSNOISE_MODE_TIMERLAT); }

/* ---- output ---- */

static void osnoise_print_header(struct trace_iter *it, struct seqbuf *s)
{
    seq_puts(s, "#                                _-----=> irqs-off\n"
                "#                               / _----=> need-resched\n"
                "#                              | / _---=> hardirq/softirq\n"
                "#                              || / _--=> preempt-depth\n"
                "#                              ||| / _-=> migrate-disable     "
                "                    MAX\n"
                "#                              |||| /     delay               "
                "                    SINGLE      Interference counters:\n"
                "#                              |||||               RUNTIME   "
                "   NOISE  % OF CPU  NOISE    +-----------------------------+\n"
                "#           TASK-PID      CPU# |||||   TIMESTAMP    IN US    "
                "   IN US  AVAILABLE  IN US     HW    NMI    IRQ   SIRQ THREAD\n"
                "#              | |         |   |||||      |           |      "
                "       |    |            |      |      |      |      |      |\n");
}

static void timerlat_print_header(struct trace_iter *it, struct seqbuf *s)
{
    seq_puts(s, "#                                _-----=> irqs-off\n"
                "#                               / _----=> need-resched\n"
                "#                              | / _---=> hardirq/softirq\n"
                "#                              || / _--=> preempt-depth\n"
                "#                              ||| / _-=> migrate-disable\n"
                "#                              |||| /     delay\n"
                "#                              |||||            ACTIVATION\n"
                "#           TASK-PID      CPU# |||||   TIMESTAMP   ID      "
                "      CONTEXT                 LATENCY\n"
                "#              | |         |   |||||      |         |      "
                "            |                       |\n");
}

TRACER(osnoise, .name = "osnoise", .init = osnoise_init, .reset = osnoise_reset,
       .print_header = osnoise_print_header);
TRACER(timerlat, .name = "timerlat", .init = timerlat_init, .reset = osnoise_reset,
       .print_header = timerlat_print_header);

/* ---- osnoise/: the files ---- */

static int show_osnoise_value(struct seqbuf *s, void *data)
{
    const volatile uint64_t *v = data;
    return seq_printf(s, "%llu\n", (unsigned long long)*v);
}

static int osnoise_parse(const char *buf, size_t len, uint64_t *out)
{
    unsigned long v;
    int err = tracefs_parse_ulong(buf, len, &v);
    if (err)
        return err;
    /* Kept in ns by the threads. */
    if (v > UINT64_MAX / NSEC_PER_USEC)
        return -EINVAL;
    *out = v;
    return 0;
}

/* period_us never below runtime_us, runtime_us never over period_us (Linux's min/max). */
static ssize_t store_osnoise_period(void *data, const char *buf, size_t len)
{
    uint64_t v;
    int err = osnoise_parse(buf, len, &v);
    if (err)
        return err;
    if (v < osnoise_runtime_us)
        return -EINVAL;
    osnoise_period_us = v;
    return len;
}

static ssize_t store_osnoise_runtime(void *data, const char *buf, size_t len)
{
    uint64_t v;
    int err = osnoise_parse(buf, len, &v);
    if (err)
        return err;
    if (v > osnoise_period_us)
        return -EINVAL;
    osnoise_runtime_us = v;
    return len;
}

static ssize_t store_osnoise_any(void *data, const char *buf, size_t len)
{
    uint64_t v;
    int err = osnoise_parse(buf, len, &v);
    if (err)
        return err;
    *(volatile uint64_t *)data = v;
    return len;
}

static ssize_t store_timerlat_period(void *data, const char *buf, size_t len)
{
    uint64_t v;
    int err = osnoise_parse(buf, len, &v);
    if (err)
        return err;
    if (v < TIMERLAT_MIN_PERIOD_US || v > TIMERLAT_MAX_PERIOD_US)
        return -EINVAL;
    timerlat_period_us = v;
    return len;
}

TRACEFS_FILE(osnoise_period, .path = "osnoise/period_us", .mode = 0644, .show = show_osnoise_value,
             .store = store_osnoise_period, .data = (void *)&osnoise_period_us);
TRACEFS_FILE(osnoise_runtime, .path = "osnoise/runtime_us", .mode = 0644,
             .show = show_osnoise_value, .store = store_osnoise_runtime,
             .data = (void *)&osnoise_runtime_us);
TRACEFS_FILE(osnoise_stop_tracing, .path = "osnoise/stop_tracing_us", .mode = 0644,
             .show = show_osnoise_value, .store = store_osnoise_any,
             .data = (void *)&osnoise_stop_us);
TRACEFS_FILE(osnoise_stop_tracing_total, .path = "osnoise/stop_tracing_total_us", .mode = 0644,
             .show = show_osnoise_value, .store = store_osnoise_any,
             .data = (void *)&osnoise_stop_total_us);
TRACEFS_FILE(osnoise_print_stack, .path = "osnoise/print_stack", .mode = 0644,
             .show = show_osnoise_value, .store = store_osnoise_any,
             .data = (void *)&timerlat_print_stack_us);
TRACEFS_FILE(osnoise_timerlat_period, .path = "osnoise/timerlat_period_us", .mode = 0644,
             .show = show_osnoise_value, .store = store_timerlat_period,
             .data = (void *)&timerlat_period_us);

/* osnoise/cpus: a CPU list as Linux's cpulist ("0-2,5"), read back the same way. */
static int show_osnoise_cpus(struct seqbuf *s, void *data)
{
    mutex_lock(&osnoise_lock);
    cpumask_t mask = osnoise_mask();
    mutex_unlock(&osnoise_lock);
    const char *sep = "";
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!(mask & (1u << c)))
            continue;
        unsigned last = c;
        while (last + 1 < MAX_CPUS && (mask & (1u << (last + 1))))
            last++;
        if (last == c)
            seq_printf(s, "%s%u", sep, c);
        else
            seq_printf(s, "%s%u-%u", sep, c, last);
        sep = ",";
        c = last;
    }
    return seq_putc(s, '\n');
}

/* Linux's cpulist_parse: EINVAL for bad syntax, ERANGE for a CPU this machine lacks. */
static int osnoise_parse_cpulist(const char *buf, size_t len, cpumask_t *out)
{
    cpumask_t mask = 0;
    size_t i = 0;
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
        len--;
    while (i < len) {
        unsigned long first = 0, last;
        size_t digits = 0;
        while (i < len && buf[i] >= '0' && buf[i] <= '9' && digits < 10) {
            first = first * 10 + (unsigned long)(buf[i++] - '0');
            digits++;
        }
        if (!digits)
            return -EINVAL;
        last = first;
        if (i < len && buf[i] == '-') {
            i++;
            last = 0;
            digits = 0;
            while (i < len && buf[i] >= '0' && buf[i] <= '9' && digits < 10) {
                last = last * 10 + (unsigned long)(buf[i++] - '0');
                digits++;
            }
            if (!digits || last < first)
                return -EINVAL;
        }
        if (i < len && buf[i] != ',')
            return -EINVAL;
        if (i < len)
            i++;
        if (last >= cpus_online)
            return -ERANGE;
        for (unsigned long c = first; c <= last; c++)
            mask |= 1u << c;
    }
    *out = mask;
    return 0;
}

static ssize_t store_osnoise_cpus(void *data, const char *buf, size_t len)
{
    cpumask_t mask;
    int err = osnoise_parse_cpulist(buf, len, &mask);
    if (err)
        return err;
    mutex_lock(&osnoise_lock);
    enum osnoise_mode mode = osnoise_mode;
    /* As Linux: a running tracer's threads stop and start again on the new CPUs. */
    if (mode != OSNOISE_MODE_OFF)
        osnoise_stop_threads();
    osnoise_cpumask = mask;
    osnoise_cpumask_set = true;
    if (mode != OSNOISE_MODE_OFF)
        err = osnoise_start_threads(mode);
    /* No thread could be had on some CPU: none runs and the hooks go off with them; the
     * tracer stays current, and the next write here tries again. */
    if (err)
        WRITE_ONCE(trace_osnoise_hooks_on, 0);
    mutex_unlock(&osnoise_lock);
    return err ? err : (ssize_t)len;
}

TRACEFS_FILE(osnoise_cpus, .path = "osnoise/cpus", .mode = 0644, .show = show_osnoise_cpus,
             .store = store_osnoise_cpus);
