#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <kernel/compiler.h>

/*
 * printk writes "[    0.012345] " + the message to the serial console and to the log
 * buffer that dmesg prints. A message may be built from several calls; the prefix is added
 * at the start of each line.
 */
int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, __builtin_va_list ap);
/* Raw console output: no prefix, not logged (shell output, panic reports). */
void kputs(const char *s);
int kprintf(const char *fmt, ...) __printf(1, 2);

/* Copies the log buffer (oldest first) through fn; used by dmesg. 0, or -ENOMEM. */
int printk_log_for_each(void (*fn)(const char *chunk, size_t len, void *arg), void *arg);

#endif
