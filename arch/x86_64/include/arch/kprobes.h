#ifndef ARCH_KPROBES_H
#define ARCH_KPROBES_H

#include <kernel/compiler.h>

struct pt_regs;

/*
 * kprobes at any instruction, through int3 (arch/x86_64/kprobes.c). The generic side
 * (kernel/trace/probes/kprobe_int3.c) keeps the probes; this side knows instructions:
 * which addresses can take a breakpoint, how to arm it, and how to go on after a hit,
 * either by running a copy of the instruction out of line (in a slot of executable text,
 * followed by a jump back) or by emulating it (calls, jumps, conditional jumps, returns).
 */
struct arch_kprobe {
    unsigned long addr;
    uint8_t kind; /* enum insn_kind (arch/insn_table.h) */
    uint8_t len;
    uint8_t insn[15]; /* the original instruction */
    int slot;         /* out-of-line slot, -1 when the instruction is emulated */
};

/*
 * Checks that addr can take a probe and prepares ap (and its slot). Errors, with *why a
 * message for the error_log when Linux has one: -EILSEQ (not an instruction boundary),
 * -EINVAL (not in the text, blacklisted, or an instruction that can be neither run out
 * of line nor emulated), -EBUSY (an int3 is there already), -ENOSPC (no free slot). Called with the
 * probe lock held.
 */
int arch_kprobe_prepare(struct arch_kprobe *ap, unsigned long addr, const char **why);
/* Writes the int3 (and takes it out again) through the text-poke path, with its sync. */
int arch_kprobe_arm(struct arch_kprobe *ap);
void arch_kprobe_disarm(struct arch_kprobe *ap);
/* Frees the slot: only once no CPU can be in the handler or the slot (a sync round). */
void arch_kprobe_release(struct arch_kprobe *ap);

/* Whether addr is in a blacklisted function; the blacklist file lists them. */
bool arch_kprobe_blacklisted(unsigned long addr);
/* The n-th blacklisted range [start, end), false past the last. */
bool arch_kprobe_blacklist_range(unsigned n, unsigned long *start, unsigned long *end);

/* Whether the instruction table knows addr's function (it was built into the kernel). */
bool arch_kprobe_insn_boundary(unsigned long addr);

/*
 * The generic side's hook, called by the int3 handler with interrupts off: the probe at
 * addr (the int3's address) runs its handlers and returns its arch part so the handler
 * can go on past the instruction; NULL when no probe is at addr.
 */
const struct arch_kprobe *kprobe_int3_hit(struct pt_regs *regs, unsigned long addr);

/* What self-tests look for in a function's body (arch_kprobe_find_insn). */
enum arch_kprobe_insn_class {
    KPROBE_INSN_PC_RELATIVE, /* an operand addressed relative to the instruction pointer */
    KPROBE_INSN_CALL,        /* a direct call */
    KPROBE_INSN_COND_JUMP,   /* a conditional jump */
    KPROBE_INSN_RETURN,      /* a return */
    KPROBE_INSN_PUSH,        /* a push of a register */
};
/* The address of the nth (from 0) instruction of a class in fn's body, or 0. */
unsigned long arch_kprobe_find_insn(unsigned long fn, enum arch_kprobe_insn_class cls,
                                    unsigned nth);

/* int3s that found no probe and no int3 in memory any more (a probe just removed). */
uint64_t arch_kprobe_stale_hits(void);

#endif
