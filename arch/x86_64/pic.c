/*
 * The legacy 8259 pair. It must be remapped even when unused: its default vectors
 * 0x08..0x0f collide with CPU exceptions, and a spurious IRQ7 would look like a #DF.
 */
#include <arch/cpu.h>
#include <arch/x86.h>

#include "x86_cpu.h"

#define PIC1_CMD 0x20
#define PIC1_DATA 0x21
#define PIC2_CMD 0xa0
#define PIC2_DATA 0xa1

static uint16_t pic_mask = 0xffff;

static void pic_write_mask(void)
{
    outb(PIC1_DATA, pic_mask & 0xff);
    outb(PIC2_DATA, pic_mask >> 8);
}

static void pic_eoi(unsigned vector)
{
    unsigned irq = vector - X86_IRQ_BASE;
    if (irq >= 16)
        return;
    if (irq >= 8)
        outb(PIC2_CMD, 0x20);
    outb(PIC1_CMD, 0x20);
}

void x86_pic_init(void)
{
    outb(PIC1_CMD, 0x11); /* ICW1: init, expect ICW4 */
    outb(PIC2_CMD, 0x11);
    outb(PIC1_DATA, X86_IRQ_BASE);
    outb(PIC2_DATA, X86_IRQ_BASE + 8);
    outb(PIC1_DATA, 4); /* slave on IRQ2 */
    outb(PIC2_DATA, 2);
    outb(PIC1_DATA, 1); /* 8086 mode */
    outb(PIC2_DATA, 1);
    pic_mask = 0xffff & ~(1u << 2);
    pic_write_mask();
    x86_irq_eoi = pic_eoi;
}

void x86_pic_disable(void)
{
    pic_mask = 0xffff;
    pic_write_mask();
}
