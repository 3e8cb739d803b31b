#ifndef KERNEL_KSYMTAB_H
#define KERNEL_KSYMTAB_H

/*
 * The layout of the symbol table the kernel embeds: tools/gensyms.c writes it on the host,
 * kernel/symbols.c reads it. Both are x86_64, so it is little endian and the structs are
 * the same on either side; this header includes nothing but <stdint.h> for that reason.
 *
 *   a ksymtab_header,
 *   count ksym entries: functions, sorted by addr,
 *   data_count ksym entries at data_offset: data objects (variables, for name lookups
 *   such as a kprobe's @SYM, and /proc/kallsyms), sorted by addr,
 *   count + data_count type letters at types_offset, one per entry in the same order:
 *   nm's and /proc/kallsyms's (t/T text, d/D data, r/R read-only data, b/B bss; capital
 *   when the symbol is global),
 *   NUL-terminated names at strings_offset, each entry's name at name_off from there.
 */
#include <stdint.h>

#define KSYMTAB_MAGIC 0x4241544d59534b46ULL /* "FKSYMTAB" */

struct ksymtab_header {
    uint64_t magic;
    uint64_t count;
    uint64_t strings_offset;
    uint64_t total_size;
    uint64_t data_count;
    uint64_t data_offset;
    uint64_t types_offset;
};

struct ksym {
    uint64_t addr;
    uint32_t size;
    uint32_t name_off;
};

_Static_assert(sizeof(struct ksymtab_header) == 56, "ksymtab header is seven u64");
_Static_assert(sizeof(struct ksym) == 16, "ksym entries are packed without padding");

#endif
