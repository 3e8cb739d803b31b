/*
 * What every probe event shares (kprobes, fprobes, event probes): the event made from a
 * parsed line, the record written when it fires, and its end.
 */
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <lib/string.h>

#include "events/event_write.h"
#include "trace_hot.h"
#include "trace_internal.h"
#include "trace_probe.h"

/* The largest head (a return's: common fields, function, return address) and arguments. */
_Static_assert(24 + PROBE_MAX_ARGS_SIZE <= RB_MAX_PAYLOAD,
               "the fixed part of every probe record fits the ring buffer");

/* Group names live as long as the kernel: the events/GROUP files keep pointing at them. */
#define GROUPS_MAX 64
static const char *groups[GROUPS_MAX];

const char *probe_intern_group(const char *name)
{
    for (unsigned i = 0; i < GROUPS_MAX && groups[i]; i++)
        if (strcmp(groups[i], name) == 0)
            return groups[i];
    for (unsigned i = 0; i < GROUPS_MAX; i++)
        if (!groups[i])
            return groups[i] = kstrdup(name);
    return NULL;
}

int probe_event_init(struct probe_event *pe, struct probe_cmd *cmd, enum probe_head head,
                     trace_event_print_call_fn print, trace_event_reg_fn reg)
{
    const char *group = probe_intern_group(cmd->group);
    if (!group)
        return -ENOMEM;
    pe->group = group;
    strcpy(pe->name, cmd->event);
    pe->args = cmd->args;
    pe->nargs = cmd->nargs;
    cmd->args = NULL;
    cmd->nargs = 0;
    pe->fixed_size = head == PROBE_HEAD_RETURN ? 24 : head == PROBE_HEAD_IP ? 16 : 8;
    pe->has_strings = false;
    for (unsigned i = 0; i < pe->nargs; i++) {
        pe->fixed_size += probe_arg_size(&pe->args[i]);
        pe->has_strings |= probe_type_is_string(pe->args[i].type);
    }
    /* An event probe's arguments are its event's fields, never the frame's. */
    pe->quick = head == PROBE_HEAD_NONE ? NULL : probe_quick_compile(pe->args, pe->nargs);
    pe->fields = probe_make_fields(pe->args, pe->nargs, head, &pe->nfields);
    pe->print_fmt = probe_make_print_fmt(pe->args, pe->nargs, head);
    int err = 0;
    if (!pe->fields || !pe->print_fmt)
        err = -ENOMEM;
    if (!err) {
        pe->state.enabled = &pe->enabled;
        pe->call.system = pe->group;
        pe->call.name = pe->name;
        pe->call.fields = pe->fields;
        pe->call.nfields = pe->nfields;
        pe->call.print_fmt = pe->print_fmt;
        pe->call.print_call = print;
        pe->call.reg = reg;
        pe->call.state = &pe->state;
        pe->call.flags = TRACE_EVENT_FL_PROBE;
        err = trace_event_add(&pe->call);
    }
    if (err)
        probe_event_release(pe);
    return err;
}

void probe_event_release(struct probe_event *pe)
{
    probe_args_free(pe->args, pe->nargs);
    probe_free_fields(pe->fields, pe->nfields);
    kfree(pe->print_fmt);
    kfree(pe->quick);
    pe->quick = NULL;
    pe->args = NULL;
    pe->nargs = 0;
    pe->fields = NULL;
    pe->print_fmt = NULL;
}

__trace_hot_probe void probe_event_write(struct probe_event *pe, const struct probe_ctx *ctx,
                                         const unsigned long *head, unsigned nhead,
                                         bool less_preempt)
{
    /*
     * Strings are measured first; an event without any has a size known in advance. A
     * record larger than the ring buffer takes is refused there and dropped whole, not cut,
     * as Linux drops it (the hit still counts in kprobe_profile).
     */
    size_t dyn = pe->has_strings ? probe_dynamic_size(pe->args, pe->nargs, ctx) : 0;
    size_t size = pe->fixed_size + dyn;
    struct rb_reservation res;
    struct percpu *cpu = this_cpu();
    uint8_t *rec = trace_event_reserve_on(cpu, &pe->call, size, -1, &res);
    if (!rec)
        return;
    struct trace_event_common *c = (struct trace_event_common *)rec;
    if (less_preempt && c->preempt_count)
        c->preempt_count--;
    /* The head's words (the probed address, a return's too): whole-word stores. */
    for (unsigned i = 0; i < nhead; i++)
        __builtin_memcpy(rec + 8 + 8 * (size_t)i, &head[i], 8);
    if (likely(pe->quick))
        probe_store_quick(pe->quick, pe->nargs, ctx, rec);
    else
        probe_store_args(pe->args, pe->nargs, ctx, rec, pe->fixed_size, dyn);
    trace_event_commit_on(cpu, &pe->call, rec, size, &res);
}
