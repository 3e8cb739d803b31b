/*
 * Waiting until every CPU has left a read side: the kernel's synchronize_rcu().
 *
 * A read side is code that reaches shared data through a pointer it loads without a lock
 * (an op's callback, a filter, a table of armed probes). A writer that replaces or removes
 * such data cannot free the old copy while a reader may still hold it. The pattern:
 *
 *   write side                                read side (preemption or interrupts off)
 *     publish the new pointer (or NULL)         unsigned cpu = sync_read_enter(&readers);
 *     synchronize_readers(&readers);            p = READ_ONCE(shared);  ... use p ...
 *     free the old copy                         sync_read_exit(&readers, cpu);
 *
 * When synchronize_readers() returns, every reader that could have loaded the old pointer
 * has left; one that enters later sees only the new one. It does not wait for readers to
 * stop coming, only for each CPU's marker to read zero once: a CPU that runs reads back
 * to back is caught between two of them.
 *
 * The read side costs one unlocked increment and one decrement of the CPU's own word (an
 * interrupt lands before or after either, and nested readers in interrupts and NMIs count
 * on top); it takes no lock, calls nothing and is inlined into its caller, so it is as
 * untraced as the caller's file. A reader must stay on its CPU from enter to exit and
 * must not sleep: the wait is by CPU, not by thread.
 *
 * The write side sends one broadcast sync round (kernel/smp.h), then spins until each
 * other CPU's marker reads zero once. The round is what makes an unfenced read side safe:
 * a reader's marker store may still sit in its CPU's store buffer while it loads the
 * pointer, and the round's interrupt on that CPU drains it; after the round every reader
 * either shows in its marker or loads the new pointer. The writer must run in thread
 * context with interrupts on (the round needs it), may hold a spinlock (it does not
 * sleep), and must not itself be inside the read side it waits for. Its cost is one
 * round (`bench ipi` measures it); a writer with many frees batches them behind one call.
 *
 * A new subsystem: one static struct sync_readers (SYNC_READERS_INIT) per kind of data;
 * sync_read_enter() before the first load of the pointer, sync_read_exit() after the last
 * use, the reads kept short because writers spin on them; every writer unpublishes, calls
 * synchronize_readers(), then frees. An ftrace_ops callback needs none of this for the op
 * itself: unregister_ftrace_function() waits for its callbacks the same way.
 *
 * A read side that already keeps a per-CPU word of its own, nonzero while inside (the
 * ftrace callback guard's context bits), waits through synchronize_read_side() with that
 * word instead of adding a counter. One whose readers take the old pointer before they
 * can mark themselves (a trampoline on the way to the guard) also names that code: a CPU
 * the round finds there is asked again until it is found elsewhere.
 *
 * A read side that runs with interrupts off throughout needs no marker: the sync round
 * alone (smp_sync_all()) cannot complete while a CPU is inside it (the live-patch handler
 * relies on that).
 *
 * Users: the event filters (kernel/trace/events/event_filter_files.c), the kprobe
 * handlers (kernel/trace/probes/trace_kprobe.c), the ftrace callbacks
 * (kernel/trace/ftrace.c). Self-tests: kernel/synchronize_selftests.c. The ring buffer
 * keeps its own wait (rb_wait_writers): it waits for one buffer's writers, for a reader
 * on one CPU only, and is built into the host stress test, which has threads, not CPUs.
 */
#ifndef KERNEL_SYNCHRONIZE_H
#define KERNEL_SYNCHRONIZE_H

#include <arch/local.h>
#include <kernel/compiler.h>
#include <kernel/percpu.h>

/* What the write side asks about a read side. */
struct sync_read_side {
    /* Whether cpu has a reader inside now: a load of that CPU's marker, which only it
     * writes. Runs on the waiting CPU, for every other online CPU. */
    bool (*cpu_inside)(const struct sync_read_side *side, unsigned cpu);
    /* NULL, or whether a CPU interrupted at pc may hold the old pointer without its marker
     * saying so yet. That code must be short and never sleep or be preempted. */
    bool (*unmarked)(unsigned long pc);
};

/* The usual read side: each CPU counts the readers inside on it. */
struct sync_readers {
    /* First: at offset 0 the counter's address folds into the read side's instruction. A
     * cache line per CPU, so that readers on different CPUs never write the same line. */
    struct {
        unsigned long n;
    } __cacheline_aligned inside[MAX_CPUS];
    struct sync_read_side side;
};

bool sync_readers_cpu_inside(const struct sync_read_side *side, unsigned cpu);

#define SYNC_READERS_INIT                                                                          \
    {                                                                                              \
        .side.cpu_inside = sync_readers_cpu_inside                                                 \
    }

/* Marks this CPU's reader in; returns the CPU, for sync_read_exit. */
static __always_inline unsigned sync_read_enter(struct sync_readers *readers)
{
    unsigned cpu = this_cpu_id();
    /* local_inc's memory clobber keeps the reader's loads after the mark (the compiler's
     * side; the CPU's is the sync round's). */
    local_inc(&readers->inside[cpu].n);
    return cpu;
}

static __always_inline void sync_read_exit(struct sync_readers *readers, unsigned cpu)
{
    local_dec(&readers->inside[cpu].n);
}

/*
 * Returns once every CPU that was inside the read side when it was called has left it.
 * Returns the sync rounds repeated because some CPU was found in side->unmarked code.
 */
unsigned synchronize_read_side(const struct sync_read_side *side);

static inline void synchronize_readers(struct sync_readers *readers)
{
    synchronize_read_side(&readers->side);
}

#endif
