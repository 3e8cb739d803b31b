/* Per-CPU views: the `cpus` command and /proc/interrupts. */
#include <arch/irq.h>
#include <kernel/init.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/shell.h>
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/string.h>

SHELL_COMMAND(cpus, "cpus", "list CPUs: hardware id, current thread, ticks, interrupts, IPIs")
{
    if (argc != 1)
        return shell_usage(ctx);
    int err = shell_printf(ctx, "CPU HWID CURRENT                TICKS   INTERRUPTS     IPIS\n");
    for (unsigned cpu = 0; cpu < MAX_CPUS && err >= 0; cpu++) {
        struct percpu *p = cpu_data(cpu);
        if (!p->online)
            continue;
        struct thread *cur = READ_ONCE(p->current);
        char who[32];
        /* The name is read without the run queue lock: it may be one switch old. */
        if (cur)
            snprintf(who, sizeof(who), "%s-%d", cur->name, cur->pid);
        else
            strlcpy(who, "-", sizeof(who));
        err = shell_printf(ctx, "%3u %4u %-18s %9llu %12llu %8llu\n", cpu, p->hw_id, who,
                           (unsigned long long)p->ticks, (unsigned long long)p->interrupts,
                           (unsigned long long)p->ipis_received);
    }
    return 0;
}

static int show_interrupts(struct seqbuf *s, void *data)
{
    seq_puts(s, "     ");
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (cpu_data(cpu)->online)
            seq_printf(s, "       CPU%-2u", cpu);
    seq_putc(s, '\n');
    for (unsigned v = 0; v < 256; v++) {
        uint64_t total = 0;
        for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
            total += cpu_data(cpu)->vector_counts[v];
        const char *label = arch_vector_label(v);
        if (!total && (!label || v < 32))
            continue;
        seq_printf(s, "%4u:", v);
        for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
            if (cpu_data(cpu)->online)
                seq_printf(s, " %12u", cpu_data(cpu)->vector_counts[v]);
        seq_printf(s, "   %s\n", label ? label : "unknown");
    }
    return 0;
}

static void interrupts_proc_init(void)
{
    pfs_create_seq(pfs_mkdir("/proc"), "interrupts", 0444, show_interrupts, NULL, NULL);
}
CORE_INITCALL(interrupts_proc_init);
