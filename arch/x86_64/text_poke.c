/*
 * Writing kernel text while every CPU runs it. Text is mapped read-only; a write goes
 * through a private writable alias of the page (mapped only for the write), then is read
 * back through the real address. A batch follows the int3 protocol: a CPU that executes
 * a site between the steps traps on the int3 and the handler below emulates the site's
 * new instruction, so no CPU ever executes a half-written instruction.
 *
 * Not traced (see the Makefile): the patcher must not patch itself, and the int3 handler
 * runs on sites of the batch in flight.
 */
#include <arch/cpu.h>
#include <arch/ftrace.h>
#include <arch/text_patch.h>
#include <arch/x86.h>
#include <kernel/errno.h>
#include <kernel/ftrace_test.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <lib/string.h>

#define POKE_ALIAS_BASE 0xffffc90000000000UL
#define INT3 ARCH_PATCH_BREAKPOINT

extern char __text_start[], __text_end[];

static DEFINE_SPINLOCK(poke_lock);

/* The alias is two pages so a site that straddles a page boundary is one write. */
static uint64_t alias_phys = ~0ULL;

/* The batch in flight, for the int3 handler. refs > 0 while it may be read. */
static struct {
    const struct text_poke_site *sites;
    size_t n;
    volatile int refs;
} poke_desc;

static uint64_t int3_hits;
static uint64_t stale_int3_hits;
/* Batches published so far: tells the int3 handler that a batch began while it looked. */
static volatile uint64_t poke_generation;

/* Self-tests run code here between the steps of a batch, to hit its int3s on purpose. */
void (*arch_text_poke_test_hook)(void);

static void between_steps(void)
{
    void (*hook)(void) = READ_ONCE(arch_text_poke_test_hook);
    if (hook)
        hook();
}

static bool in_text(unsigned long ip, size_t len)
{
    return ip >= (unsigned long)__text_start && ip + len <= (unsigned long)__text_end;
}

static void alias_map(uint64_t phys_page)
{
    if (alias_phys == phys_page)
        return;
    ASSERT(arch_map_page(POKE_ALIAS_BASE, phys_page, MAP_WRITE) == 0);
    ASSERT(arch_map_page(POKE_ALIAS_BASE + PAGE_SIZE, phys_page + PAGE_SIZE, MAP_WRITE) == 0);
    alias_phys = phys_page;
}

static void alias_unmap(void)
{
    if (alias_phys == ~0ULL)
        return;
    arch_unmap_page(POKE_ALIAS_BASE);
    arch_unmap_page(POKE_ALIAS_BASE + PAGE_SIZE);
    alias_phys = ~0ULL;
}

/* Called with poke_lock held. */
static void poke_bytes(unsigned long ip, const uint8_t *bytes, size_t len)
{
    uint64_t phys = virt_to_phys((void *)ip);
    alias_map(ALIGN_DOWN(phys, PAGE_SIZE));
    volatile uint8_t *dst = (volatile uint8_t *)(POKE_ALIAS_BASE + (phys & (PAGE_SIZE - 1)));
    for (size_t i = 0; i < len; i++)
        dst[i] = bytes[i];
    if (memcmp((const void *)ip, bytes, len) != 0)
        panic("text_poke: write to %#lx did not stick", ip);
}

int arch_text_read(unsigned long ip, uint8_t *out, size_t len)
{
    if (!kernel_addr_readable(ip, len))
        return -EFAULT;
    memcpy(out, (const void *)ip, len);
    return 0;
}

int arch_text_poke_early(unsigned long ip, const uint8_t *bytes, size_t len)
{
    if (!in_text(ip, len) || len > PAGE_SIZE)
        return -EINVAL;
    unsigned long flags = spin_lock_irqsave(&poke_lock);
    poke_bytes(ip, bytes, len);
    alias_unmap();
    spin_unlock_irqrestore(&poke_lock, flags);
    return 0;
}

static int site_cmp(const void *key, const void *elem)
{
    unsigned long ip = *(const unsigned long *)key;
    const struct text_poke_site *s = elem;
    return ip < s->ip ? -1 : ip > s->ip;
}

static bool desc_tryget(void)
{
    int r = __atomic_load_n(&poke_desc.refs, __ATOMIC_ACQUIRE);
    while (r > 0)
        if (__atomic_compare_exchange_n(&poke_desc.refs, &r, r + 1, false, __ATOMIC_ACQUIRE,
                                        __ATOMIC_ACQUIRE))
            return true;
    return false;
}

static void desc_put(void) { __atomic_fetch_sub(&poke_desc.refs, 1, __ATOMIC_RELEASE); }

/*
 * The 5-byte NOPs a site may hold: ftrace's, and nopw 0x0(%rax), which the ftrace_corrupt
 * test command writes so that ftrace's check of the site fails while CPUs run it fine.
 */
static bool is_nop5(const uint8_t *insn)
{
    static const uint8_t nopw[ARCH_PATCH_INSN_SIZE] = {0x66, 0x0f, 0x1f, 0x40, 0x00};
    return memcmp(insn, arch_ftrace_nop, ARCH_PATCH_INSN_SIZE) == 0 ||
           memcmp(insn, nopw, ARCH_PATCH_INSN_SIZE) == 0;
}

/* Emulates a site instruction given as bytes: a 5-byte NOP or a call. */
static bool emulate_site(struct pt_regs *regs, unsigned long ip, const uint8_t *insn)
{
    unsigned long next = ip + ARCH_PATCH_INSN_SIZE;
    if (insn[0] == X86_OPCODE_CALL_REL32) {
        int32_t rel;
        memcpy(&rel, &insn[1], 4);
        /* The interrupted stack has no red zone (-mno-red-zone) and #BP runs on its own
         * IST stack, so the return address can go right below the interrupted rsp. */
        regs->rsp -= 8;
        *(uint64_t *)regs->rsp = next;
        regs->rip = next + rel;
        return true;
    }
    if (is_nop5(insn)) {
        regs->rip = next;
        return true;
    }
    return false;
}

/*
 * An int3 that is no longer in memory, outside any batch: a CPU ran a stale copy of a
 * site just rewritten (an emulator's translation cache can lag behind the write). The
 * bytes now in memory are the truth; run them if they are a site instruction.
 */
static bool emulate_stale_int3(struct pt_regs *regs, unsigned long ip, bool *int3_in_memory)
{
    uint8_t now[ARCH_PATCH_INSN_SIZE];
    *int3_in_memory = false;
    if (!in_text(ip, ARCH_PATCH_INSN_SIZE))
        return false;
    memcpy(now, (const void *)ip, ARCH_PATCH_INSN_SIZE);
    if (now[0] == INT3) {
        *int3_in_memory = true;
        return false;
    }
    if (now[0] == X86_OPCODE_CALL_REL32) {
        int32_t rel;
        memcpy(&rel, &now[1], 4);
        if (!in_text(ip + ARCH_PATCH_INSN_SIZE + rel, 1))
            return false;
    }
    if (!emulate_site(regs, ip, now))
        return false;
    __atomic_fetch_add(&stale_int3_hits, 1, __ATOMIC_RELAXED);
    return true;
}

/* The batch in flight: emulates the new instruction if ip is one of its sites. */
static bool emulate_in_batch(struct pt_regs *regs, unsigned long ip, bool *found)
{
    const struct text_poke_site *site = NULL;
    /* Binary search by hand: lib's bsearch is fine too, but this path must stay tiny. */
    size_t lo = 0, hi = poke_desc.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = site_cmp(&ip, &poke_desc.sites[mid]);
        if (c == 0) {
            site = &poke_desc.sites[mid];
            break;
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    *found = site != NULL;
    if (!site)
        return false;
    bool ok = emulate_site(regs, ip, site->new);
    if (ok)
        __atomic_fetch_add(&int3_hits, 1, __ATOMIC_RELAXED);
    return ok;
}

/*
 * #BP hook: emulate the new instruction of a site in the batch, or decline.
 *
 * A stale int3 (see emulate_stale_int3) can trap outside any batch, and a new batch may
 * put an int3 back at the same site while the handler looks: the memory then shows an
 * int3 that the batch, published just before, can explain. So look again for as long as
 * batches keep starting; an int3 that stays in memory with no batch is a real breakpoint.
 */
bool x86_text_poke_int3(struct pt_regs *regs)
{
    unsigned long ip = regs->rip - 1;
    for (;;) {
        uint64_t generation = __atomic_load_n(&poke_generation, __ATOMIC_ACQUIRE);
        if (desc_tryget()) {
            bool found;
            bool ok = emulate_in_batch(regs, ip, &found);
            desc_put();
            if (found)
                return ok;
        }
        bool int3_in_memory;
        if (emulate_stale_int3(regs, ip, &int3_in_memory))
            return true;
        if (!int3_in_memory || __atomic_load_n(&poke_generation, __ATOMIC_ACQUIRE) == generation)
            return false;
    }
}

uint64_t arch_text_poke_int3_hits(void) { return __atomic_load_n(&int3_hits, __ATOMIC_RELAXED); }

uint64_t arch_text_poke_stale_int3_hits(void)
{
    return __atomic_load_n(&stale_int3_hits, __ATOMIC_RELAXED);
}

int arch_text_poke_batch(const struct text_poke_site *sites, size_t n, size_t *bad)
{
    if (n == 0)
        return 0;
    unsigned long flags = 0;
    spin_lock(&poke_lock);
    /* Check everything first: on any surprise, write nothing. The int3 handler must be
     * able to run every new instruction. */
    for (size_t i = 0; i < n; i++) {
        if (!in_text(sites[i].ip, ARCH_PATCH_INSN_SIZE) || (i && sites[i].ip <= sites[i - 1].ip) ||
            memcmp((const void *)sites[i].ip, sites[i].old, ARCH_PATCH_INSN_SIZE) != 0 ||
            (sites[i].new[0] != X86_OPCODE_CALL_REL32 && !is_nop5(sites[i].new))) {
            if (bad)
                *bad = i;
            spin_unlock(&poke_lock);
            return -EINVAL;
        }
    }

    poke_desc.sites = sites;
    poke_desc.n = n;
    __atomic_store_n(&poke_desc.refs, 1, __ATOMIC_RELEASE);
    /* Before any int3 is written: a handler that then finds one knows to look again. */
    __atomic_fetch_add(&poke_generation, 1, __ATOMIC_SEQ_CST);

    static const uint8_t int3 = INT3;
    for (size_t i = 0; i < n; i++)
        poke_bytes(sites[i].ip, &int3, 1);
    smp_sync_all();
    between_steps();
    for (size_t i = 0; i < n; i++)
        poke_bytes(sites[i].ip + 1, &sites[i].new[1], ARCH_PATCH_INSN_SIZE - 1);
    smp_sync_all();
    between_steps();
    for (size_t i = 0; i < n; i++)
        poke_bytes(sites[i].ip, &sites[i].new[0], 1);
    smp_sync_all();
    /*
     * Write every site's final bytes once more. On hardware this changes nothing. Under
     * QEMU's multi-threaded TCG a vCPU that translated a site while one of our writes was
     * landing can keep that translation of older bytes (its page is marked as code again
     * only after it read them, so our write did not invalidate it). Every translation
     * that raced with the batch is complete once the sync round above returned, so
     * rewriting the bytes now invalidates them all; later ones read the final bytes.
     */
    for (size_t i = 0; i < n; i++)
        poke_bytes(sites[i].ip, sites[i].new, ARCH_PATCH_INSN_SIZE);
    alias_unmap();

    /* Every CPU has serialised since the last int3 disappeared; wait out any handler
     * that took a reference before that. */
    desc_put();
    while (__atomic_load_n(&poke_desc.refs, __ATOMIC_ACQUIRE) != 0)
        arch_cpu_relax();
    poke_desc.sites = NULL;
    poke_desc.n = 0;
    spin_unlock(&poke_lock);
    (void)flags;
    return 0;
}

/* kprobes.c's hook comes first: it finds its probes by address and declines the rest. */
void arch_text_poke_init(void) { x86_set_trap_hook(X86_VEC_BP, x86_kprobe_int3); }

/* Text no CPU runs is written as boot writes it: one checked write, no protocol. */
int arch_text_poke_unused(unsigned long ip, const uint8_t *bytes, size_t len)
{
    return arch_text_poke_early(ip, bytes, len);
}

int arch_text_poke_byte(unsigned long ip, uint8_t old, uint8_t new)
{
    if (!in_text(ip, 1))
        return -EINVAL;
    spin_lock(&poke_lock);
    if (*(volatile const uint8_t *)ip != old) {
        spin_unlock(&poke_lock);
        return -EBUSY;
    }
    /* One byte is written whole: a CPU fetches either the old or the new one. */
    poke_bytes(ip, &new, 1);
    smp_sync_all();
    /* Once more after the round, for translations that raced with it (see the batch). */
    poke_bytes(ip, &new, 1);
    alias_unmap();
    spin_unlock(&poke_lock);
    return 0;
}

/* ---- ftrace glue: what sites look like and where trampolines are ---- */

const uint8_t arch_ftrace_nop[ARCH_PATCH_INSN_SIZE] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
const uint8_t arch_ftrace_other_nop[ARCH_PATCH_INSN_SIZE] = {0x66, 0x0f, 0x1f, 0x40, 0x00};

extern void __fentry__(void);
extern void arch_ftrace_list_caller(void);
extern void arch_ftrace_list_regs_caller(void);
extern const unsigned long arch_ftrace_tramp_table[ARCH_FTRACE_TRAMP_SLOTS][2];

unsigned long arch_ftrace_fentry_addr(void) { return (unsigned long)__fentry__; }

unsigned long arch_ftrace_tramp_addr(unsigned slot, bool regs)
{
    ASSERT(slot < ARCH_FTRACE_TRAMP_SLOTS);
    return arch_ftrace_tramp_table[slot][regs];
}

unsigned long arch_ftrace_list_addr(bool regs)
{
    return regs ? (unsigned long)arch_ftrace_list_regs_caller
                : (unsigned long)arch_ftrace_list_caller;
}
