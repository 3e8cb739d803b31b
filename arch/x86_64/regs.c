/*
 * Registers by name and stack words, for probes (see <arch/regs.h>). The names are
 * Linux's x86-64 kprobe_events names: the same lines work on both kernels.
 */
#include <arch/regs.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <lib/string.h>

#define REG(name, field)                                                                           \
    {                                                                                              \
        name, offsetof(struct pt_regs, field)                                                      \
    }
static const struct {
    const char *name;
    unsigned offset;
} x86_reg_names[] = {
    REG("r15", r15), REG("r14", r14), REG("r13", r13),      REG("r12", r12),
    REG("r11", r11), REG("r10", r10), REG("r9", r9),        REG("r8", r8),
    REG("bx", rbx),  REG("cx", rcx),  REG("dx", rdx),       REG("si", rsi),
    REG("di", rdi),  REG("bp", rbp),  REG("ax", rax),       REG("orig_ax", error_code),
    REG("ip", rip),  REG("cs", cs),   REG("flags", rflags), REG("sp", rsp),
    REG("ss", ss),
};

int regs_query_register_offset(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(x86_reg_names); i++)
        if (strcmp(name, x86_reg_names[i].name) == 0)
            return (int)x86_reg_names[i].offset;
    return -EINVAL;
}

unsigned long regs_get_kernel_stack_nth(const struct pt_regs *regs, unsigned n)
{
    unsigned long v;
    if (copy_from_kernel_nofault(&v, regs_get_kernel_stack_nth_addr(regs, n), sizeof(v)))
        return 0;
    return v;
}
