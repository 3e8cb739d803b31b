/*
 * Local APIC (xAPIC through MMIO, or x2APIC through MSRs when the CPU has it) and the I/O
 * APIC. The local APIC gives every CPU its timer tick and its IPIs; the I/O APIC brings
 * the serial port's interrupt to the bootstrap CPU.
 */
#include <arch/acpi.h>
#include <arch/apic.h>
#include <arch/cpu.h>
#include <arch/setup.h>
#include <arch/x86.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/thread.h>
#include <kernel/time.h>

#include "x86_cpu.h"

#define LAPIC_ID 0x020
#define LAPIC_EOI 0x0b0
#define LAPIC_SVR 0x0f0
#define LAPIC_ICR_LOW 0x300
#define LAPIC_ICR_HIGH 0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_LVT_LINT0 0x350
#define LAPIC_LVT_LINT1 0x360
#define LAPIC_LVT_ERROR 0x370
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CURRENT 0x390
#define LAPIC_TIMER_DIVIDE 0x3e0

#define ICR_DELIVERY_PENDING (1u << 12)
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_DEST_OTHERS (3u << 18)
#define ICR_MODE_NMI (4u << 8)
#define ICR_MODE_INIT (5u << 8)
#define ICR_MODE_STARTUP (6u << 8)
#define LVT_MASKED (1u << 16)
#define LVT_TIMER_PERIODIC (1u << 17)

#define APIC_BASE_X2APIC (1ULL << 10)
#define APIC_BASE_ENABLE (1ULL << 11)

static volatile uint32_t *lapic_mmio;
static bool x2apic;
static uint32_t timer_ticks_per_sec;
static unsigned tick_hz;

/*
 * A deadline besides the tick (arch_timer_oneshot): while one is armed the handler keeps
 * the tick's pace itself, and each interrupt programs the count to whichever comes first,
 * the next tick or the deadline; after a tick with no deadline left the count goes back to
 * the tick's period. The timer stays in periodic mode throughout: an interrupt that got
 * lost (an emulator can lose one) is followed by another one period later, where a
 * one-shot count would leave the CPU without a tick for good.
 */
struct lapic_timer_state {
    bool pacing;          /* a deadline is or was armed: the handler paces the tick */
    uint64_t deadline_ns; /* 0: none */
    uint64_t next_tick_ns;
};
static struct lapic_timer_state lapic_timer_state[MAX_CPUS];

/* A tick that comes this early is taken as on time (the two clocks round apart). */
#define LAPIC_TICK_SLACK_NS 20000ULL
/*
 * The shortest period ever programmed: a periodic count of a few nanoseconds would have an
 * emulator do nothing but fire it. A deadline closer than this is waited for in the
 * handler, so it still fires on time.
 */
#define LAPIC_MIN_PERIOD_NS 20000ULL

static inline uint32_t lapic_read(uint32_t reg)
{
    if (x2apic)
        return (uint32_t)rdmsr(0x800 + (reg >> 4));
    return lapic_mmio[reg / 4];
}

static inline void lapic_write(uint32_t reg, uint32_t v)
{
    if (x2apic)
        wrmsr(0x800 + (reg >> 4), v);
    else
        lapic_mmio[reg / 4] = v;
}

static void lapic_eoi(unsigned vector) { lapic_write(LAPIC_EOI, 0); }

uint32_t lapic_id(void)
{
    uint32_t id = lapic_read(LAPIC_ID);
    return x2apic ? id : id >> 24;
}

static void lapic_enable_this_cpu(void)
{
    uint64_t base = rdmsr(MSR_APIC_BASE) | APIC_BASE_ENABLE;
    if (x2apic)
        base |= APIC_BASE_X2APIC;
    wrmsr(MSR_APIC_BASE, base);
    lapic_write(LAPIC_SVR, 0x100 | APIC_VEC_SPURIOUS);
    lapic_write(LAPIC_LVT_LINT0, LVT_MASKED);
    lapic_write(LAPIC_LVT_LINT1, (4u << 8)); /* NMI on LINT1, as on PCs */
    lapic_write(LAPIC_LVT_ERROR, LVT_MASKED);
    lapic_write(LAPIC_EOI, 0);
}

void lapic_init_bsp(void)
{
    uint32_t a, b, c, d;
    cpuid(1, 0, &a, &b, &c, &d);
    x2apic = c & (1u << 21);
    if (!x2apic)
        lapic_mmio = arch_map_mmio(acpi_machine.lapic_phys, PAGE_SIZE);
    lapic_enable_this_cpu();
    x86_irq_eoi = lapic_eoi;
    printk("apic: local APIC in %s mode, BSP APIC id %u\n", x2apic ? "x2APIC" : "xAPIC",
           lapic_id());
}

void lapic_init_ap(void) { lapic_enable_this_cpu(); }

static void icr_wait_idle(void)
{
    if (x2apic)
        return; /* x2APIC ICR writes are not posted */
    while (lapic_read(LAPIC_ICR_LOW) & ICR_DELIVERY_PENDING)
        arch_cpu_relax();
}

static void icr_send(uint32_t apic_id, uint32_t low)
{
    unsigned long flags = arch_irq_save();
    if (x2apic) {
        wrmsr(0x830, ((uint64_t)apic_id << 32) | low);
    } else {
        icr_wait_idle();
        lapic_write(LAPIC_ICR_HIGH, apic_id << 24);
        lapic_write(LAPIC_ICR_LOW, low);
        icr_wait_idle();
    }
    arch_irq_restore(flags);
}

void lapic_send_ipi(uint32_t apic_id, uint8_t vector) { icr_send(apic_id, vector); }
void lapic_send_ipi_others(uint8_t vector) { icr_send(0, ICR_DEST_OTHERS | vector); }
void lapic_send_nmi_others(void) { icr_send(0, ICR_DEST_OTHERS | ICR_MODE_NMI); }

void lapic_send_init(uint32_t apic_id) { icr_send(apic_id, ICR_MODE_INIT | ICR_LEVEL_ASSERT); }

void lapic_send_startup(uint32_t apic_id, uint8_t page)
{
    icr_send(apic_id, ICR_MODE_STARTUP | page);
}

static void lapic_timer_irq(struct pt_regs *regs, void *arg);

void lapic_timer_start(unsigned hz)
{
    lapic_write(LAPIC_TIMER_DIVIDE, 0x3); /* divide by 16 */
    if (!timer_ticks_per_sec) {
        /* Count the APIC timer down for 10 ms of TSC time. */
        lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
        lapic_write(LAPIC_TIMER_INIT, 0xffffffff);
        uint64_t start = clock_ns();
        while (clock_ns() - start < 10 * NSEC_PER_MSEC)
            arch_cpu_relax();
        uint32_t elapsed = 0xffffffff - lapic_read(LAPIC_TIMER_CURRENT);
        lapic_write(LAPIC_TIMER_INIT, 0);
        timer_ticks_per_sec = elapsed * 100;
        printk("apic: timer %u.%03u MHz (divided by 16), tick %u Hz\n",
               timer_ticks_per_sec / 1000000, timer_ticks_per_sec / 1000 % 1000, hz);
        x86_set_irq_handler(APIC_VEC_TIMER, lapic_timer_irq, NULL);
    }
    tick_hz = hz;
    lapic_write(LAPIC_LVT_TIMER, LVT_TIMER_PERIODIC | APIC_VEC_TIMER);
    lapic_write(LAPIC_TIMER_INIT, timer_ticks_per_sec / hz);
}

static uint32_t lapic_count_for(uint64_t ns)
{
    /* ns is at most a tick period here, so the product cannot overflow. */
    if (ns < LAPIC_MIN_PERIOD_NS)
        ns = LAPIC_MIN_PERIOD_NS;
    uint64_t count = ns * timer_ticks_per_sec / NSEC_PER_SEC;
    return count == 0 ? 1 : count > 0xffffffffULL ? 0xffffffffu : (uint32_t)count;
}

static void lapic_timer_program(struct lapic_timer_state *st, uint64_t now)
{
    uint64_t next = st->next_tick_ns;
    if (st->deadline_ns && st->deadline_ns < next)
        next = st->deadline_ns;
    lapic_write(LAPIC_TIMER_INIT, lapic_count_for(next > now ? next - now : 0));
}

void arch_timer_oneshot(uint64_t deadline_ns)
{
    struct lapic_timer_state *st = &lapic_timer_state[this_cpu_id()];
    uint64_t now = clock_ns();
    if (!st->pacing) {
        if (!deadline_ns)
            return;
        /* The tick keeps its phase: the next one comes when the current count ends. */
        uint64_t left =
            (uint64_t)lapic_read(LAPIC_TIMER_CURRENT) * NSEC_PER_SEC / timer_ticks_per_sec;
        st->next_tick_ns = now + left;
        st->pacing = true;
    }
    st->deadline_ns = deadline_ns;
    lapic_timer_program(st, now);
}

static void lapic_timer_irq(struct pt_regs *regs, void *arg)
{
    struct lapic_timer_state *st = &lapic_timer_state[this_cpu_id()];
    if (!st->pacing) {
        sched_tick();
        return;
    }
    uint64_t now = clock_ns();
    if (st->deadline_ns && st->deadline_ns > now && st->deadline_ns - now < LAPIC_MIN_PERIOD_NS) {
        while (now < st->deadline_ns) {
            arch_cpu_relax();
            now = clock_ns();
        }
    }
    if (st->deadline_ns && now >= st->deadline_ns) {
        st->deadline_ns = 0;
        cpu_timer_expired(); /* may arm the next deadline */
    }
    bool ticked = now + LAPIC_TICK_SLACK_NS >= st->next_tick_ns;
    if (ticked) {
        sched_tick();
        uint64_t period = NSEC_PER_SEC / tick_hz;
        st->next_tick_ns += period;
        /* Ticks lost to a long interrupts-off section are not made up. */
        if (st->next_tick_ns <= now)
            st->next_tick_ns = now + period;
    }
    if (ticked && !st->deadline_ns) {
        st->pacing = false;
        lapic_write(LAPIC_TIMER_INIT, timer_ticks_per_sec / tick_hz);
        return;
    }
    lapic_timer_program(st, clock_ns());
}

/* I/O APIC: a window of two registers (select, data). */
static volatile uint32_t *ioapic_regs[ACPI_MAX_IOAPICS];

static void ioapic_write(unsigned idx, uint32_t reg, uint32_t v)
{
    ioapic_regs[idx][0] = reg;
    ioapic_regs[idx][4] = v;
}

static uint32_t ioapic_read(unsigned idx, uint32_t reg)
{
    ioapic_regs[idx][0] = reg;
    return ioapic_regs[idx][4];
}

void ioapic_init(void)
{
    for (unsigned i = 0; i < acpi_machine.nioapics; i++) {
        ioapic_regs[i] = arch_map_mmio(acpi_machine.ioapics[i].phys, 0x20);
        unsigned entries = ((ioapic_read(i, 1) >> 16) & 0xff) + 1;
        for (unsigned e = 0; e < entries; e++) {
            ioapic_write(i, 0x10 + e * 2, LVT_MASKED);
            ioapic_write(i, 0x11 + e * 2, 0);
        }
    }
}

void ioapic_route_isa_irq(uint8_t irq, uint8_t vector, uint32_t apic_id)
{
    struct acpi_irq_override o = acpi_isa_irq(irq);
    for (unsigned i = 0; i < acpi_machine.nioapics; i++) {
        uint32_t base = acpi_machine.ioapics[i].gsi_base;
        unsigned entries = ((ioapic_read(i, 1) >> 16) & 0xff) + 1;
        if (o.gsi < base || o.gsi >= base + entries)
            continue;
        unsigned pin = o.gsi - base;
        uint32_t low =
            vector | (o.active_low ? (1u << 13) : 0) | (o.level_triggered ? (1u << 15) : 0);
        ioapic_write(i, 0x11 + pin * 2, apic_id << 24);
        ioapic_write(i, 0x10 + pin * 2, low);
        return;
    }
    printk("ioapic: no I/O APIC handles GSI %u (ISA IRQ %u)\n", o.gsi, irq);
}
