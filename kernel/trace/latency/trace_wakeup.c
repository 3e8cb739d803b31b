/*
 * The wakeup and wakeup_rt tracers, with Linux's semantics: the time from waking the
 * strongest task to its running. A wakeup is followed when the woken thread is stronger
 * than the waker and than the thread followed so far (wakeup_rt: and is real time); a new
 * one replaces the old. When the followed thread is switched to, the time since its wakeup
 * is the latency; a new maximum (or, with tracing_thresh, one over it) moves every CPU's
 * events into the max buffer. The scheduler calls the two hooks (<kernel/ftrace.h>) after
 * its sched_wakeup and sched_switch tracepoints while trace_sched_hooks_on is set; the
 * events themselves stay as the user set them.
 *
 * Priorities are Linux's (prio: 0..98 real time, 120 normal; lower is stronger), so, as on
 * Linux, a normal thread woken by a normal one is never followed.
 */
#include <arch/cpu.h>
#include <kernel/ftrace.h>
#include <kernel/percpu.h>
#include <kernel/thread.h>

#include "latency.h"

volatile uint8_t trace_sched_hooks_on;

static volatile bool wakeup_enabled;
static bool wakeup_rt_only;
static volatile int wakeup_lock;

/* What is followed, under wakeup_lock (interrupts off). */
static struct thread *wakeup_task;
static int wakeup_prio = -1;
static volatile int wakeup_cpu = -1;
static uint64_t wakeup_start_ts;
static int wakeup_disabled[MAX_CPUS];

static void wakeup_lock_acquire(void)
{
    while (__atomic_exchange_n(&wakeup_lock, 1, __ATOMIC_ACQUIRE))
        arch_cpu_relax();
}

static void wakeup_lock_release(void) { __atomic_store_n(&wakeup_lock, 0, __ATOMIC_RELEASE); }

static void wakeup_reset_locked(void)
{
    wakeup_task = NULL;
    wakeup_prio = -1;
    WRITE_ONCE(wakeup_cpu, -1);
}

/* Linux's letter for a thread's state: R running or ready, S sleeping, X/Z gone. */
static char wakeup_state_char(const struct thread *t)
{
    switch (t->state) {
    case THREAD_SLEEPING:
        return 'S';
    case THREAD_DEAD:
        return t->detached ? 'X' : 'Z';
    default:
        return 'R';
    }
}

static void wakeup_trace_ctxwake(const struct thread *prev, const struct thread *next, bool wakeup,
                                 char prev_state)
{
    struct percpu *cpu = this_cpu();
    if (!trace_should_record_on(cpu))
        return;
    struct rb_reservation res;
    struct trace_ctxwake_event *ev = rb_reserve(trace_global.buffer, sizeof(*ev), &res);
    if (!ev)
        return;
    ev->ctx = trace_ctx_on(cpu, TRACE_CTXWAKE, 0);
    ev->prev_pid = prev->pid;
    ev->prev_prio = (uint8_t)thread_trace_prio(prev);
    ev->prev_state = prev_state;
    ev->next_pid = next->pid;
    ev->next_prio = (uint8_t)thread_trace_prio(next);
    ev->next_state = wakeup ? 'R' : wakeup_state_char(next);
    ev->next_cpu = (uint8_t)next->cpu;
    ev->wakeup = wakeup;
    ev->reserved = 0;
    rb_commit(trace_global.buffer, &res);
}

void trace_sched_wakeup_latency(struct thread *t)
{
    if (!READ_ONCE(wakeup_enabled) || !rb_record_is_on(trace_global.buffer))
        return;
    struct percpu *cpu = this_cpu();
    struct thread *waker = cpu->current;
    if (cpu->nmi_depth || !waker)
        return;
    int prio = thread_trace_prio(t);
    /* A thread woken before it switched away keeps running: there is no wait to time. */
    if (t->state == THREAD_RUNNING || (wakeup_rt_only && !thread_is_rt(t)) ||
        prio >= thread_trace_prio(waker) || (wakeup_prio >= 0 && prio >= wakeup_prio))
        return;
    unsigned long flags = arch_irq_save();
    if (++wakeup_disabled[cpu->cpu] == 1) {
        wakeup_lock_acquire();
        /* Checked again under the lock: another CPU may have followed a stronger one. */
        if (READ_ONCE(wakeup_enabled) && (wakeup_prio < 0 || prio < wakeup_prio)) {
            wakeup_reset_locked();
            wakeup_task = t;
            wakeup_prio = prio;
            wakeup_start_ts = trace_clock_read();
            WRITE_ONCE(wakeup_cpu, (int)t->cpu);
            wakeup_trace_ctxwake(waker, t, true, 'R');
            latency_trace_stack(0, 0);
        }
        wakeup_lock_release();
    }
    wakeup_disabled[cpu->cpu]--;
    arch_irq_restore(flags);
}

void trace_sched_switch_latency(struct thread *prev, struct thread *next)
{
    if (READ_ONCE(trace_sched_hooks_on) & TRACE_SCHED_HOOKS_OSNOISE)
        osnoise_sched_switch(prev, next);
    if (!READ_ONCE(wakeup_enabled) || next != READ_ONCE(wakeup_task))
        return;
    struct percpu *cpu = this_cpu();
    unsigned long flags = arch_irq_save();
    if (++wakeup_disabled[cpu->cpu] == 1) {
        wakeup_lock_acquire();
        if (READ_ONCE(wakeup_enabled) && next == wakeup_task) {
            /* prev is still marked running or ready here; the scheduler tells its state. */
            char prev_state = wakeup_state_char(prev);
            wakeup_trace_ctxwake(prev, next, false, prev_state);
            latency_trace_stack(0, 0);
            uint64_t delta = trace_clock_read() - wakeup_start_ts;
            if (latency_report(delta))
                latency_update_max(delta, wakeup_start_ts, next, 0, 0, true);
            wakeup_reset_locked();
        }
        wakeup_lock_release();
    }
    wakeup_disabled[cpu->cpu]--;
    arch_irq_restore(flags);
}

/* options/function-trace: the functions the woken thread's CPU runs until it switches. */
static bool wakeup_in_section(void) { return (int)this_cpu_id() == READ_ONCE(wakeup_cpu); }

static int wakeup_start(bool rt_only)
{
    int err = latency_tracer_start(wakeup_in_section);
    if (err)
        return err;
    unsigned long flags = arch_irq_save();
    wakeup_lock_acquire();
    wakeup_reset_locked();
    wakeup_rt_only = rt_only;
    wakeup_lock_release();
    arch_irq_restore(flags);
    WRITE_ONCE(wakeup_enabled, true);
    __atomic_fetch_or(&trace_sched_hooks_on, TRACE_SCHED_HOOKS_WAKEUP, __ATOMIC_SEQ_CST);
    return 0;
}

static void wakeup_reset(void)
{
    WRITE_ONCE(wakeup_enabled, false);
    __atomic_fetch_and(&trace_sched_hooks_on, (uint8_t)~TRACE_SCHED_HOOKS_WAKEUP, __ATOMIC_SEQ_CST);
    unsigned long flags = arch_irq_save();
    wakeup_lock_acquire();
    wakeup_reset_locked();
    wakeup_lock_release();
    arch_irq_restore(flags);
    latency_tracer_stop();
}

static bool wakeup_print_line(struct trace_iter *it, struct seqbuf *s)
{
    return latency_print_line(it, s, LATENCY_WAKEUP_GRAPH_COLS);
}

static void wakeup_print_header(struct trace_iter *it, struct seqbuf *s)
{
    latency_print_header_cols(it, s, LATENCY_WAKEUP_GRAPH_COLS);
}

static int wakeup_init(void) { return wakeup_start(false); }
static int wakeup_rt_init(void) { return wakeup_start(true); }

TRACER(wakeup, .name = "wakeup", .init = wakeup_init, .reset = wakeup_reset,
       .print_header = wakeup_print_header, .print_line = wakeup_print_line,
       .option_changed = latency_option_changed, .use_max_tr = true);
TRACER(wakeup_rt, .name = "wakeup_rt", .init = wakeup_rt_init, .reset = wakeup_reset,
       .print_header = wakeup_print_header, .print_line = wakeup_print_line,
       .option_changed = latency_option_changed, .use_max_tr = true);
