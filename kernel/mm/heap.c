/*
 * The kernel heap. Small requests come from per-size-class free lists carved out of
 * whole pages; large ones get their own run of pages. Every block starts with a header
 * that records its class and a magic word, so kfree needs no size and catches double
 * frees and stray pointers. One lock, taken with interrupts off, makes it SMP-safe.
 */
#include <kernel/errno.h>
#include <kernel/fault_inject.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/spinlock.h>
#include <lib/string.h>

#define HEAP_MAGIC_USED 0x6b6d616cu /* "lamk" */
#define HEAP_MAGIC_FREE 0x65657266u /* "free" */
#define HEAP_CLASS_LARGE 0xffffu
#define HEAP_MIN_SHIFT 5  /* 32-byte blocks: 16 header + 16 payload */
#define HEAP_MAX_SHIFT 12 /* 4096-byte blocks */
#define HEAP_CLASSES (HEAP_MAX_SHIFT - HEAP_MIN_SHIFT + 1)
#define HEAP_SLAB_PAGES 4

struct heap_header {
    uint32_t magic;
    uint16_t size_class; /* shift of the block size, or HEAP_CLASS_LARGE */
    uint16_t reserved;
    uint32_t requested; /* bytes asked for (large: pages in the run) */
    uint32_t pages;
};

_Static_assert(sizeof(struct heap_header) == 16, "payload must stay 16-byte aligned");

struct free_block {
    struct heap_header hdr;
    struct free_block *next;
};

static struct free_block *free_lists[HEAP_CLASSES];
static DEFINE_SPINLOCK(heap_lock);
static uint64_t heap_in_use, heap_mapped, heap_allocs, heap_frees;

static unsigned class_for(size_t total)
{
    unsigned shift = HEAP_MIN_SHIFT;
    while ((1ul << shift) < total)
        shift++;
    return shift;
}

/* Carves a fresh slab into blocks of one class; called with the lock held. */
static bool refill_class(unsigned shift)
{
    uint64_t phys = page_alloc_n(HEAP_SLAB_PAGES);
    if (!phys)
        return false;
    char *base = phys_to_virt(phys);
    size_t block = 1ul << shift;
    struct free_block **list = &free_lists[shift - HEAP_MIN_SHIFT];
    for (size_t off = 0; off + block <= HEAP_SLAB_PAGES * PAGE_SIZE; off += block) {
        struct free_block *b = (struct free_block *)(base + off);
        b->hdr.magic = HEAP_MAGIC_FREE;
        b->hdr.size_class = shift;
        b->next = *list;
        *list = b;
    }
    heap_mapped += HEAP_SLAB_PAGES * PAGE_SIZE;
    return true;
}

void *kmalloc(size_t size)
{
    if (size == 0)
        size = 1;
    if (size > (1ul << 30) || should_fail(&failslab, size))
        return NULL;
    size_t total = size + sizeof(struct heap_header);

    if (total > (1ul << HEAP_MAX_SHIFT)) {
        size_t pages = ALIGN_UP(total, PAGE_SIZE) / PAGE_SIZE;
        uint64_t phys = page_alloc_n(pages);
        if (!phys)
            return NULL;
        struct heap_header *h = phys_to_virt(phys);
        h->magic = HEAP_MAGIC_USED;
        h->size_class = HEAP_CLASS_LARGE;
        h->requested = size;
        h->pages = pages;
        unsigned long flags = spin_lock_irqsave(&heap_lock);
        heap_in_use += size;
        heap_mapped += pages * PAGE_SIZE;
        heap_allocs++;
        spin_unlock_irqrestore(&heap_lock, flags);
        return h + 1;
    }

    unsigned shift = class_for(total);
    unsigned long flags = spin_lock_irqsave(&heap_lock);
    struct free_block **list = &free_lists[shift - HEAP_MIN_SHIFT];
    if (!*list && !refill_class(shift)) {
        spin_unlock_irqrestore(&heap_lock, flags);
        return NULL;
    }
    struct free_block *b = *list;
    *list = b->next;
    if (b->hdr.magic != HEAP_MAGIC_FREE)
        panic("kmalloc: free list of %lu-byte blocks corrupted at %p", 1ul << shift, b);
    b->hdr.magic = HEAP_MAGIC_USED;
    b->hdr.requested = size;
    heap_in_use += size;
    heap_allocs++;
    spin_unlock_irqrestore(&heap_lock, flags);
    return &b->hdr + 1;
}

void *kzalloc(size_t size)
{
    void *p = kmalloc(size);
    if (p)
        memset(p, 0, size);
    return p;
}

static struct heap_header *header_of(void *p, const char *who)
{
    struct heap_header *h = (struct heap_header *)p - 1;
    if (((uintptr_t)p & 15) != 0 || !kernel_addr_readable((uintptr_t)h, sizeof(*h)))
        panic("%s: %p is not a heap pointer", who, p);
    if (h->magic == HEAP_MAGIC_FREE)
        panic("%s: double free of %p", who, p);
    if (h->magic != HEAP_MAGIC_USED)
        panic("%s: %p is not a heap pointer (bad magic %#x)", who, p, h->magic);
    return h;
}

void kfree(void *p)
{
    if (!p)
        return;
    struct heap_header *h = header_of(p, "kfree");
    if (h->size_class == HEAP_CLASS_LARGE) {
        size_t pages = h->pages;
        unsigned long flags = spin_lock_irqsave(&heap_lock);
        heap_in_use -= h->requested;
        heap_mapped -= pages * PAGE_SIZE;
        heap_frees++;
        spin_unlock_irqrestore(&heap_lock, flags);
        h->magic = HEAP_MAGIC_FREE;
        page_free_n(virt_to_phys(h), pages);
        return;
    }
    unsigned shift = h->size_class;
    ASSERT(shift >= HEAP_MIN_SHIFT && shift <= HEAP_MAX_SHIFT);
    unsigned long flags = spin_lock_irqsave(&heap_lock);
    heap_in_use -= h->requested;
    heap_frees++;
    struct free_block *b = (struct free_block *)h;
    b->hdr.magic = HEAP_MAGIC_FREE;
    b->next = free_lists[shift - HEAP_MIN_SHIFT];
    free_lists[shift - HEAP_MIN_SHIFT] = b;
    spin_unlock_irqrestore(&heap_lock, flags);
}

void *krealloc(void *p, size_t size)
{
    if (!p)
        return kmalloc(size);
    if (size == 0) {
        kfree(p);
        return NULL;
    }
    struct heap_header *h = header_of(p, "krealloc");
    size_t capacity = h->size_class == HEAP_CLASS_LARGE ? h->pages * PAGE_SIZE - sizeof(*h)
                                                        : (1ul << h->size_class) - sizeof(*h);
    if (size <= capacity) {
        unsigned long flags = spin_lock_irqsave(&heap_lock);
        heap_in_use = heap_in_use - h->requested + size;
        h->requested = size;
        spin_unlock_irqrestore(&heap_lock, flags);
        return p;
    }
    void *n = kmalloc(size);
    if (!n)
        return NULL;
    memcpy(n, p, h->requested);
    kfree(p);
    return n;
}

char *kstrdup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *d = kmalloc(len);
    if (d)
        memcpy(d, s, len);
    return d;
}

void heap_get_stats(uint64_t *in_use, uint64_t *mapped, uint64_t *allocs, uint64_t *frees)
{
    unsigned long flags = spin_lock_irqsave(&heap_lock);
    *in_use = heap_in_use;
    *mapped = heap_mapped;
    *allocs = heap_allocs;
    *frees = heap_frees;
    spin_unlock_irqrestore(&heap_lock, flags);
}

void mm_get_stats(struct mm_stats *st)
{
    pmm_get_stats(&st->total_pages, &st->free_pages);
    heap_get_stats(&st->heap_bytes_in_use, &st->heap_bytes_mapped, &st->heap_allocs,
                   &st->heap_frees);
}
