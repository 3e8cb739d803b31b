#ifndef ARCH_INSN_TABLE_H
#define ARCH_INSN_TABLE_H

/*
 * The instruction table the kernel embeds beside its symbol table: for every function of
 * the text, where each instruction begins and what kind it is, so a kprobe can be placed
 * on any instruction without a decoder in the kernel. arch/x86_64/tools/geninsn.c writes
 * it on the host from GNU objdump's disassembly of the first link; arch/x86_64/kprobes.c
 * reads it. Host and kernel are both x86_64 (little endian, same struct layout), so this
 * header includes nothing but <stdint.h>.
 *
 *   an insn_table_header,
 *   count insn_table_func entries at funcs_offset, sorted by addr; a function's
 *   instructions are nins bytes from first in the byte array,
 *   one byte per instruction at insns_offset: the length in the low nibble (1..15), the
 *   kind (enum insn_kind) in the high nibble.
 *
 * A function is a symbol of the text as objdump names it: its instructions run from its
 * address, back to back, to the next symbol. Bytes objdump shows as data (an assembly
 * table in the text) end a function's list there: nothing after them can be probed.
 */
#include <stdint.h>

#define INSN_TABLE_MAGIC 0x4e5354534e494b46ULL /* "FKINSTSN" */

enum insn_kind {
    INSN_PLAIN = 0,     /* runs anywhere: copied out of line as it is */
    INSN_RIPREL_I0 = 1, /* a RIP-relative operand: disp32 ends the instruction ... */
    INSN_RIPREL_I1 = 2, /* ... or is followed by a 1-, 2- or 4-byte immediate */
    INSN_RIPREL_I2 = 3,
    INSN_RIPREL_I4 = 4,
    INSN_CALL_REL32 = 5, /* call rel32 */
    INSN_JMP_REL8 = 6,   /* jmp rel8 */
    INSN_JMP_REL32 = 7,  /* jmp rel32 */
    INSN_JCC_REL8 = 8,   /* jcc rel8: the condition is the opcode's low nibble */
    INSN_JCC_REL32 = 9,  /* jcc rel32 (0f 8x) */
    INSN_RET = 10,       /* near ret without an immediate */
    INSN_INDIRECT = 11,  /* call or jmp through a register or memory */
    INSN_UNSAFE = 12,    /* cannot be probed: changes IF, traps, stops or leaves the kernel */
};

struct insn_table_header {
    uint64_t magic;
    uint64_t count;
    uint64_t funcs_offset;
    uint64_t insns_offset;
    uint64_t ninsns;
    uint64_t total_size;
};

struct insn_table_func {
    uint64_t addr;
    uint32_t first;
    uint32_t nins;
};

#define INSN_LEN(b) ((unsigned)(b)&0xf)
#define INSN_KIND(b) ((unsigned)(b) >> 4)

_Static_assert(sizeof(struct insn_table_header) == 48, "insn table header is six u64");
_Static_assert(sizeof(struct insn_table_func) == 16, "insn table entries are packed");

#endif
