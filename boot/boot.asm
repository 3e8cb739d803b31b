; Multiboot2 entry: GRUB leaves us in 32-bit protected mode with paging off. We check that
; a multiboot2 loader started us and that the CPU can run 64-bit code, map the first GiB
; three times (identity, direct map, kernel image), switch to long mode and jump to the
; higher-half C entry. The kernel replaces these page tables with its own W^X ones later.

KERNEL_VMA      equ 0xffffffff80000000
MB2_MAGIC       equ 0xe85250d6
MB2_ARCH_I386   equ 0
MB2_BOOT_MAGIC  equ 0x36d76289
COM1            equ 0x3f8

PTE_PRESENT     equ 1 << 0
PTE_WRITE       equ 1 << 1
PTE_HUGE        equ 1 << 7

extern kernel_main
extern __bss_start
extern __bss_end

global boot_entry:function
global boot_pml4
global boot_gdt_ptr
global boot_stack_top

section .multiboot
align 8
mb2_header:
    dd MB2_MAGIC
    dd MB2_ARCH_I386
    dd mb2_header_end - mb2_header
    dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
    ; Entry address tag: the ELF entry is a higher-half address GRUB cannot jump to.
    align 8
    dw 3, 0
    dd 12
    dd boot_entry - KERNEL_VMA
    align 8
    dw 0, 0
    dd 8
mb2_header_end:

section .boot.text progbits alloc exec nowrite
bits 32
boot_entry:
    cli
    cld
    ; eax/ebx hold the loader's magic and info pointer; keep them in registers that the
    ; rest of this path does not touch, they become kernel_main's arguments.
    mov edi, eax
    mov esi, ebx
    mov esp, boot_stack_top - KERNEL_VMA

    cmp edi, MB2_BOOT_MAGIC
    jne .bad_magic

    ; Long mode needs CPUID leaf 0x80000001 with the LM bit.
    mov eax, 0x80000000
    cpuid
    cmp eax, 0x80000001
    jb .no_long_mode
    mov eax, 0x80000001
    cpuid
    test edx, 1 << 29
    jz .no_long_mode
    ; Remember whether NX exists: setting EFER.NXE without it faults.
    mov ebp, edx

    ; GRUB loads bss as zeroes, but the contract is loose across loaders: clear it here,
    ; before the page tables that live in it are filled.
    mov edx, __bss_start - KERNEL_VMA
.clear_bss:
    cmp edx, __bss_end - KERNEL_VMA
    jae .bss_clear
    mov dword [edx], 0
    add edx, 4
    jmp .clear_bss
.bss_clear:

    ; One page directory of 2 MiB pages covers physical 0..1 GiB; it is reachable from
    ; the identity slot (needed until we jump high), the direct-map slot and the kernel slot.
    mov eax, boot_pd - KERNEL_VMA
    xor ecx, ecx
.fill_pd:
    mov edx, ecx
    shl edx, 21
    or edx, PTE_PRESENT | PTE_WRITE | PTE_HUGE
    mov [eax + ecx * 8], edx
    mov dword [eax + ecx * 8 + 4], 0
    inc ecx
    cmp ecx, 512
    jne .fill_pd

    mov eax, boot_pd - KERNEL_VMA
    or eax, PTE_PRESENT | PTE_WRITE
    mov [boot_pdpt_low - KERNEL_VMA], eax
    mov [boot_pdpt_high - KERNEL_VMA + 510 * 8], eax

    mov eax, boot_pdpt_low - KERNEL_VMA
    or eax, PTE_PRESENT | PTE_WRITE
    mov [boot_pml4 - KERNEL_VMA], eax            ; 0x0000000000000000 identity
    mov [boot_pml4 - KERNEL_VMA + 256 * 8], eax  ; 0xffff800000000000 direct map
    mov eax, boot_pdpt_high - KERNEL_VMA
    or eax, PTE_PRESENT | PTE_WRITE
    mov [boot_pml4 - KERNEL_VMA + 511 * 8], eax  ; 0xffffffff80000000 kernel

    mov eax, cr4
    or eax, 1 << 5                               ; PAE
    mov cr4, eax
    mov eax, boot_pml4 - KERNEL_VMA
    mov cr3, eax

    mov ecx, 0xc0000080                          ; EFER
    rdmsr
    or eax, 1 << 8                               ; LME
    test ebp, 1 << 20
    jz .no_nx
    or eax, 1 << 11                              ; NXE
.no_nx:
    wrmsr

    mov eax, cr0
    or eax, (1 << 31) | (1 << 16)                ; PG, WP (the kernel honours read-only pages)
    mov cr0, eax

    lgdt [boot_gdt_ptr - KERNEL_VMA]
    jmp 0x08:(long_mode_low - KERNEL_VMA)

.bad_magic:
    mov ebx, msg_bad_magic - KERNEL_VMA
    jmp early_fail
.no_long_mode:
    mov ebx, msg_no_long_mode - KERNEL_VMA
    jmp early_fail

; Print the string at ebx on COM1 by polling, then stop: nothing else is set up yet.
early_fail:
    mov dx, COM1 + 5
.wait:
    in al, dx
    test al, 0x20
    jz .wait
    mov al, [ebx]
    test al, al
    jz .halt
    mov dx, COM1
    out dx, al
    inc ebx
    mov dx, COM1 + 5
    jmp .wait
.halt:
    cli
    hlt
    jmp .halt

bits 64
long_mode_low:
    mov rax, long_mode_high
    jmp rax

section .text
long_mode_high:
    xor eax, eax
    mov ds, ax
    mov es, ax
    mov ss, ax
    mov fs, ax
    mov gs, ax
    mov rsp, boot_stack_top
    ; Terminates frame-pointer backtraces at kernel_main.
    xor ebp, ebp
    ; edi = magic, esi = multiboot2 info (physical), zero-extended by the 32-bit moves.
    mov edi, edi
    mov esi, esi
    call kernel_main
.hang:
    cli
    hlt
    jmp .hang

section .rodata
msg_bad_magic:    db "fentros: not started by a multiboot2 loader", 13, 10, 0
msg_no_long_mode: db "fentros: this CPU cannot run 64-bit code", 13, 10, 0

align 16
boot_gdt:
    dq 0
    dq 0x00af9a000000ffff                        ; 0x08 kernel code, 64-bit
    dq 0x00cf92000000ffff                        ; 0x10 kernel data
boot_gdt_end:
boot_gdt_ptr:
    dw boot_gdt_end - boot_gdt - 1
    dq boot_gdt - KERNEL_VMA

section .bss
alignb 4096
boot_pml4:      resb 4096
boot_pdpt_low:  resb 4096
boot_pdpt_high: resb 4096
boot_pd:        resb 4096
; The bootstrap CPU's first stack; kernel_main moves to a guarded stack before the shell.
alignb 16
boot_stack:     resb 16384
boot_stack_top:
