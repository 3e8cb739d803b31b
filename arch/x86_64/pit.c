/*
 * The PIT as the periodic tick (channel 0, IRQ 0): wakes halted CPUs so timeouts are
 * noticed and counts ticks.
 */
#include <arch/cpu.h>
#include <arch/x86.h>
#include <kernel/percpu.h>

#define PIT_HZ 1193182u
#define PIT_CH0_DATA 0x40
#define PIT_CMD 0x43

static void pit_tick(struct pt_regs *regs, void *arg) { this_cpu()->ticks++; }

void x86_pit_start_periodic(unsigned hz)
{
    uint32_t divisor = PIT_HZ / hz;
    outb(PIT_CMD, 0x34); /* channel 0, lo/hi byte, mode 2 (rate generator) */
    outb(PIT_CH0_DATA, divisor & 0xff);
    outb(PIT_CH0_DATA, divisor >> 8);
    x86_set_irq_handler(X86_IRQ_BASE + 0, pit_tick, NULL);
    x86_pic_unmask(0);
}
