/*
 * The x86 side of boot: the steps kernel/main.c names (<arch/setup.h>), in terms of the
 * GDT/IDT, the TSC, the page tables, ACPI, the legacy PIC and the APICs.
 */
#include <arch/acpi.h>
#include <arch/apic.h>
#include <arch/cpu.h>
#include <arch/percpu.h>
#include <arch/setup.h>
#include <arch/trace_clock.h>
#include <arch/tsc.h>
#include <arch/x86.h>
#include <kernel/console.h>
#include <lib/string.h>

#include "x86_cpu.h"

/* Untraced: it runs before this CPU has the per-CPU area the tracer needs. */
notrace void arch_percpu_set_base(void *area)
{
    wrmsr(MSR_GS_BASE, (uint64_t)area);
    /* Nothing reads the inactive base, but a stale value would confuse a debugger. */
    wrmsr(MSR_KERNEL_GS_BASE, 0);
}

/* Untraced: trace_clock reads it for every event when it is the clock. */
notrace uint64_t arch_trace_clock_tsc(void) { return rdtsc(); }

void arch_boot_clock_start(void) { tsc_mark_boot(); }

void arch_cpu_setup_boot(void)
{
    x86_cpu_tables_init(0);
    x86_idt_init();
}

void arch_paging_init(void) { x86_paging_init(); }

void arch_clock_calibrate(void) { tsc_calibrate(); }

void arch_interrupts_init(void)
{
    acpi_init();
    /* The PIC is remapped first so a spurious legacy interrupt cannot look like an
     * exception, then silenced for good: the APICs deliver everything. */
    x86_pic_init();
    x86_pic_disable();
    lapic_init_bsp();
    ioapic_init();
    /* COM1 is ISA IRQ 4. */
    console_enable_rx_irq(X86_IRQ_BASE + 4);
    ioapic_route_isa_irq(4, X86_IRQ_BASE + 4, lapic_id());
}

void arch_tick_start(unsigned hz) { lapic_timer_start(hz); }

void arch_switch_stack(void *top, void (*fn)(void))
{
    /* A zero rbp ends every backtrace of the new stack here. */
    __asm__ __volatile__("mov %0, %%rsp\n\t"
                         "xor %%ebp, %%ebp\n\t"
                         "call *%1\n\t"
                         "ud2" ::"r"(top),
                         "r"(fn)
                         : "memory");
    __builtin_unreachable();
}

void arch_set_nmi_hook(bool (*fn)(struct pt_regs *regs)) { x86_set_trap_hook(X86_VEC_NMI, fn); }

/* Names the virtual machine from the hypervisor CPUID leaf, if there is one. */
const char *arch_machine_name(bool *emulated)
{
    uint32_t a, b, c, d;
    cpuid(1, 0, &a, &b, &c, &d);
    *emulated = false;
    if (!(c & (1u << 31)))
        return "bare metal or TCG (no hypervisor CPUID leaf)";
    static char vendor[13];
    cpuid(0x40000000, 0, &a, &b, &c, &d);
    memcpy(vendor + 0, &b, 4);
    memcpy(vendor + 4, &c, 4);
    memcpy(vendor + 8, &d, 4);
    vendor[12] = '\0';
    if (strcmp(vendor, "TCGTCGTCGTCG") == 0) {
        *emulated = true;
        return "QEMU TCG";
    }
    if (strncmp(vendor, "KVMKVMKVM", 9) == 0)
        return "QEMU KVM";
    return vendor;
}
