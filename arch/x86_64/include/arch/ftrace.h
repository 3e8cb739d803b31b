#ifndef ARCH_FTRACE_H
#define ARCH_FTRACE_H

#include <arch/regs.h>
#include <arch/text_patch.h>
#include <kernel/compiler.h>

/*
 * The x86 side of dynamic ftrace: what a call site looks like, and the trampolines a site
 * can call. Each op slot has its own trampoline (one op at a site: called directly), and
 * the list callers serve sites wanted by several ops. Every trampoline has a variant that
 * saves a full pt_regs.
 */
#define ARCH_FTRACE_TRAMP_SLOTS 8
#define X86_OPCODE_CALL_REL32 0xe8 /* call rel32: what an enabled site holds */

extern const uint8_t arch_ftrace_nop[ARCH_PATCH_INSN_SIZE];
/*
 * Another NOP of a site's size, not the one ftrace writes: a CPU that runs it is fine, and
 * ftrace's check of the site fails (the ftrace_corrupt test command writes it).
 */
extern const uint8_t arch_ftrace_other_nop[ARCH_PATCH_INSN_SIZE];
#define ARCH_FTRACE_OTHER_NOP_NAME "nopw 0x0(%rax)"

static inline void arch_ftrace_call_insn(uint8_t out[ARCH_PATCH_INSN_SIZE], unsigned long ip,
                                         unsigned long target)
{
    int32_t rel = (int32_t)(target - (ip + ARCH_PATCH_INSN_SIZE));
    out[0] = X86_OPCODE_CALL_REL32;
    __builtin_memcpy(&out[1], &rel, 4);
}

/* [slot]: what a slot's plain trampoline calls to reach ftrace_tramp_dispatch (ftrace_tramp.asm).
 */
extern const unsigned long arch_ftrace_dispatch_stub[ARCH_FTRACE_TRAMP_SLOTS];
/* The site of a traced call, from the return address its call pushed. */
static inline unsigned long arch_ftrace_site_of(unsigned long ret_ip)
{
    return ret_ip - ARCH_PATCH_INSN_SIZE;
}

unsigned long arch_ftrace_fentry_addr(void);
unsigned long arch_ftrace_tramp_addr(unsigned slot, bool regs);
unsigned long arch_ftrace_list_addr(bool regs);
/*
 * The trampoline's frame as a callback sees it from parent_slot, the stack slot holding
 * the traced function's return address: the word below is the trampoline's own return
 * address into the traced function (its call site + 5), and the word below that is the
 * rbp the trampoline saved, the traced function's caller's frame.
 */
static inline unsigned long *arch_ftrace_site_return_slot(unsigned long *parent_slot)
{
    return parent_slot - 1;
}
static inline uintptr_t arch_ftrace_caller_frame(const unsigned long *parent_slot)
{
    return parent_slot[-2];
}

/*
 * What an ftrace_ops callback gets, as Linux's struct ftrace_regs: the trampoline's view of
 * the traced function at its first instruction. Without SAVE_REGS the plain trampoline
 * has saved the argument registers below its frame (ftrace_tramp.asm): rax, rcx, rdx, rsi,
 * rdi, r8, r9 at rbp - 8 down to rbp - 56, and parent_slot is rbp + 16.
 */
struct ftrace_regs {
    struct pt_regs *regs;       /* a full frame for SAVE_REGS ops, else NULL */
    unsigned long *parent_slot; /* the traced function's return address on its stack */
};

static inline struct pt_regs *ftrace_get_regs(struct ftrace_regs *fregs) { return fregs->regs; }

/* Argument n (0-5) of the traced function, by the x86-64 calling convention. */
static inline unsigned long ftrace_regs_get_argument(const struct ftrace_regs *fregs, unsigned n)
{
    if (fregs->regs)
        return n < 6 ? regs_get_kernel_argument(fregs->regs, n) : 0;
    static const signed char below[6] = {-7, -6, -5, -4, -8, -9};
    return n < 6 ? fregs->parent_slot[below[n]] : 0;
}

/* The stack pointer at the traced function's entry: it points at the return address. */
static inline unsigned long ftrace_regs_get_stack_pointer(const struct ftrace_regs *fregs)
{
    return (unsigned long)fregs->parent_slot;
}

/* Where the traced function goes on after the callbacks: just after its site's call. */
static inline unsigned long ftrace_regs_get_instruction_pointer(const struct ftrace_regs *fregs)
{
    return fregs->regs ? fregs->regs->rip : fregs->parent_slot[-1];
}

/* IPMODIFY ops (which have pt_regs): the traced call goes on at ip instead. */
static inline void ftrace_regs_set_instruction_pointer(struct ftrace_regs *fregs, unsigned long ip)
{
    if (fregs->regs)
        fregs->regs->rip = ip;
}

/*
 * The return hooks (ftrace_graph.asm): a hooked function's return address is swapped for
 * one of them. return_to_handler keeps only the return value registers, for function_graph
 * and the profiler; return_to_handler_regs saves a whole struct pt_regs as the return
 * left it, for return probes; return_to_handler_partial fills in the same struct only the
 * registers arch_ftrace_partial_regs_has names, for return probes that read no other.
 */
void return_to_handler(void);
void return_to_handler_regs(void);
void return_to_handler_partial(void);
/*
 * The hook a return probe's frame takes: the partial one when its arguments read no other
 * register, unless the slot already holds the full one (a hook on the same call that will
 * run after this one and must find every register as the function left it).
 */
static inline unsigned long arch_ftrace_regs_return_hook(bool partial, unsigned long slot_now)
{
    if (partial && slot_now != (unsigned long)return_to_handler_regs)
        return (unsigned long)return_to_handler_partial;
    return (unsigned long)return_to_handler_regs;
}
/* Whether return_to_handler_partial fills the struct pt_regs field at offset (the return
 * value registers, rbp, rsp, rip; the C side sets rip). */
static inline bool arch_ftrace_partial_regs_has(unsigned long offset)
{
    return offset == offsetof(struct pt_regs, rax) || offset == offsetof(struct pt_regs, rdx) ||
           offset == offsetof(struct pt_regs, rbp) || offset == offsetof(struct pt_regs, rsp) ||
           offset == offsetof(struct pt_regs, rip);
}
/* Whether addr is where a hook begins: a hooked return slot holds it. */
static inline bool arch_ftrace_is_return_hook(unsigned long addr)
{
    return addr == (unsigned long)return_to_handler ||
           addr == (unsigned long)return_to_handler_regs ||
           addr == (unsigned long)return_to_handler_partial;
}
/* Whether pc is anywhere inside a hook's code. */
static inline bool arch_ftrace_in_return_hook(unsigned long pc)
{
    extern const char return_to_handler_end[], return_to_handler_regs_end[],
        return_to_handler_partial_end[];
    return (pc >= (unsigned long)return_to_handler && pc < (unsigned long)return_to_handler_end) ||
           (pc >= (unsigned long)return_to_handler_regs &&
            pc < (unsigned long)return_to_handler_regs_end) ||
           (pc >= (unsigned long)return_to_handler_partial &&
            pc < (unsigned long)return_to_handler_partial_end);
}

/*
 * The code between a site's call and the moment a callback counts itself in: the
 * trampolines, the C dispatchers they call and the ops' handlers, in two sections the
 * linker puts side by side. A thread is never preempted there, and ftrace waits until no
 * CPU is there before it gives a trampoline slot to another op (see
 * kernel/trace/ftrace.c). The op handlers go with the plain trampolines that call them,
 * and the dispatchers with the regs-saving trampolines, each group on a page of its own
 * (linker.ld): code that calls each other on every traced call stays on one page, which
 * a CPU's caches like, and an emulator's translated code follows without a lookup where
 * the way is a direct jump or call (a trampoline calls its handler indirectly, which
 * costs the same lookup from any page: an op handler the first page has no room for
 * goes in the second).
 */
#define FTRACE_ENTRY_TEXT __attribute__((section(".text.ftrace_entry")))
#define FTRACE_OP_HANDLER_TEXT __attribute__((section(".text.ftrace_entry.op_handler")))
static inline bool arch_ftrace_in_entry(unsigned long pc)
{
    extern const char __ftrace_entry_start[], __ftrace_entry_end[];
    return pc >= (unsigned long)__ftrace_entry_start && pc < (unsigned long)__ftrace_entry_end;
}

#endif
