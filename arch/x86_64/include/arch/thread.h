#ifndef ARCH_THREAD_H
#define ARCH_THREAD_H

#include <kernel/compiler.h>

void arch_context_switch(uintptr_t *save_rsp, uintptr_t load_rsp);
void arch_thread_start(void);

/* Lays out a new stack so that the first switch to it "returns" into arch_thread_start. */
static inline uintptr_t arch_thread_init_stack(void *top)
{
    uintptr_t *sp = (uintptr_t *)top;
    *--sp = 0;                            /* end of the frame-pointer chain */
    *--sp = (uintptr_t)arch_thread_start; /* popped by ret in arch_context_switch */
    for (int i = 0; i < 6; i++)           /* rbp rbx r12 r13 r14 r15 */
        *--sp = 0;
    return (uintptr_t)sp;
}

#endif
