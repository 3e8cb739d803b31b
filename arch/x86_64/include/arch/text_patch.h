#ifndef ARCH_TEXT_PATCH_H
#define ARCH_TEXT_PATCH_H

#include <kernel/compiler.h>

/*
 * Live patching of 5-byte instructions in kernel text. Text stays read-only: writes go
 * through a temporary writable alias of the page, and are read back and checked.
 */
#define ARCH_PATCH_INSN_SIZE 5
/* int3: a patch in progress leaves it on a site's first byte (see arch_text_poke_batch). */
#define ARCH_PATCH_BREAKPOINT 0xcc

struct text_poke_site {
    unsigned long ip;
    uint8_t old[ARCH_PATCH_INSN_SIZE]; /* what the site must hold before */
    uint8_t new[ARCH_PATCH_INSN_SIZE]; /* what it holds after */
};

/*
 * Rewrites every site (sorted by ip, no duplicates) while the other CPUs keep running:
 * int3 on every first byte, sync; every tail, sync; every new first byte, sync. Three
 * broadcast sync rounds, whatever n is. A CPU that hits a site mid-batch traps and the
 * int3 handler emulates the new instruction. Every site is checked against `old` first:
 * on a mismatch nothing is written and -EINVAL is returned with *bad set to its index.
 */
int arch_text_poke_batch(const struct text_poke_site *sites, size_t n, size_t *bad);
/* One write while no other CPU runs (boot), with interrupts off around it. */
int arch_text_poke_early(unsigned long ip, const uint8_t *bytes, size_t len);
/*
 * One write to text that no CPU runs (a kprobe's out-of-line slot before the probe is
 * armed); every CPU sees it by the next sync round.
 */
int arch_text_poke_unused(unsigned long ip, const uint8_t *bytes, size_t len);
/*
 * Replaces the byte at ip, which must hold old (-EBUSY otherwise), with new, then one sync
 * round: afterwards no CPU runs the old byte. kprobes write and remove their int3 so.
 * Thread context, interrupts on.
 */
int arch_text_poke_byte(unsigned long ip, uint8_t old, uint8_t new);
/* Reads text without faulting; -EFAULT if unmapped. */
int arch_text_read(unsigned long ip, uint8_t *out, size_t len);
/* int3 traps emulated so far (the test proving the mid-batch path is taken reads it). */
uint64_t arch_text_poke_int3_hits(void);
/* int3s run from a stale copy of an already rewritten site (emulator translation lag). */
uint64_t arch_text_poke_stale_int3_hits(void);
void arch_text_poke_init(void);

#endif
