/*
 * Self-tests of kprobe events: reads that survive faults, the parser's result for each
 * kind of fetch argument, the record a fetch writes and its text, a probe's whole life
 * (made, armed, fired, disarmed, removed, with its site back to a NOP and its memory
 * given back), several lines in one write, the event core's run-time events, and removal
 * against a walk of the event's directory.
 */
#include <arch/regs.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/ftrace_test.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/selftest.h>
#include <kernel/symbols.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "trace_internal.h"
#include "trace_kprobe.h"
#include "trace_probe.h"

SELFTEST(kprobe_nofault_copy)
{
    static const char text[] = "nofault";
    char buf[16];
    unsigned long word = 0;
    EXPECT_EQ(copy_from_kernel_nofault(buf, text, sizeof(text)), 0);
    EXPECT_STREQ(buf, "nofault");
    /* The unmapped first page, a non-canonical address (#GP), the top of the address space. */
    EXPECT_EQ(copy_from_kernel_nofault(&word, (const void *)16, 8), -EFAULT);
    EXPECT_EQ(copy_from_kernel_nofault(&word, (const void *)0xdead000000000000UL, 8), -EFAULT);
    EXPECT_EQ(copy_from_kernel_nofault(&word, (const void *)0xfffffffffffffff0UL, 8), -EFAULT);
    EXPECT_EQ(strncpy_from_kernel_nofault(buf, text, sizeof(buf)), 8);
    EXPECT_STREQ(buf, "nofault");
    /* Cut at count: count bytes, no NUL. */
    EXPECT_EQ(strncpy_from_kernel_nofault(buf, text, 3), 3);
    EXPECT(memcmp(buf, "nof", 3) == 0);
    EXPECT_EQ(strncpy_from_kernel_nofault(buf, (const char *)16, sizeof(buf)), -EFAULT);
    /* Measuring: what the copy would return. */
    EXPECT_EQ(strnlen_kernel_nofault(text, 16), 8);
    EXPECT_EQ(strnlen_kernel_nofault(text, 3), 3);
    EXPECT_EQ(strnlen_kernel_nofault(text, 0), 0);
    EXPECT_EQ(strnlen_kernel_nofault((const char *)16, 16), -EFAULT);
    EXPECT_EQ(strnlen_kernel_nofault((const char *)0xdead000000000000UL, 16), -EFAULT);
}

/* Parses line; the parsed command (the caller frees it) or the error. */
static int parse_line(const char *line, struct probe_cmd *cmd, struct probe_error *e)
{
    struct probe_words w;
    int err = probe_split_words(line, &w);
    if (err)
        return err;
    err = probe_parse(&w, cmd, e);
    probe_words_free(&w);
    return err;
}

SELFTEST(kprobe_parse_args)
{
    struct probe_cmd cmd;
    struct probe_error e;
    ASSERT_EQ(parse_line("p:g/ev pfs_open a=+8(+16(%si)):u16 b=$stack2 c=@boot_info+4:x32 "
                         "d=+0(%di):b3@2/8 e=+4(%dx):s8[3] $comm \\-5",
                         &cmd, &e),
              0);
    EXPECT_STREQ(cmd.group, "g");
    EXPECT_STREQ(cmd.event, "ev");
    EXPECT_STREQ(cmd.symbol, "pfs_open");
    EXPECT(!cmd.is_return);
    ASSERT_EQ(cmd.nargs, 7);
    struct probe_arg *a = cmd.args;
    EXPECT_EQ(a[0].base, FETCH_REG);
    EXPECT_EQ((long)a[0].param, regs_query_register_offset("si"));
    EXPECT_EQ(a[0].nderef, 2);
    EXPECT_EQ(a[0].deref[0], 16);
    EXPECT_EQ(a[0].deref[1], 8);
    EXPECT(a[0].memory);
    EXPECT_EQ(a[0].type->size, 2);
    EXPECT_EQ(a[0].offset, 16);
    EXPECT_EQ(a[1].base, FETCH_STACK);
    EXPECT_EQ(a[1].param, 2);
    EXPECT_EQ(a[1].offset, 18);
    EXPECT_EQ(a[2].base, FETCH_SYMBOL);
    EXPECT_STREQ(a[2].symbol, "boot_info+4");
    EXPECT(a[2].memory);
    EXPECT(a[3].bitfield);
    EXPECT_EQ(a[3].bf_lshift, 3); /* 8 - (3 + 2) */
    EXPECT_EQ(a[3].bf_rshift, 5); /* 8 - 3 */
    EXPECT_EQ(a[4].count, 3);
    EXPECT_EQ(probe_arg_size(&a[4]), 3);
    EXPECT_STREQ(a[5].name, "arg6");
    EXPECT_EQ(a[5].base, FETCH_COMM);
    EXPECT(probe_type_is_string(a[5].type));
    EXPECT_EQ(a[6].base, FETCH_IMM);
    EXPECT_EQ((long)a[6].param, -5);
    EXPECT_EQ(probe_resolve_args(cmd.args, cmd.nargs), 0);
    EXPECT_EQ(a[2].param, sym_data_address("boot_info") + 4);
    probe_cmd_free(&cmd);

    /* Refusals carry the word and offset the caret marks. */
    EXPECT_EQ(parse_line("p:x pfs_open a=+0(%di", &cmd, &e), -EINVAL);
    EXPECT_EQ(e.word, 2);
    EXPECT_EQ(e.pos, 8);
    EXPECT_STREQ(e.message, "Dereference brace is not closed");
    EXPECT_EQ(parse_line("r0:x pfs_open", &cmd, &e), -EINVAL);
    EXPECT_EQ(e.word, 0);
    EXPECT_EQ(e.pos, 1);
    EXPECT_EQ(parse_line("x pfs_open", &cmd, &e), -ECANCELED);
    /* A return probe reads every register, as the function left them. */
    EXPECT_EQ(parse_line("r:x pfs_open %di %flags", &cmd, &e), 0);
    probe_cmd_free(&cmd);
    EXPECT_EQ(
        parse_line("p:x pfs_open a=+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di)))))))))))))))",
                   &cmd, &e),
        -EINVAL);
    EXPECT_STREQ(e.message, "Dereference is too much nested");

    /* Linux's limit of 128 arguments: E2BIG, the caret on the first argument. */
    char *many = kmalloc(16 + 129 * 4);
    if (many) {
        char *p = many + snprintf(many, 16, "p:x pfs_open");
        for (unsigned i = 0; i < 129; i++)
            p += snprintf(p, 5, " %%di");
        EXPECT_EQ(parse_line(many, &cmd, &e), -E2BIG);
        EXPECT_EQ(e.word, 2);
        EXPECT_STREQ(e.message, "Too many arguments are specified");
        many[strlen(many) - 4] = '\0'; /* 128 of them */
        EXPECT_EQ(parse_line(many, &cmd, &e), 0);
        EXPECT_EQ(cmd.nargs, 128);
        probe_cmd_free(&cmd);
        kfree(many);
    }
}

/* Sets the register a probe line calls %name, where the trampoline would have saved it. */
static void set_named_reg(struct pt_regs *regs, const char *name, unsigned long v)
{
    int offset = regs_query_register_offset(name);
    if (offset >= 0)
        memcpy((char *)regs + offset, &v, sizeof(v));
}

SELFTEST(kprobe_fetch_store)
{
    struct probe_cmd cmd;
    struct probe_error e;
    static const char str[] = "abc";
    static const uint32_t words[2] = {0x12345678, 0x9abcdef0};
    ASSERT_EQ(parse_line("p:x pfs_open s=+0(%di):string w=+4(%si):x32 b=+0(%si):b8@8/32 "
                         "bad=+0(%dx):string n=%cx:s16 sym=%r8:symbol ss=%r8:symstr",
                         &cmd, &e),
              0);
    struct pt_regs regs = {0};
    unsigned long in_sym = sym_address("pfs_open") + 3;
    set_named_reg(&regs, "di", (unsigned long)str);
    set_named_reg(&regs, "si", (unsigned long)words);
    set_named_reg(&regs, "dx", 8); /* a pointer into the unmapped first page */
    set_named_reg(&regs, "cx", (unsigned long)-3);
    set_named_reg(&regs, "r8", in_sym);
    struct probe_ctx ctx = {.regs = &regs};
    size_t fixed = 16;
    for (unsigned i = 0; i < cmd.nargs; i++)
        fixed += probe_arg_size(&cmd.args[i]);
    char sym[64];
    sym_format(sym, sizeof(sym), in_sym);
    size_t dyn = probe_dynamic_size(cmd.args, cmd.nargs, &ctx);
    /* "abc" and its NUL, nothing for the fault, the symbol's text and its NUL. */
    EXPECT_EQ(dyn, 4 + strlen(sym) + 1);
    uint8_t rec[256];
    ASSERT_TRUE(fixed + dyn <= sizeof(rec));
    memset(rec, 0xcc, sizeof(rec));
    probe_store_args(cmd.args, cmd.nargs, &ctx, rec, fixed, dyn);
    struct seqbuf s = {0};
    probe_print_args(&s, cmd.args, cmd.nargs, rec, fixed + dyn);
    seq_putc(&s, '\0');
    char want[160];
    snprintf(want, sizeof(want), " s=\"abc\" w=0x9abcdef0 b=86 bad=(fault) n=-3 sym=%s ss=\"%s\"",
             sym, sym);
    EXPECT_STREQ(s.buf, want);
    seqbuf_free(&s);
    probe_cmd_free(&cmd);
}

/* The digits 0-9 over and over, n of them, then a NUL. */
static void digit_string(char *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        s[k] = (char)('0' + k % 10);
    s[n] = '\0';
}

/*
 * Strings as long as Linux reads them: up to MAX_STRING_SIZE (4096) bytes with the NUL. A
 * string of 4095 characters is fetched whole; a longer one is cut to 4095 and its NUL; each
 * element of an array of strings on its own.
 */
SELFTEST(kprobe_fetch_long_strings)
{
    static char longer[5001], whole[4096];
    static uint8_t rec[32 + 2 * 4096];
    static const char *ptrs[2] = {whole, longer};
    digit_string(longer, sizeof(longer) - 1);
    digit_string(whole, sizeof(whole) - 1);
    struct probe_cmd cmd;
    struct probe_error e;
    ASSERT_EQ(
        parse_line("p:x pfs_open w=+0(%di):string l=+0(%si):string a=+0(%dx):string[2]", &cmd, &e),
        0);
    struct pt_regs regs = {0};
    set_named_reg(&regs, "di", (unsigned long)whole);
    set_named_reg(&regs, "si", (unsigned long)longer);
    set_named_reg(&regs, "dx", (unsigned long)ptrs);
    struct probe_ctx ctx = {.regs = &regs};
    size_t fixed = 16 + 4 + 4 + 8;
    size_t dyn = probe_dynamic_size(cmd.args, cmd.nargs, &ctx);
    EXPECT_EQ(dyn, 4 * 4096);
    /* The record these would make is far larger than the ring buffer takes: the probe
     * drops it. Stored here the first two, in a record of their own size. */
    uint32_t loc[2];
    probe_store_args(cmd.args, 2, &ctx, rec, fixed, 2 * 4096);
    memcpy(loc, rec + 16, sizeof(loc));
    EXPECT_EQ(loc[0] >> 16, 4096);
    EXPECT_EQ(loc[1] >> 16, 4096);
    const char *w = (const char *)rec + (loc[0] & 0xffff);
    const char *l = (const char *)rec + (loc[1] & 0xffff);
    EXPECT(memcmp(w, whole, 4096) == 0); /* whole, its NUL included */
    EXPECT(memcmp(l, longer, 4095) == 0);
    EXPECT_EQ(l[4095], '\0');
    /* One character less fits with room to spare. */
    whole[4094] = '\0';
    EXPECT_EQ(probe_dynamic_size(cmd.args, 1, &ctx), 4095);
    whole[4094] = '4';
    probe_cmd_free(&cmd);
}

/*
 * A trace line has a page of text (Linux's trace_seq): a string that brings a kprobe's
 * line to 4095 characters prints whole, one character more prints "[LINE TOO BIG]" in its
 * place. The head of the line (context columns, name, address) is measured first.
 */
SELFTEST(kprobe_line_too_big)
{
    ASSERT_EQ(kprobe_command("p:selftest/ltb ftrace_strings_target s=+0(%di):string"), 0);
    const struct trace_event_call *call = trace_event_find("selftest", "ltb");
    ASSERT_TRUE(call != NULL);
    static char str[TRACE_LINE_MAX + 1];
    const char *strs[1] = {str};
    trace_clear(-1);
    EXPECT_EQ(trace_event_enable(call, true), 0);
    digit_string(str, 1);
    ftrace_strings_target(str, strs, 1);
    ssize_t err;
    char *trace = selftest_read_file(TRACEFS_ROOT, "trace", 4096, &err);
    const char *at = trace ? strstr(trace, " ltb: (ftrace_strings_target+") : NULL;
    const char *value = at ? strstr(at, " s=\"0\"\n") : NULL;
    const char *line = at;
    while (line && line > trace && line[-1] != '\n')
        line--;
    EXPECT(value != NULL);
    size_t head = value ? (size_t)(value - line) + 4 : 0; /* up to the opening quote */
    kfree(trace);
    if (!value || head + 2 > TRACE_LINE_MAX) {
        trace_event_enable(call, false);
        EXPECT_EQ(kprobe_command("-:selftest/ltb"), 0);
        return;
    }
    size_t fits = TRACE_LINE_MAX - 1 - head - 1; /* characters, with the closing quote */
    trace_clear(-1);
    digit_string(str, fits);
    ftrace_strings_target(str, strs, 1);
    digit_string(str, fits + 1);
    ftrace_strings_target(str, strs, 1);
    EXPECT_EQ(trace_event_enable(call, false), 0);
    trace = selftest_read_file(TRACEFS_ROOT, "trace", 4096, &err);
    const char *first = trace ? strstr(trace, " ltb: (ftrace_strings_target+") : NULL;
    while (first && first > trace && first[-1] != '\n')
        first--;
    const char *end = first ? strchr(first, '\n') : NULL;
    EXPECT(end != NULL);
    if (end) {
        EXPECT_EQ((size_t)(end - first), TRACE_LINE_MAX - 1);
        EXPECT_EQ(end[-1], '"');
        const char *second = end + 1;
        const char *second_end = strchr(second, '\n');
        EXPECT(second_end != NULL);
        EXPECT_EQ(second_end ? (size_t)(second_end - second) : 0, head - 1 + 14);
        EXPECT(second_end && strncmp(second_end - 16, "s=[LINE TOO BIG]", 16) == 0);
    }
    kfree(trace);
    EXPECT_EQ(kprobe_command("-:selftest/ltb"), 0);
}

/* Fills a record of line's arguments both ways: through probe_store_quick when they are
 * all quick (quick says whether they must be), and through the general fetch; the two
 * records must be the same bytes. */
static void check_quick(struct selftest_ctx *t, const char *line, bool quick,
                        const struct probe_ctx *ctx)
{
    struct probe_cmd cmd;
    struct probe_error e;
    ASSERT_EQ(parse_line(line, &cmd, &e), 0);
    struct probe_quick_arg *q = probe_quick_compile(cmd.args, cmd.nargs);
    EXPECT_EQ(q != NULL, quick);
    if (q) {
        uint8_t general[128], fast[128];
        memset(general, 0xcc, sizeof(general));
        memset(fast, 0xcc, sizeof(fast));
        probe_store_args(cmd.args, cmd.nargs, ctx, general, sizeof(general), 0);
        probe_store_quick(q, cmd.nargs, ctx, fast);
        EXPECT(memcmp(general, fast, sizeof(fast)) == 0);
        kfree(q);
    }
    probe_cmd_free(&cmd);
}

SELFTEST(kprobe_quick_store)
{
    struct pt_regs regs = {0};
    static const char *const names[] = {"di", "si", "dx", "cx", "r8", "r9", "ax", "bx", "r15"};
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        set_named_reg(&regs, names[i], 0x8877665544332211UL * (i + 1));
    static const unsigned long tp_args[2] = {0x1111222233334444UL, 0x5555666677778888UL};
    struct probe_ctx ctx = {.regs = &regs,
                            .retval = 0xfedcba9876543210UL,
                            .probe_addr = sym_address("pfs_open"),
                            .args = tp_args,
                            .nargs = 2};
    /* Every size and kind, truncated as the general fetch stores them. */
    check_quick(t,
                "p:x pfs_open a=%di:u8 b=%si:s16 c=%dx:x32 d=%cx e=$arg5:u32 f=$arg6:s64 "
                "g=\\-7:s8 h=%ip i=%bx:x16 j=%r15:b4@3/8 k=%ax:symbol",
                false, &ctx); /* the bitfield needs the general fetch */
    check_quick(t,
                "p:x pfs_open a=%di:u8 b=%si:s16 c=%dx:x32 d=%cx e=$arg5:u32 f=$arg6:s64 "
                "g=\\-7:s8 h=%ip i=%bx:x16 k=%ax:symbol l=$arg1:x8",
                true, &ctx);
    check_quick(t, "r:x pfs_open r=$retval:s32 ip=%ip ax=%ax", true, &ctx);
    check_quick(t, "p:x pfs_open", true, &ctx);
    /* A tracepoint's arguments, one past them reading 0 as the general fetch has it. */
    check_quick(t, "t:x sched_switch a=$arg1 b=$arg2:u16 c=\\5", true, &ctx);
    ctx.nargs = 1;
    check_quick(t, "t:x sched_switch a=$arg1 b=$arg2:u16", true, &ctx);
    ctx.nargs = 2;
    /* Memory, the stack, an argument on the stack, strings: the general fetch. */
    check_quick(t, "p:x pfs_open a=+0(%di)", false, &ctx);
    check_quick(t, "p:x pfs_open a=$stack", false, &ctx);
    check_quick(t, "p:x pfs_open a=$arg7", false, &ctx);
    check_quick(t, "p:x pfs_open a=$comm", false, &ctx);
    check_quick(t, "p:x pfs_open a=@pfs_open", false, &ctx);
}

static uint64_t profile_hits(const char *name) { return kprobe_hits("selftest", name, NULL); }

/* One probe's life, as the files would drive it: made, armed, fired, disarmed, removed. */
static void kprobe_cycle(struct selftest_ctx *t, struct dyn_ftrace *rec)
{
    ASSERT_EQ(kprobe_command("p:selftest/st_hot ftrace_test_target_hot a=%di"), 0);
    ASSERT_EQ(kprobe_command("r:selftest/st_ret ftrace_test_target_hot $retval"), 0);
    const struct trace_event_call *ent = trace_event_find("selftest", "st_hot");
    const struct trace_event_call *ret = trace_event_find("selftest", "st_ret");
    ASSERT_TRUE(ent && ret);
    EXPECT(trace_event_by_id(ent->state->id) == ent);
    EXPECT(ent->state->id != ret->state->id);
    EXPECT(!(rec->flags & FTRACE_FL_ENABLED));

    EXPECT_EQ(trace_event_enable(ent, true), 0);
    EXPECT_EQ(trace_event_enable(ret, true), 0);
    EXPECT(rec->flags & FTRACE_FL_ENABLED);
    EXPECT(rec->flags & FTRACE_FL_REGS);
    for (unsigned long i = 0; i < 5; i++)
        ftrace_test_target_hot(i);
    EXPECT_EQ(profile_hits("st_hot"), 5);
    EXPECT_EQ(profile_hits("st_ret"), 5);
    /* Enabled: it cannot be removed. */
    EXPECT_EQ(kprobe_command("-:selftest/st_hot"), -EBUSY);
    EXPECT_EQ(trace_event_enable(ent, false), 0);
    EXPECT_EQ(trace_event_enable(ret, false), 0);
    EXPECT(!(rec->flags & FTRACE_FL_ENABLED));
    ftrace_test_target_hot(9);
    EXPECT_EQ(profile_hits("st_hot"), 5);

    EXPECT_EQ(kprobe_command("-:selftest/st_hot"), 0);
    EXPECT_EQ(kprobe_command("-:st_ret"), 0);
    EXPECT(trace_event_find("selftest", "st_hot") == NULL);
    EXPECT_EQ(profile_hits("st_hot"), 0);
    struct pfs_node *n;
    EXPECT_EQ(pfs_lookup(NULL, TRACEFS_ROOT "/events/selftest", &n), -ENOENT);
}

SELFTEST(kprobe_event_life)
{
    struct mm_stats before, after;
    uint64_t hot = sym_address("ftrace_test_target_hot");
    struct dyn_ftrace *rec = ftrace_rec_lookup(hot);
    ASSERT_TRUE(rec != NULL);
    ASSERT_TRUE(!(rec->flags & FTRACE_FL_ENABLED));
    /* The first cycle may make what lasts (the shared op's filter hash, the group's name):
     * the second must give back all it takes. */
    kprobe_cycle(t, rec);
    mm_get_stats(&before);
    kprobe_cycle(t, rec);
    mm_get_stats(&after);
    EXPECT_EQ(after.heap_bytes_in_use, before.heap_bytes_in_use);
}

SELFTEST(kprobe_files_lines)
{
    struct pfs_file *f;
    ASSERT_EQ(pfs_open(NULL, TRACEFS_ROOT "/kprobe_events", PFS_WRITE | PFS_APPEND, &f), 0);
    static const char lines[] = "p:selftest/l1 pfs_open\n# p:selftest/l2 pfs_open\n\n"
                                "p:selftest/l3 pfs_open # a comment\n";
    EXPECT_EQ(pfs_write(f, lines, sizeof(lines) - 1), (ssize_t)(sizeof(lines) - 1));
    EXPECT(trace_event_find("selftest", "l1") != NULL);
    EXPECT(trace_event_find("selftest", "l2") == NULL);
    EXPECT(trace_event_find("selftest", "l3") != NULL);
    /* The first bad line ends the write; the lines before it stay. */
    static const char bad[] = "p:selftest/l4 pfs_open\np:selftest/l5 nosuchfunc_xyz\n"
                              "p:selftest/l6 pfs_open\n";
    EXPECT_EQ(pfs_write(f, bad, sizeof(bad) - 1), -ENOENT);
    EXPECT(trace_event_find("selftest", "l4") != NULL);
    EXPECT(trace_event_find("selftest", "l6") == NULL);
    /* Longer than Linux's write buffer. */
    size_t long_len = 5000;
    char *huge = kmalloc(long_len);
    if (huge) {
        memset(huge, 'a', long_len);
        memcpy(huge, "p:selftest/l7 pfs_open x=", 25);
        EXPECT_EQ(pfs_write(f, huge, long_len), -EINVAL);
        kfree(huge);
    }
    pfs_close(f);
    EXPECT_EQ(kprobe_command("-:selftest/l1"), 0);
    EXPECT_EQ(kprobe_command("-:selftest/l3"), 0);
    EXPECT_EQ(kprobe_command("-:selftest/l4"), 0);
}

SELFTEST(kprobe_event_files_busy)
{
    ASSERT_EQ(kprobe_command("p:selftest/busy pfs_open"), 0);
    struct pfs_file *f;
    ASSERT_EQ(pfs_open(NULL, TRACEFS_ROOT "/events/selftest/busy/format", PFS_READ, &f), 0);
    /* A file of it is open: it stays, whole. */
    EXPECT_EQ(kprobe_command("-:selftest/busy"), -EBUSY);
    EXPECT(trace_event_find("selftest", "busy") != NULL);
    pfs_close(f);
    EXPECT_EQ(kprobe_command("-:selftest/busy"), 0);
    EXPECT(trace_event_find("selftest", "busy") == NULL);
}

struct kprobe_remover {
    volatile bool done;
    int err;
};

static int kprobe_remover_thread(void *arg)
{
    struct kprobe_remover *r = arg;
    r->err = kprobe_command("-:selftest/walked");
    WRITE_ONCE(r->done, true);
    return 0;
}

/*
 * A walker (ls, completion) keeps node pointers while it holds the control mutex: another
 * thread's removal of those nodes waits until it lets go, on this CPU as on another.
 */
SELFTEST(kprobe_removal_waits_for_walkers)
{
    unsigned last = this_cpu_id();
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (cpu_data(c)->online)
            last = c;
    unsigned cpus[] = {this_cpu_id(), last};
    for (size_t i = 0; i < ARRAY_SIZE(cpus) - (last == this_cpu_id()); i++) {
        unsigned cpu = cpus[i];
        ASSERT_EQ(kprobe_command("p:selftest/walked pfs_open"), 0);
        struct kprobe_remover r = {0};
        struct pfs_node *dir, *child;
        pfs_control_lock();
        EXPECT_EQ(pfs_lookup(NULL, TRACEFS_ROOT "/events/selftest/walked", &dir), 0);
        struct thread *th = kthread_create(kprobe_remover_thread, &r, "kpremove", cpu);
        EXPECT(th != NULL);
        sleep_ns(50 * NSEC_PER_MSEC);
        EXPECT(!READ_ONCE(r.done));
        /* Still linked and whole while the walk goes on. */
        EXPECT_STREQ(pfs_name(dir), "walked");
        child = pfs_child(dir, 0);
        EXPECT(child != NULL && pfs_child(dir, 0) == child);
        pfs_control_unlock();
        if (th)
            EXPECT_EQ(kthread_join(th), 0);
        else
            kprobe_command("-:selftest/walked");
        EXPECT(READ_ONCE(r.done) || !th);
        EXPECT_EQ(r.err, 0);
        EXPECT_EQ(pfs_lookup(NULL, TRACEFS_ROOT "/events/selftest/walked", &dir), -ENOENT);
    }
}
