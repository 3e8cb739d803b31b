/*
 * The nop and function tracers. The function tracer is an ftrace op on the global filter
 * (set_ftrace_filter / set_ftrace_notrace): every traced call it sees becomes one
 * 16-byte event, plus a <stack trace> event with func_stack_trace.
 */
#include <kernel/ftrace.h>

#include "ftrace_callback.h"
#include "ring_buffer_write.h"
#include "trace_internal.h"

TRACER(nop, .name = "nop", .allow_instances = true);

/* A function event: ip called from parent_ip, written with the inline ring buffer writer. */
static __always_inline void trace_function_on(struct percpu *cpu, unsigned long ip,
                                              unsigned long parent_ip, unsigned context_bit)
{
    struct rb_reservation res;
    struct trace_fn_event *ev = rb_reserve_on(cpu->trace_buffer, sizeof(*ev), &res);
    if (!ev)
        return;
    /* The callback guard disabled preemption for us: one level not to show. */
    ev->ctx = trace_ctx_in_context(cpu, TRACE_FN, 1, context_bit);
    ev->ip = trace_text_pack(ip);
    ev->parent_ip = trace_addr_pack(parent_ip);
    rb_commit_inline(&res);
}

/* What both ways in run: ip was called from parent_ip, whose return slot is parent_slot. */
static __always_inline void function_trace_body(struct percpu *cpu, unsigned long ip,
                                                unsigned long parent_ip, unsigned long *parent_slot,
                                                unsigned context_bit)
{
    if (!trace_should_record_on(cpu))
        return;
    /* Tested first, so that the common case keeps no parent_slot around. */
    if (unlikely(trace_opt(TRACE_OPT_FUNC_STACK_TRACE))) {
        trace_function_on(cpu, ip, parent_ip, context_bit);
        /* parent_slot is just above the frame pointer the trampoline saved, the caller's. */
        trace_stack_from(ip, parent_slot, 1);
        return;
    }
    trace_function_on(cpu, ip, parent_ip, context_bit);
}

/* From the list dispatcher, when other ops want the same function. */
static void function_trace_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                                struct ftrace_regs *fregs)
{
    unsigned long *parent_slot = (unsigned long *)ftrace_regs_get_stack_pointer(fregs);
    struct percpu *cpu = this_cpu();
    function_trace_body(cpu, ip, parent_ip, parent_slot, ftrace_context_bit(cpu));
}

/* The op's handler, which its own trampoline calls: the guard and the event in one frame. */
FTRACE_OP_HANDLER_TEXT static void function_trace_handler(unsigned long ret_ip,
                                                          unsigned long *parent_slot)
{
    struct ftrace_guard gd;
    if (unlikely(!ftrace_guard_enter(&gd, ret_ip))) {
        ftrace_callback_recursed(ftrace_global_ops, gd.ip, *parent_slot);
        return;
    }
    function_trace_body(gd.cpu, gd.ip, *parent_slot, parent_slot, gd.bit);
    ftrace_guard_exit(&gd);
}

static int function_tracer_init(void)
{
    ftrace_global_ops->func = function_trace_call;
    ftrace_global_ops->handler = function_trace_handler;
    return register_ftrace_function(ftrace_global_ops);
}

static void function_tracer_reset(void)
{
    unregister_ftrace_function(ftrace_global_ops);
    ftrace_global_ops->handler = NULL;
}

/*
 * In an instance: the instance's own op (trace_instances.c keeps it, with the function set
 * of its set_ftrace_filter and set_ftrace_notrace), writing to the instance's buffer. Out
 * of line and through the list dispatcher: the top level's path stays as it is.
 */
static void function_instance_call(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                                   struct ftrace_regs *fregs)
{
    struct trace_array *tr = op->private;
    struct percpu *cpu = this_cpu();
    /* Its CPU mask and pid lists, as the top level's in trace_should_record_on. */
    if (READ_ONCE(tr->record_filters) && !trace_array_record_filtered(tr, cpu))
        return;
    struct rb_reservation res;
    struct trace_fn_event *ev = rb_reserve(tr->buffer, sizeof(*ev), &res);
    if (!ev)
        return;
    /* The dispatcher's guard disabled preemption for us: one level not to show. */
    ev->ctx = trace_ctx_on(cpu, TRACE_FN, 1);
    ev->ip = trace_text_pack(ip);
    ev->parent_ip = trace_addr_pack(parent_ip);
    rb_commit(tr->buffer, &res);
    if (unlikely((READ_ONCE(tr->options) >> TRACE_OPT_FUNC_STACK_TRACE) & 1))
        trace_array_stack_from(tr, ip, (unsigned long *)ftrace_regs_get_stack_pointer(fregs), 1);
}

static int function_instance_init(struct trace_array *tr)
{
    tr->function_ops->func = function_instance_call;
    tr->function_ops->private = tr;
    return register_ftrace_function(tr->function_ops);
}

/* Once unregistered, no CPU is inside the op's callback. */
static void function_instance_reset(struct trace_array *tr)
{
    unregister_ftrace_function(tr->function_ops);
}

TRACER(function, .name = "function", .init = function_tracer_init, .reset = function_tracer_reset,
       .allow_instances = true, .instance_init = function_instance_init,
       .instance_reset = function_instance_reset);
