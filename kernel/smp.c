#include <kernel/percpu.h>
#include <kernel/smp.h>

void smp_stop_other_cpus(void)
{
    if (cpus_online <= 1)
        return;
}
