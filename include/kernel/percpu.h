#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include <arch/percpu.h>
#include <kernel/compiler.h>

#define MAX_CPUS 16

struct thread;
struct rb_cpu_buffer;

/* struct percpu's context_bit. */
#define PERCPU_CONTEXT_THREAD 1u
#define PERCPU_CONTEXT_HARDIRQ 2u
#define PERCPU_CONTEXT_NMI 4u

/*
 * Everything a CPU keeps for itself. The arch's per-CPU base (arch/percpu.h) points at its
 * own copy; the first field points back at the copy so this_cpu() is a single load.
 * Cache-line aligned so that one CPU's counters never share a line with another's.
 */
struct percpu {
    struct percpu *self;
    unsigned cpu;
    uint32_t hw_id; /* the arch's id of the CPU, the one its IPIs are sent to */
    bool online;
    struct thread *current;
    struct thread *idle;
    int irq_depth; /* hardirq nesting: > 0 inside an interrupt handler */
    int nmi_depth;
    /*
     * The same as one bit, for the tracer's hot path: 1 thread, 2 hardirq, 4 NMI. Set
     * by the interrupt entry with the depths, restored on the way out.
     */
    unsigned context_bit;
    int current_pid;   /* current's pid, kept with current: the tracer reads it on every event */
    int preempt_count; /* > 0: the scheduler must not switch away */
    bool need_resched;
    /* Contexts inside an ftrace callback, a bit each (kernel/trace/ftrace_callback.h). */
    unsigned ftrace_recursion;
    /* This CPU's part of the tracer's ring buffer, for the tracers' hot paths. */
    struct rb_cpu_buffer *trace_buffer;
    uint64_t ticks;
    uint64_t interrupts;
    uint64_t ipis_received;
    uint32_t vector_counts[256];
} __cacheline_aligned;

extern struct percpu percpu_area[MAX_CPUS];
extern unsigned cpus_online;

static __always_inline struct percpu *this_cpu(void)
{
    return arch_percpu_read_ptr(offsetof(struct percpu, self));
}

static __always_inline unsigned this_cpu_id(void)
{
    return arch_percpu_read_u32(offsetof(struct percpu, cpu));
}

static inline struct percpu *cpu_data(unsigned cpu) { return &percpu_area[cpu]; }

static inline bool in_irq(void) { return this_cpu()->irq_depth > 0; }

/* Points this CPU's per-CPU base at its area; the first thing a CPU does in C. */
void percpu_init_cpu(unsigned cpu, uint32_t hw_id);

#endif
