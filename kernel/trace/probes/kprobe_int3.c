/*
 * kprobes at any instruction: the int3 sites. A place that is not a function entry with
 * an ftrace site (an offset into a function, an address, a notrace function) is armed as
 * a site here: the arch writes int3 on the instruction (<arch/kprobes.h>) and, on a hit,
 * asks kprobe_int3_hit for the site at that address. Sites are found by a hash of the
 * address; every place armed at one address shares its site.
 *
 * Lifetimes: the hit runs with interrupts off, and so does the out-of-line slot it resumes
 * in, so a sync round after a site left the hash proves nobody holds it. Sites and the
 * hash change under the probe lock (trace_kprobe.c's, held by every caller here).
 *
 * Also here: /sys/kernel/debug/kprobes/list (armed probes) and blacklist, in Linux's
 * formats.
 */
#include <arch/kprobes.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/init.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/smp.h>
#include <kernel/symbols.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "trace_hot.h"
#include "trace_kprobe.h"

#define SITE_PLACES 8
#define SITE_HASH_BITS 8

struct kprobe_site {
    struct kprobe_site *next; /* hash chain */
    unsigned long addr;
    struct arch_kprobe arch;
    struct kprobe_place *places[SITE_PLACES]; /* NULL where free */
    unsigned nplaces;
};

static struct kprobe_site *site_hash[1u << SITE_HASH_BITS];
static unsigned nsites;

static unsigned site_bucket(unsigned long addr)
{
    return (unsigned)((addr * 0x9e3779b97f4a7c15ULL) >> (64 - SITE_HASH_BITS));
}

static struct kprobe_site *site_find(unsigned long addr)
{
    for (struct kprobe_site *s = READ_ONCE(site_hash[site_bucket(addr)]); s; s = READ_ONCE(s->next))
        if (s->addr == addr)
            return s;
    return NULL;
}

bool kprobe_blacklisted(unsigned long addr) { return arch_kprobe_blacklisted(addr); }

int kprobe_site_check(unsigned long addr, const char **why)
{
    *why = NULL;
    if (site_find(addr))
        return 0; /* armed already: its int3 is in the text, a new place shares it */
    struct arch_kprobe ap;
    int err = arch_kprobe_prepare(&ap, addr, why);
    if (!err)
        arch_kprobe_release(&ap);
    return err;
}

int kprobe_site_attach(struct kprobe_place *p)
{
    unsigned long addr = kprobe_place_addr(p);
    struct kprobe_site *s = site_find(addr);
    if (s) {
        for (unsigned i = 0; i < SITE_PLACES; i++) {
            if (!s->places[i]) {
                __atomic_store_n(&s->places[i], p, __ATOMIC_RELEASE);
                s->nplaces++;
                return 0;
            }
        }
        return -ENOSPC;
    }
    s = kzalloc(sizeof(*s));
    if (!s)
        return -ENOMEM;
    const char *why;
    int err = arch_kprobe_prepare(&s->arch, addr, &why);
    if (err) {
        kfree(s);
        return err;
    }
    s->addr = addr;
    s->places[0] = p;
    s->nplaces = 1;
    /* In the hash before the int3 is in the text: a hit always finds its site. */
    unsigned b = site_bucket(addr);
    s->next = site_hash[b];
    __atomic_store_n(&site_hash[b], s, __ATOMIC_RELEASE);
    err = arch_kprobe_arm(&s->arch);
    if (err) {
        WRITE_ONCE(site_hash[b], s->next);
        smp_sync_all();
        arch_kprobe_release(&s->arch);
        kfree(s);
        return err;
    }
    nsites++;
    return 0;
}

void kprobe_site_detach(struct kprobe_place *p)
{
    unsigned long addr = kprobe_place_addr(p);
    struct kprobe_site *s = site_find(addr);
    if (!s)
        return;
    for (unsigned i = 0; i < SITE_PLACES; i++) {
        if (s->places[i] == p) {
            WRITE_ONCE(s->places[i], NULL);
            s->nplaces--;
        }
    }
    if (s->nplaces) {
        smp_sync_all(); /* a hit that loaded p is over */
        return;
    }
    /* The int3 goes first (with its sync round): then no new hit finds the site. */
    arch_kprobe_disarm(&s->arch);
    struct kprobe_site **pp = &site_hash[site_bucket(addr)];
    while (*pp != s)
        pp = &(*pp)->next;
    WRITE_ONCE(*pp, s->next);
    /* A CPU that fetched the int3 before it went may still be in a hit or in the slot;
     * both run with interrupts off, so after this round none is. */
    smp_sync_all();
    arch_kprobe_release(&s->arch);
    kfree(s);
    nsites--;
}

void (*kprobe_int3_test_hook)(const struct pt_regs *regs, unsigned long addr);

__trace_hot_probe const struct arch_kprobe *kprobe_int3_hit(struct pt_regs *regs,
                                                            unsigned long addr)
{
    struct kprobe_site *s = site_find(addr);
    if (!s)
        return NULL;
    unsigned cpu = this_cpu_id();
    bool missed = !kprobe_cpu_enter(cpu);
    void (*hook)(const struct pt_regs *, unsigned long) = READ_ONCE(kprobe_int3_test_hook);
    if (hook && !missed)
        hook(regs, addr);
    for (unsigned i = 0; i < SITE_PLACES; i++) {
        struct kprobe_place *p = __atomic_load_n(&s->places[i], __ATOMIC_ACQUIRE);
        if (p)
            kprobe_place_fire(p, regs, addr, missed);
    }
    if (!missed)
        kprobe_cpu_exit(cpu);
    return &s->arch;
}

/* ---- /sys/kernel/debug/kprobes ---- */

void kprobe_list_line(struct seqbuf *s, unsigned long addr, bool ftrace)
{
    uintptr_t start = 0;
    const char *name = sym_lookup(addr, &start, NULL);
    if (name)
        seq_printf(s, "%016lx  k  %s+0x%lx    %s\n", addr, name, addr - start,
                   ftrace ? "[FTRACE]" : "");
    else
        seq_printf(s, "%016lx  k  %016lx %s\n", addr, addr, ftrace ? "[FTRACE]" : "");
}

/* Armed probes, one line each, as Linux's list (those on ftrace sites marked). */
static int show_list(struct seqbuf *s, void *data)
{
    kprobe_show_armed(s);
    return 0;
}

/* Every blacklisted function, `0xSTART-0xEND\tSYM` as Linux prints it. */
static int show_blacklist(struct seqbuf *s, void *data)
{
    unsigned long lo, hi;
    for (unsigned n = 0; arch_kprobe_blacklist_range(n, &lo, &hi); n++) {
        for (size_t i = 0; i < sym_count(); i++) {
            uintptr_t start;
            const char *name = sym_at(i, &start);
            if (!name || start < lo || start >= hi)
                continue;
            size_t size = 0;
            sym_lookup(start, &start, &size);
            seq_printf(s, "0x%016lx-0x%016lx\t%s\n", (unsigned long)start,
                       (unsigned long)(start + size), name);
        }
    }
    return 0;
}

static void kprobes_debugfs_init(void)
{
    struct pfs_node *dir = pfs_mkdir("/sys/kernel/debug/kprobes");
    if (!dir)
        return;
    pfs_create_seq(dir, "list", 0444, show_list, NULL, NULL);
    pfs_create_seq(dir, "blacklist", 0400, show_blacklist, NULL, NULL);
}
LATE_INITCALL(kprobes_debugfs_init);
