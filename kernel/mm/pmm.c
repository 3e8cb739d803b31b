/*
 * Physical page allocator: one bit per 4 KiB page, set = in use. Everything starts in
 * use; only what the memory map calls available is freed, minus the kernel image, the
 * first MiB (BIOS data, AP trampoline) and the multiboot info.
 */
#include <kernel/bootinfo.h>
#include <kernel/fault_inject.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/reserve_mem.h>
#include <kernel/spinlock.h>
#include <lib/string.h>

#define PMM_MAX_PHYS (16ULL << 30)
#define PMM_MAX_PAGES (PMM_MAX_PHYS / PAGE_SIZE)

static uint64_t page_bitmap[PMM_MAX_PAGES / 64];
static uint64_t pmm_pages;       /* pages covered by the bitmap */
static uint64_t pmm_total_pages; /* available RAM */
static uint64_t pmm_free_pages;
static uint64_t pmm_search_hint;
static DEFINE_SPINLOCK(pmm_lock);

extern char __kernel_start[], __kernel_end[];

static inline bool page_used(uint64_t pfn) { return page_bitmap[pfn / 64] & (1ULL << (pfn % 64)); }
static inline void mark_used(uint64_t pfn) { page_bitmap[pfn / 64] |= 1ULL << (pfn % 64); }
static inline void mark_free(uint64_t pfn) { page_bitmap[pfn / 64] &= ~(1ULL << (pfn % 64)); }

static void reserve_range(uint64_t base, uint64_t len)
{
    uint64_t first = base / PAGE_SIZE;
    uint64_t last = MIN(ALIGN_UP(base + len, PAGE_SIZE) / PAGE_SIZE, pmm_pages);
    for (uint64_t pfn = first; pfn < last; pfn++) {
        if (!page_used(pfn)) {
            mark_used(pfn);
            pmm_free_pages--;
        }
    }
}

void pmm_init(void)
{
    memset(page_bitmap, 0xff, sizeof(page_bitmap));
    uint64_t top = 0;
    for (int i = 0; i < boot_info.mmap_count; i++) {
        const struct mem_region *r = &boot_info.mmap[i];
        if (r->type == MEM_AVAILABLE && r->base + r->len > top)
            top = r->base + r->len;
    }
    if (top > PMM_MAX_PHYS) {
        printk("pmm: ignoring RAM above %llu GiB\n", PMM_MAX_PHYS >> 30);
        top = PMM_MAX_PHYS;
    }
    pmm_pages = top / PAGE_SIZE;

    for (int i = 0; i < boot_info.mmap_count; i++) {
        const struct mem_region *r = &boot_info.mmap[i];
        if (r->type != MEM_AVAILABLE)
            continue;
        uint64_t first = ALIGN_UP(r->base, PAGE_SIZE) / PAGE_SIZE;
        uint64_t last = MIN((r->base + r->len) / PAGE_SIZE, pmm_pages);
        for (uint64_t pfn = first; pfn < last; pfn++) {
            if (page_used(pfn)) {
                mark_free(pfn);
                pmm_free_pages++;
                pmm_total_pages++;
            }
        }
    }
    reserve_range(0, 0x100000);
    reserve_range(virt_to_phys(__kernel_start),
                  (uintptr_t)__kernel_end - (uintptr_t)__kernel_start);
    reserve_range(boot_info.mbi_phys, boot_info.mbi_size);
    pmm_search_hint = 0x100000 / PAGE_SIZE;
    reserve_mem_init();
    printk("pmm: %llu MiB usable, %llu pages free\n",
           (unsigned long long)(pmm_total_pages * PAGE_SIZE >> 20),
           (unsigned long long)pmm_free_pages);
}

/* Boot only, before any allocation: the lowest aligned start at or above from whose run
 * is free, so that the same memory map always gives the same range. */
uint64_t pmm_reserve_low(uint64_t size, uint64_t align, uint64_t from)
{
    uint64_t limit = pmm_pages * PAGE_SIZE;
    if (!size || size > limit || from > limit - size)
        return 0;
    uint64_t n = size / PAGE_SIZE;
    for (uint64_t at = ALIGN_UP(from, align); at <= limit - size;) {
        /* The first used page in the run, if any: the next try starts past it. */
        uint64_t used = 0;
        for (uint64_t pfn = at / PAGE_SIZE; pfn < at / PAGE_SIZE + n && !used; pfn++)
            if (page_used(pfn))
                used = pfn + 1;
        if (!used) {
            reserve_range(at, size);
            return at;
        }
        at = ALIGN_UP(used * PAGE_SIZE, align);
    }
    return 0;
}

/* Finds n free pages in a row at or after `from`; returns the first pfn or 0. */
static uint64_t find_free_run(uint64_t from, size_t n)
{
    uint64_t run = 0;
    for (uint64_t pfn = from; pfn < pmm_pages; pfn++) {
        if (n == 1 && (pfn % 64) == 0 && page_bitmap[pfn / 64] == ~0ULL) {
            pfn += 63; /* whole word in use */
            continue;
        }
        run = page_used(pfn) ? 0 : run + 1;
        if (run == n)
            return pfn + 1 - n;
    }
    return 0;
}

uint64_t page_alloc_n(size_t n)
{
    if (n == 0 || should_fail(&fail_page_alloc, n * PAGE_SIZE))
        return 0;
    unsigned long flags = spin_lock_irqsave(&pmm_lock);
    uint64_t pfn = find_free_run(pmm_search_hint, n);
    if (!pfn)
        pfn = find_free_run(0x100000 / PAGE_SIZE, n);
    if (pfn) {
        for (size_t i = 0; i < n; i++)
            mark_used(pfn + i);
        pmm_free_pages -= n;
        if (n == 1)
            pmm_search_hint = pfn + 1;
    }
    spin_unlock_irqrestore(&pmm_lock, flags);
    if (!pfn)
        return 0;
    uint64_t phys = pfn * PAGE_SIZE;
    memset(phys_to_virt(phys), 0, n * PAGE_SIZE);
    return phys;
}

uint64_t page_alloc(void) { return page_alloc_n(1); }

void page_free_n(uint64_t phys, size_t n)
{
    ASSERT((phys & (PAGE_SIZE - 1)) == 0);
    unsigned long flags = spin_lock_irqsave(&pmm_lock);
    uint64_t pfn = phys / PAGE_SIZE;
    for (size_t i = 0; i < n; i++) {
        if (pfn + i >= pmm_pages || !page_used(pfn + i))
            panic("page_free: page %#llx is not allocated",
                  (unsigned long long)((pfn + i) * PAGE_SIZE));
        mark_free(pfn + i);
    }
    pmm_free_pages += n;
    if (pfn < pmm_search_hint)
        pmm_search_hint = pfn;
    spin_unlock_irqrestore(&pmm_lock, flags);
}

void page_free(uint64_t phys) { page_free_n(phys, 1); }

void pmm_get_stats(uint64_t *total, uint64_t *free_pages)
{
    *total = pmm_total_pages;
    *free_pages = READ_ONCE(pmm_free_pages);
}
