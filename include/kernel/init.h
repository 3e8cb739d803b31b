#ifndef KERNEL_INIT_H
#define KERNEL_INIT_H

#include <kernel/compiler.h>

/*
 * Subsystems that only need to register things (pseudo-fs files, commands with state)
 * hook into boot with INITCALL; they run after the heap, the pseudo-fs and interrupts are
 * up, in link order.
 */
typedef void (*initcall_fn)(void);

#define INITCALL(fn)                                                                          \
    static const initcall_fn initcall_##fn __used __section(".initcalls") __aligned(8) = fn

#define FENTROS_VERSION "0.1.0"

#endif
