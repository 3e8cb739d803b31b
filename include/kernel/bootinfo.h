#ifndef KERNEL_BOOTINFO_H
#define KERNEL_BOOTINFO_H

#include <kernel/compiler.h>

#define BOOT_MMAP_MAX 64
#define BOOT_CMDLINE_MAX 1024

#define MEM_AVAILABLE 1
#define MEM_RESERVED 2
#define MEM_ACPI_RECLAIMABLE 3
#define MEM_ACPI_NVS 4
#define MEM_BAD 5

struct mem_region {
    uint64_t base;
    uint64_t len;
    uint32_t type;
};

/* What the loader told us, copied out of the multiboot2 info before its memory is reused. */
struct boot_info {
    char cmdline[BOOT_CMDLINE_MAX];
    char bootloader[64];
    struct mem_region mmap[BOOT_MMAP_MAX];
    int mmap_count;
    uint8_t rsdp[36];  /* copy of the ACPI RSDP (v1: 20 bytes, v2: 36) */
    int rsdp_revision; /* -1 when the loader gave none */
    uint64_t mbi_phys;
    uint64_t mbi_size;
};

extern struct boot_info boot_info;

void multiboot_parse(uint32_t magic, uint64_t mbi_phys);

/* Kernel command line: "key=value" and bare "flag" words. */
const char *cmdline_value(const char *key, char *buf, size_t len);
/* The value of the n-th (from 0) `key=` word, for parameters that may be given again. */
const char *cmdline_value_nth(const char *key, unsigned n, char *buf, size_t len);
bool cmdline_has(const char *flag);

#endif
