/*
 * Boot, in the order the pieces depend on each other: per-CPU pointer and console first
 * (so everything after can report), then memory, interrupts, the clock, the pseudo-fs,
 * and finally the shell on a guarded stack.
 */
#include <arch/asm_calls.h>
#include <arch/cpu.h>
#include <arch/setup.h>
#include <arch/text_patch.h>
#include <kernel/bootinfo.h>
#include <kernel/console.h>
#include <kernel/ftrace.h>
#include <kernel/init.h>
#include <kernel/irqflags.h>
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
#include <kernel/wait.h>

#define SHELL_STACK_PAGES 16

extern const initcall_fn __start_initcalls[], __stop_initcalls[];

static void run_initcalls(void)
{
    for (const initcall_fn *fn = __start_initcalls; fn < __stop_initcalls; fn++)
        (*fn)();
}

/*
 * The shell is the first thread made, so it is pid 1 (sh-1 in a trace, as init is on
 * Linux) whatever threads the initcalls start (the host channel's file service); it
 * waits for them to finish before it reads a line.
 */
static bool boot_done;
static struct wait_queue boot_done_wq = WAIT_QUEUE_INIT(boot_done_wq);

static bool boot_is_done(void *arg) { return __atomic_load_n(&boot_done, __ATOMIC_ACQUIRE); }

static int shell_thread(void *arg)
{
    wait_event(&boot_done_wq, boot_is_done, NULL);
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
    arch_tick_start(1000);
    smp_boot_aps();
    struct thread *sh = kthread_create(shell_thread, NULL, "sh", 0);
    ASSERT(sh);
    kthread_detach(sh);
    run_initcalls();
    printk("fentros: boot finished in %lu ms\n", (unsigned long)(clock_ns() / 1000000));
    __atomic_store_n(&boot_done, true, __ATOMIC_RELEASE);
    wait_queue_wake_all(&boot_done_wq);
    sched_idle_loop();
}

void kernel_main(uint32_t magic, uint64_t mbi_phys)
{
    arch_boot_clock_start();
    percpu_init_cpu(0, 0);
    console_init();
    arch_cpu_setup_boot();
    symbols_init();
    printk("fentros version " FENTROS_VERSION " (gcc " __VERSION__ ") " ARCH_NAME "\n");

    multiboot_parse(magic, mbi_phys);
    printk("command line: %s\n", boot_info.cmdline);
    pmm_init();
    arch_paging_init();
    arch_clock_calibrate();
    arch_interrupts_init();
    pfs_init();
    local_irq_enable();

    /* The rest runs on a stack with a guard page, never to come back here. */
    void *stack = vmalloc_stack(SHELL_STACK_PAGES);
    ASSERT(stack);
    arch_switch_stack(stack, kernel_main_on_stack);
}
