#include <arch/debugcon.h>

#include "x86_cpu.h"

#define DEBUGCON_PORT 0xe9

/* The device answers a read of its port with the port number; an unclaimed port reads 0xff. */
bool arch_debugcon_present(void) { return inb(DEBUGCON_PORT) == DEBUGCON_PORT; }

void arch_debugcon_write(const void *buf, size_t len)
{
    __asm__ __volatile__("rep outsb"
                         : "+S"(buf), "+c"(len)
                         : "d"((uint16_t)DEBUGCON_PORT)
                         : "memory");
}
