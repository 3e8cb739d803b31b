#ifndef LIB_PRINTF_H
#define LIB_PRINTF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/*
 * C99 formatting: flags "-+ #0", width and precision (numbers or '*'), length modifiers
 * hh h l ll z t j, conversions d i u x X o c s p %. Two kernel extensions:
 *   %pS  symbol+0xoff/0xsize of an address ("0x...") if unknown)
 *   %ps  symbol name only
 * Symbol lookup goes through printf_symbol_hook so lib/ does not depend on the kernel.
 * Returns the length the full output would have had (as C99), output is always terminated.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Like vsnprintf but returns the number of bytes actually stored (Linux's scnprintf). */
int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int scnprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Formats an address for %pS (with_offset) / %ps into buf; returns the length written,
 * or -1 when the address is in no known symbol. Set once by the kernel's symbol table.
 */
typedef int (*printf_symbol_fn)(char *buf, size_t size, uintptr_t addr, int with_offset);
extern printf_symbol_fn printf_symbol_hook;

#endif
