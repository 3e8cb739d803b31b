#ifndef ARCH_THREAD_H
#define ARCH_THREAD_H

#include <kernel/compiler.h>

void arch_context_switch(uintptr_t *save_rsp, uintptr_t load_rsp);
void arch_thread_start(void);

/*
 * What a thread that is not running has at its saved stack pointer: the callee-saved
 * registers arch_context_switch pushed (switch.asm's push order, reversed), then the
 * return address its ret pops. A new stack is laid out as one, and the reliable unwinder
 * starts a sleeping thread's walk from it (rbp is its caller's frame).
 */
struct arch_switch_frame {
    uintptr_t r15, r14, r13, r12, rbx, rbp;
    uintptr_t ret; /* into the caller of arch_context_switch, or arch_thread_start */
};

/* Lays out a new stack so that the first switch to it "returns" into arch_thread_start. */
static inline uintptr_t arch_thread_init_stack(void *top)
{
    uintptr_t *end_of_chain = (uintptr_t *)top - 1;
    *end_of_chain = 0; /* a frame-pointer walk from arch_thread_start stops here */
    struct arch_switch_frame *f = (struct arch_switch_frame *)end_of_chain - 1;
    *f = (struct arch_switch_frame){.ret = (uintptr_t)arch_thread_start};
    return (uintptr_t)f;
}

#endif
