; Thread switch. Only callee-saved registers need saving: the switch is an ordinary call
; from schedule(), so the compiler already assumes everything else is clobbered.

global arch_context_switch:function
global arch_thread_start:function
global arch_thread_start_end
extern thread_entry

section .text
; void arch_context_switch(uintptr_t *save_rsp, uintptr_t load_rsp)
arch_context_switch:
    push rbp
    push rbx
    push r12
    push r13
    push r14
    push r15
    mov [rdi], rsp
    mov rsp, rsi
    pop r15
    pop r14
    pop r13
    pop r12
    pop rbx
    pop rbp
    ret

; A new thread's first "return" lands here (see arch_thread_init_stack). The return address
; its call pushes is the outermost one on every thread's stack: a reliable stack walk
; (unwind.c) must end between arch_thread_start and arch_thread_start_end.
arch_thread_start:
    xor ebp, ebp
    and rsp, -16
    call thread_entry
    ud2
arch_thread_start_end:
