/*
 * The frame-pointer unwinder behind every backtrace (see <arch/unwind.h>). Built without
 * -pg: the stack tracer's callback and panic run it, and neither may recurse into the
 * tracer. It reads only memory it has checked, so a corrupt chain ends a walk instead of
 * faulting inside a report.
 */
#include <arch/ftrace.h>
#include <arch/unwind.h>
#include <kernel/ftrace.h>
#include <kernel/mm.h>

void unwind_start(struct unwind_state *st, struct thread *task, uintptr_t fp, uintptr_t lo,
                  uintptr_t hi)
{
    *st = (struct unwind_state){.task = task, .fp = fp, .lo = lo, .hi = hi, .strict = hi != 0};
}

unsigned long unwind_real_return(struct thread *task, unsigned long ret, unsigned long *slot)
{
    return ftrace_graph_ret_addr(task, ret, slot);
}

static bool frame_ok(const struct unwind_state *st, uintptr_t fp)
{
    if (!fp || (fp & 7))
        return false;
    if (st->hi)
        return fp >= st->lo && fp + 16 <= st->hi;
    return kernel_addr_readable(fp, 16);
}

extern const char return_to_handler_end[];

/*
 * An address inside return_to_handler after the mapping: an interrupt that arrived while
 * a hooked function's return ran through it (no frame of its own; the interrupted frame
 * link leads on to the caller it is returning into), or a return slot no shadow frame
 * owns. Either way it is the tracer's trampoline, not a caller: the walk steps over it.
 */
static bool in_return_to_handler(unsigned long addr)
{
    return addr >= (unsigned long)return_to_handler && addr < (unsigned long)return_to_handler_end;
}

bool unwind_next(struct unwind_state *st)
{
    for (;;) {
        uintptr_t fp = st->fp;
        if (!frame_ok(st, fp))
            return false;
        unsigned long *slot = (unsigned long *)(fp + 8);
        unsigned long ret = *slot;
        uintptr_t next = *(uintptr_t *)fp;
        if (ret < KERNEL_VMA_BASE)
            return false;
        st->ret_slot = slot;
        st->ret = unwind_real_return(st->task, ret, slot);
        /* Frames go up the stack; the interrupt entry's link may step down once, first. */
        bool upward = next > fp;
        st->fp = upward || (!st->strict && st->frames == 0) ? next : 0;
        st->frames++;
        if (!in_return_to_handler(st->ret))
            return true;
    }
}
