#ifndef KERNEL_MM_H
#define KERNEL_MM_H

#include <kernel/compiler.h>

#define PAGE_SIZE 4096UL
#define PAGE_SHIFT 12

/* All of RAM is mapped at DIRECT_MAP_BASE (RW, NX). */
#define DIRECT_MAP_BASE 0xffff800000000000UL
#define KERNEL_VMA_BASE 0xffffffff80000000UL

static inline void *phys_to_virt(uint64_t phys) { return (void *)(phys + DIRECT_MAP_BASE); }
static inline uint64_t virt_to_phys(const void *virt)
{
    uintptr_t v = (uintptr_t)virt;
    return v >= KERNEL_VMA_BASE ? v - KERNEL_VMA_BASE : v - DIRECT_MAP_BASE;
}

/* Physical pages. Returns 0 when out of memory. Contiguous runs for n > 1. */
uint64_t page_alloc(void);
uint64_t page_alloc_n(size_t n);
void page_free(uint64_t phys);
void page_free_n(uint64_t phys, size_t n);

struct mm_stats {
    uint64_t total_pages;
    uint64_t free_pages;
    uint64_t heap_bytes_in_use;
    uint64_t heap_bytes_mapped;
    uint64_t heap_allocs;
    uint64_t heap_frees;
};
void mm_get_stats(struct mm_stats *st);

/* Kernel heap: any size, SMP-safe. kmalloc returns 16-byte aligned memory or NULL. */
void *kmalloc(size_t size);
void *kzalloc(size_t size);
void *krealloc(void *p, size_t size);
void kfree(void *p);
char *kstrdup(const char *s);

/*
 * Kernel virtual memory for stacks and large buffers: maps n pages with an unmapped guard
 * page below, so an overflow faults instead of corrupting the neighbour.
 */
void *vmalloc_stack(size_t pages);
void vfree_stack(void *top, size_t pages);

/* True when addr lies in the guard page below a stack made by vmalloc_stack. */
bool stack_guard_hit(uintptr_t addr);
/* True when [addr, addr+len) is mapped kernel memory that can be read without faulting. */
bool kernel_addr_readable(uintptr_t addr, size_t len);

/* Boot-time setup, in this order: pmm_init, arch_paging_init, heap ready at once. */
void pmm_init(void);
void pmm_get_stats(uint64_t *total_pages, uint64_t *free_pages);
void heap_get_stats(uint64_t *in_use, uint64_t *mapped, uint64_t *allocs, uint64_t *frees);

/* Page table flags for arch_map_page. */
#define MAP_WRITE 0x1
#define MAP_EXEC 0x2
#define MAP_NOCACHE 0x4
/* Maps one 4 KiB page into the kernel's address space; returns 0 or -ENOMEM. */
int arch_map_page(uintptr_t va, uint64_t pa, unsigned flags);
void arch_unmap_page(uintptr_t va);
/* Flushes this CPU's TLB if stacks were unmapped since it last did (before a switch). */
void arch_tlb_catch_up(void);
/* Maps device memory (uncached) and returns its virtual address. */
void *arch_map_mmio(uint64_t phys, size_t len);
/*
 * Maps memory another party shares with this machine (a hypervisor's shared-memory
 * device) write-back cacheable, as RAM: it is RAM on the other side, with no side effects
 * on access. Returns its virtual address, or NULL when the window is full.
 */
void *arch_map_shared_memory(uint64_t phys, size_t len);

/*
 * Reads kernel memory that may not be mapped (a kprobe's dereference of a pointer it
 * fetched): a fault while copying ends the copy instead of the kernel. Any context.
 * copy_from_kernel_nofault: 0, or -EFAULT with dst's content undefined.
 * strncpy_from_kernel_nofault: copies up to count bytes, stopping after a NUL; returns
 * the bytes copied including that NUL (count when none was met, dst then unterminated),
 * or -EFAULT.
 * strnlen_kernel_nofault: what strncpy_from_kernel_nofault would return, copying nothing.
 */
long copy_from_kernel_nofault(void *dst, const void *src, size_t len);
long strncpy_from_kernel_nofault(char *dst, const char *src, size_t count);
long strnlen_kernel_nofault(const char *src, size_t count);

#endif
