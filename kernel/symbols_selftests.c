/* Self-tests of the embedded symbol table, both ways. */
#include <kernel/ftrace_test.h>
#include <kernel/selftest.h>
#include <kernel/symbols.h>
#include <lib/printf.h>
#include <lib/string.h>

SELFTEST(symbols_both_ways)
{
    EXPECT(sym_count() > 100);
    uintptr_t addr = sym_address("ftrace_test_target");
    EXPECT_EQ(addr, (uintptr_t)ftrace_test_target);
    uintptr_t start;
    size_t size;
    const char *name = sym_lookup((uintptr_t)ftrace_test_target + 3, &start, &size);
    EXPECT_STREQ(name, "ftrace_test_target");
    EXPECT_EQ(start, (uintptr_t)ftrace_test_target);
    EXPECT(size > 3);
    char buf[96], want[96];
    sym_format(buf, sizeof(buf), (uintptr_t)ftrace_test_target + 3);
    snprintf(want, sizeof(want), "ftrace_test_target+0x3/0x%zx", size);
    EXPECT_STREQ(buf, want);
    /* Through printf's %pS / %ps too. */
    snprintf(buf, sizeof(buf), "%ps", (void *)((uintptr_t)ftrace_test_target + 3));
    EXPECT_STREQ(buf, "ftrace_test_target");
    EXPECT_EQ(sym_address("no_such_symbol_anywhere"), 0);
    EXPECT(sym_lookup(0x1000, NULL, NULL) == NULL);
    sym_format(buf, sizeof(buf), 0x1000);
    EXPECT_STREQ(buf, "0x1000");
}
