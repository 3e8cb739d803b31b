/*
 * Per-CPU descriptor tables. Each CPU has its own GDT because the TSS descriptor holds a
 * busy bit and its own TSS because the interrupt stack table is per CPU.
 */
#include <arch/cpu.h>
#include <arch/x86.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <lib/string.h>

struct tss {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __packed;

struct x86_cpu_tables {
    uint64_t gdt[5];
    struct tss tss;
} __aligned(16);

static struct x86_cpu_tables cpu_tables[MAX_CPUS];

/* The bootstrap CPU needs IST stacks before the page allocator exists. */
static uint8_t bsp_ist_stacks[X86_IST_COUNT][X86_IST_STACK_PAGES * PAGE_SIZE] __aligned(16);

__kprobes void x86_ist_move_top(unsigned cpu, unsigned ist, long delta)
{
    cpu_tables[cpu].tss.ist[ist - 1] += (uint64_t)delta;
}

struct gdt_ptr {
    uint16_t limit;
    uint64_t base;
} __packed;

void x86_cpu_tables_init(unsigned cpu)
{
    struct x86_cpu_tables *t = &cpu_tables[cpu];
    memset(t, 0, sizeof(*t));
    t->gdt[1] = 0x00af9a000000ffffULL; /* kernel code: long mode, present, DPL 0 */
    t->gdt[2] = 0x00cf92000000ffffULL; /* kernel data */

    uint64_t base = (uint64_t)&t->tss;
    uint64_t limit = sizeof(t->tss) - 1;
    t->gdt[3] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ULL << 40) |
                (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
    t->gdt[4] = base >> 32;
    t->tss.iomap_base = sizeof(t->tss);

    for (int i = 0; i < X86_IST_COUNT; i++) {
        uintptr_t top;
        if (cpu == 0) {
            top = (uintptr_t)bsp_ist_stacks[i] + sizeof(bsp_ist_stacks[i]);
        } else {
            top = (uintptr_t)vmalloc_stack(X86_IST_STACK_PAGES);
            ASSERT(top);
        }
        t->tss.ist[i] = top;
    }

    struct gdt_ptr ptr = {sizeof(t->gdt) - 1, (uint64_t)t->gdt};
    __asm__ __volatile__("lgdt %0\n\t"
                         "mov %1, %%ds\n\t"
                         "mov %1, %%es\n\t"
                         "mov %1, %%ss\n\t"
                         "pushq %2\n\t"
                         "leaq 1f(%%rip), %%rax\n\t"
                         "pushq %%rax\n\t"
                         "lretq\n\t"
                         "1:"
                         :
                         : "m"(ptr), "r"((uint64_t)X86_KERNEL_DS), "i"(X86_KERNEL_CS)
                         : "rax", "memory");
    __asm__ __volatile__("ltr %w0" ::"r"(X86_TSS_SEL));
}
