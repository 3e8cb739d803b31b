#include <kernel/percpu.h>

struct percpu percpu_area[MAX_CPUS];
unsigned cpus_online = 1;

void percpu_init_cpu(unsigned cpu, uint32_t hw_id)
{
    struct percpu *p = &percpu_area[cpu];
    p->self = p;
    p->cpu = cpu;
    p->hw_id = hw_id;
    p->context_bit = PERCPU_CONTEXT_THREAD;
    arch_percpu_set_base(p);
}
