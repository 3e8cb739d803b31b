/*
 * The write side of every read side: one sync round, then each other CPU's marker read
 * as zero once (include/kernel/synchronize.h says how to use it).
 */
#include <arch/cpu.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/smp.h>
#include <kernel/synchronize.h>

bool sync_readers_cpu_inside(const struct sync_read_side *side, unsigned cpu)
{
    const struct sync_readers *readers = container_of(side, const struct sync_readers, side);
    return __atomic_load_n(&readers->inside[cpu].n, __ATOMIC_ACQUIRE) != 0;
}

unsigned synchronize_read_side(const struct sync_read_side *side)
{
    /*
     * This CPU has no reader to wait for: readers neither sleep nor move, so the caller,
     * running here in thread context, interrupted none, and one nested in an interrupt
     * here ended before the caller went on. Should the caller move to another CPU
     * meanwhile, that CPU is in the same state, and a reader that starts later here sees
     * what the caller stored here. Unless the caller is itself a reader: then its own
     * read would outlive the wait.
     */
    unsigned me = this_cpu_id();
    ASSERT(!side->cpu_inside(side, me));
    /* What the caller unpublished is visible everywhere before the round reaches anyone. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    cpumask_t unseen = cpu_online_mask() & ~(1u << me);
    unsigned repeats = 0;
    for (;;) {
        unsigned long pcs[MAX_CPUS] = {0}; /* a CPU the round did not ask: not there */
        smp_sync_all_pcs(side->unmarked ? pcs : NULL);
        if (!side->unmarked)
            break;
        /* A CPU found in unmarked code may hold the old pointer with its marker still
         * clear: only a round that finds it elsewhere settles it. It cannot be preempted
         * there and is out within a few instructions. */
        for (unsigned c = 0; c < MAX_CPUS; c++)
            if ((unseen & (1u << c)) && !side->unmarked(pcs[c]))
                unseen &= ~(1u << c);
        if (!unseen)
            break;
        repeats++;
    }
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (c == me || !cpu_data(c)->online)
            continue;
        while (side->cpu_inside(side, c))
            arch_cpu_relax();
    }
    return repeats;
}
