; Interrupt and exception entry. Every vector gets a stub that makes the frame uniform
; (a dummy error code where the CPU pushes none, then the vector number), and one common
; path saves the general registers as struct pt_regs (arch/regs.h) and calls the C
; dispatcher. Whatever the handler leaves in pt_regs, including rip and rsp, is where
; iretq resumes: int3 emulation of patched call sites relies on that.

extern x86_trap_dispatch
%include "asm-offsets.inc"

global isr_stub_table
global isr_common:function
global isr_common_end

section .text

%macro ISR_NOERR 1
isr_stub_%1:
    push qword 0
    push qword %1
    jmp isr_common
%endmacro

%macro ISR_ERR 1
isr_stub_%1:
    push qword %1
    jmp isr_common
%endmacro

; Vectors for which the CPU pushes an error code.
%assign v 0
%rep 256
  %if v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30
    ISR_ERR v
  %else
    ISR_NOERR v
  %endif
  %assign v v + 1
%endrep

isr_common:
    push rax
    push rbx
    push rcx
    push rdx
    push rsi
    push rdi
    push rbp
    push r8
    push r9
    push r10
    push r11
    push r12
    push r13
    push r14
    push r15
    ; A frame-pointer link through the interrupted rip lets backtraces cross into the
    ; code that was interrupted: [rbp] = interrupted rbp, [rbp+8] = interrupted rip.
    push qword [rsp + PT_RIP]
    push rbp
    mov rbp, rsp
    lea rdi, [rsp + 16]
    cld
    call x86_trap_dispatch
    add rsp, 16
    pop r15
    pop r14
    pop r13
    pop r12
    pop r11
    pop r10
    pop r9
    pop r8
    pop rbp
    pop rdi
    pop rsi
    pop rdx
    pop rcx
    pop rbx
    pop rax
    add rsp, 16
    iretq
; The unwinder takes a return address in [isr_common, isr_common_end) as an interrupt
; frame: the link frame above, then pt_regs.
isr_common_end:

section .rodata
align 8
isr_stub_table:
%assign v 0
%rep 256
    dq isr_stub_ %+ v
  %assign v v + 1
%endrep
