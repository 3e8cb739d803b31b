; Trampolines that patched call sites call. A site's `call` lands here as the traced
; function's first instruction, so the stack holds the return into the traced function
; (site + 5) and above it the traced function's own return address.
;
; Each one builds a frame (so backtraces pass through), saves the argument registers the
; traced function has not used yet, and calls the C side with
;   rdi = the return address into the traced function (its site + 5),
;   rsi = &parent return address, and for the generic dispatchers
;   edx = op slot (-1: list), rcx = regs (NULL from a plain trampoline).
; A slot's plain trampoline calls what ftrace_tramp_callee[slot] holds: its op's handler,
; which takes the first two arguments only, or else the slot's dispatch stub, which adds
; the other two and goes on to the generic dispatcher.
; The regs variants build a complete struct pt_regs (arch/regs.h), with rip the address
; after the site's call, and afterwards reload every register from it and go on at its
; rip, which a callback may have changed.

extern ftrace_tramp_dispatch
extern ftrace_list_dispatch
extern ftrace_tramp_callee

global arch_ftrace_tramp_table
global arch_ftrace_dispatch_stub
global arch_ftrace_list_caller:function
global arch_ftrace_list_regs_caller:function

; TRAMP_SLOTS, the struct pt_regs offsets (PT_*) and the selectors, from the C side.
%include "asm-offsets.inc"
%include "arch/pt_regs.inc"

; Kept apart, so that the kernel can tell when a CPU is between a site and its callback
; (arch_ftrace_in_entry): the plain trampolines beside the op handlers they call, the
; rest beside the C dispatchers (arch/ftrace.h says why).
section .text.ftrace_entry.op_handler progbits alloc exec nowrite align=16
section .text.ftrace_entry progbits alloc exec nowrite align=16

; %1 = symbol, %2 = what to call: a symbol, or [the callee table word]
%macro TRAMP 2
global %1:function
%1:
    push rbp
    mov rbp, rsp
    push rax
    push rcx
    push rdx
    push rsi
    push rdi
    push r8
    push r9
    mov rdi, [rbp + 8]
    lea rsi, [rbp + 16]
    call %2
    pop r9
    pop r8
    pop rdi
    pop rsi
    pop rdx
    pop rcx
    pop rax
    pop rbp
    ret
%endmacro

%macro REGS_TRAMP 3
global %1:function
%1:
    push rbp
    mov rbp, rsp
    ; 8 bytes of padding keep the dispatcher's stack 16-byte aligned.
    sub rsp, PT_SIZE + 8
    PT_REGS_SAVE_GPRS
    mov rax, [rbp]
    mov [rsp + PT_RBP], rax
    ; regs->rip is where the traced function goes on, just after the site's call, as
    ; Linux's ftrace_regs_caller has it; the callback's ip is the site itself.
    mov rax, [rbp + 8]
    mov [rsp + PT_RIP], rax
    lea rax, [rbp + 16]
    mov [rsp + PT_RSP], rax
    pushfq
    pop rax
    mov [rsp + PT_RFLAGS], rax
    mov qword [rsp + PT_CS], KERNEL_CS
    mov qword [rsp + PT_SS], KERNEL_DS
    mov qword [rsp + PT_VECTOR], 0
    mov qword [rsp + PT_ERROR], 0
    mov rdi, [rsp + PT_RIP]
    lea rsi, [rbp + 16]
    mov edx, %2
    mov rcx, rsp
    call %3
    ; An IPMODIFY callback may have moved regs->rip: the ret below goes there, with the
    ; traced function's caller still the return address above it (a live patch's new
    ; function runs in its place, with the original arguments).
    mov rax, [rsp + PT_RIP]
    mov [rbp + 8], rax
    ; A callback may have changed argument registers in pt_regs: reload them all.
    PT_REGS_LOAD_GPRS
    mov rsp, rbp
    pop rbp
    ret
%endmacro

; %1 = symbol, %2 = slot number (or -1), %3 = dispatcher: what a plain caller calls to
; reach a generic dispatcher.
%macro DISPATCH_STUB 3
%1:
    mov edx, %2
    xor ecx, ecx
    jmp %3
%endmacro

%assign s 0
%rep TRAMP_SLOTS
section .text.ftrace_entry.op_handler
    TRAMP ftrace_tramp_ %+ s, [rel ftrace_tramp_callee + 8 * s]
section .text.ftrace_entry
    REGS_TRAMP ftrace_regs_tramp_ %+ s, s, ftrace_tramp_dispatch
    DISPATCH_STUB ftrace_dispatch_stub_ %+ s, s, ftrace_tramp_dispatch
%assign s s + 1
%endrep

DISPATCH_STUB ftrace_list_dispatch_stub, -1, ftrace_list_dispatch
TRAMP arch_ftrace_list_caller, ftrace_list_dispatch_stub
REGS_TRAMP arch_ftrace_list_regs_caller, -1, ftrace_list_dispatch

section .rodata
align 8
; [slot]: the stub that takes a plain trampoline of that slot to the generic dispatcher
arch_ftrace_dispatch_stub:
%assign s 0
%rep TRAMP_SLOTS
    dq ftrace_dispatch_stub_ %+ s
%assign s s + 1
%endrep

; [slot][0] = plain trampoline, [slot][1] = regs-saving trampoline
arch_ftrace_tramp_table:
%assign s 0
%rep TRAMP_SLOTS
    dq ftrace_tramp_ %+ s
    dq ftrace_regs_tramp_ %+ s
%assign s s + 1
%endrep
