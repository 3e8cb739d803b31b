#ifndef ARCH_DEBUGCON_H
#define ARCH_DEBUGCON_H

#include <kernel/compiler.h>

/*
 * A byte channel to the host that never drops: QEMU's isa-debugcon (port 0xe9, attached
 * with `-debugcon file:PATH`). A guest write blocks while QEMU writes the file, where the
 * serial line can lose bytes when its backend stalls. Used by `xfer`.
 */
bool arch_debugcon_present(void);
void arch_debugcon_write(const void *buf, size_t len);

#endif
