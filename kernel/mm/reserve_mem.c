/*
 * reserve_mem=SIZE:ALIGN:NAME: named ranges of RAM the page allocator never hands out
 * (include/kernel/reserve_mem.h). A value that cannot be used is reported in the boot log
 * as `reserve_mem: VALUE: why; ignored`; the others still apply.
 */
#include <kernel/bootinfo.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/printk.h>
#include <kernel/reserve_mem.h>
#include <lib/string.h>

struct reserved_range {
    char name[RESERVE_MEM_NAME_MAX];
    uint64_t phys;
    uint64_t size;
    bool claimed;
};

static struct reserved_range reserved[RESERVE_MEM_MAX];
static unsigned reserved_count;

static void ignored(const char *value, const char *why)
{
    printk("reserve_mem: %s: %s; ignored\n", value, why);
}

static void reserve_one(char *value)
{
    char text[BOOT_CMDLINE_MAX];
    strlcpy(text, value, sizeof(text));
    unsigned long long size, align;
    char *p;
    if (parse_size(value, &p, &size) != 0 || *p != ':' || size == 0) {
        ignored(text, "not SIZE:ALIGN:NAME");
        return;
    }
    if (parse_size(p + 1, &p, &align) != 0 || *p != ':') {
        ignored(text, "not SIZE:ALIGN:NAME");
        return;
    }
    const char *name = p + 1;
    if (!*name || strlen(name) >= RESERVE_MEM_NAME_MAX) {
        ignored(text, "the name is empty or too long");
        return;
    }
    if (align == 0 || (align & (align - 1))) {
        ignored(text, "ALIGN is not a power of two");
        return;
    }
    if (align < PAGE_SIZE)
        align = PAGE_SIZE;
    uint64_t phys, old_size;
    if (reserve_mem_find(name, &phys, &old_size)) {
        ignored(text, "the name is taken");
        return;
    }
    if (reserved_count == RESERVE_MEM_MAX) {
        ignored(text, "too many ranges");
        return;
    }
    uint64_t total_pages, free_pages;
    pmm_get_stats(&total_pages, &free_pages);
    if (size > free_pages * PAGE_SIZE || align > (1ULL << 40)) {
        ignored(text, "no free range that large");
        return;
    }
    size = ALIGN_UP(size, PAGE_SIZE);
    phys = pmm_reserve_low(size, align, RESERVE_MEM_FROM);
    if (!phys) {
        ignored(text, "no free range that large");
        return;
    }
    struct reserved_range *r = &reserved[reserved_count++];
    strlcpy(r->name, name, sizeof(r->name));
    r->phys = phys;
    r->size = size;
    printk("reserve_mem: %s at %#llx-%#llx (%llu KiB)\n", r->name, (unsigned long long)phys,
           (unsigned long long)(phys + size - 1), (unsigned long long)(size >> 10));
}

void reserve_mem_init(void)
{
    char value[BOOT_CMDLINE_MAX];
    for (unsigned n = 0; cmdline_value_nth("reserve_mem", n, value, sizeof(value)); n++)
        reserve_one(value);
}

bool reserve_mem_find(const char *name, uint64_t *phys, uint64_t *size)
{
    for (unsigned i = 0; i < reserved_count; i++) {
        if (!strcmp(reserved[i].name, name)) {
            *phys = reserved[i].phys;
            *size = reserved[i].size;
            return true;
        }
    }
    return false;
}

bool reserve_mem_claim(const char *name)
{
    for (unsigned i = 0; i < reserved_count; i++) {
        if (!strcmp(reserved[i].name, name)) {
            if (reserved[i].claimed)
                return false;
            reserved[i].claimed = true;
            return true;
        }
    }
    return true; /* no such range: its user finds that out (reserve_mem_find) */
}
