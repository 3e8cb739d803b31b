/*
 * Starting the application processors: INIT, STARTUP, STARTUP (as the MP spec asks) with
 * the trampoline of boot/ap_trampoline.asm copied to low memory. One CPU at a time, since
 * they share the trampoline's parameter block. A CPU that does not answer in time is
 * reported and left out.
 */
#include <arch/acpi.h>
#include <arch/apic.h>
#include <arch/cpu.h>
#include <arch/x86.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/string.h>

#include "x86_cpu.h"

#define TRAMPOLINE_BASE 0x8000
#define AP_STACK_PAGES 4
#define AP_START_TIMEOUT_NS (2 * NSEC_PER_SEC)

struct ap_trampoline_params {
    uint64_t cr3;
    uint64_t stack;
    uint64_t entry;
    uint32_t cpu;
    uint32_t efer_bits;
} __packed;

extern const char ap_trampoline_start[], ap_trampoline_end[], ap_trampoline_params[];

static volatile bool ap_started;

static void __noreturn ap_entry(unsigned cpu)
{
    percpu_init_cpu(cpu, acpi_machine.cpu_apic_ids[cpu]);
    x86_cpu_tables_init(cpu);
    x86_idt_init();
    lapic_init_ap();
    sched_init_cpu(cpu);
    cpu_data(cpu)->online = true;
    __atomic_store_n(&ap_started, true, __ATOMIC_RELEASE);
    lapic_timer_start(1000);
    arch_irq_enable();
    sched_idle_loop();
}

static bool start_ap(unsigned cpu, uint32_t apic_id)
{
    struct ap_trampoline_params *p =
        phys_to_virt(TRAMPOLINE_BASE + (ap_trampoline_params - ap_trampoline_start));
    void *stack = vmalloc_stack(AP_STACK_PAGES);
    if (!stack) {
        printk("smp: no memory for CPU %u's stack\n", cpu);
        return false;
    }
    p->cr3 = read_cr3();
    p->stack = (uint64_t)stack;
    p->entry = (uint64_t)ap_entry;
    p->cpu = cpu;
    p->efer_bits = (uint32_t)(rdmsr(MSR_EFER) & ((1u << 8) | (1u << 11))); /* LME, NXE */
    ap_started = false;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);

    lapic_send_init(apic_id);
    udelay(10000);
    for (int attempt = 0; attempt < 2 && !ap_started; attempt++) {
        lapic_send_startup(apic_id, TRAMPOLINE_BASE >> 12);
        uint64_t deadline = clock_ns() + (attempt == 0 ? 1000000 : AP_START_TIMEOUT_NS);
        while (!__atomic_load_n(&ap_started, __ATOMIC_ACQUIRE) && clock_ns() < deadline)
            arch_cpu_relax();
    }
    if (!ap_started) {
        printk("smp: CPU %u (APIC id %u) did not start; skipped\n", cpu, apic_id);
        /* Its stack may still be reached by a late start; leak it rather than reuse it. */
        return false;
    }
    return true;
}

void smp_boot_aps(void)
{
    smp_init_ipis();
    uint32_t bsp_id = lapic_id();
    cpu_data(0)->hw_id = bsp_id;
    cpu_data(0)->online = true;

    /* The trampoline switches on paging with the kernel's tables while running at its
     * low address, so that page must be identity-mapped (and executable) meanwhile. */
    ASSERT(read_cr3() < (1ULL << 32));
    size_t len = ap_trampoline_end - ap_trampoline_start;
    memcpy(phys_to_virt(TRAMPOLINE_BASE), ap_trampoline_start, len);
    ASSERT(arch_map_page(TRAMPOLINE_BASE, TRAMPOLINE_BASE, MAP_WRITE | MAP_EXEC) == 0);

    unsigned next_cpu = 1;
    for (unsigned i = 0; i < acpi_machine.ncpus; i++) {
        uint32_t apic_id = acpi_machine.cpu_apic_ids[i];
        if (apic_id == bsp_id)
            continue;
        if (next_cpu >= MAX_CPUS)
            break;
        /* CPU numbers are dense: a CPU that fails to start does not leave a hole. */
        acpi_machine.cpu_apic_ids[next_cpu] = apic_id;
        if (start_ap(next_cpu, apic_id))
            next_cpu++;
    }
    acpi_machine.cpu_apic_ids[0] = bsp_id;
    arch_unmap_page(TRAMPOLINE_BASE);
    cpus_online = next_cpu;
    printk("smp: %u CPU%s online\n", cpus_online, cpus_online == 1 ? "" : "s");
}
