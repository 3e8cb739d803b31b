#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <kernel/compiler.h>

/* The serial console: COM1, 115200 8N1. Output translates '\n' to "\r\n". */
void console_init(void);
void console_write(const char *buf, size_t len);
/* Starts interrupt-driven receive on the given vector. */
void console_enable_rx_irq(unsigned vector);

/* Receive side, fed by the UART interrupt. Blocks (halting) until a byte arrives. */
int console_getc(void);
/* Returns a byte or -1 when nothing is waiting. */
int console_trygetc(void);

/*
 * Ctrl-C (0x03) seen by the receive interrupt. Running commands poll it to stop; the shell
 * clears it before each command. The 0x03 byte is also delivered through console_getc.
 */
bool console_interrupted(void);
struct thread;
/* The thread a Ctrl-C should wake from an interruptible sleep. */
void console_set_foreground(struct thread *t);
void console_clear_interrupt(void);

#endif
