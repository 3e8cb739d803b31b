/*
 * Multiboot2 information and the kernel command line. The info block lives in memory the
 * page allocator will hand out, so everything needed later is copied into boot_info.
 */
#include <kernel/bootinfo.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <lib/string.h>

#define MB2_TAG_END 0
#define MB2_TAG_CMDLINE 1
#define MB2_TAG_BOOTLOADER 2
#define MB2_TAG_MMAP 6
#define MB2_TAG_ACPI_OLD 14
#define MB2_TAG_ACPI_NEW 15

struct mb2_tag {
    uint32_t type;
    uint32_t size;
};

struct mb2_mmap_entry {
    uint64_t base;
    uint64_t len;
    uint32_t type;
    uint32_t reserved;
};

struct boot_info boot_info = {.rsdp_revision = -1};

void multiboot_parse(uint32_t magic, uint64_t mbi_phys)
{
    ASSERT(magic == 0x36d76289);
    const uint8_t *mbi = phys_to_virt(mbi_phys);
    uint32_t total = *(const uint32_t *)mbi;
    boot_info.mbi_phys = mbi_phys;
    boot_info.mbi_size = total;

    for (uint32_t off = 8; off + sizeof(struct mb2_tag) <= total;) {
        const struct mb2_tag *tag = (const void *)(mbi + off);
        if (tag->type == MB2_TAG_END || tag->size < sizeof(*tag))
            break;
        const uint8_t *body = (const uint8_t *)(tag + 1);
        uint32_t body_len = tag->size - sizeof(*tag);
        switch (tag->type) {
        case MB2_TAG_CMDLINE:
            strlcpy(boot_info.cmdline, (const char *)body,
                    MIN((size_t)body_len + 1, sizeof(boot_info.cmdline)));
            break;
        case MB2_TAG_BOOTLOADER:
            strlcpy(boot_info.bootloader, (const char *)body,
                    MIN((size_t)body_len + 1, sizeof(boot_info.bootloader)));
            break;
        case MB2_TAG_MMAP: {
            uint32_t entry_size = *(const uint32_t *)body;
            for (uint32_t e = 8; entry_size && e + entry_size <= body_len; e += entry_size) {
                const struct mb2_mmap_entry *m = (const void *)(body + e);
                if (boot_info.mmap_count == BOOT_MMAP_MAX) {
                    printk("boot: memory map has more than %d entries; ignoring the rest\n",
                           BOOT_MMAP_MAX);
                    break;
                }
                struct mem_region *r = &boot_info.mmap[boot_info.mmap_count++];
                r->base = m->base;
                r->len = m->len;
                r->type = m->type;
            }
            break;
        }
        case MB2_TAG_ACPI_OLD:
        case MB2_TAG_ACPI_NEW: {
            /* Prefer the v2 RSDP: it leads to the XSDT. */
            int rev = tag->type == MB2_TAG_ACPI_NEW ? 2 : 0;
            if (rev >= boot_info.rsdp_revision) {
                memcpy(boot_info.rsdp, body, MIN(body_len, (uint32_t)sizeof(boot_info.rsdp)));
                boot_info.rsdp_revision = rev;
            }
            break;
        }
        }
        off += ALIGN_UP(tag->size, 8u);
    }
}

/* Finds the (skip+1)-th word `key` (followed by '=', a blank or the end) in the command line. */
static const char *cmdline_find(const char *key, unsigned skip, size_t *value_len, bool *has_value)
{
    size_t klen = strlen(key);
    const char *p = boot_info.cmdline;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *word = p;
        while (*p && *p != ' ')
            p++;
        if ((size_t)(p - word) >= klen && strncmp(word, key, klen) == 0 &&
            (word[klen] == '=' || word + klen == p) && skip-- == 0) {
            *has_value = word[klen] == '=';
            const char *v = *has_value ? word + klen + 1 : p;
            *value_len = (size_t)(p - v);
            return v;
        }
    }
    return NULL;
}

const char *cmdline_value_nth(const char *key, unsigned n, char *buf, size_t len)
{
    size_t vlen;
    bool has_value;
    const char *v = cmdline_find(key, n, &vlen, &has_value);
    if (!v || !has_value || len == 0)
        return NULL;
    size_t copy = MIN(vlen, len - 1);
    memcpy(buf, v, copy);
    buf[copy] = '\0';
    return buf;
}

const char *cmdline_value(const char *key, char *buf, size_t len)
{
    return cmdline_value_nth(key, 0, buf, len);
}

bool cmdline_has(const char *flag)
{
    size_t vlen;
    bool has_value;
    return cmdline_find(flag, 0, &vlen, &has_value) != NULL;
}
