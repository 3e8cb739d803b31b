/*
 * kprobes at any instruction: the x86 side. The instruction table generated at build
 * time (arch/insn_table.h) says where instructions begin and what they are; a probe
 * writes int3 on its first byte through the text-poke path, and the #BP hook below finds
 * the probe by address (the generic side's hash), lets it run its handlers, then goes on:
 *
 *   - calls, jumps, conditional jumps and returns are emulated on the trap frame;
 *   - any other instruction runs from a copy in an out-of-line slot, followed by a jump
 *     back to the next instruction. RIP-relative displacements are rewritten for the
 *     slot's address. The slot runs with interrupts off, so no thread is ever preempted
 *     inside one: a slot whose interrupted code had them on ends with sti, whose shadow
 *     covers the jump back. Hence a sync round after a probe is removed (it needs every
 *     CPU to take an interrupt) proves no CPU is in its handler or its slot any more.
 *
 * What cannot be run either way (IF changes, traps, far and indirect branches, ret imm)
 * is refused when the probe is placed.
 *
 * A probe's handlers run on the #BP IST stack. While they run, the IST entry is moved
 * below the handler's frame, so a breakpoint the handlers hit (another probe: a miss, or
 * a site of a patch batch) gets a stack of its own instead of overwriting this one.
 */
#include <arch/cpu.h>
#include <arch/insn_table.h>
#include <arch/kprobes.h>
#include <arch/text_patch.h>
#include <arch/x86.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <lib/string.h>

extern const char __kinsntab_start[], __kinsntab_end[];
extern char __text_start[], __text_end[], __boot_text_end[];
extern char __ftrace_entry_start[], __ftrace_entry_end[];
extern char __kprobes_text_start[], __kprobes_text_end[];

#define RFLAGS_CF (1UL << 0)
#define RFLAGS_PF (1UL << 2)
#define RFLAGS_ZF (1UL << 6)
#define RFLAGS_SF (1UL << 7)
#define RFLAGS_IF (1UL << 9)
#define RFLAGS_OF (1UL << 11)
#define OPCODE_JMP_REL32 0xe9
#define OPCODE_STI 0xfb
#define OPCODE_INT3 0xcc

/*
 * The slots: executable text, so copies stay within reach of a RIP-relative
 * displacement. Each slot holds two copies of the instruction: one for code that ran
 * with interrupts off (copy; jmp back) and one for code that ran with them on
 * (copy; sti; jmp back).
 */
#define SLOT_SIZE 64
#define SLOT_HALF 32
#define SLOT_COUNT 512
__asm__(".pushsection .text.kprobe_slots, \"ax\", @progbits\n"
        ".balign 4096\n"
        ".globl x86_kprobe_slots\n"
        "x86_kprobe_slots:\n"
        ".fill 32768, 1, 0xcc\n"
        ".popsection\n");
extern char x86_kprobe_slots[];
_Static_assert(SLOT_SIZE *SLOT_COUNT == 32768, "the slot area is 32 KiB");

static uint64_t slot_used[SLOT_COUNT / 64]; /* changed under the probe lock only */
static uint64_t stale_hits;

/* ---- the instruction table ---- */

static const struct insn_table_header *insn_table(void)
{
    const struct insn_table_header *h = (const void *)__kinsntab_start;
    if ((size_t)(__kinsntab_end - __kinsntab_start) < sizeof(*h) || h->magic != INSN_TABLE_MAGIC)
        return NULL;
    return h;
}

/* The table's byte for the instruction that begins at addr, or -1 if none begins there. */
static int insn_at(unsigned long addr)
{
    const struct insn_table_header *h = insn_table();
    if (!h || h->count == 0)
        return -1;
    const struct insn_table_func *f = (const void *)((const char *)h + h->funcs_offset);
    const uint8_t *bytes = (const uint8_t *)h + h->insns_offset;
    size_t lo = 0, hi = h->count;
    if (addr < f[0].addr)
        return -1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (f[mid].addr <= addr)
            lo = mid;
        else
            hi = mid;
    }
    unsigned long at = f[lo].addr;
    for (uint32_t i = 0; i < f[lo].nins && at <= addr; i++) {
        uint8_t b = bytes[f[lo].first + i];
        if (at == addr)
            return b;
        at += INSN_LEN(b);
    }
    return -1;
}

bool arch_kprobe_insn_boundary(unsigned long addr) { return insn_at(addr) >= 0; }

static bool insn_is(unsigned long at, uint8_t b, enum arch_kprobe_insn_class cls)
{
    unsigned kind = INSN_KIND(b);
    const uint8_t *p = (const uint8_t *)at;
    switch (cls) {
    case KPROBE_INSN_PC_RELATIVE:
        return kind >= INSN_RIPREL_I0 && kind <= INSN_RIPREL_I4;
    case KPROBE_INSN_CALL:
        return kind == INSN_CALL_REL32 && p[0] == 0xe8;
    case KPROBE_INSN_COND_JUMP:
        return kind == INSN_JCC_REL8 || kind == INSN_JCC_REL32;
    case KPROBE_INSN_RETURN:
        return kind == INSN_RET;
    case KPROBE_INSN_PUSH: /* push r64: 50+r, or 41 50+r for r8..r15 */
        return kind == INSN_PLAIN &&
               (INSN_LEN(b) == 1 ? (p[0] & 0xf8) == 0x50
                                 : INSN_LEN(b) == 2 && p[0] == 0x41 && (p[1] & 0xf8) == 0x50);
    }
    return false;
}

unsigned long arch_kprobe_find_insn(unsigned long fn, enum arch_kprobe_insn_class cls, unsigned nth)
{
    const struct insn_table_header *h = insn_table();
    if (!h)
        return 0;
    const struct insn_table_func *f = (const void *)((const char *)h + h->funcs_offset);
    const uint8_t *bytes = (const uint8_t *)h + h->insns_offset;
    for (size_t i = 0; i < h->count; i++) {
        if (f[i].addr != fn)
            continue;
        unsigned long at = fn;
        for (uint32_t k = 0; k < f[i].nins; k++) {
            uint8_t b = bytes[f[i].first + k];
            /* The bytes are read live: an ftrace site is a NOP there, not a call. */
            if (insn_is(at, b, cls) && nth-- == 0)
                return at;
            at += INSN_LEN(b);
        }
        return 0;
    }
    return 0;
}

/* ---- the blacklist ---- */

bool arch_kprobe_blacklist_range(unsigned n, unsigned long *start, unsigned long *end)
{
    const struct {
        const char *start, *end;
    } ranges[] = {
        {__text_start, __boot_text_end},
        {__ftrace_entry_start, __ftrace_entry_end},
        {__kprobes_text_start, __kprobes_text_end},
    };
    if (n >= ARRAY_SIZE(ranges))
        return false;
    *start = (unsigned long)ranges[n].start;
    *end = (unsigned long)ranges[n].end;
    return true;
}

bool arch_kprobe_blacklisted(unsigned long addr)
{
    unsigned long start, end;
    for (unsigned n = 0; arch_kprobe_blacklist_range(n, &start, &end); n++)
        if (addr >= start && addr < end)
            return true;
    return false;
}

/* ---- preparing, arming, removing ---- */

static int slot_alloc(void)
{
    for (unsigned i = 0; i < SLOT_COUNT; i++) {
        if (!(slot_used[i / 64] & (1ULL << (i % 64)))) {
            slot_used[i / 64] |= 1ULL << (i % 64);
            return (int)i;
        }
    }
    return -1;
}

static unsigned long slot_addr(int slot)
{
    return (unsigned long)x86_kprobe_slots + (unsigned)slot * SLOT_SIZE;
}

static bool is_riprel(unsigned kind) { return kind >= INSN_RIPREL_I0 && kind <= INSN_RIPREL_I4; }

/* One copy of the instruction at `at`, then (with_sti) sti, then a jump back. */
static int build_copy(const struct arch_kprobe *ap, unsigned long at, bool with_sti, uint8_t *out)
{
    unsigned n = ap->len;
    memcpy(out, ap->insn, n);
    if (is_riprel(ap->kind)) {
        static const unsigned imm[] = {0, 1, 2, 4};
        unsigned pos = n - 4 - imm[ap->kind - INSN_RIPREL_I0];
        int32_t disp;
        memcpy(&disp, out + pos, 4);
        int64_t moved = (int64_t)disp + (int64_t)(ap->addr - at);
        if (moved != (int32_t)moved)
            return -ERANGE;
        disp = (int32_t)moved;
        memcpy(out + pos, &disp, 4);
    }
    if (with_sti)
        out[n++] = OPCODE_STI;
    int64_t back = (int64_t)(ap->addr + ap->len) - (int64_t)(at + n + 5);
    if (back != (int32_t)back)
        return -ERANGE;
    int32_t rel = (int32_t)back;
    out[n++] = OPCODE_JMP_REL32;
    memcpy(out + n, &rel, 4);
    return 0;
}

int arch_kprobe_prepare(struct arch_kprobe *ap, unsigned long addr, const char **why)
{
    *why = NULL;
    memset(ap, 0, sizeof(*ap));
    ap->slot = -1;
    ap->addr = addr;
    if (addr < (unsigned long)__text_start || addr >= (unsigned long)__text_end ||
        arch_kprobe_blacklisted(addr)) {
        *why = "Failed to register probe event";
        return -EINVAL;
    }
    int b = insn_at(addr);
    if (b < 0) {
        *why = "Probe point is not an instruction boundary";
        return -EILSEQ;
    }
    ap->kind = (uint8_t)INSN_KIND(b);
    ap->len = (uint8_t)INSN_LEN(b);
    if (ap->kind == INSN_INDIRECT || ap->kind == INSN_UNSAFE || ap->kind > INSN_UNSAFE) {
        *why = "Failed to register probe event";
        return -EINVAL;
    }
    if (arch_text_read(addr, ap->insn, ap->len))
        return -EFAULT;
    if (ap->insn[0] == OPCODE_INT3)
        return -EBUSY; /* someone else's breakpoint, or a patch in flight */
    if (ap->kind != INSN_PLAIN && !is_riprel(ap->kind))
        return 0; /* emulated: no slot */
    int slot = slot_alloc();
    if (slot < 0)
        return -ENOSPC;
    uint8_t buf[SLOT_SIZE];
    memset(buf, OPCODE_INT3, sizeof(buf));
    unsigned long at = slot_addr(slot);
    int err = build_copy(ap, at, false, buf);
    if (!err)
        err = build_copy(ap, at + SLOT_HALF, true, buf + SLOT_HALF);
    if (!err)
        err = arch_text_poke_unused(at, buf, sizeof(buf));
    if (err) {
        slot_used[slot / 64] &= ~(1ULL << (slot % 64));
        return err;
    }
    ap->slot = slot;
    return 0;
}

int arch_kprobe_arm(struct arch_kprobe *ap)
{
    return arch_text_poke_byte(ap->addr, ap->insn[0], OPCODE_INT3);
}

void arch_kprobe_disarm(struct arch_kprobe *ap)
{
    ASSERT(arch_text_poke_byte(ap->addr, OPCODE_INT3, ap->insn[0]) == 0);
}

void arch_kprobe_release(struct arch_kprobe *ap)
{
    if (ap->slot < 0)
        return;
    static const uint8_t fill[SLOT_SIZE] = {[0 ... SLOT_SIZE - 1] = OPCODE_INT3};
    arch_text_poke_unused(slot_addr(ap->slot), fill, sizeof(fill));
    slot_used[ap->slot / 64] &= ~(1ULL << (ap->slot % 64));
    ap->slot = -1;
}

uint64_t arch_kprobe_stale_hits(void) { return __atomic_load_n(&stale_hits, __ATOMIC_RELAXED); }

/* ---- the hit ---- */

static bool condition_holds(unsigned cc, unsigned long flags)
{
    bool r;
    switch (cc >> 1) {
    case 0:
        r = flags & RFLAGS_OF;
        break;
    case 1:
        r = flags & RFLAGS_CF;
        break;
    case 2:
        r = flags & RFLAGS_ZF;
        break;
    case 3:
        r = flags & (RFLAGS_CF | RFLAGS_ZF);
        break;
    case 4:
        r = flags & RFLAGS_SF;
        break;
    case 5:
        r = flags & RFLAGS_PF;
        break;
    case 6:
        r = !(flags & RFLAGS_SF) != !(flags & RFLAGS_OF);
        break;
    default:
        r = (flags & RFLAGS_ZF) || !(flags & RFLAGS_SF) != !(flags & RFLAGS_OF);
        break;
    }
    return (cc & 1) ? !r : r;
}

static int32_t rel32_at(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Goes on past the probed instruction, as if it had run where it is. */
static void resume(struct pt_regs *regs, const struct arch_kprobe *ap)
{
    unsigned long next = ap->addr + ap->len;
    const uint8_t *in = ap->insn;
    switch (ap->kind) {
    case INSN_CALL_REL32:
        /* #BP has its own stack, so the return address goes right below the frame's. */
        regs->rsp -= 8;
        *(uint64_t *)regs->rsp = next;
        regs->rip = next + rel32_at(in + ap->len - 4);
        return;
    case INSN_JMP_REL8:
        regs->rip = next + (int8_t)in[ap->len - 1];
        return;
    case INSN_JMP_REL32:
        regs->rip = next + rel32_at(in + ap->len - 4);
        return;
    case INSN_JCC_REL8:
        regs->rip = condition_holds(in[ap->len - 2] & 0xf, regs->rflags)
                        ? next + (int8_t)in[ap->len - 1]
                        : next;
        return;
    case INSN_JCC_REL32:
        regs->rip = condition_holds(in[ap->len - 5] & 0xf, regs->rflags)
                        ? next + rel32_at(in + ap->len - 4)
                        : next;
        return;
    case INSN_RET:
        regs->rip = *(uint64_t *)regs->rsp;
        regs->rsp += 8;
        return;
    default:
        if (regs->rflags & RFLAGS_IF) {
            regs->rflags &= ~RFLAGS_IF;
            regs->rip = slot_addr(ap->slot) + SLOT_HALF;
        } else {
            regs->rip = slot_addr(ap->slot);
        }
        return;
    }
}

/* Breakpoints this CPU is inside: only the outermost moves the IST entry. */
static uint8_t bp_depth[MAX_CPUS];

bool x86_kprobe_int3(struct pt_regs *regs)
{
    unsigned long addr = regs->rip - 1;
    unsigned cpu = this_cpu_id();
    /*
     * While the handlers run, a nested breakpoint gets the IST stack's lowest page: the
     * handlers have the three above it (see the top). A nested one runs no handlers (it
     * is a miss), so one page is plenty.
     */
    const long handler_room = (X86_IST_STACK_PAGES - 1) * (long)PAGE_SIZE;
    bool outermost = bp_depth[cpu]++ == 0;
    if (outermost)
        x86_ist_move_top(cpu, X86_IST_BREAKPOINT, -handler_room);
    const struct arch_kprobe *ap = kprobe_int3_hit(regs, addr);
    if (outermost)
        x86_ist_move_top(cpu, X86_IST_BREAKPOINT, handler_room);
    bp_depth[cpu]--;
    if (ap) {
        resume(regs, ap);
        return true;
    }
    if (x86_text_poke_int3(regs))
        return true;
    /*
     * No probe here and no int3 in memory: a probe was removed after this CPU fetched its
     * int3. Every int3 that fentros writes sits on an instruction's first byte, so the
     * instruction now there is the one to run.
     */
    if (addr >= (unsigned long)__text_start && addr < (unsigned long)__text_end &&
        *(volatile const uint8_t *)addr != OPCODE_INT3) {
        regs->rip = addr;
        __atomic_fetch_add(&stale_hits, 1, __ATOMIC_RELAXED);
        return true;
    }
    return false;
}
