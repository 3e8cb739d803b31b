/*
 * The frame-pointer unwinder behind every backtrace (see <arch/unwind.h>). Built without
 * -pg: the stack tracer's callback and panic run it, and neither may recurse into the
 * tracer. It reads only memory it has checked, so a corrupt chain ends a walk instead of
 * faulting inside a report.
 */
#include <arch/ftrace.h>
#include <arch/regs.h>
#include <arch/thread.h>
#include <arch/unwind.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/thread.h>

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
        /*
         * An address inside a return hook after the mapping is the tracer's trampoline, not
         * a caller: the walk steps over it. It is a hook's call into its C side (the frame
         * link leads on: return_to_handler's to the caller it is returning into, which
         * only the shadow stack knows; return_to_handler_regs's and _partial's to their own
         * frame, whose slot maps to that caller), an interrupt that stopped a hook, or a
         * return slot no shadow frame owns.
         */
        if (!arch_ftrace_in_return_hook(st->ret))
            return true;
    }
}

/* ---- Reliable walks (live patching) ---- */

#define RELIABLE_MAX_FRAMES 128      /* a longer chain is taken as corrupt */
#define RELIABLE_MAX_SCAN_WORDS 1024 /* between an interrupted rsp and rbp */

extern const char isr_common[], isr_common_end[];
extern const char arch_thread_start_end[];

/*
 * What isr_common (entry.asm) leaves on the stack: a frame-pointer link made of the
 * interrupted rbp and rip, so that a walk crosses into the interrupted code, just below
 * the saved registers.
 */
struct x86_irq_link {
    unsigned long rbp, rip;
    struct pt_regs regs;
};

struct reliable_walk {
    arch_stack_consume_fn consume;
    void *cookie;
    struct thread *task;
    uintptr_t lo, hi; /* the thread's stack; hi == 0: unknown (an idle thread) */
};

static bool in_interrupt_entry(unsigned long pc)
{
    return pc >= (unsigned long)isr_common && pc < (unsigned long)isr_common_end;
}

static bool in_walked_stack(const struct reliable_walk *w, uintptr_t addr, size_t len)
{
    if (w->hi)
        return addr >= w->lo && addr + len <= w->hi;
    return kernel_addr_readable(addr, len);
}

/*
 * An interrupt frame: reports the interrupted instruction and every word between the
 * interrupted rsp and rbp (see arch_stack_walk_reliable). Interrupted entry code
 * (ftrace's trampolines and dispatchers, the interrupt entry itself) has no frame a walk
 * can trust, and neither has a return hook: the caller it returns into may be on no
 * stack at all, only on the shadow stack.
 */
static int reliable_interrupted(struct reliable_walk *w, const struct x86_irq_link *link)
{
    const struct pt_regs *regs = &link->regs;
    if (!in_walked_stack(w, (uintptr_t)regs, sizeof(*regs)))
        return -EINVAL;
    unsigned long rip = regs->rip, rsp = regs->rsp, rbp = regs->rbp;
    if (arch_ftrace_in_entry(rip) || in_interrupt_entry(rip) || arch_ftrace_in_return_hook(rip))
        return -EINVAL;
    if (!w->consume(w->cookie, rip))
        return -ECANCELED;
    if (rbp < rsp || (rbp - rsp) / 8 > RELIABLE_MAX_SCAN_WORDS ||
        !in_walked_stack(w, rsp, rbp - rsp))
        return -EINVAL;
    for (const unsigned long *word = (const unsigned long *)rsp; (uintptr_t)word < rbp; word++)
        if (!w->consume(w->cookie, *word - 1))
            return -ECANCELED;
    return 0;
}

/* Walks from frame fp; first_ret is a return address read before that frame, or 0. */
static int reliable_frames(struct reliable_walk *w, uintptr_t fp, unsigned long first_ret)
{
    if (first_ret && !w->consume(w->cookie, first_ret - 1))
        return -ECANCELED;
    unsigned long last = first_ret;
    const unsigned long *link_slot = NULL; /* the last interrupt link's copy of rip */
    struct unwind_state st;
    unwind_start(&st, w->task, fp, w->lo, w->hi);
    while (unwind_next(&st)) {
        if (st.frames > RELIABLE_MAX_FRAMES || arch_ftrace_in_entry(st.ret))
            return -EINVAL;
        /* The interrupt link's "return address" is the interrupted rip, reported already. */
        if (st.ret_slot != link_slot && !w->consume(w->cookie, st.ret - 1))
            return -ECANCELED;
        if (in_interrupt_entry(st.ret)) {
            /* st.fp is the link frame now: the next step reads it. */
            const struct x86_irq_link *link = (const struct x86_irq_link *)st.fp;
            int err = reliable_interrupted(w, link);
            if (err)
                return err;
            link_slot = &link->rip;
        }
        last = st.ret;
    }
    if (w->hi &&
        (last < (unsigned long)arch_thread_start || last >= (unsigned long)arch_thread_start_end))
        return -EINVAL;
    return 0;
}

int arch_stack_walk_reliable(arch_stack_consume_fn consume, void *cookie, struct thread *task)
{
    struct reliable_walk w = {.consume = consume, .cookie = cookie, .task = task};
    if (task->stack_top && !task->is_idle) {
        w.hi = (uintptr_t)task->stack_top;
        w.lo = w.hi - task->stack_pages * PAGE_SIZE;
    }
    if (task == this_cpu()->current)
        return reliable_frames(&w, (uintptr_t)__builtin_frame_address(0), 0);
    const struct arch_switch_frame *sf = (const struct arch_switch_frame *)task->saved_sp;
    if (!in_walked_stack(&w, (uintptr_t)sf, sizeof(*sf)))
        return -EINVAL;
    if (sf->ret == (uintptr_t)arch_thread_start)
        return 0; /* never ran: nothing on its stack yet */
    return reliable_frames(&w, sf->rbp, sf->ret);
}
