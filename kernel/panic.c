/*
 * The one way down: panics, ASSERT failures and fatal exceptions all end here. The first
 * CPU to panic stops the others, prints the report, and either halts for good or, with
 * panic=poweroff, leaves QEMU with a failure status so a test run never hangs, or, with
 * Linux's panic=N (N > 0: after N seconds; N < 0: at once) or panic=reboot, resets the
 * machine (RAM is kept: a trace instance on a reserve_mem range is read back next boot).
 */
#include <arch/cpu.h>
#include <arch/power.h>
#include <arch/unwind.h>
#include <kernel/bootinfo.h>
#include <kernel/hostchan_fileserv.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/symbols.h>
#include <kernel/time.h>
#include <lib/printf.h>
#include <lib/string.h>

#define BACKTRACE_MAX_FRAMES 24

volatile int panic_in_progress;
static volatile int panic_owner = -1;

void panic_begin(void)
{
    arch_irq_disable();
    int me = (int)this_cpu_id();
    int expected = -1;
    if (!__atomic_compare_exchange_n(&panic_owner, &expected, me, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        /* Another CPU is already reporting (or this one panicked inside its report). */
        if (expected != me)
            for (;;)
                arch_halt();
        kputs("\n*** panic inside the panic report; stopping\n");
        arch_poweroff(ARCH_EXIT_FAILURE);
    }
    smp_stop_other_cpus();
    panic_in_progress = 1;
    fileserv_panic();
}

static void print_frame(uintptr_t addr)
{
    char sym[128];
    sym_format(sym, sizeof(sym), addr);
    kprintf(" [<%016lx>] %s\n", (unsigned long)addr, sym);
}

void panic_backtrace_from(uintptr_t fp, uintptr_t ip)
{
    struct unwind_state st;
    unwind_start(&st, this_cpu()->current, fp, 0, 0);
    kputs("Call Trace:\n");
    if (ip)
        print_frame(ip);
    /* The return address points after the call; -1 names the calling function. */
    for (int depth = 0; depth < BACKTRACE_MAX_FRAMES && unwind_next(&st); depth++)
        print_frame(st.ret - 1);
}

void dump_stack(void) { panic_backtrace_from(arch_frame_pointer(), 0); }

void (*panic_trace_dump)(void);

/* panic=N or panic=reboot: seconds to wait before the reset (< 0: none); 0: no reset. */
static long panic_reboot_seconds(void)
{
    char value[24];
    long seconds;
    if (!cmdline_value("panic", value, sizeof(value)))
        return 0;
    if (!strcmp(value, "reboot"))
        return -1;
    return kstrtol(value, 10, &seconds) == 0 ? seconds : 0;
}

void __noreturn panic_end(const char *reason)
{
    kprintf("Kernel panic - not syncing: %s\n", reason);
    if (panic_trace_dump)
        panic_trace_dump();
    if (cmdline_has("panic=poweroff")) {
        kputs("---[ end Kernel panic: powering off ]---\n");
        arch_poweroff(ARCH_EXIT_FAILURE);
    }
    long reboot_after = panic_reboot_seconds();
    if (reboot_after) {
        if (reboot_after > 0) {
            kprintf("Rebooting in %ld seconds..\n", reboot_after);
            udelay((uint64_t)reboot_after * 1000000);
        }
        kputs("---[ end Kernel panic: rebooting ]---\n");
        arch_reboot();
    }
    kputs("---[ end Kernel panic - not syncing ]---\n");
    for (;;) {
        arch_irq_disable();
        arch_halt();
    }
}

void panic(const char *fmt, ...)
{
    char msg[256];
    __builtin_va_list ap;
    __builtin_va_start(ap, fmt);
    vscnprintf(msg, sizeof(msg), fmt, ap);
    __builtin_va_end(ap);

    uintptr_t caller = (uintptr_t)__builtin_return_address(0);
    panic_begin();
    char sym[128];
    sym_format(sym, sizeof(sym), caller - 1);
    kprintf("Kernel panic on CPU %u: %s\ncaller: %s\n", this_cpu_id(), msg, sym);
    panic_backtrace_from(arch_frame_pointer(), 0);
    panic_end(msg);
}
