#ifndef KERNEL_RESERVE_MEM_H
#define KERNEL_RESERVE_MEM_H

#include <kernel/compiler.h>

/*
 * Named physical ranges kept out of the page allocator from the kernel command line,
 * with Linux's syntax: reserve_mem=SIZE:ALIGN:NAME (SIZE and ALIGN as memparse reads
 * them, ALIGN a power of two). The same machine gives the same range on every boot, so
 * what a previous boot left there (a persistent trace buffer) is found again after a
 * reset that keeps RAM (QEMU's does).
 *
 * Linux takes them from the top of RAM down; here they are taken from RESERVE_MEM_FROM
 * up, because the boot loader rewrites both ends on every boot. Under QEMU with GRUB,
 * a pattern written over all of RAM and read back after a reset came back everywhere but
 * in the 4 MiB above the kernel image (GRUB's relocation scratch and the boot
 * information) and the top 20 MiB (where GRUB reads the kernel file and keeps its heap).
 */
#define RESERVE_MEM_FROM (16ULL << 20)
#define RESERVE_MEM_MAX 8
#define RESERVE_MEM_NAME_MAX 16

/* Called by pmm_init once the free pages are known, before anything is allocated. */
void reserve_mem_init(void);
/* The range named `name`: true with its physical base and size. */
bool reserve_mem_find(const char *name, uint64_t *phys, uint64_t *size);
/* Takes the range named `name` for one user: false when another took it already. */
bool reserve_mem_claim(const char *name);

/* The page allocator's part: the lowest free run of size bytes aligned to align at or
 * above from, taken out of the allocator; 0 when there is none. */
uint64_t pmm_reserve_low(uint64_t size, uint64_t align, uint64_t from);

#endif
