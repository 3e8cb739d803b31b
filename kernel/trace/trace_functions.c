/*
 * The nop and function tracers. The function tracer is an ftrace op on the global filter
 * (set_ftrace_filter / set_ftrace_notrace): every traced call it sees becomes one
 * 16-byte event, plus a <stack trace> event with func_stack_trace.
 */
#include <kernel/ftrace.h>

#include "trace_internal.h"

TRACER(nop, .name = "nop");

static void function_trace_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                                struct ftrace_regs *fregs)
{
    unsigned long *parent_slot = (unsigned long *)ftrace_regs_get_stack_pointer(fregs);
    struct percpu *cpu = this_cpu();
    if (!trace_should_record_on(cpu))
        return;
    /* The dispatcher disabled preemption for us: one level not to show. */
    trace_function_on(cpu, ip, parent_ip, 1);
    if (unlikely(trace_opt(TRACE_OPT_FUNC_STACK_TRACE))) {
        /* parent_slot is just above the trampoline's saved rbp, which is the caller's. */
        trace_stack_from(ip, parent_slot, 1);
    }
}

static int function_tracer_init(void)
{
    ftrace_global_ops->func = function_trace_call;
    return register_ftrace_function(ftrace_global_ops);
}

static void function_tracer_reset(void) { unregister_ftrace_function(ftrace_global_ops); }

TRACER(function, .name = "function", .init = function_tracer_init, .reset = function_tracer_reset);
