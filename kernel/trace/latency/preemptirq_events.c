/*
 * preemptirq: the events irq_disable, irq_enable, preempt_disable and preempt_enable. Their
 * definitions are include/kernel/events/preemptirq.h; enabling any of them turns on the
 * latency hooks it needs (preemptirq.c), and disabling the last turns them off again, so
 * that while all four are off every interrupt and preemption site costs its one test.
 */
#include <kernel/spinlock.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "latency.h"

/* The start of the kernel's text (linker.ld): the records keep offsets from it. */
extern char _stext[];

/* A spinlock: a tracepoint probe's arming (trace_event_tp_probe_attach) reaches the reg with
 * the probe events' spinlock held (kernel/trace/probes/trace_kprobe.c). */
static DEFINE_SPINLOCK(preemptirq_reg_lock);
static unsigned preemptirq_irq_events, preemptirq_preempt_events;

static int preemptirq_event_reg(const struct trace_event_call *call, bool on)
{
    bool irq = strncmp(call->name, "irq_", 4) == 0;
    spin_lock(&preemptirq_reg_lock);
    unsigned *count = irq ? &preemptirq_irq_events : &preemptirq_preempt_events;
    if (on)
        ++*count;
    else if (*count)
        --*count;
    preemptirq_hooks_set(irq, !irq, PREEMPTIRQ_USER_EVENTS, *count != 0);
    spin_unlock(&preemptirq_reg_lock);
    return 0;
}

#define TRACE_EVENT_SYSTEM_REG preemptirq_event_reg
#define TRACE_EVENT_DEFINITIONS <kernel/events/preemptirq.h>
#include "events/event_define.h"

void preemptirq_event_irq(bool on, unsigned long ip, unsigned long parent_ip)
{
    if (on)
        trace_irq_enable(ip, parent_ip);
    else
        trace_irq_disable(ip, parent_ip);
}

void preemptirq_event_preempt(bool on, unsigned long ip, unsigned long parent_ip)
{
    if (on)
        trace_preempt_enable(ip, parent_ip);
    else
        trace_preempt_disable(ip, parent_ip);
}
