#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include <kernel/compiler.h>

/*
 * Prints the message, the caller, a symbolised backtrace, stops the other CPUs, then halts
 * or, with panic=poweroff on the command line, exits QEMU with a failure code.
 */
void panic(const char *fmt, ...) __printf(1, 2) __noreturn;

#define ASSERT(cond)                                                                               \
    do {                                                                                           \
        if (unlikely(!(cond)))                                                                     \
            panic("ASSERT failed at %s:%d: %s", __FILE__, __LINE__, #cond);                        \
    } while (0)

#endif

#ifndef KERNEL_PANIC_REPORT_H
#define KERNEL_PANIC_REPORT_H
/*
 * The pieces of a fatal report, for the exception path: panic_begin makes this CPU the
 * only one that prints (the others are stopped), panic_backtrace_from prints
 * "Call Trace:" and one symbolised frame a line, panic_end prints
 * "Kernel panic - not syncing: REASON" and never returns.
 */
void panic_begin(void);
/* fp: the frame to walk from; ip, when not 0: the frame's own address, printed first. */
void panic_backtrace_from(uintptr_t fp, uintptr_t ip);
void panic_end(const char *reason) __noreturn;
/* Prints the backtrace of the calling context (for WARN-style reports). */
void dump_stack(void);
/* True while a panic is being reported: locks and tracing step aside. */
extern volatile int panic_in_progress;
/* Set by the tracer for ftrace_dump_on_oops: prints the trace buffer inside the report. */
extern void (*panic_trace_dump)(void);
#endif
