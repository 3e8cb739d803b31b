/*
 * gensyms: turns the function symbols of a linked kernel into the table the kernel embeds
 * for backtraces, trace output and name lookups.
 *
 *   gensyms --empty OUT          an empty table (for the first link)
 *   gensyms KERNEL.elf OUT       the table of KERNEL's text and data symbols
 *   gensyms --check KERNEL.elf TABLE
 *                                fails if KERNEL's symbols differ from TABLE, i.e. if
 *                                embedding the table moved any function
 *
 * The table's layout is include/kernel/ksymtab.h, shared with kernel/symbols.c.
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kernel/ksymtab.h>

struct symbol {
    uint64_t addr;
    uint64_t size;
    const char *name;
    int global;
    char type; /* nm's letter: t, d, r or b, capital when global */
};

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "gensyms: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(1);
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n))
        die("cannot read %s", path);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static int symbol_order(const void *a, const void *b)
{
    const struct symbol *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    /* At one address, the sized global symbol names the function best. */
    if ((x->size != 0) != (y->size != 0))
        return x->size ? -1 : 1;
    if (x->global != y->global)
        return x->global ? -1 : 1;
    return strcmp(x->name, y->name);
}

static uint64_t find_symbol_value(const Elf64_Sym *syms, size_t nsyms, const char *strtab,
                                  const char *name)
{
    for (size_t i = 0; i < nsyms; i++)
        if (strcmp(strtab + syms[i].st_name, name) == 0)
            return syms[i].st_value;
    die("symbol %s not found", name);
    return 0;
}

/* nm's letter for a data object in section sh: bss, read-only or writable data. */
static char data_type(const Elf64_Shdr *sh, int global)
{
    char type = sh->sh_type == SHT_NOBITS ? 'b' : !(sh->sh_flags & SHF_WRITE) ? 'r' : 'd';
    return global ? (char)(type - 'a' + 'A') : type;
}

/* Builds the table image for an ELF kernel into a malloc'd buffer. */
static unsigned char *build_table(const char *elf_path, size_t *out_len)
{
    size_t len;
    unsigned char *img = read_file(elf_path, &len);
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64)
        die("%s is not an ELF64 file", elf_path);
    if (eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
        die("%s has a truncated section table", elf_path);
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);

    const Elf64_Sym *syms = NULL;
    size_t nsyms = 0;
    const char *strtab = NULL;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB)
            continue;
        syms = (const Elf64_Sym *)(img + sh[i].sh_offset);
        nsyms = sh[i].sh_size / sizeof(Elf64_Sym);
        strtab = (const char *)(img + sh[sh[i].sh_link].sh_offset);
    }
    if (!syms)
        die("%s has no symbol table", elf_path);

    uint64_t text_start = find_symbol_value(syms, nsyms, strtab, "__text_start");
    uint64_t text_end = find_symbol_value(syms, nsyms, strtab, "__text_end");

    struct symbol *list = calloc(nsyms, sizeof(*list));
    size_t n = 0;
    for (size_t i = 0; i < nsyms; i++) {
        const Elf64_Sym *s = &syms[i];
        if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF)
            continue;
        if (s->st_value < text_start || s->st_value >= text_end)
            continue;
        list[n].addr = s->st_value;
        list[n].size = s->st_size;
        list[n].name = strtab + s->st_name;
        list[n].global = ELF64_ST_BIND(s->st_info) != STB_LOCAL;
        list[n].type = list[n].global ? 'T' : 't';
        n++;
    }
    qsort(list, n, sizeof(*list), symbol_order);

    /* One name per address; assembly symbols without a size end where the next begins. */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (kept && list[kept - 1].addr == list[i].addr)
            continue;
        list[kept++] = list[i];
    }
    for (size_t i = 0; i < kept; i++) {
        if (list[i].size)
            continue;
        uint64_t next = i + 1 < kept ? list[i + 1].addr : text_end;
        list[i].size = next - list[i].addr;
    }

    /* Data objects follow the functions in the same list. */
    size_t ndata = 0;
    for (size_t i = 0; i < nsyms; i++) {
        const Elf64_Sym *s = &syms[i];
        if (ELF64_ST_TYPE(s->st_info) != STT_OBJECT || s->st_shndx == SHN_UNDEF ||
            s->st_shndx >= SHN_LORESERVE || !strtab[s->st_name])
            continue;
        list[kept + ndata].addr = s->st_value;
        list[kept + ndata].size = s->st_size;
        list[kept + ndata].name = strtab + s->st_name;
        list[kept + ndata].global = ELF64_ST_BIND(s->st_info) != STB_LOCAL;
        list[kept + ndata].type = data_type(&sh[s->st_shndx], list[kept + ndata].global);
        ndata++;
    }
    /* In address order, as /proc/kallsyms lists them. */
    qsort(list + kept, ndata, sizeof(*list), symbol_order);

    size_t strings = 0;
    for (size_t i = 0; i < kept + ndata; i++)
        strings += strlen(list[i].name) + 1;
    size_t total = sizeof(struct ksymtab_header) + (kept + ndata) * sizeof(struct ksym) +
                   (kept + ndata) + strings;
    total = (total + 7) & ~(size_t)7;
    unsigned char *out = calloc(1, total);
    struct ksymtab_header *hdr = (struct ksymtab_header *)out;
    struct ksym *ent = (struct ksym *)(hdr + 1);
    char *types = (char *)(ent + kept + ndata);
    char *names = types + kept + ndata;
    hdr->magic = KSYMTAB_MAGIC;
    hdr->count = kept;
    hdr->strings_offset = (uint64_t)((unsigned char *)names - out);
    hdr->total_size = total;
    hdr->data_count = ndata;
    hdr->data_offset = (uint64_t)((unsigned char *)(ent + kept) - out);
    hdr->types_offset = (uint64_t)((unsigned char *)types - out);
    size_t off = 0;
    for (size_t i = 0; i < kept + ndata; i++) {
        if (list[i].size > UINT32_MAX)
            die("symbol %s is too large", list[i].name);
        ent[i].addr = list[i].addr;
        ent[i].size = (uint32_t)list[i].size;
        ent[i].name_off = (uint32_t)off;
        types[i] = list[i].type;
        strcpy(names + off, list[i].name);
        off += strlen(list[i].name) + 1;
    }
    free(list);
    free(img);
    *out_len = total;
    return out;
}

static void write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
        die("cannot write %s", path);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--empty") == 0) {
        struct ksymtab_header hdr = {KSYMTAB_MAGIC, 0,          sizeof(hdr), sizeof(hdr), 0,
                                     sizeof(hdr),   sizeof(hdr)};
        write_file(argv[2], &hdr, sizeof(hdr));
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "--check") == 0) {
        size_t want_len, have_len;
        unsigned char *have = build_table(argv[2], &have_len);
        unsigned char *want = read_file(argv[3], &want_len);
        if (have_len != want_len || memcmp(have, want, have_len) != 0) {
            fprintf(stderr, "gensyms: symbols moved between the two links of %s\n", argv[2]);
            return 1;
        }
        return 0;
    }
    if (argc == 3) {
        size_t len;
        unsigned char *table = build_table(argv[1], &len);
        write_file(argv[2], table, len);
        return 0;
    }
    fprintf(stderr,
            "usage: gensyms --empty OUT | gensyms KERNEL OUT | gensyms --check KERNEL TABLE\n");
    return 2;
}
