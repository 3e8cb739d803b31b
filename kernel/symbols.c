/*
 * The embedded symbol table (include/kernel/ksymtab.h): address -> function
 * for backtraces and trace output, name -> address for lookups. Not traced: the trace
 * output formats every event through it.
 */
#include <kernel/ksymtab.h>
#include <kernel/symbols.h>
#include <lib/printf.h>
#include <lib/string.h>

extern const char __ksymtab_start[], __ksymtab_end[];

static const struct ksymtab_header *table(void)
{
    const struct ksymtab_header *h = (const void *)__ksymtab_start;
    if ((size_t)(__ksymtab_end - __ksymtab_start) < sizeof(*h) || h->magic != KSYMTAB_MAGIC)
        return NULL;
    return h;
}

static const struct ksym *entries(const struct ksymtab_header *h)
{
    return (const struct ksym *)(h + 1);
}

static const char *name_of(const struct ksymtab_header *h, const struct ksym *s)
{
    return (const char *)h + h->strings_offset + s->name_off;
}

size_t sym_count(void)
{
    const struct ksymtab_header *h = table();
    return h ? h->count : 0;
}

const char *sym_at(size_t i, uintptr_t *addr)
{
    const struct ksymtab_header *h = table();
    if (!h || i >= h->count)
        return NULL;
    const struct ksym *e = entries(h) + i;
    *addr = e->addr;
    return name_of(h, e);
}

static const struct ksym *data_entries(const struct ksymtab_header *h)
{
    return (const struct ksym *)((const char *)h + h->data_offset);
}

size_t sym_data_count(void)
{
    const struct ksymtab_header *h = table();
    return h ? h->data_count : 0;
}

const char *sym_data_at(size_t i, uintptr_t *addr)
{
    const struct ksymtab_header *h = table();
    if (!h || i >= h->data_count)
        return NULL;
    const struct ksym *e = data_entries(h) + i;
    *addr = e->addr;
    return name_of(h, e);
}

char sym_type_at(size_t i, bool data)
{
    const struct ksymtab_header *h = table();
    if (!h || i >= (data ? h->data_count : h->count))
        return '?';
    /* One letter per entry, the functions' then the data objects'. */
    return ((const char *)h + h->types_offset)[data ? h->count + i : i];
}

const char *sym_lookup(uintptr_t addr, uintptr_t *start, size_t *size)
{
    const struct ksymtab_header *h = table();
    if (!h || h->count == 0)
        return NULL;
    const struct ksym *e = entries(h);
    /* Last entry whose address is <= addr. */
    size_t lo = 0, hi = h->count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (e[mid].addr <= addr)
            lo = mid;
        else
            hi = mid;
    }
    const struct ksym *s = &e[lo];
    if (addr < s->addr || addr >= s->addr + s->size)
        return NULL;
    if (start)
        *start = s->addr;
    if (size)
        *size = s->size;
    return name_of(h, s);
}

uintptr_t sym_address(const char *name)
{
    const struct ksymtab_header *h = table();
    if (!h)
        return 0;
    const struct ksym *e = entries(h);
    for (size_t i = 0; i < h->count; i++)
        if (strcmp(name_of(h, &e[i]), name) == 0)
            return e[i].addr;
    return 0;
}

uintptr_t sym_data_address(const char *name)
{
    const struct ksymtab_header *h = table();
    if (!h)
        return 0;
    const struct ksym *e = data_entries(h);
    for (size_t i = 0; i < h->data_count; i++)
        if (strcmp(name_of(h, &e[i]), name) == 0)
            return e[i].addr;
    return 0;
}

int sym_format(char *buf, size_t len, uintptr_t addr)
{
    uintptr_t start;
    size_t size;
    const char *name = sym_lookup(addr, &start, &size);
    if (!name)
        return scnprintf(buf, len, "0x%lx", (unsigned long)addr);
    return scnprintf(buf, len, "%s+0x%lx/0x%lx", name, (unsigned long)(addr - start),
                     (unsigned long)size);
}

static int symbol_hook(char *buf, size_t size, uintptr_t addr, int with_offset)
{
    if (with_offset) {
        if (!sym_lookup(addr, NULL, NULL))
            return -1;
        return sym_format(buf, size, addr);
    }
    const char *name = sym_lookup(addr, NULL, NULL);
    if (!name)
        return -1;
    return scnprintf(buf, size, "%s", name);
}

void symbols_init(void) { printf_symbol_hook = symbol_hook; }
