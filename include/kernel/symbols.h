#ifndef KERNEL_SYMBOLS_H
#define KERNEL_SYMBOLS_H

#include <kernel/compiler.h>

/* Finds the function containing addr; returns its name or NULL. */
const char *sym_lookup(uintptr_t addr, uintptr_t *start, size_t *size);
/* Address of a function by name, or 0. */
uintptr_t sym_address(const char *name);
/* Address of a data object (a variable) by name, or 0. */
uintptr_t sym_data_address(const char *name);
/* "name+0xoff/0xsize", or "0x..." when unknown. Returns the length. */
int sym_format(char *buf, size_t len, uintptr_t addr);
size_t sym_count(void);
/* The i-th symbol in address order: its name and address, or NULL past the end. */
const char *sym_at(size_t i, uintptr_t *addr);
size_t sym_data_count(void);
/* The i-th data object in address order, or NULL past the end. */
const char *sym_data_at(size_t i, uintptr_t *addr);
/*
 * /proc/kallsyms's type letter of function i (t, or T when global) or, with data set, of
 * data object i (d, r or b, capital when global); '?' past the end.
 */
char sym_type_at(size_t i, bool data);

#endif

#ifndef KERNEL_SYMBOLS_INIT_H
#define KERNEL_SYMBOLS_INIT_H
/* Connects %pS/%ps in printf to the table. */
void symbols_init(void);
#endif
