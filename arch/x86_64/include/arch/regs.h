#ifndef ARCH_REGS_H
#define ARCH_REGS_H

#include <kernel/compiler.h>

/*
 * The register frame built by the interrupt entry stubs (arch/x86_64/entry.asm), lowest
 * address first. The last five words are the CPU's own interrupt frame; a handler may
 * change rip and rsp, and iretq resumes there (int3 emulation depends on it).
 */
struct pt_regs {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector;
    uint64_t error_code;
    uint64_t rip, cs, rflags, rsp, ss;
};

/* What generic code may ask of a frame. */
static inline unsigned long arch_regs_ip(const struct pt_regs *regs) { return regs->rip; }
static inline bool arch_regs_irqs_enabled(const struct pt_regs *regs)
{
    return regs->rflags & (1UL << 9); /* RFLAGS.IF */
}

/*
 * ---- Registers by name and number, as Linux's probes read them ----
 *
 * A kprobe's fetch arguments name registers as Linux's x86 kprobe_events syntax does
 * (%di, %ax, %flags, %orig_ax, ...) and number arguments and stack words by the calling
 * convention. Linux's interfaces (asm/ptrace.h) keep both here, so probe code carries
 * offsets and never a field name.
 */

/*
 * The byte offset in struct pt_regs of the register Linux's x86-64 kprobe syntax calls
 * name (without the %), or -EINVAL. orig_ax is the error code slot, Linux's orig_ax.
 */
int regs_query_register_offset(const char *name);

/*
 * A register by an offset regs_query_register_offset returned. No range check: probes
 * call it on every hit, and their offsets were checked when their line was parsed.
 */
static inline unsigned long regs_get_register(const struct pt_regs *regs, unsigned offset)
{
    return *(const unsigned long *)((const char *)regs + offset);
}

/* Whether offset is the instruction pointer's (an entry probe reads arch_kprobe_hit_ip). */
static inline bool arch_regs_offset_is_ip(unsigned offset)
{
    return offset == offsetof(struct pt_regs, rip);
}

static inline unsigned long kernel_stack_pointer(const struct pt_regs *regs) { return regs->rsp; }

/*
 * Where the n-th word on the stack of the frame is (0: at the stack pointer; at a
 * function's entry that is its return address). The address is not checked: read it
 * without faulting (copy_from_kernel_nofault).
 */
static inline unsigned long *regs_get_kernel_stack_nth_addr(const struct pt_regs *regs, unsigned n)
{
    return (unsigned long *)regs->rsp + n;
}

/*
 * The n-th word on the frame's stack (regs_get_kernel_stack_nth_addr), or 0 if it cannot
 * be read. A probe fires on any stack (a thread's, an interrupt's, an NMI's), so instead
 * of Linux's check against the stack's bounds the read is one that cannot fault.
 */
unsigned long regs_get_kernel_stack_nth(const struct pt_regs *regs, unsigned n);

/*
 * Argument n (from 0) of a function stopped at its first instruction, by the System V
 * calling convention: six in registers, the rest on the stack after the return address,
 * argument 6 at stack word 1 (0 if that word cannot be read, as Linux's
 * regs_get_kernel_argument has it).
 */
static inline unsigned long regs_get_kernel_argument(const struct pt_regs *regs, unsigned n)
{
    switch (n) {
    case 0:
        return regs->rdi;
    case 1:
        return regs->rsi;
    case 2:
        return regs->rdx;
    case 3:
        return regs->rcx;
    case 4:
        return regs->r8;
    case 5:
        return regs->r9;
    default:
        return regs_get_kernel_stack_nth(regs, n - 5);
    }
}

/*
 * Where argument n (from 0) of a function at its first instruction is in struct pt_regs,
 * when it is in a register (regs_get_kernel_argument's first six); -1 when it is on the
 * stack. A probe turns its $argN into a register read once, when it is made.
 */
static inline int arch_regs_argument_offset(unsigned n)
{
    static const unsigned short offsets[] = {
        offsetof(struct pt_regs, rdi), offsetof(struct pt_regs, rsi), offsetof(struct pt_regs, rdx),
        offsetof(struct pt_regs, rcx), offsetof(struct pt_regs, r8),  offsetof(struct pt_regs, r9),
    };
    return n < sizeof(offsets) / sizeof(offsets[0]) ? offsets[n] : -1;
}

/*
 * The instruction pointer a kprobe at a function's first byte reports: one past the
 * breakpoint (int3, one byte) a probe there would have hit. Linux reports it so for its
 * probes on ftrace sites too, which hit no breakpoint.
 */
static inline unsigned long arch_kprobe_hit_ip(unsigned long addr) { return addr + 1; }

/* The return value register of a frame taken at a function's return. */
static inline unsigned long regs_return_value(const struct pt_regs *regs) { return regs->rax; }

/* Sets the frame's instruction pointer (a return hook: the real return address). */
static inline void instruction_pointer_set(struct pt_regs *regs, unsigned long ip)
{
    regs->rip = ip;
}

#endif
