/*
 * The tracing core: one trace array (the per-CPU ring buffer plus the switches that
 * decide what gets recorded), the tracers registered by linker section, the event
 * writers the tracers share, and the iterator that merges CPU buffers by time.
 */
#include <arch/cpu.h>
#include <arch/unwind.h>
#include <kernel/errno.h>
#include <kernel/init.h>
#include <kernel/mutex.h>
#include <kernel/panic.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "events/event_trigger.h"
#include "trace_internal.h"

const struct trace_option_def trace_option_defs[TRACE_OPT_COUNT] = {
    [TRACE_OPT_PRINT_PARENT] = {"print-parent", true, NULL},
    [TRACE_OPT_SYM_OFFSET] = {"sym-offset", false, NULL},
    [TRACE_OPT_SYM_ADDR] = {"sym-addr", false, NULL},
    [TRACE_OPT_CONTEXT_INFO] = {"context-info", true, NULL},
    [TRACE_OPT_LATENCY_FORMAT] = {"latency-format", false, NULL},
    [TRACE_OPT_OVERWRITE] = {"overwrite", true, NULL},
    [TRACE_OPT_DISABLE_ON_FREE] = {"disable_on_free", false, NULL},
    [TRACE_OPT_IRQ_INFO] = {"irq-info", true, NULL},
    [TRACE_OPT_MARKERS] = {"markers", true, NULL},
    [TRACE_OPT_EVENT_FORK] = {"event-fork", false, NULL},
    [TRACE_OPT_FUNCTION_TRACE] = {"function-trace", true, NULL},
    [TRACE_OPT_FUNCTION_FORK] = {"function-fork", false, NULL},
    [TRACE_OPT_DISPLAY_GRAPH] = {"display-graph", false, NULL},
    [TRACE_OPT_STACKTRACE] = {"stacktrace", false, NULL},
    [TRACE_OPT_FUNC_STACK_TRACE] = {"func_stack_trace", false, "function"},
    [TRACE_OPT_GRAPH_OVERRUN] = {"funcgraph-overrun", false, "function_graph"},
    [TRACE_OPT_GRAPH_CPU] = {"funcgraph-cpu", true, "function_graph"},
    [TRACE_OPT_GRAPH_OVERHEAD] = {"funcgraph-overhead", true, "function_graph"},
    [TRACE_OPT_GRAPH_PROC] = {"funcgraph-proc", false, "function_graph"},
    [TRACE_OPT_GRAPH_DURATION] = {"funcgraph-duration", true, "function_graph"},
    [TRACE_OPT_GRAPH_ABSTIME] = {"funcgraph-abstime", false, "function_graph"},
    [TRACE_OPT_GRAPH_IRQS] = {"funcgraph-irqs", true, "function_graph"},
    [TRACE_OPT_GRAPH_TAIL] = {"funcgraph-tail", false, "function_graph"},
    /* Linux 6.5's (after the 6.1 this otherwise follows): return values in the graph. */
    [TRACE_OPT_GRAPH_RETVAL] = {"funcgraph-retval", false, "function_graph"},
    [TRACE_OPT_GRAPH_RETVAL_HEX] = {"funcgraph-retval-hex", false, "function_graph"},
};

struct trace_array trace_global;
struct trace_array *trace_printing = &trace_global;

/* ---- clocks (all untraced; they run inside every event) ---- */

static uint64_t global_clock_last;
static uint64_t counter_clock;

/* Monotonic across CPUs, not only on each: never returns less than any CPU saw. */
static uint64_t clock_global(void)
{
    uint64_t now = clock_ns();
    uint64_t last = __atomic_load_n(&global_clock_last, __ATOMIC_RELAXED);
    while (now > last)
        if (__atomic_compare_exchange_n(&global_clock_last, &last, now, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            return now;
    return last;
}

static uint64_t clock_counter(void)
{
    return __atomic_add_fetch(&counter_clock, 1, __ATOMIC_RELAXED);
}

static uint64_t clock_uptime(void)
{
    /* Tick resolution, as Linux's jiffies-based uptime clock. */
    return clock_ns() / NSEC_PER_MSEC * NSEC_PER_MSEC;
}

static const struct {
    const char *name;
    uint64_t (*read)(void);
    bool ns;
} trace_clocks[TRACE_CLOCK_COUNT] = {[TRACE_CLOCK_LOCAL] = {"local", clock_ns, true},
                                     [TRACE_CLOCK_GLOBAL] = {"global", clock_global, true},
                                     [TRACE_CLOCK_COUNTER] = {"counter", clock_counter, false},
                                     [TRACE_CLOCK_UPTIME] = {"uptime", clock_uptime, true},
                                     ARCH_TRACE_CLOCKS};

uint64_t trace_clock_read(void) { return trace_clocks[trace_global.clock].read(); }
uint64_t (*trace_clock_reader(void))(void) { return trace_clocks[trace_global.clock].read; }
uint64_t (*trace_array_clock_reader(const struct trace_array *tr))(void)
{
    return trace_clocks[tr->clock].read;
}
const char *trace_clock_name(enum trace_clock_id id) { return trace_clocks[id].name; }
bool trace_clock_is_ns(void) { return trace_array_clock_is_ns(&trace_global); }
bool trace_array_clock_is_ns(const struct trace_array *tr) { return READ_ONCE(tr->clock_ns); }

int trace_array_set_clock(struct trace_array *tr, const char *name)
{
    for (int i = 0; i < TRACE_CLOCK_COUNT; i++) {
        if (strcmp(name, trace_clocks[i].name) != 0)
            continue;
        trace_array_last_boot_end(tr);
        tr->clock = i;
        WRITE_ONCE(tr->clock_ns, trace_clocks[i].ns);
        /* Times of two clocks do not mix: the buffer is cleared, as Linux does. */
        rb_set_clock(tr->buffer, trace_clocks[i].read);
        if (rb_is_in_range(tr->buffer))
            rb_range_set_clock_id(tr->buffer, (uint32_t)i);
        tr->time_start = trace_clocks[i].read();
        trace_snapshot_clock_changed(tr);
        return 0;
    }
    return -EINVAL;
}

int trace_set_clock(const char *name) { return trace_array_set_clock(&trace_global, name); }

void trace_array_restore_clock(struct trace_array *tr, uint32_t id)
{
    if (id >= TRACE_CLOCK_COUNT)
        return;
    tr->clock = (enum trace_clock_id)id;
    WRITE_ONCE(tr->clock_ns, trace_clocks[id].ns);
    rb_range_restore_clock(tr->buffer, trace_clocks[id].read);
}

/* ---- writers ---- */

static bool pid_in(const int *pids, unsigned n, int pid)
{
    for (unsigned i = 0; i < n; i++)
        if (pids[i] == pid)
            return true;
    return false;
}

static bool array_pid_allowed(const struct trace_array *tr, struct percpu *cpu)
{
    int pid = cpu->current ? cpu->current->pid : 0;
    unsigned n = __atomic_load_n(&tr->pid_count, __ATOMIC_ACQUIRE);
    if (n && !pid_in(tr->pids, n, pid))
        return false;
    n = __atomic_load_n(&tr->notrace_pid_count, __ATOMIC_ACQUIRE);
    return !pid_in(tr->notrace_pids, n, pid);
}

bool trace_pid_allowed(struct percpu *cpu) { return array_pid_allowed(&trace_global, cpu); }

bool trace_array_record_filtered(const struct trace_array *tr, struct percpu *cpu)
{
    return ((tr->cpumask >> cpu->cpu) & 1) &&
           ((tr->pid_count | tr->notrace_pid_count) == 0 || array_pid_allowed(tr, cpu));
}

bool trace_record_filtered(struct percpu *cpu)
{
    return trace_array_record_filtered(&trace_global, cpu);
}

/* Both words change together, so that record_filters never says "every CPU" wrongly. */
static DEFINE_SPINLOCK(trace_cpumask_lock);

void trace_array_set_cpumask(struct trace_array *tr, uint32_t mask)
{
    unsigned long irq = spin_lock_irqsave(&trace_cpumask_lock);
    tr->cpumask = mask;
    WRITE_ONCE(tr->cpus_excluded, (cpu_online_mask() & ~mask) != 0);
    spin_unlock_irqrestore(&trace_cpumask_lock, irq);
}

void trace_set_cpumask(uint32_t mask) { trace_array_set_cpumask(&trace_global, mask); }

static DEFINE_SPINLOCK(trace_pids_lock);

static int *pid_list(struct trace_array *tr, enum trace_pid_list which, volatile uint16_t **count)
{
    *count = which == TRACE_PIDS_TRACE ? &tr->pid_count : &tr->notrace_pid_count;
    return which == TRACE_PIDS_TRACE ? tr->pids : tr->notrace_pids;
}

static int pids_add_locked(struct trace_array *tr, enum trace_pid_list which, int pid)
{
    volatile uint16_t *count;
    int *pids = pid_list(tr, which, &count);
    unsigned n = *count;
    if (pid_in(pids, n, pid))
        return 0;
    if (n == TRACE_PIDS_MAX)
        return -ENOSPC;
    pids[n] = pid;
    /* The pid is in place before the count that makes writers of events look at it. */
    __atomic_store_n(count, (uint16_t)(n + 1), __ATOMIC_RELEASE);
    return 0;
}

static void pids_remove_locked(struct trace_array *tr, enum trace_pid_list which, int pid)
{
    volatile uint16_t *count;
    int *pids = pid_list(tr, which, &count);
    unsigned n = *count;
    for (unsigned i = 0; i < n; i++) {
        if (pids[i] != pid)
            continue;
        /* The last pid takes its place: a racing reader sees one or the other. */
        pids[i] = pids[n - 1];
        __atomic_store_n(count, (uint16_t)(n - 1), __ATOMIC_RELEASE);
        return;
    }
}

int trace_array_pids_add(struct trace_array *tr, enum trace_pid_list which, int pid)
{
    unsigned long irq = spin_lock_irqsave(&trace_pids_lock);
    int err = pids_add_locked(tr, which, pid);
    spin_unlock_irqrestore(&trace_pids_lock, irq);
    trace_event_update_follow();
    return err;
}

void trace_array_pids_clear(struct trace_array *tr, enum trace_pid_list which)
{
    volatile uint16_t *count;
    pid_list(tr, which, &count);
    unsigned long irq = spin_lock_irqsave(&trace_pids_lock);
    __atomic_store_n(count, 0, __ATOMIC_RELEASE);
    spin_unlock_irqrestore(&trace_pids_lock, irq);
    trace_event_update_follow();
}

int trace_pids_add(enum trace_pid_list which, int pid)
{
    return trace_array_pids_add(&trace_global, which, pid);
}

void trace_pids_clear(enum trace_pid_list which) { trace_array_pids_clear(&trace_global, which); }

/*
 * options/function-fork, as Linux: a child of a listed thread joins its parent's list
 * (in either file), and a freed thread (parent < 0) leaves them, in each array, the top
 * level or an instance, that has the option on. A full list drops the child silently, as
 * a Linux pid bitmap never fills. The instances are held against removal meanwhile.
 */
static void follow_each(int parent, int child)
{
    unsigned reader = sync_read_enter(&trace_instance_writers);
    for (int slot = -1; slot < TRACE_INSTANCES_MAX; slot++) {
        struct trace_array *tr = slot < 0 ? &trace_global : READ_ONCE(trace_instances[slot]);
        if (!tr || !trace_array_opt(tr, TRACE_OPT_FUNCTION_FORK))
            continue;
        for (int which = TRACE_PIDS_TRACE; which <= TRACE_PIDS_NOTRACE; which++) {
            volatile uint16_t *count;
            int *pids = pid_list(tr, (enum trace_pid_list)which, &count);
            if (parent < 0)
                pids_remove_locked(tr, (enum trace_pid_list)which, child);
            else if (pid_in(pids, *count, parent))
                pids_add_locked(tr, (enum trace_pid_list)which, child);
        }
    }
    sync_read_exit(&trace_instance_writers, reader);
}

void trace_pids_follow(int parent, int child)
{
    unsigned long irq = spin_lock_irqsave(&trace_pids_lock);
    follow_each(parent, child);
    spin_unlock_irqrestore(&trace_pids_lock, irq);
}

void trace_pids_forget(int pid)
{
    unsigned long irq = spin_lock_irqsave(&trace_pids_lock);
    follow_each(-1, pid);
    spin_unlock_irqrestore(&trace_pids_lock, irq);
}

static void trace_stack_commit(struct trace_array *tr, const uint32_t *calls, unsigned nr,
                               unsigned extra_preempt)
{
    struct rb_reservation res;
    struct trace_stack_event *ev = rb_reserve(tr->buffer, 8 + nr * 4, &res);
    if (!ev)
        return;
    ev->ctx = trace_ctx_now(TRACE_STACK, extra_preempt);
    ev->nr = nr;
    memcpy(ev->calls, calls, nr * 4);
    rb_commit(tr->buffer, &res);
}

void trace_stack_from(unsigned long ip, unsigned long *parent_slot, unsigned extra_preempt)
{
    trace_array_stack_from(&trace_global, ip, parent_slot, extra_preempt);
}

void trace_array_stack_from(struct trace_array *tr, unsigned long ip, unsigned long *parent_slot,
                            unsigned extra_preempt)
{
    uint32_t calls[TRACE_STACK_MAX];
    unsigned nr = 0;
    struct thread *t = this_cpu()->current;
    unsigned long parent_ip = unwind_real_return(t, *parent_slot, parent_slot);
    if (ip)
        calls[nr++] = trace_addr_pack(ip);
    if (parent_ip)
        calls[nr++] = trace_addr_pack(parent_ip);
    /* The rest from the frame chain, each frame above the last. */
    struct unwind_state st;
    unwind_start(&st, t, arch_ftrace_caller_frame(parent_slot), 0, 0);
    st.strict = true;
    while (nr < TRACE_STACK_MAX && unwind_next(&st))
        calls[nr++] = trace_addr_pack(st.ret);
    trace_stack_commit(tr, calls, nr, extra_preempt);
}

void trace_stack_from_frame(uintptr_t frame, unsigned skip, unsigned extra_preempt)
{
    trace_array_stack_from_frame(&trace_global, frame, skip, extra_preempt);
}

void trace_array_stack_from_frame(struct trace_array *tr, uintptr_t frame, unsigned skip,
                                  unsigned extra_preempt)
{
    uint32_t calls[TRACE_STACK_MAX];
    unsigned nr = 0;
    struct unwind_state st;
    unwind_start(&st, this_cpu()->current, frame, 0, 0);
    st.strict = true;
    while (nr < TRACE_STACK_MAX && unwind_next(&st)) {
        if (skip) {
            skip--;
            continue;
        }
        calls[nr++] = trace_addr_pack(st.ret);
    }
    if (nr)
        trace_stack_commit(tr, calls, nr, extra_preempt);
}

int trace_print(const char *text, size_t len)
{
    return trace_array_print(&trace_global, text, len);
}

int trace_array_print(struct trace_array *tr, const char *text, size_t len)
{
    if (!((tr->options >> TRACE_OPT_MARKERS) & 1))
        return -EINVAL;
    trace_array_last_boot_end(tr);
    if (len > TRACE_PRINT_MAX - 1)
        len = TRACE_PRINT_MAX - 1;
    preempt_disable();
    /* As Linux: set_ftrace_pid is for function tracing and does not hold markers back,
     * but a CPU outside tracing_cpumask records nothing, and a write the buffer refuses
     * fails with EBADF (tracing_mark_write). */
    struct rb_reservation res;
    struct trace_print_event *ev = NULL;
    if ((tr->cpumask >> this_cpu_id()) & 1)
        ev = rb_reserve(tr->buffer, 8 + len + 1, &res);
    if (ev) {
        ev->ctx = trace_ctx_now(TRACE_PRINT, 1);
        ev->len = len;
        memcpy(ev->text, text, len);
        ev->text[len] = '\0';
        rb_commit(tr->buffer, &res);
        /* As Linux: the triggers on ftrace:print run for each marker recorded, those of
         * the array written to. */
        trace_event_marker_triggers(tr, (unsigned long)__builtin_return_address(0), text, len,
                                    res.ts);
    }
    preempt_enable();
    return ev ? 0 : -EBADF;
}

/* ---- tracers and buffer control ---- */

const struct tracer *trace_find_tracer(const char *name)
{
    for (const struct tracer *t = __start_tracers; t < __stop_tracers; t++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

/* A mutex, not a spinlock: a tracer with threads of its own (osnoise, timerlat) stops
 * and joins them in its reset, which sleeps. */
static DEFINE_MUTEX(tracer_switch_lock);

/* An instance's switch: only tracers that allow instances, through their instance hooks. */
static int instance_set_tracer(struct trace_array *tr, const struct tracer *t)
{
    if (!t->allow_instances)
        return -EINVAL;
    if (t == tr->current)
        return 0;
    const struct tracer *old = tr->current;
    if (old && old->instance_reset)
        old->instance_reset(tr);
    tr->current = trace_find_tracer("nop");
    trace_array_clear(tr, -1);
    int err = t->instance_init ? t->instance_init(tr) : 0;
    if (!err)
        tr->current = t;
    return err;
}

int trace_array_set_tracer(struct trace_array *tr, const char *name)
{
    if (tr == &trace_global)
        return trace_set_tracer(name);
    const struct tracer *t = trace_find_tracer(name);
    return t ? instance_set_tracer(tr, t) : -EINVAL;
}

int trace_set_tracer(const char *name)
{
    const struct tracer *t = trace_find_tracer(name);
    if (!t)
        return -EINVAL;
    /* A latency tracer keeps its maximum in the snapshot buffer, which it starts from
     * empty; allocating may sleep, so it comes before the switch's lock. */
    if (t->use_max_tr && t != trace_global.current) {
        /* A conditional snapshot's owner has the buffer (Linux: EBUSY). Both changes hold
         * the control lock, so neither can come between this test and the switch. */
        if (tracing_snapshot_cond_active(&trace_global))
            return -EBUSY;
        int err = tracing_alloc_snapshot(&trace_global);
        if (err)
            return err;
        trace_snapshot_write(&trace_global, -1, 2);
    }
    /* Switching tracers is rare and may wait for CPUs; one at a time. */
    if (!mutex_trylock(&tracer_switch_lock))
        return -EBUSY;
    int err = 0;
    if (t != trace_global.current) {
        const struct tracer *old = trace_global.current;
        if (old && old->reset)
            old->reset();
        trace_global.current = NULL;
        trace_clear(-1);
        if (t->init)
            err = t->init();
        if (err) {
            /* Leave the nop tracer in charge rather than a half-started one. */
            trace_global.current = trace_find_tracer("nop");
        } else {
            trace_global.current = t;
            /*
             * An option set while the tracer started, before it was current, called no
             * option_changed: let it read them all once more. The fence orders the store
             * of current before that read, as trace_set_option's locked update orders its
             * option before its read of current: one of the two sees the other.
             */
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
            if (t->option_changed)
                t->option_changed(TRACE_OPT_COUNT, false);
        }
        /* As Linux's tracers, any tracer but nop keeps saved_cmdlines up to date. */
        trace_event_save_cmdlines_for_tracer(trace_global.current != trace_find_tracer("nop"));
    }
    mutex_unlock(&tracer_switch_lock);
    return err;
}

void trace_array_clear(struct trace_array *tr, int cpu)
{
    if (cpu < 0)
        trace_array_last_boot_end(tr);
    rb_reset(tr->buffer, cpu);
    if (cpu < 0)
        tr->time_start = trace_clocks[tr->clock].read();
}

void trace_clear(int cpu) { trace_array_clear(&trace_global, cpu); }

static DEFINE_SPINLOCK(tracing_on_lock);

/* tracing_on: recording only; the tracers keep running (as Linux). */
void trace_array_set_on(struct trace_array *tr, bool on)
{
    unsigned long flags = spin_lock_irqsave(&tracing_on_lock);
    if (on != tr->tracing_is_on) {
        if (on)
            rb_record_enable(tr->buffer);
        else
            rb_record_disable(tr->buffer);
        tr->tracing_is_on = on;
    }
    spin_unlock_irqrestore(&tracing_on_lock, flags);
}

void trace_set_on(bool on) { trace_array_set_on(&trace_global, on); }

void trace_array_set_option(struct trace_array *tr, unsigned opt, bool on)
{
    if (tr == &trace_global) {
        trace_set_option(opt, on);
        return;
    }
    uint64_t bit = 1ULL << opt;
    if (on)
        __atomic_fetch_or(&tr->options, bit, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_and(&tr->options, ~bit, __ATOMIC_SEQ_CST);
    if (opt == TRACE_OPT_OVERWRITE)
        rb_set_overwrite(tr->buffer, on);
    if (opt == TRACE_OPT_EVENT_FORK || opt == TRACE_OPT_FUNCTION_FORK)
        trace_event_update_follow();
}

void trace_set_option(unsigned opt, bool on)
{
    uint64_t bit = 1ULL << opt;
    /* Ordered before the read of current below (see trace_set_tracer). */
    if (on)
        __atomic_fetch_or(&trace_global.options, bit, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_and(&trace_global.options, ~bit, __ATOMIC_SEQ_CST);
    if (opt == TRACE_OPT_OVERWRITE)
        rb_set_overwrite(trace_global.buffer, on);
    if (opt == TRACE_OPT_EVENT_FORK || opt == TRACE_OPT_FUNCTION_FORK)
        trace_event_update_follow();
    if (opt == TRACE_OPT_STACKTRACE)
        trace_event_stacktrace_option(on);
    const struct tracer *t = __atomic_load_n(&trace_global.current, __ATOMIC_SEQ_CST);
    if (t && t->option_changed)
        t->option_changed(opt, on);
}

int trace_array_resize(struct trace_array *tr, int cpu, unsigned long kb)
{
    if (kb == 0)
        return -EINVAL;
    if (kb > (1UL << 30) / 1024)
        return -ENOMEM;
    return trace_buffers_resize(tr, cpu, kb * 1024);
}

int trace_resize(int cpu, unsigned long kb) { return trace_array_resize(&trace_global, cpu, kb); }

/* ---- the merging iterator ---- */

struct trace_iter *trace_iter_open(bool consume, int cpu_only)
{
    return trace_array_iter_open(&trace_global, consume, cpu_only);
}

struct trace_iter *trace_array_iter_open(struct trace_array *tr, bool consume, int cpu_only)
{
    struct trace_iter *it = trace_iter_open_buffer(tr->buffer, consume, cpu_only);
    if (it)
        it->tr = tr;
    return it;
}

struct trace_iter *trace_iter_open_buffer(struct ring_buffer *rb, bool consume, int cpu_only)
{
    struct trace_iter *it = kzalloc(sizeof(*it));
    if (!it)
        return NULL;
    it->buffer = rb;
    it->tr = &trace_global;
    it->consume = consume;
    it->cpu_only = cpu_only;
    /* Everything a read needs is allocated here: a CPU whose iterator or record slot
     * could not be had would otherwise drop out of the output without a word. */
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online || (cpu_only >= 0 && (int)c != cpu_only))
            continue;
        it->head[c] = kmalloc(sizeof(struct rb_record));
        if (!consume)
            it->iters[c] = rb_iter_start(rb, c);
        if (!it->head[c] || (!consume && !it->iters[c])) {
            trace_iter_close(it);
            return NULL;
        }
    }
    return it;
}

void trace_iter_close(struct trace_iter *it)
{
    if (!it)
        return;
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (it->iters[c])
            rb_iter_finish(it->iters[c]);
        kfree(it->head[c]);
    }
    kfree(it->tracer_state);
    kfree(it);
}

static bool iter_wants_cpu(struct trace_iter *it, unsigned c)
{
    return cpu_data(c)->online && (it->cpu_only < 0 || (int)c == it->cpu_only);
}

/* Makes sure CPU c's next event, if any, sits in its head slot. */
static bool iter_fill(struct trace_iter *it, unsigned c)
{
    if (it->head_full[c])
        return true;
    /* trace_iter_open allocated a slot for every CPU online then; CPUs never come later. */
    struct rb_record *r = it->head[c];
    if (!r)
        return false;
    if (it->consume) {
        unsigned long lost = 0;
        if (!rb_consume(it->buffer, c, r, &lost))
            return false;
        it->lost[c] += lost;
    } else {
        do {
            if (!it->iters[c] || !rb_iter_peek(it->iters[c], r))
                return false;
            rb_iter_next(it->iters[c]);
        } while (r->ts < it->skip_before);
    }
    r->cpu = c;
    it->head_full[c] = true;
    return true;
}

bool trace_iter_next(struct trace_iter *it)
{
    int best = -1;
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!iter_wants_cpu(it, c) || !iter_fill(it, c))
            continue;
        if (best < 0 || it->head[c]->ts < it->head[best]->ts)
            best = (int)c;
    }
    it->have_rec = best >= 0;
    if (best >= 0) {
        memcpy(&it->rec, it->head[best], sizeof(it->rec));
        it->head_full[best] = false;
    }
    return it->have_rec;
}

const struct rb_record *trace_iter_peek_cpu(struct trace_iter *it, unsigned cpu)
{
    if (cpu >= MAX_CPUS || !iter_wants_cpu(it, cpu) || !iter_fill(it, cpu))
        return NULL;
    return it->head[cpu];
}

void trace_iter_drop_peeked(struct trace_iter *it, unsigned cpu) { it->head_full[cpu] = false; }

/* ---- boot ---- */

int trace_array_init(struct trace_array *tr, size_t bytes_per_cpu)
{
    struct ring_buffer *rb = rb_create(bytes_per_cpu, cpus_online);
    if (!rb)
        return -ENOMEM;
    rb_set_clock(rb, clock_ns);
    trace_array_init_on(tr, rb);
    return 0;
}

void trace_array_init_on(struct trace_array *tr, struct ring_buffer *rb)
{
    tr->buffer = rb;
    tr->clock_ns = true;
    trace_array_set_cpumask(tr, cpu_online_mask());
    for (unsigned o = 0; o < TRACE_OPT_COUNT; o++)
        if (trace_option_defs[o].default_on)
            tr->options |= 1ULL << o;
    tr->tracing_is_on = true;
    tr->buffer_percent = 50;
    tr->all_cpus = (struct trace_file_ref){tr, -1};
    for (unsigned c = 0; c < MAX_CPUS; c++)
        tr->cpu_refs[c] = (struct trace_file_ref){tr, (int)c};
    tr->pid_refs[TRACE_PIDS_TRACE] = (struct trace_file_ref){tr, TRACE_PIDS_TRACE};
    tr->pid_refs[TRACE_PIDS_NOTRACE] = (struct trace_file_ref){tr, TRACE_PIDS_NOTRACE};
    tr->current = trace_find_tracer("nop");
    tr->time_start = clock_ns();
}

static void trace_init(void)
{
    if (trace_array_init(&trace_global, TRACE_DEFAULT_KB * 1024))
        panic("trace: no memory for the ring buffer");
    for (unsigned c = 0; c < MAX_CPUS; c++)
        cpu_data(c)->trace_buffer = rb_cpu_buffer(trace_global.buffer, c);
}
CORE_INITCALL(trace_init);
