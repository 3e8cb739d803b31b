/*
 * COM1 as the console: polled output (works from the first instruction and inside panic),
 * interrupt-driven input into a small ring that the shell reads. Not traced: panic
 * reports and ftrace dumps go through here.
 */
#include <arch/cpu.h>
#include <arch/x86.h>
#include <kernel/console.h>
#include <kernel/panic.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <kernel/wait.h>

#include "x86_cpu.h"

#define COM1 0x3f8
#define UART_DATA 0
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY 0x20
#define COM1_IRQ 4

#define RX_RING_SIZE 1024

static struct {
    char buf[RX_RING_SIZE];
    volatile uint32_t head; /* written by the interrupt */
    volatile uint32_t tail; /* read by the consumer */
} rx;

static volatile bool ctrl_c_seen;
/* The thread that Ctrl-C interrupts (the shell): woken so an interruptible sleep ends. */
static struct thread *foreground;
static DEFINE_SPINLOCK(console_out_lock);
static struct wait_queue rx_waiters = WAIT_QUEUE_INIT(rx_waiters);

void console_init(void)
{
    outb(COM1 + UART_IER, 0x00);
    outb(COM1 + UART_LCR, 0x80); /* divisor latch */
    outb(COM1 + UART_DATA, 1);   /* 115200 baud */
    outb(COM1 + UART_IER, 0x00);
    outb(COM1 + UART_LCR, 0x03); /* 8N1 */
    outb(COM1 + UART_FCR, 0xc7); /* FIFO on, cleared, 14-byte threshold */
    outb(COM1 + UART_MCR, 0x0b); /* DTR, RTS, OUT2 (OUT2 gates the IRQ line) */
}

static void serial_put_raw(char c)
{
    while (!(inb(COM1 + UART_LSR) & LSR_THR_EMPTY))
        arch_cpu_relax();
    outb(COM1 + UART_DATA, (uint8_t)c);
}

void console_write(const char *buf, size_t len)
{
    /* During a panic the other CPUs are stopped, possibly holding the lock. */
    bool locked = !panic_in_progress;
    unsigned long flags = 0;
    if (locked)
        flags = spin_lock_irqsave(&console_out_lock);
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '\n')
            serial_put_raw('\r');
        serial_put_raw(buf[i]);
    }
    if (locked)
        spin_unlock_irqrestore(&console_out_lock, flags);
}

static void serial_rx_irq(struct pt_regs *regs, void *arg)
{
    bool got = false;
    while (inb(COM1 + UART_LSR) & LSR_DATA_READY) {
        char c = (char)inb(COM1 + UART_DATA);
        if (c == 0x03)
            ctrl_c_seen = true;
        uint32_t head = rx.head;
        if (head - rx.tail < RX_RING_SIZE) {
            rx.buf[head % RX_RING_SIZE] = c;
            WRITE_ONCE(rx.head, head + 1);
        }
        got = true;
    }
    if (got)
        wait_queue_wake_all(&rx_waiters);
    struct thread *fg = READ_ONCE(foreground);
    if (ctrl_c_seen && fg)
        thread_wake(fg);
}

void console_enable_rx_irq(unsigned vector)
{
    x86_set_irq_handler(vector, serial_rx_irq, NULL);
    outb(COM1 + UART_IER, 0x01); /* received-data interrupt */
}

int console_trygetc(void)
{
    unsigned long flags = arch_irq_save();
    int c = -1;
    if (rx.tail != rx.head) {
        c = (unsigned char)rx.buf[rx.tail % RX_RING_SIZE];
        rx.tail++;
    }
    arch_irq_restore(flags);
    return c;
}

static bool rx_pending(void *arg) { return READ_ONCE(rx.head) != READ_ONCE(rx.tail); }

int console_getc(void)
{
    for (;;) {
        int c = console_trygetc();
        if (c >= 0)
            return c;
        wait_event(&rx_waiters, rx_pending, NULL);
    }
}

void console_set_foreground(struct thread *t) { WRITE_ONCE(foreground, t); }

bool console_interrupted(void) { return ctrl_c_seen; }
void console_clear_interrupt(void) { ctrl_c_seen = false; }
