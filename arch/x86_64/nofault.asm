; Kernel memory reads that survive a fault. Every load that may fault is in the range
; [nofault_start, nofault_end); the #PF and #GP handlers (traps.c) send a fault there to
; nofault_fail, which returns -EFAULT (-14). Only rdi, rsi, rcx, rdx and rax are used, so
; the fixup needs nothing restored.

global copy_from_kernel_nofault:function
global strncpy_from_kernel_nofault:function
global strnlen_kernel_nofault:function
global arch_nofault_fixup:function

section .text
; long copy_from_kernel_nofault(void *dst, const void *src, size_t len)
copy_from_kernel_nofault:
    mov rcx, rdx
nofault_start:
    rep movsb
    xor eax, eax
    ret

; long strncpy_from_kernel_nofault(char *dst, const char *src, size_t count)
strncpy_from_kernel_nofault:
    xor eax, eax
.next:
    cmp rax, rdx
    je .done
    movzx ecx, byte [rsi + rax]
    mov [rdi + rax], cl
    inc rax
    test ecx, ecx
    jnz .next
.done:
    ret

; long strnlen_kernel_nofault(const char *src, size_t count)
strnlen_kernel_nofault:
    xor eax, eax
.scan:
    cmp rax, rsi
    je .end
    movzx ecx, byte [rdi + rax]
    inc rax
    test ecx, ecx
    jnz .scan
.end:
    ret
nofault_end:

nofault_fail:
    mov rax, -14
    ret

; bool arch_nofault_fixup(uintptr_t *ip): moves *ip to nofault_fail if it faulted in a copy
arch_nofault_fixup:
    mov rax, [rdi]
    lea rcx, [rel nofault_start]
    cmp rax, rcx
    jb .no
    lea rcx, [rel nofault_end]
    cmp rax, rcx
    jae .no
    lea rcx, [rel nofault_fail]
    mov [rdi], rcx
    mov eax, 1
    ret
.no:
    xor eax, eax
    ret
