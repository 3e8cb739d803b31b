/*
 * Boot, in the order the pieces depend on each other: per-CPU pointer and console first
 * (so everything after can report), then memory, interrupts, the clock, the pseudo-fs,
 * and finally the shell on a guarded stack.
 */
#include <arch/acpi.h>
#include <arch/apic.h>
#include <arch/asm_calls.h>
#include <arch/cpu.h>
#include <arch/text_patch.h>
#include <arch/tsc.h>
#include <arch/x86.h>
#include <kernel/bootinfo.h>
#include <kernel/console.h>
#include <kernel/ftrace.h>
#include <kernel/init.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/pseudofs.h>
#include <kernel/shell.h>
#include <kernel/smp.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>
#include <kernel/time.h>

#define SHELL_STACK_PAGES 16

extern const initcall_fn __start_initcalls[], __stop_initcalls[];


static void run_initcalls(void)
{
    for (const initcall_fn *fn = __start_initcalls; fn < __stop_initcalls; fn++)
        (*fn)();
}

static int shell_thread(void *arg)
{
    shell_main();
    return 0;
}

/* Runs on the bootstrap CPU's guarded stack, which becomes CPU 0's idle thread. */
static void __noreturn kernel_main_on_stack(void)
{
    sched_init_cpu(0);
    /* Call sites become NOPs while this is the only CPU running kernel code. */
    arch_text_poke_init();
    ftrace_init();
    /* Calibrated once here; the other CPUs reuse the figure. */
    lapic_timer_start(1000);
    smp_boot_aps();
    run_initcalls();
    printk("fentros: boot finished in %lu ms\n", (unsigned long)(clock_ns() / 1000000));
    struct thread *sh = kthread_create(shell_thread, NULL, "sh", 0);
    ASSERT(sh);
    kthread_detach(sh);
    sched_idle_loop();
}

/* Moves this CPU onto a new stack (one with a guard page) and never comes back. */
static void __noreturn switch_stack(void *top, void (*fn)(void))
{
    __asm__ __volatile__("mov %0, %%rsp\n\t"
                         "xor %%ebp, %%ebp\n\t"
                         "call *%1\n\t"
                         "ud2" ::"r"(top),
                         "r"(fn)
                         : "memory");
    __builtin_unreachable();
}

void kernel_main(uint32_t magic, uint64_t mbi_phys)
{
    tsc_mark_boot();
    percpu_init_cpu(0, 0);
    console_init();
    x86_cpu_tables_init(0);
    x86_idt_init();
    symbols_init();
    printk("fentros version " FENTROS_VERSION " (gcc " __VERSION__ ") x86_64\n");

    multiboot_parse(magic, mbi_phys);
    printk("command line: %s\n", boot_info.cmdline);
    pmm_init();
    x86_paging_init();
    tsc_calibrate();

    acpi_init();
    /* The PIC is remapped first so a spurious legacy interrupt cannot look like an
     * exception, then silenced for good: the APICs deliver everything. */
    x86_pic_init();
    x86_pic_disable();
    lapic_init_bsp();
    ioapic_init();
    console_enable_rx_irq(X86_IRQ_BASE + 4);
    ioapic_route_isa_irq(4, X86_IRQ_BASE + 4, lapic_id());
    pfs_init();
    arch_irq_enable();

    void *stack = vmalloc_stack(SHELL_STACK_PAGES);
    ASSERT(stack);
    switch_stack(stack, kernel_main_on_stack);
}
