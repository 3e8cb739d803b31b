/*
 * Boot, in the order the pieces depend on each other: per-CPU pointer and console first
 * (so everything after can report), then memory, interrupts, the clock, the pseudo-fs,
 * and finally the shell on a guarded stack.
 */
#include <arch/cpu.h>
#include <arch/tsc.h>
#include <arch/x86.h>
#include <kernel/bootinfo.h>
#include <kernel/console.h>
#include <kernel/init.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/pseudofs.h>
#include <kernel/shell.h>
#include <kernel/symbols.h>
#include <kernel/time.h>

#define SHELL_STACK_PAGES 16

extern const initcall_fn __start_initcalls[], __stop_initcalls[];

void console_enable_rx_irq(unsigned vector);
void x86_pit_start_periodic(unsigned hz);

static void run_initcalls(void)
{
    for (const initcall_fn *fn = __start_initcalls; fn < __stop_initcalls; fn++)
        (*fn)();
}

static void __noreturn kernel_main_on_stack(void)
{
    run_initcalls();
    printk("fentros: boot finished in %lu ms\n", (unsigned long)(clock_ns() / 1000000));
    shell_main();
    panic("shell_main returned");
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

    x86_pic_init();
    x86_pit_start_periodic(1000);
    console_enable_rx_irq(X86_IRQ_BASE + 4);
    x86_pic_unmask(4);
    pfs_init();
    arch_irq_enable();

    void *stack = vmalloc_stack(SHELL_STACK_PAGES);
    ASSERT(stack);
    switch_stack(stack, kernel_main_on_stack);
}
