#ifndef KERNEL_INIT_H
#define KERNEL_INIT_H

#include <kernel/compiler.h>

/*
 * Subsystems that only need to register things (pseudo-fs files, commands with state)
 * hook into boot with an initcall. They run after the heap, the pseudo-fs, interrupts,
 * ftrace's call-site records and the other CPUs are up, level by level; within a level,
 * in link order, so a level must not rely on the order of its own members.
 *
 *   EARLY_INITCALL  before anything else that boot registers
 *   ARCH_INITCALL   the architecture's own files and devices
 *   CORE_INITCALL   the kernel's core and the tracer's: /proc files, the trace array and
 *                   its buffer, the table of trace events
 *   TRACE_INITCALL  boot-time tracing from the kernel command line: it starts as soon as
 *                   the core can record, so that the rest of boot is traced
 *   LATE_INITCALL   the tracefs files (their creation is the rest of boot)
 */
typedef void (*initcall_fn)(void);

#define INITCALL_LEVEL(level, fn)                                                                  \
    static const initcall_fn initcall_##fn __used __section(".initcalls." #level) __aligned(8) = fn

#define EARLY_INITCALL(fn) INITCALL_LEVEL(1, fn)
#define ARCH_INITCALL(fn) INITCALL_LEVEL(2, fn)
#define CORE_INITCALL(fn) INITCALL_LEVEL(3, fn)
#define TRACE_INITCALL(fn) INITCALL_LEVEL(4, fn)
#define LATE_INITCALL(fn) INITCALL_LEVEL(5, fn)

#define FENTROS_VERSION "0.1.0"

#endif
