/*
 * kprobe events on ftrace call sites. A probe is a place (a function's entry) and an
 * event (events/GROUP/NAME, with the fetch arguments); like Linux, one event may have
 * several places when lines with the same name and arguments name other functions.
 * fprobe events (f lines) are kprobe events that may sit on ftrace sites only; tracepoint
 * probes (t lines, Linux 6.10's) are their kin whose place is a tracepoint: arming one
 * attaches it to the tracepoint (trace_event_tp_probe_attach), which hands it its C
 * arguments when it is hit, as Linux's tracepoint probes get them from their stub.
 *
 * Nothing runs while an event is off. Enabling it arms its places: every armed entry
 * place's site calls one shared SAVE_REGS op, kprobe_ftrace_handler (one trampoline,
 * whatever the number of probes), which looks up the places armed at the site and writes
 * their records. Return places are on a second shared op, kretprobe_ops, which needs no
 * registers at the entry: its own plain trampoline calls its handler straight, and that
 * hooks the call's return through the function graph core (its push inline,
 * fgraph_push_return_in; the int3 path calls fgraph_push_return); the record is written
 * when the function returns, by the return hooks' handler (kretprobe_regs_return, the
 * graph core's return and the probe's in one), with the registers as the function left
 * them (every one, or only those the event's arguments read: struct kprobe_event's
 * partial_regs). Only function entries can be probed: SYM or
 * SYM+0 (an offset inside the call instruction is EILSEQ, as on Linux; a later one EINVAL
 * with its own message).
 *
 * Lookups: the handler finds a site's places in a hash of armed sites (site_index, by
 * address), so a hit costs the same with 10 or 1,000 probes armed elsewhere; a pending
 * return carries its place's slot in the armed table and serial, not a pointer, and finds
 * it there in one load (if the place was disarmed meanwhile the serial differs and the
 * return is dropped).
 *
 * Lifetimes: handlers find places without a lock and count themselves in per CPU;
 * disarming unlinks the place and empties its slot, then waits until every CPU was seen
 * outside a handler, so a place or event is freed only when no handler can hold it.
 */
#include <arch/ftrace.h>
#include <arch/local.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/mm.h>
#include <kernel/panic.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/symbols.h>
#include <kernel/synchronize.h>
#include <lib/ctype.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "fgraph_inline.h"
#include "ftrace_callback.h"
#include "trace_hot.h"
#include "trace_internal.h"
#include "trace_kprobe.h"
#include "trace_probe.h"

struct kprobe_event {
    struct probe_event pe;
    /* 'p': a kprobe (p or r line); 'f': an fprobe, 't': a tracepoint probe (f and t lines,
     * dynamic_events only) */
    char kind;
    bool is_return;
    /* A return event whose arguments read only the registers a partial return hook saves
     * (arch_ftrace_partial_regs_has): its returns skip saving the others. */
    bool partial_regs;
    unsigned places;
};

struct kprobe_place {
    struct kprobe_place *next; /* creation order: kprobe_events lists them so */
    struct kprobe_event *ev;
    char symbol[128];
    unsigned long offset;
    unsigned long addr; /* the call site: the function's first byte */
    unsigned maxactive;
    bool maxactive_given; /* an fprobe's read-back shows it only then, as Linux 6.5's */
    uint64_t serial;
    uint64_t order; /* dynamic_event_order() when made: dynamic_events lists by it */
    int armed_slot; /* -1 when not armed (ftrace places) */
    struct kprobe_place *volatile site_next; /* the next armed place in its site_index chain */
    bool int3; /* placed by int3 (kprobe_int3.c), not on an ftrace site */
    bool int3_armed;
    /* A tracepoint probe's: the event of its tracepoint, and its link there while armed. */
    const struct trace_event_call *tracepoint;
    struct trace_event_tp_probe tp;
    bool tp_armed;
    unsigned long nhit[MAX_CPUS]; /* each CPU counts its own (local_inc: safe in interrupts) */
    volatile uint64_t nmissed;
    /*
     * Return probes: calls hooked and not yet returned, counted by each CPU in its own word
     * (+1 where a call is hooked, -1 where it returns: only the sum means anything), so
     * that neither takes a locked instruction. The sum is read when a call is hooked: at
     * the limit, calls hooked at the same moment on other CPUs may each take one more.
     */
    long nactive[MAX_CPUS];
};

#define KPROBE_ARMED_MAX 4096
static struct kprobe_place *volatile armed[KPROBE_ARMED_MAX];

/*
 * The armed places on ftrace sites by address: chains in arming order, appended and
 * unlinked under kprobe_lock, walked by handlers without it (a place's link is set before
 * the store that makes it reachable).
 */
#define KPROBE_SITE_BUCKETS 1024
static struct kprobe_place *volatile site_index[KPROBE_SITE_BUCKETS];
static unsigned armed_on_sites[2]; /* places in site_index: entry places, return places */

static struct kprobe_place *volatile *site_chain(unsigned long addr)
{
    return &site_index[(addr >> 4 ^ addr >> 14) & (KPROBE_SITE_BUCKETS - 1)];
}

static void site_link(struct kprobe_place *p)
{
    p->site_next = NULL;
    struct kprobe_place *volatile *link = site_chain(p->addr);
    while (*link)
        link = &(*link)->site_next;
    __atomic_store_n(link, p, __ATOMIC_RELEASE);
    armed_on_sites[p->ev->is_return]++;
}

static void site_unlink(struct kprobe_place *p)
{
    for (struct kprobe_place *volatile *link = site_chain(p->addr); *link;
         link = &(*link)->site_next) {
        if (*link == p) {
            /* A handler on p goes on to its successor, still linked from p. */
            WRITE_ONCE(*link, p->site_next);
            armed_on_sites[p->ev->is_return]--;
            return;
        }
    }
}

/* What a pending return carries: its place's slot and the low bits of its serial. */
#define KPROBE_RET_SERIAL_BITS 48
#define KPROBE_RET_SERIAL_MASK ((1ULL << KPROBE_RET_SERIAL_BITS) - 1)
_Static_assert(KPROBE_ARMED_MAX <= 1u << (64 - KPROBE_RET_SERIAL_BITS), "a slot fits the tag");

static unsigned long return_tag(const struct kprobe_place *p)
{
    /* A place being disarmed may read -1: a slot past the table, the return dropped. */
    unsigned slot = (unsigned)READ_ONCE(p->armed_slot) & 0xffffu;
    return (unsigned long)slot << KPROBE_RET_SERIAL_BITS | (p->serial & KPROBE_RET_SERIAL_MASK);
}
/* Handlers are a read side of the armed table: a disarmed place is freed only after them. */
static struct sync_readers kprobe_handlers = SYNC_READERS_INIT;

static struct kprobe_place *places;
static uint64_t next_serial = 1;
/* Serialises changes of probes; handlers never take it. */
static DEFINE_SPINLOCK(kprobe_lock);

static void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                                  struct ftrace_regs *fregs);
static struct ftrace_ops kprobe_ops = {
    .func = kprobe_ftrace_handler,
    .flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_CALLED_LAST,
    .tramp_slot = -1,
};
/* Return places. Called last at a site several ops want: its hook goes on the call after
 * function_graph's, so it runs first at the return, with the registers untouched. */
static void kretprobe_ftrace_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                                  struct ftrace_regs *fregs);
static void kretprobe_op_handler(unsigned long ret_ip, unsigned long *parent_slot);
static struct ftrace_ops kretprobe_ops = {
    .func = kretprobe_ftrace_func,
    .handler = kretprobe_op_handler,
    .flags = FTRACE_OPS_FL_CALLED_LAST,
    .tramp_slot = -1,
};

/* The op a place on an ftrace site is armed on. */
static struct ftrace_ops *place_ops(const struct kprobe_place *p)
{
    return p->ev->is_return ? &kretprobe_ops : &kprobe_ops;
}

static bool kretprobe_entry_unused(struct fgraph_frame *f, const struct fgraph_thread *g,
                                   struct fgraph_ops *gops)
{
    return false;
}
static void kretprobe_return(const struct fgraph_frame *f, struct fgraph_ret *ret,
                             struct fgraph_ops *gops);
static void kretprobe_regs_return(struct pt_regs *regs);
static struct fgraph_ops kretprobe_gops = {
    .entryfunc = kretprobe_entry_unused,
    .retfunc = kretprobe_return,
    .regs_return_handler = kretprobe_regs_return,
};

/* ---- firing ---- */

/* from_dispatcher: called under the ftrace dispatcher, whose preemption count is its own
 * (Linux's "dec" ctx). */
static void emit(struct kprobe_event *ev, const struct probe_ctx *ctx, unsigned long w1,
                 unsigned long w2, bool from_dispatcher)
{
    unsigned long head[2] = {w1, w2};
    probe_event_write(&ev->pe, ctx, head, ev->is_return ? 2 : 1, from_dispatcher);
}

/* Hooks the return of the call that entered at ip; its return address is at *ret_slot.
 * inline_push: with the graph core's push inline (the op handler's way), else a call. */
static __always_inline void kretprobe_hook(struct kprobe_place *p, unsigned long ip,
                                           unsigned long *ret_slot, bool inline_push)
{
    long active = 0;
    for (unsigned c = 0, n = READ_ONCE(cpus_online); c < n; c++)
        active += READ_ONCE(p->nactive[c]);
    unsigned long tag = return_tag(p);
    bool partial = p->ev->partial_regs;
    if (active >= (long)p->maxactive ||
        !(inline_push ? fgraph_push_return_in(&kretprobe_gops, ip, ret_slot, tag, partial)
                      : fgraph_push_return(&kretprobe_gops, ip, ret_slot, tag, partial))) {
        __atomic_add_fetch(&p->nmissed, 1, __ATOMIC_RELAXED);
        return;
    }
    local_inc((unsigned long *)&p->nactive[this_cpu_id()]);
}

/*
 * The CPU is running a probe's handlers: a probe it hits meanwhile (in a function the
 * handlers call, or in an interrupt) is a miss, as Linux counts it, never a recursion.
 * Handlers run with preemption or interrupts off, so the flag is the CPU's own.
 */
static volatile uint8_t kprobe_active[MAX_CPUS];

/* Handlers count themselves in before they look at the armed table. */
static unsigned handler_enter(void) { return sync_read_enter(&kprobe_handlers); }

static void handler_exit(unsigned cpu) { sync_read_exit(&kprobe_handlers, cpu); }

/*
 * A hit of the site at ip: the places of one kind armed there, entry places (with the
 * registers) or return places (with the slot of the call's return address).
 */
static __always_inline void kprobe_site_hit(unsigned long ip, struct pt_regs *regs,
                                            unsigned long *ret_slot, bool returns, bool inline_push)
{
    unsigned cpu = handler_enter();
    bool nested = kprobe_active[cpu];
    kprobe_active[cpu] = 1;
    for (struct kprobe_place *p = __atomic_load_n(site_chain(ip), __ATOMIC_ACQUIRE); p;
         p = __atomic_load_n(&p->site_next, __ATOMIC_ACQUIRE)) {
        struct kprobe_event *ev = p->ev;
        if (p->addr != ip || ev->is_return != returns)
            continue;
        if (nested) {
            __atomic_add_fetch(&p->nmissed, 1, __ATOMIC_RELAXED);
            continue;
        }
        local_inc(&p->nhit[cpu]);
        if (!(ev->pe.enabled & TRACE_EVENT_ON_EMIT))
            continue;
        if (returns) {
            kretprobe_hook(p, ip, ret_slot, inline_push);
        } else {
            struct probe_ctx ctx;
            probe_ctx_set(&ctx, regs, 0, ip, NULL, 0);
            /* Linux's fprobe entry handler keeps ftrace's preemption level ("...1."). */
            emit(ev, &ctx, ip, 0, ev->kind != 'f');
        }
    }
    kprobe_active[cpu] = nested;
    handler_exit(cpu);
}

__trace_hot_probe static void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
                                                    struct ftrace_ops *op,
                                                    struct ftrace_regs *fregs)
{
    struct pt_regs *regs = ftrace_get_regs(fregs);
    if (regs)
        kprobe_site_hit(ip, regs, NULL, false, false);
}

/* kretprobe_ops at a site other ops want too, through the list dispatcher. */
static void kretprobe_ftrace_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
                                  struct ftrace_regs *fregs)
{
    kprobe_site_hit(ip, NULL, (unsigned long *)ftrace_regs_get_stack_pointer(fregs), true, false);
}

/*
 * kretprobe_ops alone at a site: its trampoline calls this, guard and all (ftrace_callback.h),
 * with the graph core's push inline. In entry text, though not on the op handlers' page,
 * which the function tracers' handlers fill: the trampoline reaches it by an indirect call,
 * which costs an emulator the same lookup from any page.
 */
FTRACE_ENTRY_TEXT static void kretprobe_op_handler(unsigned long ret_ip, unsigned long *parent_slot)
{
    struct ftrace_guard gd;
    if (unlikely(!ftrace_guard_enter(&gd, ret_ip))) {
        ftrace_callback_recursed(&kretprobe_ops, gd.ip, *parent_slot);
        return;
    }
    kprobe_site_hit(gd.ip, NULL, parent_slot, true, true);
    ftrace_guard_exit(&gd);
}

bool kprobe_cpu_enter(unsigned cpu)
{
    if (kprobe_active[cpu])
        return false;
    kprobe_active[cpu] = 1;
    return true;
}

void kprobe_cpu_exit(unsigned cpu) { kprobe_active[cpu] = 0; }

__trace_hot_probe void kprobe_place_fire(struct kprobe_place *p, struct pt_regs *regs,
                                         unsigned long addr, bool missed)
{
    if (missed) {
        __atomic_add_fetch(&p->nmissed, 1, __ATOMIC_RELAXED);
        return;
    }
    local_inc(&p->nhit[this_cpu_id()]);
    struct kprobe_event *ev = p->ev;
    if (!(ev->pe.enabled & TRACE_EVENT_ON_EMIT))
        return;
    if (ev->is_return) {
        /* A function's first instruction: the return address is on top of the stack. */
        kretprobe_hook(p, addr, (unsigned long *)kernel_stack_pointer(regs), false);
        return;
    }
    struct probe_ctx ctx;
    probe_ctx_set(&ctx, regs, 0, addr, NULL, 0);
    emit(ev, &ctx, addr, 0, false); /* the int3 trap adds no preemption count */
}

unsigned long kprobe_place_addr(const struct kprobe_place *p) { return p->addr; }

/* A tracepoint probe's place, from its tracepoint's stub at ip, with the stub's arguments. */
__trace_hot_probe static void tprobe_fire(struct trace_event_tp_probe *tp, unsigned long ip,
                                          const unsigned long *args, unsigned nargs)
{
    struct kprobe_place *p = container_of(tp, struct kprobe_place, tp);
    local_inc(&p->nhit[this_cpu_id()]);
    struct kprobe_event *ev = p->ev;
    if (!(ev->pe.enabled & TRACE_EVENT_ON_EMIT))
        return;
    struct probe_ctx ctx;
    probe_ctx_set(&ctx, NULL, 0, 0, args, nargs);
    emit(ev, &ctx, ip, 0, false);
}

/* The return of a call a return place hooked (frame f), with the registers as it returned. */
static __always_inline void kretprobe_return_in(const struct fgraph_frame *f, struct pt_regs *regs)
{
    unsigned cpu = handler_enter();
    unsigned slot = (unsigned)(f->data >> KPROBE_RET_SERIAL_BITS);
    struct kprobe_place *p = slot < KPROBE_ARMED_MAX ? READ_ONCE(armed[slot]) : NULL;
    if (p && (p->serial & KPROBE_RET_SERIAL_MASK) == (f->data & KPROBE_RET_SERIAL_MASK)) {
        local_dec((unsigned long *)&p->nactive[cpu]);
        if (p->ev->pe.enabled & TRACE_EVENT_ON_EMIT) {
            /* The registers as the function returned, the instruction pointer the caller
             * (found through any other hook on the same call: a second return probe, the
             * function_graph tracer). */
            struct probe_ctx ctx;
            probe_ctx_set(&ctx, regs, regs_return_value(regs), 0, NULL, 0);
            emit(p->ev, &ctx, f->func, arch_regs_ip(regs), true);
        }
    }
    handler_exit(cpu);
}

/* Through the graph core's handler, when another client hooks single returns too. */
static void kretprobe_return(const struct fgraph_frame *f, struct fgraph_ret *ret,
                             struct fgraph_ops *gops)
{
    kretprobe_return_in(f, ret->regs);
}

static __always_inline void kretprobe_client_return(const struct fgraph_frame *f, uint32_t overrun,
                                                    struct pt_regs *regs)
{
    kretprobe_return_in(f, regs);
}

/* The regs hooks' handler while return places are the only client hooking single returns:
 * the graph core's return and this client's, with no call between them. */
__trace_hot_probe static void kretprobe_regs_return(struct pt_regs *regs)
{
    fgraph_regs_return_body(regs, kretprobe_client_return);
}

/* ---- arming ---- */

/* Whether another place on self's op is armed at addr. */
static bool addr_armed_elsewhere(unsigned long addr, const struct kprobe_place *self)
{
    for (struct kprobe_place *p = *site_chain(addr); p; p = p->site_next)
        if (p != self && p->addr == addr && p->ev->is_return == self->ev->is_return)
            return true;
    return false;
}

/* Whether a place on an ftrace site is armed on p's op (int3 return places sit in the
 * table too, but on no op). */
static bool any_armed(const struct kprobe_place *p) { return armed_on_sites[p->ev->is_return]; }

/* A free slot of the armed table, or -ENOSPC. */
static int armed_slot_get(void)
{
    unsigned slot = 0;
    while (slot < KPROBE_ARMED_MAX && armed[slot])
        slot++;
    return slot == KPROBE_ARMED_MAX ? -ENOSPC : (int)slot;
}

static void armed_slot_set(struct kprobe_place *p, unsigned slot)
{
    p->armed_slot = (int)slot;
    __atomic_store_n(&armed[slot], p, __ATOMIC_RELEASE);
}

static void disarm(struct kprobe_place *p)
{
    if (p->ev->kind == 't') {
        if (p->tp_armed)
            trace_event_tp_probe_detach(p->tracepoint, &p->tp); /* waits out its fires */
        p->tp_armed = false;
        return;
    }
    if (p->int3) {
        if (p->int3_armed)
            kprobe_site_detach(p); /* waits out every handler and slot user */
        p->int3_armed = false;
        if (p->armed_slot >= 0) {
            /* A return place: its pending returns look it up by serial in the table. */
            WRITE_ONCE(armed[p->armed_slot], NULL);
            p->armed_slot = -1;
            synchronize_readers(&kprobe_handlers);
        }
        return;
    }
    if (p->armed_slot < 0)
        return;
    WRITE_ONCE(armed[p->armed_slot], NULL);
    p->armed_slot = -1;
    site_unlink(p);
    if (!addr_armed_elsewhere(p->addr, p)) {
        /* An empty filter means every function: unregister before the last site goes. */
        if (!any_armed(p))
            unregister_ftrace_function(place_ops(p));
        ftrace_set_filter_ip(place_ops(p), p->addr, 1, 0);
    }
    /* No handler can still hold the place taken out of the table. */
    synchronize_readers(&kprobe_handlers);
}

static int arm(struct kprobe_place *p)
{
    if (p->ev->kind == 't') {
        if (p->tp_armed)
            return 0;
        p->tp.fire = tprobe_fire;
        int err = trace_event_tp_probe_attach(p->tracepoint, &p->tp);
        p->tp_armed = err == 0;
        return err;
    }
    if (p->int3 ? p->int3_armed : p->armed_slot >= 0)
        return 0;
    if (p->ev->is_return) {
        int err = fgraph_bind_client(&kretprobe_gops);
        if (err)
            return err;
    }
    int got = armed_slot_get();
    if (p->int3) {
        /* Only a return place needs the table (its returns find it there). */
        if (p->ev->is_return && got < 0)
            return got;
        memset(p->nactive, 0, sizeof(p->nactive));
        /* Returns pending from an earlier arming must not match this one. */
        p->serial = next_serial++;
        if (p->ev->is_return)
            armed_slot_set(p, (unsigned)got);
        int err = kprobe_site_attach(p);
        p->int3_armed = err == 0;
        if (err && p->armed_slot >= 0) {
            WRITE_ONCE(armed[p->armed_slot], NULL);
            p->armed_slot = -1;
        }
        return err;
    }
    if (got < 0)
        return got;
    unsigned slot = (unsigned)got;
    bool first_here = !addr_armed_elsewhere(p->addr, p);
    bool first = !any_armed(p);
    struct ftrace_ops *ops = place_ops(p);
    int err = 0;
    if (first_here)
        err = ftrace_set_filter_ip(ops, p->addr, 0, 0);
    if (!err && first)
        err = register_ftrace_function(ops);
    if (err) {
        if (first_here)
            ftrace_set_filter_ip(ops, p->addr, 1, 0);
        return err;
    }
    memset(p->nactive, 0, sizeof(p->nactive));
    p->serial = next_serial++; /* returns pending from an earlier arming must not match */
    armed_slot_set(p, slot);
    site_link(p);
    return 0;
}

/* The event's reg: arms every place on enable, disarms them on disable. */
static int kprobe_event_reg(const struct trace_event_call *call, bool on)
{
    struct kprobe_event *ev = container_of(call, struct kprobe_event, pe.call);
    int err = 0;
    spin_lock(&kprobe_lock);
    for (struct kprobe_place *p = places; p; p = p->next) {
        if (p->ev != ev)
            continue;
        if (!on) {
            disarm(p);
            continue;
        }
        err = arm(p);
        if (err)
            break;
    }
    if (err)
        for (struct kprobe_place *p = places; p; p = p->next)
            if (p->ev == ev)
                disarm(p);
    spin_unlock(&kprobe_lock);
    return err;
}

static void kprobe_event_print(struct seqbuf *s, const struct trace_event_call *call,
                               const void *record, size_t len)
{
    const struct kprobe_event *ev = container_of(call, struct kprobe_event, pe.call);
    const uint8_t *rec = record;
    unsigned long w1 = 0, w2 = 0;
    if (len >= 16)
        memcpy(&w1, rec + 8, 8);
    if (ev->is_return && len >= 24)
        memcpy(&w2, rec + 16, 8);
    seq_putc(s, '(');
    if (ev->is_return) {
        trace_print_sym(s, w2, true, trace_print_opt(TRACE_OPT_SYM_ADDR));
        seq_puts(s, " <- ");
        trace_print_sym(s, w1, false, trace_print_opt(TRACE_OPT_SYM_ADDR));
    } else {
        trace_print_sym(s, w1, true, trace_print_opt(TRACE_OPT_SYM_ADDR));
    }
    seq_putc(s, ')');
    probe_print_args(s, ev->pe.args, ev->pe.nargs, rec, len);
    seq_putc(s, '\n');
}

/* ---- making and removing probes ---- */

/* kind 0: either kind. */
static struct kprobe_event *find_event(const char *group, const char *name, char kind)
{
    for (struct kprobe_place *p = places; p; p = p->next)
        if ((!group || !*group || strcmp(p->ev->pe.group, group) == 0) &&
            strcmp(p->ev->pe.name, name) == 0 && (!kind || p->ev->kind == kind))
            return p->ev;
    return NULL;
}

static enum probe_head probe_head_of(const struct kprobe_event *ev)
{
    return ev->is_return ? PROBE_HEAD_RETURN : PROBE_HEAD_IP;
}

static void free_event(struct kprobe_event *ev)
{
    probe_event_release(&ev->pe);
    kfree(ev);
}

/* Takes the arguments from cmd. */
static struct kprobe_event *new_event(struct probe_cmd *cmd, int *err)
{
    struct kprobe_event *ev = kzalloc(sizeof(*ev));
    if (!ev) {
        *err = -ENOMEM;
        return NULL;
    }
    ev->kind = cmd->kind;
    ev->is_return = cmd->is_return;
    *err = probe_event_init(&ev->pe, cmd, probe_head_of(ev), kprobe_event_print, kprobe_event_reg);
    if (*err) {
        kfree(ev);
        return NULL;
    }
    ev->partial_regs = ev->is_return && probe_args_read_only(ev->pe.args, ev->pe.nargs,
                                                             arch_ftrace_partial_regs_has);
    return ev;
}

static int default_maxactive(void)
{
    unsigned cpus = 0;
    for (cpumask_t m = cpu_online_mask(); m; m &= m - 1)
        cpus++;
    return cpus * 2 > 10 ? (int)cpus * 2 : 10;
}

/*
 * An fprobe goes on a traced function's ftrace site, and nowhere else: Linux 6.5 registers
 * it through an ftrace filter, which a name without a site (notrace, not a function, or
 * unknown) does not match: EINVAL.
 */
static int check_fprobe_place(const struct probe_cmd *cmd, unsigned long *addr, bool *int3,
                              struct probe_error *e)
{
    if (probe_resolve_args(cmd->args, cmd->nargs)) {
        e->message = "Invalid probed address or symbol";
        return e->err = -ENOENT;
    }
    uintptr_t fn = sym_address(cmd->symbol);
    struct dyn_ftrace *rec = fn ? ftrace_rec_lookup(fn) : NULL;
    if (!rec || (rec->flags & FTRACE_FL_DISABLED)) {
        e->message = "Failed to register probe event";
        return e->err = -EINVAL;
    }
    *addr = fn;
    *int3 = false;
    return 0;
}

/*
 * Where the probe goes, checked as Linux registers it; the error names word 1. A function
 * entry with an ftrace site uses the site; any other instruction boundary an int3.
 */
static int check_place(const struct probe_cmd *cmd, unsigned long *addr, bool *int3,
                       struct probe_error *e)
{
    e->word = 1;
    e->pos = 0;
    uintptr_t fn;
    if (cmd->kind == 'f')
        return check_fprobe_place(cmd, addr, int3, e);
    if (cmd->kind == 't') {
        /* The tracepoint was found when the line was parsed; its stub is the address. */
        if (probe_resolve_args(cmd->args, cmd->nargs)) {
            e->message = "Invalid probed address or symbol";
            return e->err = -ENOENT;
        }
        *addr = 0;
        *int3 = false;
        return 0;
    }
    if (cmd->by_address)
        fn = (uintptr_t)strtoul(cmd->symbol, NULL, 16);
    else
        fn = sym_address(cmd->symbol);
    if (probe_resolve_args(cmd->args, cmd->nargs) || !fn) {
        e->message = "Invalid probed address or symbol";
        return e->err = -ENOENT;
    }
    unsigned long at = fn + cmd->offset;
    if (kprobe_blacklisted(at)) {
        e->message = "Failed to register probe event";
        return e->err = -EINVAL;
    }
    struct dyn_ftrace *rec = ftrace_rec_lookup(at);
    if (rec && !(rec->flags & FTRACE_FL_DISABLED)) {
        *addr = at;
        *int3 = false;
        return 0;
    }
    /* Inside a site's call (SYM+1..4): Linux's check finds no instruction there. */
    struct dyn_ftrace *entry = ftrace_rec_lookup(fn);
    if (entry && cmd->offset > 0 && cmd->offset < ARCH_PATCH_INSN_SIZE) {
        e->message = "Probe point is not an instruction boundary";
        return e->err = -EILSEQ;
    }
    if (rec) {
        /* A disabled site. */
        e->message = "Failed to register probe event";
        return e->err = -EINVAL;
    }
    uintptr_t start = 0;
    if (cmd->is_return && (!sym_lookup(at, &start, NULL) || start != at)) {
        /* An address that is not a function's entry (SYM+OFFS was refused when parsed):
         * Linux's register_kretprobe refuses it, logged as any failed registration. */
        e->message = cmd->by_address ? "Failed to register probe event"
                                     : "Retprobe address must be an function entry";
        return e->err = -EINVAL;
    }
    const char *why;
    int err = kprobe_site_check(at, &why);
    if (err) {
        e->message = why;
        if (err == -ENOENT && !why)
            e->message = "Invalid probed address or symbol";
        return e->err = err;
    }
    *addr = at;
    *int3 = true;
    return 0;
}

static int create_probe(struct probe_cmd *cmd, struct probe_error *e)
{
    const struct trace_event_call *other = trace_event_find(cmd->group, cmd->event);
    /* A kprobe and an fprobe of one name are two events, as on Linux: EEXIST below. */
    struct kprobe_event *ev = find_event(cmd->group, cmd->event, cmd->kind);
    e->word = 0;
    e->pos = 0;
    /* fprobes and tracepoint probes are one kind of event to Linux 6.10, of two types. */
    char kin = cmd->kind == 'f' ? 't' : cmd->kind == 't' ? 'f' : 0;
    if (!ev && kin && find_event(cmd->group, cmd->event, kin)) {
        e->message = "Probe type is different from existing probe";
        return e->err = -EEXIST;
    }
    if (other && !ev) {
        e->message = "Given group/event name is already used by another event";
        return e->err = -EEXIST;
    }
    if (ev && ev->is_return != cmd->is_return) {
        e->message = "Probe type is different from existing probe";
        return e->err = -EEXIST;
    }
    if (ev) {
        unsigned differ = probe_args_differ(ev->pe.args, ev->pe.nargs, cmd->args, cmd->nargs);
        /* Every place of an event fetches the event's arguments: a tracepoint probe's on
         * another tracepoint must be the same fetches, not only the same names and types
         * (Linux keeps each probe's own; $argN of one tracepoint is not another's). */
        for (unsigned i = 0; !differ && ev->kind == 't' && i < cmd->nargs; i++)
            if (strcmp(ev->pe.args[i].text, cmd->args[i].text) != 0)
                differ = i + 1;
        if (differ) {
            e->message = "Argument type or name is different from existing probe";
            e->word = differ + 1;
            return e->err = -EEXIST;
        }
        for (struct kprobe_place *p = places; p; p = p->next) {
            if (p->ev == ev && strcmp(p->symbol, cmd->symbol) == 0 && p->offset == cmd->offset) {
                e->message = "There is already the exact same probe event";
                return e->err = -EEXIST;
            }
        }
    }
    unsigned long addr;
    bool int3;
    int err = check_place(cmd, &addr, &int3, e);
    if (err)
        return err;
    struct kprobe_place *p = kzalloc(sizeof(*p));
    if (!p) {
        e->message = NULL;
        return e->err = -ENOMEM;
    }
    if (!ev) {
        ev = new_event(cmd, &err);
        if (!ev) {
            kfree(p);
            e->message = NULL;
            return e->err = err;
        }
    }
    p->ev = ev;
    strcpy(p->symbol, cmd->symbol);
    p->offset = cmd->offset;
    p->addr = addr;
    p->int3 = int3;
    p->maxactive = cmd->maxactive ? cmd->maxactive : (unsigned)default_maxactive();
    p->maxactive_given = cmd->maxactive != 0;
    p->armed_slot = -1;
    p->tracepoint = cmd->tracepoint;
    p->serial = next_serial++;
    p->order = dynamic_event_order();
    /* A new place of an enabled event fires at once, as on Linux. */
    if (trace_event_is_emitting(&ev->pe.call)) {
        err = arm(p);
        if (err) {
            kfree(p);
            e->message = "Failed to register probe event";
            return e->err = err;
        }
    }
    ev->places++;
    struct kprobe_place **tail = &places;
    while (*tail)
        tail = &(*tail)->next;
    *tail = p;
    return 0;
}

/* Removes an event and all its places: -EBUSY if it is enabled or a file of it is open. */
static int delete_event(struct kprobe_event *ev)
{
    if (trace_event_is_emitting(&ev->pe.call))
        return -EBUSY;
    int err = trace_event_remove(&ev->pe.call);
    if (err)
        return err;
    for (struct kprobe_place **pp = &places; *pp;) {
        struct kprobe_place *p = *pp;
        if (p->ev != ev) {
            pp = &p->next;
            continue;
        }
        disarm(p);
        *pp = p->next;
        kfree(p);
    }
    free_event(ev);
    return 0;
}

/*
 * Linux's "-:[GRP/]EVENT SYM[+OFFS] [NAME=ARG...]": the words after the event's name pick the
 * probes whose place, then first arguments, read back as those words.
 */
static bool place_matches(const struct kprobe_place *p, char *const *words, unsigned count)
{
    char text[PROBE_MAX_ARG_NAME + PROBE_MAX_ARGSTR + sizeof(p->symbol) + 24];
    if (p->offset)
        snprintf(text, sizeof(text), "%s+%lu", p->symbol, p->offset);
    else if (p->ev->kind == 'f' && p->ev->is_return)
        snprintf(text, sizeof(text), "%s%%return", p->symbol);
    else
        snprintf(text, sizeof(text), "%s", p->symbol);
    if (strcmp(text, words[0]) != 0 || count - 1 > p->ev->pe.nargs)
        return false;
    for (unsigned i = 1; i < count; i++) {
        const struct probe_arg *a = &p->ev->pe.args[i - 1];
        snprintf(text, sizeof(text), "%s=%s", a->name, a->text);
        if (strcmp(text, words[i]) != 0)
            return false;
    }
    return true;
}

/* Removes the event's probes that the words pick; the event goes with its last probe. */
static int delete_places(struct kprobe_event *ev, char *const *words, unsigned count)
{
    unsigned matched = 0;
    for (struct kprobe_place *p = places; p; p = p->next)
        if (p->ev == ev && place_matches(p, words, count))
            matched++;
    if (matched == 0)
        return -ENOENT;
    if (matched == ev->places)
        return delete_event(ev);
    if (trace_event_is_emitting(&ev->pe.call))
        return -EBUSY;
    for (struct kprobe_place **pp = &places; *pp;) {
        struct kprobe_place *p = *pp;
        if (p->ev != ev || !place_matches(p, words, count)) {
            pp = &p->next;
            continue;
        }
        disarm(p);
        *pp = p->next;
        kfree(p);
        ev->places--;
    }
    return 0;
}

/*
 * Linux's "-:GRP/ [SYM [ARGS]]": every event of the group (of kind; 0: any), as each alone;
 * the first that cannot go (enabled, a file open) stops the rest. -ENOENT if none matched.
 */
static int delete_group(const char *group, char kind, char *const *words, unsigned count)
{
    size_t n = 0;
    for (struct kprobe_place *p = places; p; p = p->next)
        n++;
    struct kprobe_event **evs = n ? kmalloc(n * sizeof(*evs)) : NULL;
    if (n && !evs)
        return -ENOMEM;
    size_t m = 0;
    for (struct kprobe_place *p = places; p; p = p->next) {
        if (strcmp(p->ev->pe.group, group) != 0 || (kind && p->ev->kind != kind))
            continue;
        bool seen = false;
        for (size_t i = 0; i < m && !seen; i++)
            seen = evs[i] == p->ev;
        if (!seen)
            evs[m++] = p->ev;
    }
    int err = -ENOENT;
    for (size_t i = 0; i < m; i++) {
        int one = count ? delete_places(evs[i], words, count) : delete_event(evs[i]);
        if (one == -ENOENT)
            continue;
        err = one;
        if (err)
            break;
    }
    kfree(evs);
    return err;
}

int kprobe_run_command(const char *line, bool dynamic_events)
{
    ASSERT(pfs_control_held());
    struct probe_words w;
    int err = probe_split_words(line, &w);
    if (err)
        return err;
    /* fprobes and tracepoint probes are made only through dynamic_events, as on Linux. */
    if (w.count == 0 || (!dynamic_events && (w.word[0][0] == 'f' || w.word[0][0] == 't'))) {
        probe_words_free(&w);
        return w.count ? -EINVAL : 0;
    }
    struct probe_cmd cmd;
    struct probe_error e;
    spin_lock(&kprobe_lock);
    err = probe_parse(&w, &cmd, &e);
    if (!err && cmd.is_delete && !cmd.event[0]) {
        err = delete_group(cmd.group, dynamic_events ? 0 : 'p', &w.word[1], w.count - 1);
        e.message = NULL;
    } else if (!err && cmd.is_delete) {
        struct kprobe_event *ev = find_event(cmd.group, cmd.event, dynamic_events ? 0 : 'p');
        if (!ev)
            err = -ENOENT;
        else if (w.count > 1)
            err = delete_places(ev, &w.word[1], w.count - 1);
        else
            err = delete_event(ev);
        e.message = NULL;
    } else if (!err) {
        err = create_probe(&cmd, &e);
    }
    spin_unlock(&kprobe_lock);
    if (err == -ECANCELED) {
        err = -EINVAL;
    } else if (err && e.message) {
        probe_log_error(&w, &e,
                        cmd.kind == 'f' || cmd.kind == 't' ? "trace_fprobe" : "trace_kprobe");
    }
    probe_cmd_free(&cmd);
    probe_words_free(&w);
    return err;
}

int kprobe_release_all(void)
{
    ASSERT(pfs_control_held());
    spin_lock(&kprobe_lock);
    int err = 0;
    for (struct kprobe_place *p = places; p; p = p->next)
        if (p->ev->kind == 'p' && trace_event_is_emitting(&p->ev->pe.call))
            err = -EBUSY;
    /* fprobes are dynamic_events' alone. */
    for (struct kprobe_place *p = places; !err && p;) {
        if (p->ev->kind != 'p') {
            p = p->next;
            continue;
        }
        err = delete_event(p->ev);
        p = places;
    }
    spin_unlock(&kprobe_lock);
    return err;
}

bool kprobe_any_enabled(void)
{
    spin_lock(&kprobe_lock);
    bool busy = false;
    for (struct kprobe_place *p = places; p; p = p->next)
        busy |= trace_event_is_emitting(&p->ev->pe.call);
    spin_unlock(&kprobe_lock);
    return busy;
}

int kprobe_remove_made_at(uint64_t order)
{
    ASSERT(pfs_control_held());
    spin_lock(&kprobe_lock);
    int err = 0;
    for (struct kprobe_place *p = places; p; p = p->next) {
        if (p->order == order) {
            err = delete_event(p->ev);
            break;
        }
    }
    spin_unlock(&kprobe_lock);
    return err;
}

static void show_events(struct seqbuf *s, bool with_fprobes, dynamic_event_mark_fn mark, void *arg);

void kprobe_show_events(struct seqbuf *s) { show_events(s, false, NULL, NULL); }

bool kprobe_event_exists(const char *group, const char *name)
{
    spin_lock(&kprobe_lock);
    bool found = find_event(group, name, 0) != NULL;
    spin_unlock(&kprobe_lock);
    return found;
}

void kprobe_show_events_marked(struct seqbuf *s, dynamic_event_mark_fn mark, void *arg)
{
    show_events(s, true, mark, arg);
}

static void show_events(struct seqbuf *s, bool with_fprobes, dynamic_event_mark_fn mark, void *arg)
{
    spin_lock(&kprobe_lock);
    for (struct kprobe_place *p = places; p; p = p->next) {
        const struct kprobe_event *ev = p->ev;
        bool kprobe = ev->kind == 'p';
        if (!kprobe && !with_fprobes)
            continue;
        if (mark)
            mark(arg, p->order, s->len);
        if (kprobe)
            seq_putc(s, ev->is_return ? 'r' : 'p');
        else
            seq_putc(s, ev->kind);
        if (ev->is_return && (kprobe || p->maxactive_given))
            seq_printf(s, "%u", p->maxactive);
        seq_printf(s, ":%s/%s %s", ev->pe.group, ev->pe.name, p->symbol);
        if (p->offset)
            seq_printf(s, "+%lu", p->offset);
        if (ev->kind == 'f' && ev->is_return)
            seq_puts(s, "%return");
        probe_show_args(s, ev->pe.args, ev->pe.nargs);
        seq_putc(s, '\n');
    }
    spin_unlock(&kprobe_lock);
}

void kprobe_show_armed(struct seqbuf *s)
{
    spin_lock(&kprobe_lock);
    for (struct kprobe_place *p = places; p; p = p->next)
        if (p->int3 ? p->int3_armed : p->armed_slot >= 0)
            kprobe_list_line(s, p->addr, !p->int3);
    spin_unlock(&kprobe_lock);
}

void kprobe_show_profile(struct seqbuf *s)
{
    spin_lock(&kprobe_lock);
    for (struct kprobe_place *p = places; p; p = p->next) {
        if (p->ev->kind != 'p')
            continue;
        uint64_t hits = 0;
        for (unsigned c = 0; c < MAX_CPUS; c++)
            hits += READ_ONCE(p->nhit[c]);
        seq_printf(s, "  %-44s %15lu %15lu\n", p->ev->pe.name, (unsigned long)hits,
                   (unsigned long)READ_ONCE(p->nmissed));
    }
    spin_unlock(&kprobe_lock);
}

uint64_t kprobe_hits(const char *group, const char *name, uint64_t *missed)
{
    uint64_t hits = 0;
    spin_lock(&kprobe_lock);
    for (struct kprobe_place *p = places; p; p = p->next) {
        if (strcmp(p->ev->pe.group, group) != 0 || strcmp(p->ev->pe.name, name) != 0)
            continue;
        for (unsigned c = 0; c < MAX_CPUS; c++)
            hits += READ_ONCE(p->nhit[c]);
        if (missed)
            *missed += READ_ONCE(p->nmissed);
    }
    spin_unlock(&kprobe_lock);
    return hits;
}

int kprobe_command(const char *line)
{
    pfs_control_lock();
    int err = kprobe_run_command(line, true);
    pfs_control_unlock();
    return err;
}
