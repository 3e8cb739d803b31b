/*
 * Per-CPU access: %gs holds this CPU's per-CPU area, so a field of it is one gs-relative
 * load, with no CPU number to look up and nothing a preemption could make stale halfway.
 * offset must be a compile-time constant (offsetof a field).
 */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

#include <kernel/compiler.h>

#define arch_percpu_read_ptr(offset)                                                               \
    ({                                                                                             \
        void *_v;                                                                                  \
        __asm__ __volatile__("mov %%gs:%c1, %0" : "=r"(_v) : "i"(offset));                         \
        _v;                                                                                        \
    })

#define arch_percpu_read_u32(offset)                                                               \
    ({                                                                                             \
        uint32_t _v;                                                                               \
        __asm__ __volatile__("movl %%gs:%c1, %0" : "=r"(_v) : "i"(offset));                        \
        _v;                                                                                        \
    })

/* Points this CPU's per-CPU base at area (the first thing a CPU does in C). */
void arch_percpu_set_base(void *area);

#endif
