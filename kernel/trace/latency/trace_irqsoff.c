/*
 * The irqsoff, preemptoff and preemptirqsoff tracers, with Linux's semantics: the longest
 * section of a CPU with interrupts off, preemption off, or either, from the hook that
 * began it to the one that ended it (preemptirq.c). A section starts when the first of the
 * traced kinds goes off and ends when the last comes back: under preemptirqsoff,
 * preemption off then interrupts off then preemption on then interrupts on is one section.
 *
 * Per CPU: whether a section is open (Linux's tracing_cpu), its start time and site, and
 * the max_sequence it began under: a section during which another CPU recorded a new
 * maximum does not replace that one (its start may predate the other's swap).
 */
#include <arch/cpu.h>
#include <kernel/ftrace.h>
#include <kernel/percpu.h>

#include "latency.h"

#define IRQSOFF_TRACE_IRQS 0x1
#define IRQSOFF_TRACE_PREEMPT 0x2

struct irqsoff_cpu {
    bool tracing;
    int disabled;
    uint64_t sequence;
    uint64_t start_ts;
    unsigned long critical_start;
};

static struct irqsoff_cpu irqsoff_cpus[MAX_CPUS];
static volatile unsigned irqsoff_type;
static volatile bool irqsoff_enabled;
static uint64_t max_sequence;
static volatile int max_trace_lock;

/* Interrupts are off in every caller: a plain test-and-set lock is enough. */
static void max_trace_lock_acquire(void)
{
    while (__atomic_exchange_n(&max_trace_lock, 1, __ATOMIC_ACQUIRE))
        arch_cpu_relax();
}

static void max_trace_lock_release(void) { __atomic_store_n(&max_trace_lock, 0, __ATOMIC_RELEASE); }

static bool preempt_traced(int preempt_count)
{
    return (irqsoff_type & IRQSOFF_TRACE_PREEMPT) && preempt_count;
}

static bool irqs_traced(bool irqs_off) { return (irqsoff_type & IRQSOFF_TRACE_IRQS) && irqs_off; }

static bool irqsoff_recording(void)
{
    return READ_ONCE(irqsoff_enabled) && rb_record_is_on(trace_global.buffer);
}

/*
 * A section's first entry; its time stamp is the section's start, so that the trace shows
 * it at 0us as Linux's does even when the vCPU stalled between a clock read and the write.
 */
static uint64_t section_start(unsigned long ip, unsigned long parent_ip)
{
    uint64_t ts = latency_trace_function(ip, parent_ip, 0);
    return ts ? ts : trace_clock_read();
}

static void start_critical_timing(unsigned long ip, unsigned long parent_ip)
{
    if (!irqsoff_recording())
        return;
    struct irqsoff_cpu *d = &irqsoff_cpus[this_cpu_id()];
    if (d->tracing || d->disabled)
        return;
    d->disabled++;
    d->sequence = READ_ONCE(max_sequence);
    d->critical_start = parent_ip ? parent_ip : ip;
    d->start_ts = section_start(ip, parent_ip);
    d->tracing = true;
    d->disabled--;
}

static void check_critical_timing(struct irqsoff_cpu *d, unsigned long hook, unsigned long site,
                                  unsigned long end)
{
    uint64_t now = trace_clock_read();
    uint64_t delta = now - d->start_ts;
    if (latency_report(delta)) {
        max_trace_lock_acquire();
        if (latency_report(delta)) {
            latency_trace_function(hook, end, 0);
            latency_trace_stack(site, 0);
            if (d->sequence == max_sequence) {
                latency_update_max(delta, d->start_ts, this_cpu()->current, d->critical_start, end,
                                   false);
                max_sequence++;
            }
        }
        max_trace_lock_release();
    }
    d->sequence = READ_ONCE(max_sequence);
    d->start_ts = section_start(hook, end);
}

static void stop_critical_timing(unsigned long hook, unsigned long ip, unsigned long parent_ip)
{
    struct irqsoff_cpu *d = &irqsoff_cpus[this_cpu_id()];
    /* The section ends here whatever happens next: a stale one must not go on. */
    if (!d->tracing)
        return;
    d->tracing = false;
    if (!irqsoff_recording() || !d->critical_start || d->disabled)
        return;
    d->disabled++;
    latency_trace_function(ip, parent_ip, 0);
    check_critical_timing(d, hook, ip, parent_ip ? parent_ip : ip);
    d->critical_start = 0;
    d->disabled--;
}

void irqsoff_hardirqs_off(unsigned long ip, unsigned long parent_ip)
{
    if (!preempt_traced(this_cpu()->preempt_count) && irqs_traced(true))
        start_critical_timing(ip, parent_ip);
}

void irqsoff_hardirqs_on(unsigned long ip, unsigned long parent_ip)
{
    if (!preempt_traced(this_cpu()->preempt_count) && irqs_traced(true))
        stop_critical_timing((unsigned long)trace_hardirqs_on_caller, ip, parent_ip);
}

void irqsoff_preempt_off(unsigned long ip, unsigned long parent_ip, bool irqs_off)
{
    if (preempt_traced(this_cpu()->preempt_count) && !irqs_traced(irqs_off))
        start_critical_timing(ip, parent_ip);
}

void irqsoff_preempt_on(unsigned long ip, unsigned long parent_ip, bool irqs_off)
{
    if (preempt_traced(this_cpu()->preempt_count) && !irqs_traced(irqs_off))
        stop_critical_timing((unsigned long)trace_preempt_on_caller, ip, parent_ip);
}

/* options/function-trace: the functions a CPU runs inside its section. */
static bool irqsoff_in_section(void)
{
    struct percpu *cpu = this_cpu();
    /* The callback's guard (or the graph core) holds one preemption level: more is a
     * preempt-off section. */
    return irqsoff_cpus[cpu->cpu].tracing && (!arch_irqs_enabled() || cpu->preempt_count > 1);
}

static int irqsoff_start(unsigned type)
{
    int err = latency_tracer_start(irqsoff_in_section);
    if (err)
        return err;
    for (unsigned c = 0; c < MAX_CPUS; c++)
        irqsoff_cpus[c] = (struct irqsoff_cpu){0};
    max_sequence = 0;
    irqsoff_type = type;
    WRITE_ONCE(irqsoff_enabled, true);
    preemptirq_hooks_set(type & IRQSOFF_TRACE_IRQS, type & IRQSOFF_TRACE_PREEMPT,
                         PREEMPTIRQ_USER_TRACER, true);
    return 0;
}

static void irqsoff_reset(void)
{
    WRITE_ONCE(irqsoff_enabled, false);
    preemptirq_hooks_set(true, true, PREEMPTIRQ_USER_TRACER, false);
    latency_tracer_stop();
}

static bool irqsoff_print_line(struct trace_iter *it, struct seqbuf *s)
{
    return latency_print_line(it, s, LATENCY_IRQSOFF_GRAPH_COLS);
}

static void irqsoff_print_header(struct trace_iter *it, struct seqbuf *s)
{
    latency_print_header_cols(it, s, LATENCY_IRQSOFF_GRAPH_COLS);
}

static int irqsoff_init(void) { return irqsoff_start(IRQSOFF_TRACE_IRQS); }
static int preemptoff_init(void) { return irqsoff_start(IRQSOFF_TRACE_PREEMPT); }
static int preemptirqsoff_init(void)
{
    return irqsoff_start(IRQSOFF_TRACE_IRQS | IRQSOFF_TRACE_PREEMPT);
}

TRACER(irqsoff, .name = "irqsoff", .init = irqsoff_init, .reset = irqsoff_reset,
       .print_header = irqsoff_print_header, .print_line = irqsoff_print_line,
       .option_changed = latency_option_changed, .use_max_tr = true);
TRACER(preemptoff, .name = "preemptoff", .init = preemptoff_init, .reset = irqsoff_reset,
       .print_header = irqsoff_print_header, .print_line = irqsoff_print_line,
       .option_changed = latency_option_changed, .use_max_tr = true);
TRACER(preemptirqsoff, .name = "preemptirqsoff", .init = preemptirqsoff_init,
       .reset = irqsoff_reset, .print_header = irqsoff_print_header,
       .print_line = irqsoff_print_line, .option_changed = latency_option_changed,
       .use_max_tr = true);
