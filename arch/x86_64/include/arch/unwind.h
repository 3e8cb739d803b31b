/*
 * The one stack unwinder: panic and oops reports, func_stack_trace, the stacktrace filter
 * command and the stack tracer all walk frames with it. x86_64 frames are linked through
 * rbp ([fp] = the caller's fp, [fp + 8] = the return address), and the interrupt entry
 * links an interrupted frame the same way, so a walk crosses into interrupted code.
 *
 * Return addresses that function_graph, the profiler or a return probe replaced by a
 * return hook (return_to_handler, return_to_handler_regs, return_to_handler_partial) are
 * mapped back to the real caller through the thread's shadow stack, using the stack slot
 * they came from, so every backtrace names callers while those tracers run.
 */
#ifndef ARCH_UNWIND_H
#define ARCH_UNWIND_H

#include <kernel/compiler.h>

struct thread;

struct unwind_state {
    struct thread *task;     /* whose shadow stack maps hooked returns (NULL: none) */
    uintptr_t fp;            /* the frame to read next; 0 when the walk is over */
    uintptr_t lo, hi;        /* a frame must lie in [lo, hi); hi == 0: any readable address */
    bool strict;             /* each frame above the last (else only from the second on) */
    unsigned frames;         /* frames read so far */
    unsigned long *ret_slot; /* where the current return address was read */
    unsigned long ret;       /* the current return address, hooks mapped back */
};

/*
 * Starts a walk at frame pointer fp. With hi != 0 every frame must lie in [lo, hi) (a
 * thread's stack) and the walk is strict; otherwise any readable kernel address will do
 * and one step down is allowed (the interrupt entry's link from an exception stack).
 */
void unwind_start(struct unwind_state *st, struct thread *task, uintptr_t fp, uintptr_t lo,
                  uintptr_t hi);
/* Reads the next frame: true with st->ret and st->ret_slot set, false at the end. */
bool unwind_next(struct unwind_state *st);
/* A saved return address as the caller it stands for (a return hook mapped back). */
unsigned long unwind_real_return(struct thread *task, unsigned long ret, unsigned long *slot);

/*
 * A reliable walk of a thread's whole stack, for live patching: it either reports every
 * function the thread is inside, or fails. task is the calling thread, or one that cannot
 * run during the walk (the caller keeps it off its CPU, e.g. from that CPU with
 * interrupts off).
 *
 * consume gets, innermost first, an address inside the code of each frame: the call
 * instruction before a return address (a call may be a function's last bytes, so the
 * return address itself can lie in the next function), or an interrupted instruction.
 * An interrupt frame can hide one caller: a function interrupted before it made its frame
 * (or after it took it down) has its return address between the interrupted stack and
 * frame pointers, where no frame link points. So every word there is reported as a
 * return address too; a stale word only makes the caller's answer more cautious.
 *
 * 0: the walk reached the thread's first frame (arch_thread_start; an idle thread, on
 * its CPU's boot stack with unknown bounds, ends wherever its chain ends). -ECANCELED:
 * consume returned false, and the walk stopped there. -EINVAL: the stack cannot be read
 * reliably: a frame outside the stack, a chain too long to be sane, a return into
 * ftrace's entry code, an interrupt that stopped ftrace's or the interrupt entry's own
 * code, or a chain that does not end at the thread's start.
 */
typedef bool (*arch_stack_consume_fn)(void *cookie, unsigned long pc);
int arch_stack_walk_reliable(arch_stack_consume_fn consume, void *cookie, struct thread *task);

#endif
