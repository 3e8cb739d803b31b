/*
 * x86 instructions for the x86 code only: port I/O, MSRs, control registers, cpuid, TLB
 * invalidation, and the model-specific registers they name. Generic code uses the
 * arch_* operations of <arch/cpu.h> instead.
 */
#ifndef ARCH_X86_64_X86_CPU_H
#define ARCH_X86_64_X86_CPU_H

#include <arch/cpu.h>

static __always_inline void outb(uint16_t port, uint8_t v)
{
    __asm__ __volatile__("outb %0, %1" ::"a"(v), "Nd"(port));
}
static __always_inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
static __always_inline uint32_t inl(uint16_t port)
{
    uint32_t v;
    __asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static __always_inline void outl(uint16_t port, uint32_t v)
{
    __asm__ __volatile__("outl %0, %1" ::"a"(v), "Nd"(port));
}
static __always_inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}
static __always_inline void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ __volatile__("wrmsr" ::"c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}
static __always_inline uint64_t rdtsc(void) { return arch_cycles(); }
static __always_inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b,
                                  uint32_t *c, uint32_t *d)
{
    __asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}
static __always_inline uint64_t read_cr0(void)
{
    uint64_t v;
    __asm__ __volatile__("mov %%cr0, %0" : "=r"(v));
    return v;
}
static __always_inline uint64_t read_cr2(void)
{
    uint64_t v;
    __asm__ __volatile__("mov %%cr2, %0" : "=r"(v));
    return v;
}
static __always_inline uint64_t read_cr3(void)
{
    uint64_t v;
    __asm__ __volatile__("mov %%cr3, %0" : "=r"(v));
    return v;
}
static __always_inline void write_cr3(uint64_t v)
{
    __asm__ __volatile__("mov %0, %%cr3" ::"r"(v) : "memory");
}
static __always_inline uint64_t read_cr4(void)
{
    uint64_t v;
    __asm__ __volatile__("mov %%cr4, %0" : "=r"(v));
    return v;
}
static __always_inline void write_cr4(uint64_t v)
{
    __asm__ __volatile__("mov %0, %%cr4" ::"r"(v) : "memory");
}
static __always_inline void invlpg(uintptr_t va)
{
    __asm__ __volatile__("invlpg (%0)" ::"r"(va) : "memory");
}
static __always_inline uint64_t read_rflags(void) { return arch_local_flags(); }
static __always_inline uintptr_t read_rbp(void)
{
    uintptr_t v;
    __asm__ __volatile__("mov %%rbp, %0" : "=r"(v));
    return v;
}
static __always_inline uintptr_t read_rsp(void)
{
    uintptr_t v;
    __asm__ __volatile__("mov %%rsp, %0" : "=r"(v));
    return v;
}

#define X86_RFLAGS_IF ARCH_FLAGS_IRQ_ON

#define MSR_EFER 0xc0000080
#define MSR_GS_BASE 0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102
#define MSR_APIC_BASE 0x1b

#endif
