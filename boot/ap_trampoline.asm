; Application processor start-up. A STARTUP IPI starts a CPU in 16-bit real mode at
; TRAMPOLINE_BASE; this code is copied there by the bootstrap CPU, which also fills in the
; parameter block at its end. It climbs through protected mode into long mode on the
; kernel's page tables (with the trampoline page identity-mapped for the switch) and jumps
; to ap_entry in the higher half with its CPU number.

TRAMPOLINE_BASE equ 0x8000

global ap_trampoline_start
global ap_trampoline_end
global ap_trampoline_params

%define T(label) (TRAMPOLINE_BASE + (label) - ap_trampoline_start)

section .rodata
align 16
ap_trampoline_start:
bits 16
    cli
    cld
    mov ax, cs
    mov ds, ax
    lgdt [tramp_gdt_ptr - ap_trampoline_start]
    mov eax, cr0
    or eax, 1
    mov cr0, eax
    jmp dword 0x08:T(.protected)

bits 32
.protected:
    mov ax, 0x10
    mov ds, ax
    mov es, ax
    mov ss, ax
    mov eax, cr4
    or eax, 1 << 5                          ; PAE
    mov cr4, eax
    mov eax, [T(param_cr3)]
    mov cr3, eax
    mov ecx, 0xc0000080                     ; EFER
    rdmsr
    or eax, [T(param_efer_bits)]            ; LME, and NXE when the BSP uses it
    wrmsr
    mov eax, cr0
    or eax, (1 << 31) | (1 << 16)           ; PG, WP
    mov cr0, eax
    jmp 0x18:T(.long_mode)

bits 64
.long_mode:
    mov ax, 0x10
    mov ds, ax
    mov es, ax
    mov ss, ax
    mov rsp, [T(param_stack)]
    xor ebp, ebp
    mov edi, [T(param_cpu)]
    mov rax, [T(param_entry)]
    jmp rax

align 16
tramp_gdt:
    dq 0
    dq 0x00cf9a000000ffff                   ; 0x08 32-bit code
    dq 0x00cf92000000ffff                   ; 0x10 data
    dq 0x00af9a000000ffff                   ; 0x18 64-bit code
tramp_gdt_end:
tramp_gdt_ptr:
    dw tramp_gdt_end - tramp_gdt - 1
    dd T(tramp_gdt)

; Filled in by the bootstrap CPU before each STARTUP IPI (struct ap_trampoline_params).
align 8
ap_trampoline_params:
param_cr3:       dq 0
param_stack:     dq 0
param_entry:     dq 0
param_cpu:       dd 0
param_efer_bits: dd 0
ap_trampoline_end:
