; function_graph's return hook. A traced function's return address was replaced by
; return_to_handler's, so its `ret` lands here with rsp just above the slot that held the
; return address. The return value registers (rax, rdx) are kept; the C side pops the
; thread's shadow stack, records the return (with the return value, rax), and gives back
; the real return address. It is what fgraph_return_callee holds: the graph core's
; ftrace_return_to_handler, or while one client is alone that client's return handler.

extern fgraph_return_callee
global return_to_handler:function
global return_to_handler_end

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
