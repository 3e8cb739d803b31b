; Functions that return with every general register and the status flags set to values
; the caller chose, for the self-tests and shell tests of what a return probe reads
; (<arch/regs_fixture.h>). C cannot choose what its registers hold at a return; these do.

%include "asm-offsets.inc"
%include "arch/pt_regs.inc"

global arch_regs_fixture:function (arch_regs_fixture.end - arch_regs_fixture)
global arch_regs_fixture_notrace:function (arch_regs_fixture_notrace.end - arch_regs_fixture_notrace)
global arch_regs_fixture_call:function (arch_regs_fixture_call.end - arch_regs_fixture_call)
extern __fentry__

; CF PF AF ZF SF OF: the status flags, which a return leaves for nobody and these set.
%define STATUS_FLAGS 0x8d5

; Loads every general register from the struct pt_regs at rdi (rdi itself last) and the
; status flags from its rflags, then returns.
%macro LOAD_AND_RETURN 0
    mov rax, [rdi + PT_RFLAGS]
    and rax, STATUS_FLAGS
    pushfq
    and qword [rsp], ~STATUS_FLAGS
    or [rsp], rax
    popfq
    mov rax, [rdi + PT_RAX]
    mov rbx, [rdi + PT_RBX]
    mov rcx, [rdi + PT_RCX]
    mov rdx, [rdi + PT_RDX]
    mov rsi, [rdi + PT_RSI]
    mov rbp, [rdi + PT_RBP]
    mov r8, [rdi + PT_R8]
    mov r9, [rdi + PT_R9]
    mov r10, [rdi + PT_R10]
    mov r11, [rdi + PT_R11]
    mov r12, [rdi + PT_R12]
    mov r13, [rdi + PT_R13]
    mov r14, [rdi + PT_R14]
    mov r15, [rdi + PT_R15]
    mov rdi, [rdi + PT_RDI]
    ret
%endmacro

section .text

; With an ftrace site, as a traced C function has: `r:EV arch_regs_fixture` rides it.
arch_regs_fixture:
.site:
    call __fentry__
    LOAD_AND_RETURN
.end:

; Without one: a return probe here is an int3 on the first instruction (a plain load).
arch_regs_fixture_notrace:
    LOAD_AND_RETURN
.end:

; arch_regs_fixture_call(want, fn): calls fn(want), one of the two above, and gives the
; caller back its callee-saved registers. want is the last word pushed before the call:
; after the return it is the word at the stack pointer.
arch_regs_fixture_call:
    push rbp
    mov rbp, rsp
    sub rsp, PT_SIZE + 8        ; the registers, then want: rsp is 16-aligned at the call
    PT_REGS_SAVE_GPRS
    push rdi
    call rsi
    add rsp, 8
    PT_REGS_LOAD_GPRS           ; all but rbp, which the pop below gives back
    add rsp, PT_SIZE + 8
    pop rbp
    ret
.end:

section __mcount_loc progbits alloc noexec nowrite align=8
    dq arch_regs_fixture.site
