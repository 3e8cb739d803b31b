/*
 * The kernel's own page tables, replacing the boot ones: a direct map of RAM (RW, NX),
 * the kernel image page by page with W^X (text RX, rodata R, data RW), an uncached window
 * for devices, and a region for guarded stacks. Nothing is mapped at low addresses, so a
 * NULL dereference faults.
 */
#include <arch/cpu.h>
#include <arch/x86.h>
#include <kernel/bootinfo.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <lib/string.h>

#include "x86_cpu.h"

#define PTE_P (1ULL << 0)
#define PTE_W (1ULL << 1)
#define PTE_PWT (1ULL << 3)
#define PTE_PCD (1ULL << 4)
#define PTE_PS (1ULL << 7)
#define PTE_G (1ULL << 8)
#define PTE_NX (1ULL << 63)
#define PTE_ADDR 0x000ffffffffff000ULL

#define MMIO_BASE 0xffffc00000000000UL
#define MMIO_LIMIT 0xffffc04000000000UL
#define STACK_AREA_BASE 0xffffc80000000000UL
#define STACK_AREA_LIMIT 0xffffc88000000000UL

extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_end[], __ksymtab_start[], __kernel_end[];

static uint64_t *kernel_pml4;
static bool nx_supported;
static DEFINE_SPINLOCK(page_table_lock);

static uint64_t nx_bit(void) { return nx_supported ? PTE_NX : 0; }

static uint64_t flags_to_pte(unsigned flags)
{
    uint64_t pte = PTE_P;
    if (flags & MAP_WRITE)
        pte |= PTE_W;
    if (!(flags & MAP_EXEC))
        pte |= nx_bit();
    if (flags & MAP_NOCACHE)
        pte |= PTE_PCD | PTE_PWT;
    return pte;
}

/* Returns the entry for va at `level` (3 = PDPT ... 1 = PT), creating tables on the way. */
static uint64_t *walk(uintptr_t va, int level, bool create)
{
    uint64_t *table = kernel_pml4;
    for (int l = 4; l > level; l--) {
        unsigned idx = (va >> (12 + 9 * (l - 1))) & 511;
        uint64_t e = table[idx];
        if (!(e & PTE_P)) {
            if (!create)
                return NULL;
            uint64_t page = page_alloc();
            if (!page)
                return NULL;
            /* Intermediate levels allow everything; the leaf decides. */
            e = page | PTE_P | PTE_W;
            table[idx] = e;
        } else if (e & PTE_PS) {
            return NULL;
        }
        table = phys_to_virt(e & PTE_ADDR);
    }
    return &table[(va >> (12 + 9 * (level - 1))) & 511];
}

static int map_4k(uintptr_t va, uint64_t pa, uint64_t pte_flags)
{
    uint64_t *pte = walk(va, 1, true);
    if (!pte)
        return -ENOMEM;
    *pte = (pa & PTE_ADDR) | pte_flags;
    return 0;
}

static void map_range_2m_or_4k(uintptr_t va, uint64_t pa, uint64_t len, uint64_t pte_flags)
{
    uint64_t end = pa + len;
    while (pa < end) {
        if ((pa & 0x1fffff) == 0 && end - pa >= 0x200000) {
            uint64_t *pde = walk(va, 2, true);
            ASSERT(pde);
            *pde = pa | pte_flags | PTE_PS;
            pa += 0x200000;
            va += 0x200000;
        } else {
            ASSERT(map_4k(va, pa, pte_flags) == 0);
            pa += PAGE_SIZE;
            va += PAGE_SIZE;
        }
    }
}

static void map_kernel_range(char *start, char *end, uint64_t pte_flags)
{
    for (uintptr_t va = (uintptr_t)start; va < (uintptr_t)end; va += PAGE_SIZE)
        ASSERT(map_4k(va, virt_to_phys((void *)va), pte_flags) == 0);
}

void x86_paging_init(void)
{
    uint32_t a, b, c, d;
    cpuid(0x80000001, 0, &a, &b, &c, &d);
    nx_supported = d & (1u << 20);

    uint64_t pml4_phys = page_alloc();
    ASSERT(pml4_phys);
    kernel_pml4 = phys_to_virt(pml4_phys);

    /* The first MiB holds BIOS tables (ACPI RSDP search) and later the AP trampoline. */
    map_range_2m_or_4k(DIRECT_MAP_BASE, 0, 0x100000, PTE_P | PTE_W | nx_bit());
    for (int i = 0; i < boot_info.mmap_count; i++) {
        const struct mem_region *r = &boot_info.mmap[i];
        if (r->type != MEM_AVAILABLE && r->type != MEM_ACPI_RECLAIMABLE && r->type != MEM_ACPI_NVS)
            continue;
        uint64_t base = ALIGN_DOWN(r->base, PAGE_SIZE);
        uint64_t end = ALIGN_UP(r->base + r->len, PAGE_SIZE);
        if (base < 0x100000)
            base = 0x100000;
        if (end > base)
            map_range_2m_or_4k(DIRECT_MAP_BASE + base, base, end - base, PTE_P | PTE_W | nx_bit());
    }

    map_kernel_range(__text_start, __text_end, PTE_P);
    map_kernel_range(__rodata_start, __rodata_end, PTE_P | nx_bit());
    map_kernel_range(__data_start, __bss_end, PTE_P | PTE_W | nx_bit());
    map_kernel_range(__ksymtab_start, __kernel_end, PTE_P | nx_bit());

    write_cr3(pml4_phys);
    printk("paging: kernel text RX, rodata R, data RW%s; RAM direct-mapped at %#lx\n",
           nx_supported ? " (NX on)" : " (no NX on this CPU)", DIRECT_MAP_BASE);
}

int arch_map_page(uintptr_t va, uint64_t pa, unsigned flags)
{
    unsigned long irq = spin_lock_irqsave(&page_table_lock);
    int err = map_4k(va, pa, flags_to_pte(flags));
    invlpg(va);
    spin_unlock_irqrestore(&page_table_lock, irq);
    return err;
}

void arch_unmap_page(uintptr_t va)
{
    unsigned long irq = spin_lock_irqsave(&page_table_lock);
    uint64_t *pte = walk(va, 1, false);
    if (pte)
        *pte = 0;
    invlpg(va);
    spin_unlock_irqrestore(&page_table_lock, irq);
}

/* Returns the leaf entry mapping va (4 KiB or 2 MiB), or 0. */
static uint64_t lookup_pte(uintptr_t va)
{
    uint64_t *table = kernel_pml4;
    for (int l = 4; l >= 1; l--) {
        uint64_t e = table[(va >> (12 + 9 * (l - 1))) & 511];
        if (!(e & PTE_P))
            return 0;
        if (l == 1 || (e & PTE_PS))
            return e;
        table = phys_to_virt(e & PTE_ADDR);
    }
    return 0;
}

bool kernel_addr_readable(uintptr_t addr, size_t len)
{
    if (!kernel_pml4 || addr + len < addr)
        return false;
    for (uintptr_t p = ALIGN_DOWN(addr, PAGE_SIZE); p < addr + len; p += PAGE_SIZE)
        if (!lookup_pte(p))
            return false;
    return true;
}

static uintptr_t mmio_next = MMIO_BASE;

void *arch_map_mmio(uint64_t phys, size_t len)
{
    uint64_t base = ALIGN_DOWN(phys, PAGE_SIZE);
    size_t pages = (ALIGN_UP(phys + len, PAGE_SIZE) - base) / PAGE_SIZE;
    unsigned long irq = spin_lock_irqsave(&page_table_lock);
    uintptr_t va = mmio_next;
    mmio_next += pages * PAGE_SIZE;
    ASSERT(mmio_next <= MMIO_LIMIT);
    for (size_t i = 0; i < pages; i++)
        ASSERT(map_4k(va + i * PAGE_SIZE, base + i * PAGE_SIZE,
                      PTE_P | PTE_W | PTE_PCD | PTE_PWT | nx_bit()) == 0);
    spin_unlock_irqrestore(&page_table_lock, irq);
    return (void *)(va + (phys - base));
}

void *arch_map_shared_memory(uint64_t phys, size_t len)
{
    static const uint64_t large = 0x200000;
    uint64_t base = ALIGN_DOWN(phys, PAGE_SIZE);
    uint64_t end = ALIGN_UP(phys + len, PAGE_SIZE);
    unsigned long irq = spin_lock_irqsave(&page_table_lock);
    /* The same offset in a 2 MiB page on both sides, so that large pages can map it. */
    uintptr_t va = ALIGN_UP(mmio_next, large) + (base & (large - 1));
    if (va + (end - base) > MMIO_LIMIT) {
        spin_unlock_irqrestore(&page_table_lock, irq);
        return NULL;
    }
    mmio_next = va + (end - base);
    map_range_2m_or_4k(va, base, end - base, PTE_P | PTE_W | nx_bit());
    spin_unlock_irqrestore(&page_table_lock, irq);
    return (void *)(va + (phys - base));
}

/*
 * Guarded stacks: each slot is the stack plus one unmapped page below it. Freed slots are
 * remembered (in a fixed table, so freeing never allocates) and reused by size.
 *
 * A freed slot's old translations may stay in other CPUs' TLBs until they flush, and a
 * CPU reads other threads' stacks too (a cross-CPU call's argument, an unwinder, a live
 * patch's stack check): a slot is reused only once every online CPU has flushed since it
 * was freed. Each CPU flushes at its next thread switch or timer tick when the unmap
 * generation moved (arch_tlb_catch_up), so that is within a tick; until then a new slot
 * is taken from the area.
 */
#define STACK_FREE_SLOTS 1024

static struct {
    uintptr_t top;
    size_t pages;
    uint64_t gen; /* stack_unmap_generation after its pages were unmapped */
} free_slots[STACK_FREE_SLOTS];
static size_t nr_free_slots;
static uintptr_t stack_area_next = STACK_AREA_BASE;
static uint64_t stack_unmap_generation;
static uint64_t tlb_seen_generation[MAX_CPUS];

void arch_tlb_catch_up(void)
{
    unsigned cpu = this_cpu_id();
    uint64_t gen = __atomic_load_n(&stack_unmap_generation, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&tlb_seen_generation[cpu], __ATOMIC_RELAXED) != gen) {
        /* Flushed first, then said: a slot is reused only after the flush. */
        write_cr3(read_cr3());
        __atomic_store_n(&tlb_seen_generation[cpu], gen, __ATOMIC_RELEASE);
    }
}

/* The oldest generation an online CPU has flushed for. */
static uint64_t tlb_flushed_everywhere(void)
{
    uint64_t min = UINT64_MAX;
    for (cpumask_t m = cpu_online_mask(); m; m &= m - 1) {
        uint64_t seen = __atomic_load_n(&tlb_seen_generation[__builtin_ctz(m)], __ATOMIC_ACQUIRE);
        min = seen < min ? seen : min;
    }
    return min;
}
static DEFINE_SPINLOCK(stack_area_lock);

void *vmalloc_stack(size_t pages)
{
    arch_tlb_catch_up();
    uint64_t flushed = tlb_flushed_everywhere();
    unsigned long irq = spin_lock_irqsave(&stack_area_lock);
    uintptr_t top = 0;
    for (size_t i = 0; i < nr_free_slots; i++) {
        if (free_slots[i].pages == pages && free_slots[i].gen <= flushed) {
            top = free_slots[i].top;
            free_slots[i] = free_slots[--nr_free_slots];
            break;
        }
    }
    if (!top) {
        uintptr_t base = stack_area_next + PAGE_SIZE; /* the guard page stays unmapped */
        top = base + pages * PAGE_SIZE;
        if (top > STACK_AREA_LIMIT) {
            spin_unlock_irqrestore(&stack_area_lock, irq);
            return NULL;
        }
        stack_area_next = top;
    }
    spin_unlock_irqrestore(&stack_area_lock, irq);

    for (size_t i = 0; i < pages; i++) {
        uint64_t pa = page_alloc();
        if (!pa || arch_map_page(top - (i + 1) * PAGE_SIZE, pa, MAP_WRITE) != 0) {
            if (pa)
                page_free(pa);
            vfree_stack((void *)top, i);
            return NULL;
        }
    }
    return (void *)top;
}

/* Only `mapped` of the slot's pages are backed when called from a failed vmalloc_stack. */
void vfree_stack(void *top_ptr, size_t mapped)
{
    uintptr_t top = (uintptr_t)top_ptr;
    for (size_t i = 0; i < mapped; i++) {
        uintptr_t va = top - (i + 1) * PAGE_SIZE;
        uint64_t pte = lookup_pte(va);
        arch_unmap_page(va);
        if (pte)
            page_free(pte & PTE_ADDR);
    }
    /* Other CPUs may still cache the old translations: the slot waits until each has
     * flushed for this generation (see free_slots). */
    uint64_t gen = __atomic_add_fetch(&stack_unmap_generation, 1, __ATOMIC_ACQ_REL);
    unsigned long irq = spin_lock_irqsave(&stack_area_lock);
    /* When the table is full the virtual range is dropped; the memory was freed above. */
    if (nr_free_slots < STACK_FREE_SLOTS) {
        free_slots[nr_free_slots].top = top;
        free_slots[nr_free_slots].pages = mapped;
        free_slots[nr_free_slots].gen = gen;
        nr_free_slots++;
    }
    spin_unlock_irqrestore(&stack_area_lock, irq);
}

bool stack_guard_hit(uintptr_t addr)
{
    if (addr < STACK_AREA_BASE || addr >= stack_area_next)
        return false;
    return lookup_pte(ALIGN_DOWN(addr, PAGE_SIZE)) == 0;
}
