/*
 * The trace-event core: the table of events (registered by linker section), their ids,
 * the write path every emitter shares, the printer dispatch of the readers, and the pid
 * and comm state Linux's event files expose (set_event_pid, saved_cmdlines).
 */
#include <arch/cpu.h>
#include <kernel/errno.h>
#include <kernel/init.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/sort.h>
#include <lib/string.h>

#include "event_core.h"
#include "event_files.h"
#include "event_trigger.h"
#include "event_write.h"
#include "trace_hot.h"
#include "trace_internal.h"

extern const struct trace_event_call __start_trace_events[], __stop_trace_events[];

const struct event_field event_common_fields[EVENT_COMMON_FIELDS] = {
    {"unsigned short", "common_type", 0, 2, false, EVENT_FIELD_INT},
    {"unsigned char", "common_flags", 2, 1, false, EVENT_FIELD_INT},
    {"unsigned char", "common_preempt_count", 3, 1, false, EVENT_FIELD_INT},
    {"int", "common_pid", 4, 4, true, EVENT_FIELD_INT},
};

/* Sorted once at boot into Linux's listing order; ids index events_by_id. */
#define TRACE_EVENT_MAX 128
#define TRACE_EVENT_ID_MAX (TRACE_EVENT_ID_FIRST_DYNAMIC + TRACE_EVENT_MAX)
static const struct trace_event_call *events_sorted[TRACE_EVENT_MAX];
static size_t events_nr;
static const struct trace_event_call *events_by_id[TRACE_EVENT_ID_MAX];

/*
 * Events made at run time, oldest first. Their ids count up from TRACE_EVENT_DYN_ID_BASE
 * and are not reused until the counter wraps, so a record left in the buffer by a removed
 * event prints as unknown rather than as a newer event. The reader side looks them up
 * without a lock, counted in dyn_readers; a removal waits for the count to drop after the
 * event is gone from the table, so a reader never holds a freed call.
 */
#define TRACE_EVENT_DYN_MAX 512
#define TRACE_EVENT_DYN_ID_BASE 1000
static struct trace_event_call *volatile dyn_events[TRACE_EVENT_DYN_MAX];
static volatile size_t dyn_nr;
static unsigned dyn_next_id = TRACE_EVENT_DYN_ID_BASE;
static volatile unsigned dyn_readers;
static DEFINE_SPINLOCK(dyn_lock);

size_t trace_event_count(void) { return READ_ONCE(dyn_nr) + events_nr; }
const struct trace_event_call *trace_event_at(size_t i)
{
    size_t dyn = READ_ONCE(dyn_nr);
    if (i < dyn)
        return dyn_events[dyn - 1 - i];
    i -= dyn;
    return i < events_nr ? events_sorted[i] : NULL;
}

static const struct trace_event_call *dyn_by_id(unsigned id)
{
    size_t n = READ_ONCE(dyn_nr);
    for (size_t i = 0; i < n; i++) {
        const struct trace_event_call *c = dyn_events[i];
        if (c && c->state->id == id)
            return c;
    }
    return NULL;
}

const struct trace_event_call *trace_event_by_id(unsigned id)
{
    if (id < TRACE_EVENT_ID_MAX)
        return events_by_id[id];
    return dyn_by_id(id);
}

const struct trace_event_call *trace_event_find(const char *system, const char *name)
{
    for (size_t i = 0; i < trace_event_count(); i++) {
        const struct trace_event_call *c = trace_event_at(i);
        if (strcmp(c->system, system) == 0 && strcmp(c->name, name) == 0)
            return c;
    }
    return NULL;
}

static bool dyn_id_used(unsigned id)
{
    for (size_t i = 0; i < dyn_nr; i++)
        if (dyn_events[i]->state->id == id)
            return true;
    return false;
}

int trace_event_add(struct trace_event_call *call)
{
    if (trace_event_find(call->system, call->name))
        return -EEXIST;
    spin_lock(&dyn_lock);
    if (dyn_nr == TRACE_EVENT_DYN_MAX) {
        spin_unlock(&dyn_lock);
        return -ENOSPC;
    }
    while (dyn_id_used(dyn_next_id))
        dyn_next_id = dyn_next_id >= 0xffff ? TRACE_EVENT_DYN_ID_BASE : dyn_next_id + 1;
    call->state->id = (uint16_t)dyn_next_id;
    dyn_next_id = dyn_next_id >= 0xffff ? TRACE_EVENT_DYN_ID_BASE : dyn_next_id + 1;
    dyn_events[dyn_nr] = call;
    __atomic_store_n(&dyn_nr, dyn_nr + 1, __ATOMIC_RELEASE);
    spin_unlock(&dyn_lock);
    if (trace_opt(TRACE_OPT_STACKTRACE))
        call->state->commit_flags |= TRACE_EVENT_COMMIT_STACK;
    int err = trace_event_files_create(call);
    if (err) {
        trace_event_files_remove(call);
        trace_event_remove(call);
    }
    return err;
}

int trace_event_remove(struct trace_event_call *call)
{
    if (trace_event_is_emitting(call) || trace_event_has_triggers(call))
        return -EBUSY;
    int err = trace_event_files_remove(call);
    if (err && err != -ENOENT)
        return err;
    spin_lock(&dyn_lock);
    size_t at = 0;
    while (at < dyn_nr && dyn_events[at] != call)
        at++;
    if (at == dyn_nr) {
        spin_unlock(&dyn_lock);
        return -ENOENT;
    }
    /* Readers index without the lock: shift down one by one, then shorten. */
    for (size_t i = at; i + 1 < dyn_nr; i++)
        dyn_events[i] = dyn_events[i + 1];
    __atomic_store_n(&dyn_nr, dyn_nr - 1, __ATOMIC_SEQ_CST);
    dyn_events[dyn_nr] = NULL;
    spin_unlock(&dyn_lock);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    while (__atomic_load_n(&dyn_readers, __ATOMIC_SEQ_CST))
        arch_cpu_relax();
    trace_event_filter_install(call, NULL);
    trace_event_instance_states_free(call);
    return 0;
}

static int event_order_cmp(const void *a, const void *b)
{
    const struct trace_event_call *x = *(const struct trace_event_call *const *)a;
    const struct trace_event_call *y = *(const struct trace_event_call *const *)b;
    return (int)x->order - (int)y->order;
}

static void trace_events_init(void)
{
    for (const struct trace_event_call *c = __start_trace_events; c < __stop_trace_events; c++) {
        if (c->place_fields)
            c->place_fields();
        if (events_nr < TRACE_EVENT_MAX)
            events_sorted[events_nr++] = c;
    }
    sort(events_sorted, events_nr, sizeof(events_sorted[0]), event_order_cmp);
    unsigned next_id = TRACE_EVENT_ID_FIRST_DYNAMIC;
    for (size_t i = 0; i < events_nr; i++) {
        const struct trace_event_call *c = events_sorted[i];
        unsigned id = c->fixed_id ? c->fixed_id : next_id++;
        c->state->id = (uint16_t)id;
        events_by_id[id] = c;
    }
    trace_event_files_init();
}
CORE_INITCALL(trace_events_init);

/* ---- set_event_pid / set_event_notrace_pid ---- */

struct trace_event_pids trace_event_pids[2];
volatile unsigned trace_event_slow_checks;
static DEFINE_SPINLOCK(slow_checks_lock);
static unsigned soft_mode_events;
static unsigned instance_events; /* events on in some instance */

static bool pid_in(const struct trace_event_pids *l, int pid)
{
    unsigned n = READ_ONCE(l->count);
    for (unsigned i = 0; i < n; i++)
        if (READ_ONCE(l->pids[i]) == pid)
            return true;
    return false;
}

static bool trace_event_pid_allowed(int pid)
{
    const struct trace_event_pids *allow = &trace_event_pids[TRACE_EVENT_PIDS_TRACE];
    if (pid_in(&trace_event_pids[TRACE_EVENT_PIDS_NOTRACE], pid))
        return false;
    return READ_ONCE(allow->count) == 0 || pid_in(allow, pid);
}

static void slow_checks_update_locked(void)
{
    unsigned pids = trace_event_pids[0].count + trace_event_pids[1].count;
    WRITE_ONCE(trace_event_slow_checks, pids | (soft_mode_events ? TRACE_EVENT_SLOW_SOFT_MODE : 0) |
                                            (instance_events ? TRACE_EVENT_SLOW_INSTANCES : 0));
}

void trace_event_pids_changed(void)
{
    unsigned long irq = spin_lock_irqsave(&slow_checks_lock);
    slow_checks_update_locked();
    spin_unlock_irqrestore(&slow_checks_lock, irq);
    trace_event_update_follow();
}

void trace_event_soft_mode_count(bool entering)
{
    unsigned long irq = spin_lock_irqsave(&slow_checks_lock);
    soft_mode_events += entering ? 1 : -1;
    slow_checks_update_locked();
    spin_unlock_irqrestore(&slow_checks_lock, irq);
}

void trace_event_instance_count(bool entering)
{
    unsigned long irq = spin_lock_irqsave(&slow_checks_lock);
    instance_events += entering ? 1 : -1;
    slow_checks_update_locked();
    spin_unlock_irqrestore(&slow_checks_lock, irq);
}

/* ---- the write path ---- */

static bool pids_let_in(struct percpu *cpu, int other_pid)
{
    return !(READ_ONCE(trace_event_slow_checks) & TRACE_EVENT_SLOW_PIDS) ||
           trace_event_pid_allowed(cpu->current_pid) ||
           (other_pid >= 0 && trace_event_pid_allowed(other_pid));
}

/*
 * An event whose triggers need its record (a filter to test) but that records nothing
 * (soft-disabled, tracing off, its CPU outside tracing_cpumask) builds it here, never in
 * the ring buffer: one slot per nesting level of this CPU (a thread, an interrupt, an
 * NMI), as Linux's trace_buffered_event and temp buffer. A slot takes any record the ring
 * buffer would; a fifth level runs no trigger. The slots of each CPU online are made at
 * boot (16 KiB a CPU, which static storage would spend on every possible CPU).
 */
#define SCRATCH_LEVELS 4
#define SCRATCH_SIZE RB_MAX_PAYLOAD
_Static_assert(SCRATCH_SIZE % 8 == 0, "every slot starts 8-byte aligned");
static struct scratch_cpu {
    uint8_t *slots; /* SCRATCH_LEVELS slots of SCRATCH_SIZE bytes; NULL: none */
    unsigned used;
} scratch[MAX_CPUS];

static void trace_event_scratch_init(void)
{
    for (unsigned c = 0; c < cpus_online && c < MAX_CPUS; c++)
        scratch[c].slots = kmalloc(SCRATCH_LEVELS * SCRATCH_SIZE);
}
CORE_INITCALL(trace_event_scratch_init);

/*
 * Writers between a scratch reservation and its commit. The commit must go out of line
 * for such a record, so an event's TRACE_EVENT_COMMIT_TRIGGERS is taken away only after
 * waiting for them (event_trigger.c).
 */
struct sync_readers trace_event_scratch_writers = SYNC_READERS_INIT;

static bool is_scratch(struct percpu *cpu, const void *record)
{
    const struct scratch_cpu *sc = &scratch[cpu->cpu];
    return sc->slots && (const uint8_t *)record >= sc->slots &&
           (const uint8_t *)record < sc->slots + SCRATCH_LEVELS * SCRATCH_SIZE;
}

static void *scratch_reserve(struct percpu *cpu, size_t size)
{
    struct scratch_cpu *sc = &scratch[cpu->cpu];
    if (!sc->slots || size > SCRATCH_SIZE || sc->used >= SCRATCH_LEVELS)
        return NULL;
    /* An interrupt that comes now takes the next slot and gives it back before returning. */
    void *rec = sc->slots + SCRATCH_SIZE * sc->used++;
    barrier();
    /* The CPU's marker, for as long as the record lives (see trace_event_scratch_writers);
     * the writer keeps the CPU until then. */
    sync_read_enter(&trace_event_scratch_writers);
    return rec;
}

static void scratch_release(struct percpu *cpu)
{
    sync_read_exit(&trace_event_scratch_writers, cpu->cpu);
    barrier();
    scratch[cpu->cpu].used--;
}

void *trace_event_scratch_get(struct percpu *cpu, size_t size)
{
    return scratch_reserve(cpu, size);
}
void trace_event_scratch_put(struct percpu *cpu) { scratch_release(cpu); }

/*
 * What the reservation of a record built for instances learnt that the commit needs,
 * kept from one to the other: the other pid (a switch's next task), for instances whose
 * pid lists look at it, and whether the top level's set_event_pid left the record out
 * (its triggers then do not run on it), found by the record's address. A record built
 * in a scratch slot always commits out of line and takes its entry back; one in the ring
 * buffer whose commit went inline (the last instance went meanwhile) leaves its entry,
 * which the next record at that address overwrites (a full table reuses its oldest). Not
 * in an NMI, which could come between a keep and a take of the CPU it interrupted.
 */
#define OTHER_PID_SLOTS 4
static struct other_pid_cpu {
    const void *record[OTHER_PID_SLOTS];
    int pid[OTHER_PID_SLOTS];
    bool top_excluded[OTHER_PID_SLOTS];
    unsigned next; /* the slot a full table reuses */
    unsigned live; /* entries in use: a take with none to find costs one load */
} other_pids[MAX_CPUS];

static __noinline void other_pid_keep(struct percpu *cpu, const void *record, int pid,
                                      bool top_excluded)
{
    struct other_pid_cpu *o = &other_pids[cpu->cpu];
    unsigned long irq = arch_irq_save();
    unsigned at = OTHER_PID_SLOTS;
    for (unsigned i = 0; i < OTHER_PID_SLOTS && at == OTHER_PID_SLOTS; i++)
        if (o->record[i] == record)
            at = i;
    for (unsigned i = 0; i < OTHER_PID_SLOTS && at == OTHER_PID_SLOTS; i++)
        if (!o->record[i])
            at = i;
    if (at == OTHER_PID_SLOTS)
        at = o->next++ % OTHER_PID_SLOTS;
    o->live += !o->record[at];
    o->pid[at] = pid;
    o->top_excluded[at] = top_excluded;
    o->record[at] = record;
    arch_irq_restore(irq);
}

/* What was kept for record (nothing: no other pid, not left out), the entry freed. */
static void other_pid_take(struct percpu *cpu, const void *record, int *pid, bool *top_excluded)
{
    struct other_pid_cpu *o = &other_pids[cpu->cpu];
    *pid = -1;
    *top_excluded = false;
    /* Only this CPU (not in an NMI) writes its table: a zero read here stays true. */
    if (!READ_ONCE(o->live))
        return;
    unsigned long irq = arch_irq_save();
    for (unsigned i = 0; i < OTHER_PID_SLOTS; i++) {
        if (o->record[i] == record) {
            *pid = o->pid[i];
            *top_excluded = o->top_excluded[i];
            o->record[i] = NULL;
            o->live--;
            break;
        }
    }
    arch_irq_restore(irq);
}

/* A record for triggers only, in this CPU's scratch slot; NULL if there is none free. */
static void *scratch_record(struct percpu *cpu, const struct trace_event_state *state, size_t size)
{
    void *rec = scratch_reserve(cpu, size);
    if (!rec)
        return NULL;
    /* Again now that this CPU is marked: a removal that took the record-needing triggers
     * or the last instance away before the mark does not wait for it. */
    if (!(READ_ONCE(state->trigger_flags) & TRACE_EVENT_TRIGGERS_COND) &&
        !(READ_ONCE(state->instance_mask) | READ_ONCE(state->instance_soft_mask))) {
        scratch_release(cpu);
        return NULL;
    }
    uint64_t common = trace_event_common_on(cpu, state->id);
    __builtin_memcpy(rec, &common, sizeof(common));
    return rec;
}

__trace_hot_trigger void *trace_event_reserve_slow(struct percpu *cpu,
                                                   const struct trace_event_call *call, size_t size,
                                                   int other_pid, struct rb_reservation *res)
{
    struct trace_event_state *state = call->state;
    uint8_t on = state->enabled ? READ_ONCE(*state->enabled) : TRACE_EVENT_ON_RECORD;
    bool recording = on & TRACE_EVENT_ON_RECORD;
    uint8_t mode = 0;
    void *rec = NULL;

    if (on & TRACE_EVENT_ON_TRIGGER) {
        mode = READ_ONCE(state->trigger_flags);
        /* As Linux: triggers that need no record run first, and before the pid lists. */
        if (mode & TRACE_EVENT_TRIGGERS_UNCOND)
            event_triggers_call_uncond(call);
    }
    /* Instances take a copy at the commit: the record is needed even where the top level
     * records nothing (their pid lists and filters are not those of the top level). */
    bool for_instances = on & TRACE_EVENT_ON_INSTANCE, top_excluded = false;
    if (!pids_let_in(cpu, other_pid)) {
        if (!for_instances)
            goto refuse;
        recording = false;
        mode = 0;
        top_excluded = true;
    }
    bool needs_record = (mode & TRACE_EVENT_TRIGGERS_COND) || for_instances;
    if (recording && ((trace_global.cpumask >> cpu->cpu) & 1)) {
        if (!needs_record)
            return TRACE_EVENT_RESERVE_INLINE;
        rec = rb_reserve_on(cpu->trace_buffer, (unsigned)size, res);
        if (rec) {
            uint64_t common = trace_event_common_on(cpu, state->id);
            __builtin_memcpy(rec, &common, sizeof(common));
        }
    }
    /* As Linux's temp buffer: triggers that test the record still see it when the event,
     * the CPU or tracing itself records nothing. */
    if (!rec && needs_record)
        rec = scratch_record(cpu, state, size);
    if (rec) {
        if ((top_excluded || (for_instances && READ_ONCE(trace_event_instances_with_pids))) &&
            !cpu->nmi_depth)
            other_pid_keep(cpu, rec, other_pid, top_excluded);
        return rec;
    }
refuse:
    barrier();
    cpu->preempt_count--;
    return NULL;
}

void *trace_event_reserve(const struct trace_event_call *call, size_t size, int other_pid,
                          struct rb_reservation *res)
{
    return trace_event_reserve_on(this_cpu(), call, size, other_pid, res);
}

/*
 * The instances' part of a commit: the entry the reservation kept for the record, then
 * the copies. Returns whether the top level's pid lists left the record out.
 */
static __noinline bool commit_for_instances(struct percpu *cpu, const struct trace_event_call *call,
                                            void *record, size_t size, bool scratch_rec,
                                            uintptr_t frame)
{
    bool top_excluded = false;
    bool for_instances =
        READ_ONCE(call->state->instance_mask) | READ_ONCE(call->state->instance_soft_mask);
    int other_pid = -1;
    if (!cpu->nmi_depth &&
        (scratch_rec || (for_instances && READ_ONCE(trace_event_instances_with_pids))))
        other_pid_take(cpu, record, &other_pid, &top_excluded);
    if (for_instances)
        trace_event_instances_write(call, record, size, other_pid, frame);
    return top_excluded;
}

/* Not inlined: the stack it records starts one frame up, in the emitter, as Linux's
 * starts in trace_event_raw_event_NAME. */
__trace_hot_trigger __noinline void trace_event_commit_filtered(const struct trace_event_call *call,
                                                                void *record, size_t size,
                                                                struct rb_reservation *res)
{
    struct percpu *cpu = this_cpu();
    bool scratch_rec = is_scratch(cpu, record);
    unsigned post = 0;
    /* Counted in before the filter is read, so that its replacement waits for us. */
    unsigned reader = sync_read_enter(&trace_event_filter_readers);
    bool top_excluded = false;
    /* Out of line, so that an event with triggers and no instance pays three loads. */
    if (unlikely(READ_ONCE(call->state->instance_mask) |
                 READ_ONCE(call->state->instance_soft_mask) | READ_ONCE(other_pids[cpu->cpu].live)))
        top_excluded = commit_for_instances(cpu, call, record, size, scratch_rec,
                                            (uintptr_t)__builtin_frame_address(0));
    /* Not for a record built only for instances (those triggers already ran,
     * unconditionally), nor one the top level's pid lists left out. The record's time as
     * the trace shows it; one outside the buffer has none: now. */
    if (!top_excluded && (READ_ONCE(call->state->trigger_flags) & TRACE_EVENT_TRIGGERS_COND))
        post =
            event_triggers_call(call, record, size, scratch_rec ? EVENT_TRIGGER_TS_NOW : res->ts);
    struct event_filter *filter = __atomic_load_n(&call->state->filter, __ATOMIC_ACQUIRE);
    bool keep = !scratch_rec && (!filter || event_filter_match(filter, record, size));
    sync_read_exit(&trace_event_filter_readers, reader);
    if (scratch_rec)
        scratch_release(cpu);
    else if (keep)
        rb_commit_inline(res);
    else
        rb_discard(trace_global.buffer, res);
    uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
    if (keep && trace_opt(TRACE_OPT_STACKTRACE))
        trace_stack_from_frame(frame, 0, 0);
    if (post)
        event_triggers_post_call(call, post, frame);
}

void trace_event_commit(const struct trace_event_call *call, void *record, size_t size,
                        struct rb_reservation *res)
{
    trace_event_commit_on(this_cpu(), call, record, size, res);
}

void trace_event_copy_comm(char dst[16], const char *src)
{
    size_t n = strnlen(src, 15);
    memcpy(dst, src, n);
    memset(dst + n, 0, 16 - n);
}

const char *trace_event_get_str(const void *record, size_t len, uint32_t data_loc)
{
    unsigned off = data_loc & 0xffff, n = data_loc >> 16;
    const char *str = (const char *)record + off;
    if (!n || off + n > len || str[n - 1] != '\0')
        return "";
    return str;
}

const char *trace_event_flags_str(char *buf, size_t size, unsigned long value, const char *delim,
                                  const struct trace_event_flag_name *names)
{
    size_t at = 0;
    buf[0] = '\0';
    for (; names->name && value; names++) {
        if ((value & names->mask) != names->mask)
            continue;
        value &= ~names->mask;
        at += (size_t)snprintf(buf + MIN(at, size), at < size ? size - at : 0, "%s%s",
                               at ? delim : "", names->name);
    }
    if (value)
        snprintf(buf + MIN(at, size), at < size ? size - at : 0, "%s0x%lx", at ? delim : "", value);
    return buf;
}

/* ---- the reader side ---- */

bool trace_event_print_record(struct seqbuf *s, const struct rb_record *rec)
{
    const struct trace_event_common *c = (const void *)rec->data;
    if (c->type < TRACE_EVENT_ID_MAX) {
        const struct trace_event_call *call = events_by_id[c->type];
        if (!call || !call->print)
            return false;
        if (!(call->flags & TRACE_EVENT_FL_NO_NAME))
            seq_printf(s, "%s: ", call->name);
        call->print(s, rec->data, rec->len);
        return true;
    }
    /* Counted in before the lookup: a removal waits for this reader (see dyn_events). */
    __atomic_fetch_add(&dyn_readers, 1, __ATOMIC_SEQ_CST);
    const struct trace_event_call *call = dyn_by_id(c->type);
    if (call) {
        seq_printf(s, "%s: ", call->name);
        call->print_call(s, call, rec->data, rec->len);
    }
    __atomic_fetch_sub(&dyn_readers, 1, __ATOMIC_SEQ_CST);
    return call != NULL;
}

void trace_event_print_flags(struct seqbuf *s, const void *record)
{
    const struct trace_event_common *c = record;
    unsigned f = c->flags;
    char out[6];
    out[0] = (f & TRACE_EVENT_FLAG_IRQS_OFF) ? 'd' : '.';
    switch (f & (TRACE_EVENT_FLAG_NEED_RESCHED | TRACE_EVENT_FLAG_PREEMPT_RESCHED)) {
    case TRACE_EVENT_FLAG_NEED_RESCHED | TRACE_EVENT_FLAG_PREEMPT_RESCHED:
        out[1] = 'N';
        break;
    case TRACE_EVENT_FLAG_NEED_RESCHED:
        out[1] = 'n';
        break;
    case TRACE_EVENT_FLAG_PREEMPT_RESCHED:
        out[1] = 'p';
        break;
    default:
        out[1] = '.';
    }
    bool nmi = f & TRACE_EVENT_FLAG_NMI, hard = f & TRACE_EVENT_FLAG_HARDIRQ,
         soft = f & TRACE_EVENT_FLAG_SOFTIRQ;
    out[2] = (nmi && hard) ? 'Z' : nmi ? 'z' : (hard && soft) ? 'H' : hard ? 'h' : soft ? 's' : '.';
    unsigned depth = c->preempt_count & 0xf, migrate = c->preempt_count >> 4;
    out[3] = depth ? "0123456789abcdef"[depth] : '.';
    out[4] = migrate ? "0123456789abcdef"[migrate] : '.';
    out[5] = '\0';
    seq_puts(s, out);
}

/* ---- format files ---- */

static void print_field(struct seqbuf *s, const struct event_field *f)
{
    /* "char[16]" + "comm" reads "char comm[16]"; a __data_loc type stays whole (a probe's
     * array of strings too: "__data_loc char[][2] arr", as Linux prints it). */
    const char *bracket = strchr(f->type, '[');
    if (bracket && f->kind != EVENT_FIELD_DATA_LOC && strncmp(f->type, "__data_loc", 10) != 0)
        seq_printf(s, "\tfield:%.*s %s%s;", (int)(bracket - f->type), f->type, f->name, bracket);
    else
        seq_printf(s, "\tfield:%s %s;", f->type, f->name);
    seq_printf(s, "\toffset:%u;\tsize:%u;\tsigned:%d;\n", f->offset, f->size, f->is_signed);
}

void trace_event_print_format(struct seqbuf *s, const struct trace_event_call *call)
{
    seq_printf(s, "name: %s\nID: %u\nformat:\n", call->name, call->state->id);
    for (size_t i = 0; i < EVENT_COMMON_FIELDS; i++)
        print_field(s, &event_common_fields[i]);
    seq_putc(s, '\n');
    for (size_t i = 0; i < call->nfields; i++)
        print_field(s, &call->fields[i]);
    seq_printf(s, "\nprint fmt: %s\n", call->print_fmt);
}

/* ---- saved_cmdlines ---- */

/*
 * Linux's cache of comms by pid, filled at each context switch while events are on, so a
 * trace read after a thread exited still names it. A ring of slots (the oldest is reused)
 * and a pid-indexed map to them; the writer gives up when another CPU holds the lock, as
 * Linux's does, since it runs inside the scheduler.
 */
#define CMDLINE_PID_MAP 32768
static struct trace_cmdline {
    int pid;
    char comm[THREAD_NAME_LEN];
} * cmdlines;
static unsigned cmdlines_size = TRACE_CMDLINES_DEFAULT, cmdlines_next;
static uint16_t *cmdline_of_pid; /* slot + 1, by pid % CMDLINE_PID_MAP */
static DEFINE_SPINLOCK(cmdline_lock);

/*
 * Nearly every switch is between threads already cached: a lock-free look first. A
 * racing resize may make it read a stale slot; the worst case is one missed update.
 * Slots hold their comm zero-padded, so a comm that is zero-padded too (a thread's name)
 * compares as two words.
 */
static __always_inline bool cmdline_is_saved(int pid, const char *comm, bool padded)
{
    unsigned seen = READ_ONCE(cmdline_of_pid[(unsigned)pid % CMDLINE_PID_MAP]);
    if (!seen || seen > READ_ONCE(cmdlines_size) || cmdlines[seen - 1].pid != pid)
        return false;
    const char *saved = cmdlines[seen - 1].comm;
    if (!padded)
        return strncmp(saved, comm, THREAD_NAME_LEN) == 0;
    typedef uint64_t __attribute__((may_alias)) comm_word;
    const comm_word *a = (const comm_word *)saved, *b = (const comm_word *)comm;
    return ((a[0] ^ b[0]) | (a[1] ^ b[1])) == 0;
}

static __noinline void cmdline_store(int pid, const char *comm)
{
    char padded[THREAD_NAME_LEN] = {0};
    strlcpy(padded, comm, THREAD_NAME_LEN);
    unsigned long irq = arch_irq_save();
    if (!spin_trylock(&cmdline_lock)) {
        arch_irq_restore(irq);
        return;
    }
    unsigned key = (unsigned)pid % CMDLINE_PID_MAP;
    unsigned slot = cmdline_of_pid[key];
    if (!slot || cmdlines[slot - 1].pid != pid) {
        slot = cmdlines_next + 1;
        cmdlines_next = (cmdlines_next + 1) % cmdlines_size;
        int old = cmdlines[slot - 1].pid;
        if (old > 0 && cmdline_of_pid[(unsigned)old % CMDLINE_PID_MAP] == slot)
            cmdline_of_pid[(unsigned)old % CMDLINE_PID_MAP] = 0;
        cmdlines[slot - 1].pid = pid;
        cmdline_of_pid[key] = (uint16_t)slot;
    }
    memcpy(cmdlines[slot - 1].comm, padded, THREAD_NAME_LEN);
    spin_unlock(&cmdline_lock);
    arch_irq_restore(irq);
}

void trace_event_save_cmdline(int pid, const char *comm)
{
    if (pid <= 0 || !cmdlines || cmdline_is_saved(pid, comm, false))
        return;
    cmdline_store(pid, comm);
}

void trace_event_save_thread_cmdline(int pid, const char comm[THREAD_NAME_LEN])
{
    if (pid <= 0 || !cmdlines || cmdline_is_saved(pid, comm, true))
        return;
    cmdline_store(pid, comm);
}

bool trace_cmdline_lookup(int pid, char *buf, size_t len)
{
    if (pid <= 0 || !cmdlines || !len)
        return false;
    /* Without the lock, as the write side's first look: a racing update or resize gives
     * at worst a stale name, never a read outside the arrays. */
    unsigned slot = READ_ONCE(cmdline_of_pid[(unsigned)pid % CMDLINE_PID_MAP]);
    if (!slot || slot > READ_ONCE(cmdlines_size) || READ_ONCE(cmdlines[slot - 1].pid) != pid)
        return false;
    strlcpy(buf, cmdlines[slot - 1].comm, len < THREAD_NAME_LEN ? len : THREAD_NAME_LEN);
    return true;
}

int trace_cmdlines_resize(unsigned long size)
{
    if (size < 1 || size > TRACE_CMDLINES_MAX)
        return -EINVAL;
    struct trace_cmdline *fresh = kzalloc(size * sizeof(*fresh));
    uint16_t *map = cmdline_of_pid ? NULL : kzalloc(CMDLINE_PID_MAP * sizeof(*map));
    if (!fresh || (!cmdline_of_pid && !map)) {
        kfree(fresh);
        kfree(map);
        return -ENOMEM;
    }
    unsigned long irq = spin_lock_irqsave(&cmdline_lock);
    struct trace_cmdline *old = cmdlines;
    if (map)
        cmdline_of_pid = map;
    /* As Linux: a new size starts an empty cache. */
    memset(cmdline_of_pid, 0, CMDLINE_PID_MAP * sizeof(*cmdline_of_pid));
    cmdlines = fresh;
    cmdlines_size = (unsigned)size;
    cmdlines_next = 0;
    spin_unlock_irqrestore(&cmdline_lock, irq);
    kfree(old);
    return 0;
}

unsigned trace_cmdlines_size(void) { return cmdlines_size; }

void trace_cmdlines_show(struct seqbuf *s, bool tgids)
{
    unsigned long irq = spin_lock_irqsave(&cmdline_lock);
    unsigned n = cmdlines ? cmdlines_size : 0;
    /* Copy out first: seq_printf allocates, which must not happen under this lock. */
    struct trace_cmdline *copy = NULL;
    spin_unlock_irqrestore(&cmdline_lock, irq);
    if (n)
        copy = kmalloc(n * sizeof(*copy));
    if (!copy)
        return;
    irq = spin_lock_irqsave(&cmdline_lock);
    n = MIN(n, cmdlines_size);
    memcpy(copy, cmdlines, n * sizeof(*copy));
    spin_unlock_irqrestore(&cmdline_lock, irq);
    if (!tgids) {
        for (unsigned i = 0; i < n; i++)
            if (copy[i].pid > 0)
                seq_printf(s, "%d %s\n", copy[i].pid, copy[i].comm);
    } else {
        /* Every thread is its own process here: its tgid is its pid. Ascending, as
         * Linux walks its pid-indexed tgid map. */
        int last = 0;
        for (;;) {
            int next = 0;
            for (unsigned i = 0; i < n; i++)
                if (copy[i].pid > last && (!next || copy[i].pid < next))
                    next = copy[i].pid;
            if (!next)
                break;
            seq_printf(s, "%d %d\n", next, next);
            last = next;
        }
    }
    kfree(copy);
}

static void trace_cmdlines_init(void)
{
    if (trace_cmdlines_resize(TRACE_CMDLINES_DEFAULT))
        printk("trace events: no memory for saved_cmdlines\n");
}
CORE_INITCALL(trace_cmdlines_init);
