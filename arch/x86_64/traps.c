/*
 * The IDT and the C side of every interrupt and exception. Not traced: the int3 that live
 * code patching plants comes through here, and so does every timer tick.
 */
#include <arch/apic.h>
#include <arch/asm_calls.h>
#include <arch/cpu.h>
#include <arch/irq.h>
#include <arch/x86.h>
#include <kernel/ftrace.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/symbols.h>
#include <kernel/trace_events.h>
#include <kernel/trap.h>
#include <lib/string.h>

#include "x86_cpu.h"

struct idt_gate {
    uint16_t offset_low;
    uint16_t selector;
    uint8_t ist;
    uint8_t type_attr;
    uint16_t offset_mid;
    uint32_t offset_high;
    uint32_t reserved;
} __packed;

static struct idt_gate idt[256] __aligned(16);
extern const uint64_t isr_stub_table[256];

static x86_trap_hook_fn trap_hooks[32];
static struct {
    x86_irq_handler_fn fn;
    void *arg;
} irq_handlers[256];

void (*x86_irq_eoi)(unsigned vector);

static const char *const vector_names[32] = {
    [0] = "#DE Divide Error",
    [1] = "#DB Debug",
    [2] = "NMI",
    [3] = "#BP Breakpoint",
    [4] = "#OF Overflow",
    [5] = "#BR Bound Range Exceeded",
    [6] = "#UD Invalid Opcode",
    [7] = "#NM Device Not Available",
    [8] = "#DF Double Fault",
    [9] = "Coprocessor Segment Overrun",
    [10] = "#TS Invalid TSS",
    [11] = "#NP Segment Not Present",
    [12] = "#SS Stack-Segment Fault",
    [13] = "#GP General Protection",
    [14] = "#PF Page Fault",
    [16] = "#MF x87 Floating-Point",
    [17] = "#AC Alignment Check",
    [18] = "#MC Machine Check",
    [19] = "#XM SIMD Floating-Point",
    [20] = "#VE Virtualization",
    [21] = "#CP Control Protection",
};

static const char *x86_vector_name(unsigned vector)
{
    if (vector < 32)
        return vector_names[vector] ? vector_names[vector] : "Reserved";
    return "Interrupt";
}

static void set_gate(unsigned vector, uint64_t handler, unsigned ist)
{
    struct idt_gate *g = &idt[vector];
    g->offset_low = handler & 0xffff;
    g->selector = X86_KERNEL_CS;
    g->ist = ist;
    g->type_attr = 0x8e; /* present, DPL 0, 64-bit interrupt gate: IF cleared on entry */
    g->offset_mid = (handler >> 16) & 0xffff;
    g->offset_high = handler >> 32;
    g->reserved = 0;
}

void x86_idt_init(void)
{
    static bool built;
    if (!built) {
        for (unsigned v = 0; v < 256; v++)
            set_gate(v, isr_stub_table[v], 0);
        set_gate(X86_VEC_DF, isr_stub_table[X86_VEC_DF], X86_IST_DOUBLE_FAULT);
        set_gate(X86_VEC_NMI, isr_stub_table[X86_VEC_NMI], X86_IST_NMI);
        set_gate(X86_VEC_MC, isr_stub_table[X86_VEC_MC], X86_IST_MACHINE_CHECK);
        /* int3 runs on its own stack, so emulating a call can push onto the interrupted
         * stack without the exception frame being in the way. */
        set_gate(X86_VEC_BP, isr_stub_table[X86_VEC_BP], X86_IST_BREAKPOINT);
        built = true;
    }
    struct {
        uint16_t limit;
        uint64_t base;
    } __packed ptr = {sizeof(idt) - 1, (uint64_t)idt};
    __asm__ __volatile__("lidt %0" ::"m"(ptr));
}

void x86_set_trap_hook(unsigned vector, x86_trap_hook_fn fn)
{
    ASSERT(vector < 32);
    trap_hooks[vector] = fn;
}

void x86_set_irq_handler(unsigned vector, x86_irq_handler_fn fn, void *arg)
{
    ASSERT(vector >= 32 && vector < 256);
    irq_handlers[vector].arg = arg;
    WRITE_ONCE(irq_handlers[vector].fn, fn);
}

static void x86_dump_regs(const struct pt_regs *r)
{
    char sym[128];
    sym_format(sym, sizeof(sym), r->rip);
    kprintf("RIP: %04lx:%s [%016lx]\n", (unsigned long)r->cs, sym, (unsigned long)r->rip);
    kprintf("RSP: %04lx:%016lx EFLAGS: %08lx\n", (unsigned long)r->ss, (unsigned long)r->rsp,
            (unsigned long)r->rflags);
    kprintf("RAX: %016lx RBX: %016lx RCX: %016lx\n", (unsigned long)r->rax, (unsigned long)r->rbx,
            (unsigned long)r->rcx);
    kprintf("RDX: %016lx RSI: %016lx RDI: %016lx\n", (unsigned long)r->rdx, (unsigned long)r->rsi,
            (unsigned long)r->rdi);
    kprintf("RBP: %016lx R08: %016lx R09: %016lx\n", (unsigned long)r->rbp, (unsigned long)r->r8,
            (unsigned long)r->r9);
    kprintf("R10: %016lx R11: %016lx R12: %016lx\n", (unsigned long)r->r10, (unsigned long)r->r11,
            (unsigned long)r->r12);
    kprintf("R13: %016lx R14: %016lx R15: %016lx\n", (unsigned long)r->r13, (unsigned long)r->r14,
            (unsigned long)r->r15);
    kprintf("CR2: %016lx CR3: %016lx CR0: %016lx\n", (unsigned long)read_cr2(),
            (unsigned long)read_cr3(), (unsigned long)read_cr0());
}

static void __noreturn fatal_exception(struct pt_regs *regs)
{
    unsigned v = regs->vector;
    panic_begin();
    kprintf("EXCEPTION: %s (vector %u), error code 0x%lx on CPU %u\n", x86_vector_name(v), v,
            (unsigned long)regs->error_code, this_cpu_id());
    if (v == X86_VEC_PF) {
        uint64_t cr2 = read_cr2();
        kprintf("page fault at address %016lx: %s %s in kernel mode%s\n", (unsigned long)cr2,
                regs->error_code & 1 ? "protection violation on" : "not-present page on",
                regs->error_code & 2 ? "write"
                                     : (regs->error_code & 16 ? "instruction fetch" : "read"),
                stack_guard_hit(cr2) ? " (kernel stack overflow: guard page)" : "");
    }
    if (v == X86_VEC_DF && stack_guard_hit(regs->rsp - 8))
        kprintf("kernel stack overflow: the stack pointer is in a guard page\n");
    x86_dump_regs(regs);
    panic_backtrace_from(regs->rbp, regs->rip);
    panic_end("Fatal exception");
}

/* The device behind a legacy line, as Linux names its irq action (irq_handler_entry). */
static const char *irq_device_name(unsigned irq) { return irq == 4 ? "ttyS0" : "unknown"; }

/* Linux's events for a vector: irq_vectors:* for the local APIC's, irq:* for devices. */
static __always_inline void trace_vector_entry(unsigned v)
{
    switch (v) {
    case APIC_VEC_TIMER:
        trace_local_timer_entry((int)v);
        break;
    case APIC_VEC_RESCHEDULE:
        trace_reschedule_entry((int)v);
        break;
    case APIC_VEC_CALL_FUNCTION:
    case APIC_VEC_SYNC:
        trace_call_function_entry((int)v);
        break;
    default:
        if (v >= X86_IRQ_BASE && v < X86_IRQ_BASE + 16)
            trace_irq_handler_entry((int)(v - X86_IRQ_BASE), irq_device_name(v - X86_IRQ_BASE));
    }
}

static __always_inline void trace_vector_exit(unsigned v, bool handled)
{
    switch (v) {
    case APIC_VEC_TIMER:
        trace_local_timer_exit((int)v);
        break;
    case APIC_VEC_RESCHEDULE:
        trace_reschedule_exit((int)v);
        break;
    case APIC_VEC_CALL_FUNCTION:
    case APIC_VEC_SYNC:
        trace_call_function_exit((int)v);
        break;
    default:
        if (v >= X86_IRQ_BASE && v < X86_IRQ_BASE + 16)
            trace_irq_handler_exit((int)(v - X86_IRQ_BASE), handled);
    }
}

/* The osnoise tracers' view of an interrupt that ends: Linux's names for it. */
static __noinline void osnoise_irq_exit(unsigned v)
{
    switch (v) {
    case APIC_VEC_TIMER:
        trace_osnoise_irq_exit("local_timer", (int)v);
        break;
    case APIC_VEC_RESCHEDULE:
        trace_osnoise_irq_exit("reschedule", (int)v);
        break;
    case APIC_VEC_CALL_FUNCTION:
    case APIC_VEC_SYNC:
        trace_osnoise_irq_exit("call_function", (int)v);
        break;
    case X86_VEC_SPURIOUS:
        trace_osnoise_irq_exit("spurious_apic", (int)v);
        break;
    default:
        if (v >= X86_IRQ_BASE && v < X86_IRQ_BASE + 16)
            trace_osnoise_irq_exit(irq_device_name(v - X86_IRQ_BASE), (int)(v - X86_IRQ_BASE));
        else
            trace_osnoise_irq_exit("unknown", (int)v);
    }
}

void x86_trap_dispatch(struct pt_regs *regs)
{
    struct percpu *cpu = this_cpu();
    unsigned v = regs->vector;

    cpu->interrupts++;
    cpu->vector_counts[v]++;
    if (v < 32) {
        x86_trap_hook_fn hook = trap_hooks[v];
        bool nmi = v == X86_VEC_NMI;
        unsigned context = cpu->context_bit;
        cpu->nmi_depth += nmi;
        if (nmi) {
            cpu->context_bit = PERCPU_CONTEXT_NMI;
            if (unlikely(trace_osnoise_hooks_on))
                trace_osnoise_nmi_entry();
        }
        bool handled = hook && hook(regs);
        if (nmi && unlikely(trace_osnoise_hooks_on))
            trace_osnoise_nmi_exit();
        cpu->context_bit = context;
        cpu->nmi_depth -= nmi;
        if (handled)
            return;
        /* A nofault read (a kprobe's fetch of a bad pointer) gives -EFAULT instead. */
        if ((v == X86_VEC_PF || v == X86_VEC_GP) && arch_nofault_fixup((uintptr_t *)&regs->rip))
            return;
        fatal_exception(regs);
    }

    /* Maskable interrupts never nest into an NMI: this is hardirq context. An interrupt
     * of code that had interrupts on is an interrupts-off section of its own (the latency
     * hooks, <kernel/ftrace.h>), which ends when the interrupted code gets them back. */
    bool irqs_were_on = arch_regs_irqs_enabled(regs);
    if (unlikely(trace_irq_hooks_on) && irqs_were_on)
        trace_hardirqs_off_caller(FTRACE_THIS_IP, arch_regs_ip(regs));
    unsigned context = cpu->context_bit;
    cpu->irq_depth++;
    cpu->context_bit = PERCPU_CONTEXT_HARDIRQ;
    if (unlikely(trace_osnoise_hooks_on))
        trace_osnoise_irq_entry();
    x86_irq_handler_fn fn = READ_ONCE(irq_handlers[v].fn);
    trace_vector_entry(v);
    if (fn)
        fn(regs, irq_handlers[v].arg);
    trace_vector_exit(v, fn != NULL);
    if (v != X86_VEC_SPURIOUS && x86_irq_eoi)
        x86_irq_eoi(v);
    if (unlikely(trace_osnoise_hooks_on))
        osnoise_irq_exit(v);
    cpu->context_bit = context;
    cpu->irq_depth--;
    trap_irq_exit(regs);
    if (unlikely(trace_irq_hooks_on) && irqs_were_on)
        trace_hardirqs_on_caller(FTRACE_THIS_IP, arch_regs_ip(regs));
}

const char *arch_vector_label(unsigned vector)
{
    switch (vector) {
    case X86_IRQ_BASE + 4:
        return "IO-APIC  4-edge      ttyS0";
    case APIC_VEC_TIMER:
        return "LAPIC    timer";
    case APIC_VEC_RESCHEDULE:
        return "IPI      reschedule";
    case APIC_VEC_CALL_FUNCTION:
        return "IPI      function call";
    case APIC_VEC_SYNC:
        return "IPI      sync core";
    case APIC_VEC_SPURIOUS:
        return "LAPIC    spurious";
    default:
        return vector < 32 ? x86_vector_name(vector) : NULL;
    }
}
