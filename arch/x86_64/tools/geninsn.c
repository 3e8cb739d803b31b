/*
 * geninsn: turns GNU objdump's disassembly of a linked kernel into the instruction table
 * the kernel embeds (layout: arch/x86_64/include/arch/insn_table.h), so that kprobes can
 * be placed at any instruction. objdump is the decoder; this tool only sorts what it
 * printed into kinds, and checks each kind against the bytes so that a surprise becomes
 * an unprobeable instruction rather than a wrong emulation.
 *
 *   geninsn --empty OUT             an empty table (for the first link)
 *   geninsn DISASSEMBLY OUT         the table of `objdump -d -w -z KERNEL` (a file)
 *
 * The table says where instructions begin and what they are; it holds no address that a
 * second link could change, and gensyms --check proves that no function moved.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arch/insn_table.h>

struct func {
    uint64_t addr;
    uint32_t first;
    uint32_t nins;
    uint64_t next; /* where the next instruction must begin */
    int closed;    /* data or a gap was seen: nothing more is listed */
};

static struct func *funcs;
static size_t nfuncs, funcs_cap;
static uint8_t *insns;
static size_t ninsns, insns_cap;

static void die(const char *msg)
{
    fprintf(stderr, "geninsn: %s\n", msg);
    exit(1);
}

static void write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
        die("cannot write the output file");
}

static void add_insn(uint8_t b)
{
    if (ninsns == insns_cap) {
        insns_cap = insns_cap ? insns_cap * 2 : 65536;
        insns = realloc(insns, insns_cap);
        if (!insns)
            die("out of memory");
    }
    insns[ninsns++] = b;
}

static const char *const prefixes[] = {
    "lock",   "rep", "repz", "repnz", "repe", "repne", "bnd", "notrack",  "data16",
    "addr32", "cs",  "ds",   "es",    "ss",   "fs",    "gs",  "xacquire", "xrelease"};

static int is_prefix(const char *w)
{
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strcmp(w, prefixes[i]) == 0)
            return 1;
    return 0;
}

/* Instructions that must never run out of line or be emulated by a probe. */
static const char *const unsafe[] = {
    "cli",    "sti",     "pushf",   "pushfq",   "popf",    "popfq",  "iret",    "iretq",
    "iretd",  "int",     "int3",    "int1",     "icebp",   "into",   "hlt",     "syscall",
    "sysret", "sysretq", "sysretl", "sysenter", "sysexit", "swapgs", "lret",    "lretq",
    "ljmp",   "lcall",   "ud0",     "ud1",      "ud2",     "loop",   "loope",   "loopne",
    "jrcxz",  "jecxz",   "xbegin",  "xabort",   "xend",    "mwait",  "monitor", "rsm",
    "vmcall", "(bad)",   "retf",    "lretl",    "enqcmd",  "uiret",  "wait",    "fwait"};

static int is_unsafe(const char *m)
{
    for (size_t i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]); i++)
        if (strcmp(m, unsafe[i]) == 0)
            return 1;
    return 0;
}

static const char *const jccs[] = {"jo",  "jno", "jb",  "jc",  "jnae", "jae", "jnb", "jnc",
                                   "je",  "jz",  "jne", "jnz", "jbe",  "jna", "ja",  "jnbe",
                                   "js",  "jns", "jp",  "jpe", "jnp",  "jpo", "jl",  "jnge",
                                   "jge", "jnl", "jle", "jng", "jg",   "jnle"};

static int is_jcc(const char *m)
{
    for (size_t i = 0; i < sizeof(jccs) / sizeof(jccs[0]); i++)
        if (strcmp(m, jccs[i]) == 0)
            return 1;
    return 0;
}

static int64_t le32(const uint8_t *b)
{
    return (int32_t)(b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24);
}

/* The branch target objdump printed as the first operand (an address in hex). */
static int branch_target(const char *ops, uint64_t *target)
{
    char *end;
    if (!isxdigit((unsigned char)*ops))
        return 0;
    *target = strtoull(ops, &end, 16);
    return end != ops;
}

/* Sorts one instruction: objdump's mnemonic and operands checked against its bytes. */
static unsigned classify(uint64_t addr, const uint8_t *b, unsigned len, char *text)
{
    char *words[8];
    unsigned nwords = 0;
    char *save = NULL;
    /* The comment objdump adds (# target <sym>) is kept apart from the operands. */
    char *comment = strchr(text, '#');
    if (comment)
        *comment++ = 0;
    for (char *w = strtok_r(text, " ", &save); w && nwords < 8; w = strtok_r(NULL, " ", &save))
        words[nwords++] = w;
    unsigned i = 0;
    while (i + 1 < nwords && is_prefix(words[i]))
        i++;
    if (i >= nwords)
        return INSN_UNSAFE;
    const char *m = words[i];
    const char *ops = i + 1 < nwords ? words[i + 1] : "";
    uint64_t target;
    if (strncmp(m, "rex", 3) == 0 || is_prefix(m) || is_unsafe(m))
        return INSN_UNSAFE;
    if (strcmp(m, "call") == 0 || strcmp(m, "callq") == 0) {
        if (ops[0] == '*')
            return INSN_INDIRECT;
        if (len == 5 && b[0] == 0xe8 && branch_target(ops, &target) &&
            target == addr + len + (uint64_t)le32(b + 1))
            return INSN_CALL_REL32;
        return INSN_UNSAFE;
    }
    if (strcmp(m, "jmp") == 0 || strcmp(m, "jmpq") == 0) {
        if (ops[0] == '*')
            return INSN_INDIRECT;
        if (!branch_target(ops, &target))
            return INSN_UNSAFE;
        if (len == 2 && b[0] == 0xeb && target == addr + len + (uint64_t)(int64_t)(int8_t)b[1])
            return INSN_JMP_REL8;
        if (len == 5 && b[0] == 0xe9 && target == addr + len + (uint64_t)le32(b + 1))
            return INSN_JMP_REL32;
        return INSN_UNSAFE;
    }
    if (is_jcc(m)) {
        if (!branch_target(ops, &target))
            return INSN_UNSAFE;
        if (len == 2 && (b[0] & 0xf0) == 0x70 &&
            target == addr + len + (uint64_t)(int64_t)(int8_t)b[1])
            return INSN_JCC_REL8;
        if (len == 6 && b[0] == 0x0f && (b[1] & 0xf0) == 0x80 &&
            target == addr + len + (uint64_t)le32(b + 2))
            return INSN_JCC_REL32;
        return INSN_UNSAFE;
    }
    if (strcmp(m, "ret") == 0 || strcmp(m, "retq") == 0)
        return len == 1 && b[0] == 0xc3 && !ops[0] ? INSN_RET : INSN_UNSAFE;
    if (m[0] == 'j' || strstr(m, "call") || strstr(m, "ret"))
        return INSN_UNSAFE; /* a control transfer not named above */
    if (strstr(ops, "(%rip)")) {
        /* disp32 is followed only by an immediate: find it where the target says. */
        if (!comment || !branch_target(comment + strspn(comment, " "), &target))
            return INSN_UNSAFE;
        int64_t disp = (int64_t)(target - (addr + len));
        static const unsigned imm[] = {0, 1, 2, 4};
        for (unsigned k = 0; k < 4; k++) {
            if (len < 5 + imm[k])
                continue;
            if (le32(b + len - 4 - imm[k]) == disp)
                return INSN_RIPREL_I0 + k;
        }
        return INSN_UNSAFE;
    }
    if (strstr(ops, "%rip"))
        return INSN_UNSAFE;
    return INSN_PLAIN;
}

static void parse(FILE *in)
{
    char line[4096];
    struct func *cur = NULL;
    while (fgets(line, sizeof(line), in)) {
        line[strcspn(line, "\n")] = 0;
        unsigned long long addr;
        char name[2048];
        if (sscanf(line, "%llx <%2047[^>]>:", &addr, name) == 2 && strchr(line, '\t') == NULL) {
            if (nfuncs == funcs_cap) {
                funcs_cap = funcs_cap ? funcs_cap * 2 : 4096;
                funcs = realloc(funcs, funcs_cap * sizeof(*funcs));
                if (!funcs)
                    die("out of memory");
            }
            if (nfuncs && funcs[nfuncs - 1].addr == addr) {
                cur = &funcs[nfuncs - 1]; /* two names for one place: keep one entry */
                continue;
            }
            if (nfuncs && funcs[nfuncs - 1].addr > addr)
                die("objdump's symbols are not in address order");
            cur = &funcs[nfuncs++];
            *cur = (struct func){.addr = addr, .first = (uint32_t)ninsns, .next = addr};
            /* kprobes' out-of-line slots (arch/x86_64/kprobes.c): int3 fill, not code. */
            if (strcmp(name, "x86_kprobe_slots") == 0)
                cur->closed = 1;
            continue;
        }
        char *tab1 = strchr(line, '\t');
        if (!cur || !tab1 || sscanf(line, "%llx:", &addr) != 1)
            continue;
        char *tab2 = strchr(tab1 + 1, '\t');
        if (cur->closed)
            continue;
        if (!tab2 || addr != cur->next) {
            cur->closed = 1; /* data, or a gap: stop listing this function */
            continue;
        }
        *tab2 = 0;
        uint8_t bytes[16];
        unsigned len = 0;
        for (char *p = tab1 + 1; *p;) {
            while (*p == ' ')
                p++;
            if (!*p)
                break;
            unsigned v;
            if (sscanf(p, "%2x", &v) != 1 || len == 15) {
                len = 0;
                break;
            }
            bytes[len++] = (uint8_t)v;
            p += 2;
        }
        if (len == 0) {
            cur->closed = 1;
            continue;
        }
        unsigned kind = classify(addr, bytes, len, tab2 + 1);
        add_insn((uint8_t)(kind << 4 | len));
        cur->nins++;
        cur->next = addr + len;
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--empty") == 0) {
        struct insn_table_header h = {INSN_TABLE_MAGIC, 0, sizeof(h), sizeof(h), 0, sizeof(h)};
        write_file(argv[2], &h, sizeof(h));
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: geninsn --empty OUT | geninsn DISASSEMBLY OUT\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in)
        die("cannot open the disassembly");
    parse(in);
    fclose(in);
    if (nfuncs == 0 || ninsns == 0)
        die("no instructions in the disassembly");
    size_t funcs_off = sizeof(struct insn_table_header);
    size_t insns_off = funcs_off + nfuncs * sizeof(struct insn_table_func);
    size_t total = (insns_off + ninsns + 7) & ~(size_t)7;
    uint8_t *out = calloc(1, total);
    struct insn_table_header *h = (struct insn_table_header *)out;
    *h = (struct insn_table_header){INSN_TABLE_MAGIC, nfuncs, funcs_off, insns_off, ninsns, total};
    struct insn_table_func *f = (struct insn_table_func *)(out + funcs_off);
    for (size_t i = 0; i < nfuncs; i++)
        f[i] = (struct insn_table_func){funcs[i].addr, funcs[i].first, funcs[i].nins};
    memcpy(out + insns_off, insns, ninsns);
    write_file(argv[2], out, total);
    return 0;
}
