#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include <kernel/compiler.h>

/*
 * The CPU operations generic code may use: interrupts on and off, waiting, a cycle
 * counter, the current frame. Port I/O, MSRs, control registers and cpuid are the x86
 * code's own (arch/x86_64/x86_cpu.h).
 */

/* A free-running cycle counter, for measuring short intervals (benchmarks, seeds). */
static __always_inline uint64_t arch_cycles(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* The frame pointer of the caller of this (inline) function: where a backtrace starts. */
static __always_inline uintptr_t arch_frame_pointer(void)
{
    uintptr_t v;
    __asm__ __volatile__("mov %%rbp, %0" : "=r"(v));
    return v;
}

/* RFLAGS.IF: interrupts are on. */
#define ARCH_FLAGS_IRQ_ON (1UL << 9)

static __always_inline void arch_irq_disable(void) { __asm__ __volatile__("cli" ::: "memory"); }
static __always_inline void arch_irq_enable(void) { __asm__ __volatile__("sti" ::: "memory"); }
static __always_inline unsigned long arch_local_flags(void)
{
    unsigned long f;
    __asm__ __volatile__("pushfq; popq %0" : "=r"(f)::"memory");
    return f;
}
static __always_inline bool arch_irqs_enabled(void)
{
    return arch_local_flags() & ARCH_FLAGS_IRQ_ON;
}
/* Were interrupts on in these saved flags (arch_irq_save's result)? */
static __always_inline bool arch_irqs_enabled_flags(unsigned long flags)
{
    return flags & ARCH_FLAGS_IRQ_ON;
}
static __always_inline unsigned long arch_irq_save(void)
{
    unsigned long f = arch_local_flags();
    arch_irq_disable();
    return f;
}
static __always_inline void arch_irq_restore(unsigned long flags)
{
    if (flags & ARCH_FLAGS_IRQ_ON)
        arch_irq_enable();
}
static __always_inline void arch_cpu_relax(void) { __asm__ __volatile__("pause" ::: "memory"); }
static __always_inline void arch_halt(void) { __asm__ __volatile__("hlt" ::: "memory"); }
/* sti takes effect after the next instruction, so no interrupt slips in before hlt. */
static __always_inline void arch_enable_and_halt(void)
{
    __asm__ __volatile__("sti; hlt" ::: "memory");
}

/*
 * A serialising instruction: after it, this CPU fetches instructions afresh, so bytes
 * another CPU wrote into code are seen. iretq to ourselves serialises and is not trapped
 * by hypervisors the way cpuid is.
 */
static __always_inline void arch_sync_core(void)
{
    __asm__ __volatile__("mov %%ss, %%eax\n\t"
                         "pushq %%rax\n\t"
                         "pushq %%rsp\n\t"
                         "addq $8, (%%rsp)\n\t"
                         "pushfq\n\t"
                         "mov %%cs, %%eax\n\t"
                         "pushq %%rax\n\t"
                         "pushq $1f\n\t"
                         "iretq\n\t"
                         "1:" ::
                             : "rax", "memory", "cc");
}

#endif
