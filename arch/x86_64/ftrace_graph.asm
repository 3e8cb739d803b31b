; The return hooks. A hooked function's return address was replaced by the address of one
; of them, so its `ret` lands there with rsp just above the slot that held the return
; address; the C side pops the thread's shadow stack, tells the clients that wanted the
; return, and gives back the real return address.
;
; return_to_handler, for function_graph and the profiler, keeps only the return value
; registers (rax, rdx). It calls what fgraph_return_callee holds: the graph core's
; ftrace_return_to_handler, or while one client is alone that client's return handler.
;
; return_to_handler_regs, for return probes, saves every register as the function left it
; in a struct pt_regs (arch/regs.h), with rsp what the caller sees after the return, calls
; what fgraph_regs_return_callee holds (the graph core's ftrace_return_to_handler_regs, or
; the return probes' own handler), and reloads them all from there afterwards, so what
; runs after it (another hook on the same return, then the caller) sees them unchanged.
;
; return_to_handler_partial, for return probes that read no register but the return value
; ones, the stack pointer, the frame pointer and the return address, fills only those in
; the struct pt_regs (arch_ftrace_partial_regs_has says which): the other registers a
; function leaves are dead to its caller, and the flags too. It must not run before a
; hook that reads them all (fgraph_push_return picks the full one then).

extern fgraph_return_callee
extern fgraph_regs_return_callee
global return_to_handler:function
global return_to_handler_end
global return_to_handler_regs:function
global return_to_handler_regs_end
global return_to_handler_partial:function
global return_to_handler_partial_end

%include "asm-offsets.inc"
%include "arch/pt_regs.inc"

section .text
return_to_handler:
    ; rsp = slot + 8, and slot was 8 mod 16 (a function's entry rsp): rsp is 16-aligned
    push rax
    push rdx
    lea rdi, [rsp + 16]
    mov rsi, rax                ; the return value, for the return hooks
    call [rel fgraph_return_callee]
    mov rcx, rax
    pop rdx
    pop rax
    jmp rcx
return_to_handler_end:

return_to_handler_regs:
    ; rsp = slot + 8. An interrupt since the ret may have written over the slot: this
    ; address goes back in it, under a frame of our own, so that a backtrace taken in the
    ; hooks follows [rbp + 8] = the slot, which the unwinder maps through the shadow stack
    ; to the caller. The C side writes the real return address there before it lets the
    ; shadow frame go, and the ret at the end takes it from there.
    push qword return_to_handler_regs
    push rbp
    mov rbp, rsp                ; slot - 8: 16-aligned, and so is rsp below
    lea rsp, [rsp - PT_SIZE]    ; lea, not sub: the flags are still the function's
    PT_REGS_SAVE_GPRS
    pushfq
    pop qword [rsp + PT_RFLAGS]
    mov rax, [rbp]
    mov [rsp + PT_RBP], rax
    lea rax, [rbp + 16]
    mov [rsp + PT_RSP], rax
    mov qword [rsp + PT_RIP], 0 ; the C side sets it: it knows the real return address
    mov qword [rsp + PT_CS], KERNEL_CS
    mov qword [rsp + PT_SS], KERNEL_DS
    mov qword [rsp + PT_VECTOR], 0
    mov qword [rsp + PT_ERROR], -1 ; orig_ax: no system call, as Linux's return probes have it
    mov rdi, rsp
    call [rel fgraph_regs_return_callee]
    ; A hook may have changed registers in pt_regs: the caller gets them as it left them.
    mov rax, [rsp + PT_RBP]
    mov [rbp], rax
    PT_REGS_LOAD_GPRS
    ; A caller keeps no status flags across a call (and the hooks leave the interrupt and
    ; direction flags as they found them), but another hook on the same return reads
    ; them: only then are they restored, since a popf ends a block of translated code
    ; under emulation (measured: a return probe took 476 ns with it, 455 to 465 without).
    cmp qword [rbp + 8], return_to_handler
    je .restore_flags
    cmp qword [rbp + 8], return_to_handler_regs
    je .restore_flags
.leave:
    mov rsp, rbp
    pop rbp
    ret
.restore_flags:
    ; Last: nothing after it may change the flags.
    push qword [rsp + PT_RFLAGS]
    popfq
    jmp .leave
return_to_handler_regs_end:

align 16
return_to_handler_partial:
    ; As return_to_handler_regs, with the same frame and slot (so the unwinder and the C
    ; side treat both alike), for a fifth of the stores and loads.
    push qword return_to_handler_partial
    push rbp
    mov rbp, rsp
    lea rsp, [rsp - PT_SIZE]
    mov [rsp + PT_RAX], rax
    mov [rsp + PT_RDX], rdx
    mov rax, [rbp]
    mov [rsp + PT_RBP], rax
    lea rax, [rbp + 16]
    mov [rsp + PT_RSP], rax
    mov qword [rsp + PT_RIP], 0 ; the C side sets it
    mov rdi, rsp
    call [rel fgraph_regs_return_callee]
    mov rax, [rsp + PT_RBP]
    mov [rbp], rax
    mov rax, [rsp + PT_RAX]
    mov rdx, [rsp + PT_RDX]
    mov rsp, rbp
    pop rbp
    ret
return_to_handler_partial_end:
