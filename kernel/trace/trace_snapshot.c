/*
 * The snapshot of a trace array, as Linux 6.1's: a second buffer, as big as the live one
 * on every CPU, that `echo 1 > snapshot`, the `snapshot` function command and the
 * `snapshot` event trigger swap the live events into, while the live buffer goes on
 * recording in the pages the snapshot had. Reading `snapshot` shows the swapped-out
 * events in the `trace` format.
 *
 * Two ways to swap:
 *  - from thread context (the file), every CPU swaps in a cross-CPU call the caller waits
 *    for; a CPU that was halfway through one of its own events is asked again until its
 *    call finds it between events, so nothing is ever left out;
 *  - from any other context (a function probe or an event trigger, perhaps inside the
 *    scheduler), this CPU swaps at once and the others from a cross-CPU call that is
 *    not waited for; a CPU that cannot swap right then keeps its events
 *    (snapshot_missed), as Linux's per-CPU swap fails in the same case.
 * The swap itself, and why no writer ever writes into the buffer read as the snapshot,
 * is rb_swap_this_cpu (ring_buffer_control.c).
 *
 * Everything that changes which buffer exists or what size it has runs in thread context
 * under snapshot_mutex, with the trace array's snapshot_hold raised so that swaps from
 * atomic context keep out of it meanwhile. *
 * A conditional snapshot (trace_internal.h) puts an owner's test before each swap it asks
 * for, and keeps every other swap out while it lasts.
 */
#include <arch/cpu.h>
#include <kernel/errno.h>
#include <kernel/mutex.h>
#include <kernel/panic.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/trace_events.h>

#include "trace_internal.h"

static DEFINE_MUTEX(snapshot_mutex);

/* ---- swapping ---- */

/* On the CPU that swaps, interrupts off. */
static int snapshot_swap_here(struct trace_array *tr)
{
    struct ring_buffer *spare = READ_ONCE(tr->snapshot);
    if (!spare)
        return -ENODEV;
    return rb_swap_this_cpu(tr->buffer, spare);
}

/*
 * Swaps asked for from atomic context. The call on the CPU itself cannot wait for a
 * writer it interrupted (that writer is below it on the same stack), so it hands the
 * request to another CPU, which watches the writer leave and sends the call again; a new
 * request for a CPU while one is under way joins it, so a CPU never swaps twice for one
 * snapshot.
 */
static void snapshot_request_done(struct trace_snapshot_request *req, bool missed)
{
    if (missed)
        __atomic_fetch_add(&req->tr->snapshot_missed, 1, __ATOMIC_RELAXED);
    req->tries = 0;
    __atomic_store_n(&req->pending, false, __ATOMIC_RELEASE);
}

/* Another online CPU than cpu, to watch it; cpu itself when there is none. */
static unsigned snapshot_watcher_for(unsigned cpu)
{
    cpumask_t others = cpu_online_mask() & ~(1u << cpu);
    return others ? (unsigned)__builtin_ctz(others) : cpu;
}

static void snapshot_async_swap(void *arg)
{
    struct trace_snapshot_request *req = arg;
    struct trace_array *tr = req->tr;
    if (READ_ONCE(tr->snapshot_hold)) {
        snapshot_request_done(req, true);
        return;
    }
    int err = snapshot_swap_here(tr);
    unsigned watcher = snapshot_watcher_for(req->cpu);
    if (err == -EAGAIN && watcher != req->cpu && req->tries < TRACE_SNAPSHOT_TRIES) {
        req->tries++;
        smp_call_async(watcher, &req->retry);
        return;
    }
    snapshot_request_done(req, err != 0);
}

/* On the watching CPU, interrupts off: a writer's event takes well under this. */
#define SNAPSHOT_WATCH_NS 50000

static void snapshot_async_retry(void *arg)
{
    struct trace_snapshot_request *req = arg;
    struct ring_buffer *live = req->tr->buffer;
    uint64_t until = clock_ns() + SNAPSHOT_WATCH_NS;
    while (rb_writer_inside(live, req->cpu) && clock_ns() < until)
        arch_cpu_relax();
    smp_call_async(req->cpu, &req->swap);
}

/*
 * Control operations raise the hold and then wait for swaps from atomic context already
 * under way: each runs with interrupts off on its CPU, and the sync round completes only
 * once every CPU took an interrupt after the hold was visible.
 */
static void snapshot_hold_begin(struct trace_array *tr)
{
    __atomic_fetch_add(&tr->snapshot_hold, 1, __ATOMIC_SEQ_CST);
    smp_sync_all();
}

static void snapshot_hold_end(struct trace_array *tr)
{
    __atomic_fetch_sub(&tr->snapshot_hold, 1, __ATOMIC_SEQ_CST);
}

struct snapshot_sync_swap {
    struct trace_array *tr;
    int err[MAX_CPUS];
};

static void snapshot_sync_swap_here(void *arg)
{
    struct snapshot_sync_swap *req = arg;
    req->err[this_cpu_id()] = snapshot_swap_here(req->tr);
}

/* Every online CPU swaps; under snapshot_mutex, in thread context. */
static int snapshot_swap_all(struct trace_array *tr)
{
    struct snapshot_sync_swap req = {.tr = tr};
    cpumask_t todo = cpu_online_mask();
    int result = 0;

    /* All at once, so that the CPUs' snapshots end within microseconds of each other. */
    for (unsigned round = 0; todo; round++) {
        smp_call_function(todo, snapshot_sync_swap_here, &req, true);
        cpumask_t again = 0;
        for (unsigned c = 0; c < MAX_CPUS; c++) {
            if (!(todo & (1u << c)))
                continue;
            if (req.err[c] == -EAGAIN)
                again |= 1u << c;
            else if (req.err[c])
                result = req.err[c];
        }
        todo = again;
        /* The writer we interrupted finishes its event within a few microseconds unless
         * it was itself preempted by a long interrupt: give it that time. */
        if (todo && round > 16)
            sleep_ns(NSEC_PER_MSEC / 10);
    }
    return result;
}

/* The same values every time: a call of an earlier request still running reads them
 * whole. */
static void snapshot_request_init(struct trace_snapshot_request *req, struct trace_array *tr,
                                  unsigned cpu)
{
    req->tr = tr;
    req->cpu = cpu;
    req->swap.fn = snapshot_async_swap;
    req->swap.arg = req;
    req->retry.fn = snapshot_async_retry;
    req->retry.arg = req;
}

/* Linux's marker lines carry the name of the function that writes them. */
static __noinline int tracing_snapshot_instance_cond(struct trace_array *tr)
{
    if (this_cpu()->nmi_depth) {
        trace_printk("*** SNAPSHOT CALLED FROM NMI CONTEXT ***\n");
        trace_printk("*** snapshot is being ignored        ***\n");
        return -EBUSY;
    }
    if (!READ_ONCE(tr->snapshot)) {
        trace_printk("*** SNAPSHOT NOT ALLOCATED ***\n");
        trace_printk("*** stopping trace here!   ***\n");
        trace_set_on(false);
        return -ENODEV;
    }
    unsigned long flags = arch_irq_save();
    unsigned me = this_cpu_id();
    cpumask_t online = cpu_online_mask();
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        struct trace_snapshot_request *req = &tr->snapshot_requests[c];
        if (c == me || !(online & (1u << c)) ||
            __atomic_exchange_n(&req->pending, true, __ATOMIC_ACQ_REL))
            continue;
        snapshot_request_init(req, tr, c);
        smp_call_async(c, &req->swap);
    }
    /* This CPU at once, unless the caller interrupted one of its writers (an event
     * trigger in an interrupt): then, as for the others, a watcher asks again. */
    int err = READ_ONCE(tr->snapshot_hold) ? -EBUSY : snapshot_swap_here(tr);
    struct trace_snapshot_request *mine = &tr->snapshot_requests[me];
    unsigned watcher = snapshot_watcher_for(me);
    if (err == -EAGAIN && watcher != me &&
        !__atomic_exchange_n(&mine->pending, true, __ATOMIC_ACQ_REL)) {
        snapshot_request_init(mine, tr, me);
        mine->tries = 1;
        smp_call_async(watcher, &mine->retry);
    } else if (err) {
        __atomic_fetch_add(&tr->snapshot_missed, 1, __ATOMIC_RELAXED);
    }
    arch_irq_restore(flags);
    return 0;
}

int tracing_snapshot(struct trace_array *tr)
{
    /* The conditional snapshot's owner has the buffer: it alone decides when to swap. */
    if (READ_ONCE(tr->cond_update))
        return -EBUSY;
    return tracing_snapshot_instance_cond(tr);
}

/* ---- allocating and freeing ---- */

bool tracing_snapshot_allocated(struct trace_array *tr) { return READ_ONCE(tr->snapshot) != NULL; }

/* A buffer the size of the live one on every CPU, on its clock, that never records. */
static struct ring_buffer *snapshot_buffer_alloc(struct trace_array *tr)
{
    unsigned ncpus = rb_ncpus(tr->buffer);
    struct ring_buffer *rb = rb_create(rb_size(tr->buffer, 0), ncpus);
    if (!rb)
        return NULL;
    for (unsigned c = 1; c < ncpus; c++) {
        if (rb_size(rb, c) == rb_size(tr->buffer, c))
            continue;
        if (rb_resize(rb, (int)c, rb_size(tr->buffer, c)) != 0) {
            rb_destroy(rb);
            return NULL;
        }
    }
    rb_record_disable(rb);
    rb_set_clock(rb, trace_array_clock_reader(tr));
    return rb;
}

static int snapshot_alloc_locked(struct trace_array *tr)
{
    if (tr->snapshot)
        return 0;
    /* A buffer on a fixed range cannot give its pages to a swap (Linux: no snapshot). */
    if (rb_is_in_range(tr->buffer))
        return -EBUSY;
    struct ring_buffer *rb = snapshot_buffer_alloc(tr);
    if (!rb)
        return -ENOMEM;
    /* Complete before it is published: a swap may use it from the next instruction. */
    __atomic_store_n(&tr->snapshot, rb, __ATOMIC_RELEASE);
    return 0;
}

int tracing_alloc_snapshot(struct trace_array *tr)
{
    mutex_lock(&snapshot_mutex);
    int err = snapshot_alloc_locked(tr);
    mutex_unlock(&snapshot_mutex);
    return err;
}

static int snapshot_free_locked(struct trace_array *tr)
{
    struct ring_buffer *rb = tr->snapshot;
    if (!rb)
        return 0;
    if (tr->snapshot_readers)
        return -EBUSY;
    WRITE_ONCE(tr->snapshot, NULL);
    /* A swap that loaded the pointer runs with interrupts off on its CPU: once every CPU
     * took the round's interrupt, none is left. Later ones find NULL. */
    smp_sync_all();
    rb_destroy(rb);
    return 0;
}

/* ---- the conditional snapshot ---- */

/*
 * Keeps the owner's test and the swap it allows together, and the owner from going while
 * a CPU is inside its test. A test that itself asks for a conditional snapshot (an event
 * fired inside it) finds its CPU marked and is refused rather than wait for itself.
 */
static DEFINE_SPINLOCK(cond_lock);
static uint8_t cond_inside[MAX_CPUS];

int tracing_snapshot_cond_enable(struct trace_array *tr, trace_cond_update_fn update)
{
    mutex_lock(&snapshot_mutex);
    int err = 0;
    if (tr->cond_update || (tr->current && tr->current->use_max_tr))
        err = -EBUSY;
    else
        err = snapshot_alloc_locked(tr);
    if (!err) {
        unsigned long flags = spin_lock_irqsave(&cond_lock);
        WRITE_ONCE(tr->cond_update, update);
        spin_unlock_irqrestore(&cond_lock, flags);
    }
    mutex_unlock(&snapshot_mutex);
    return err;
}

void tracing_snapshot_cond_disable(struct trace_array *tr)
{
    mutex_lock(&snapshot_mutex);
    unsigned long flags = spin_lock_irqsave(&cond_lock);
    WRITE_ONCE(tr->cond_update, NULL);
    spin_unlock_irqrestore(&cond_lock, flags);
    mutex_unlock(&snapshot_mutex);
}

bool tracing_snapshot_cond_active(struct trace_array *tr) { return READ_ONCE(tr->cond_update); }

int tracing_snapshot_cond(struct trace_array *tr, void *cond_data)
{
    if (this_cpu()->nmi_depth)
        return -EBUSY;
    unsigned long flags = arch_irq_save();
    unsigned me = this_cpu_id();
    int err = -EBUSY;
    if (!cond_inside[me]) {
        cond_inside[me] = 1;
        spin_lock(&cond_lock);
        trace_cond_update_fn update = tr->cond_update;
        if (update)
            err = update(tr, cond_data) ? tracing_snapshot_instance_cond(tr) : 0;
        spin_unlock(&cond_lock);
        cond_inside[me] = 0;
    }
    arch_irq_restore(flags);
    return err;
}

/* ---- the files' operations ---- */

int trace_snapshot_write(struct trace_array *tr, int cpu, unsigned long value)
{
    int err = 0;

    mutex_lock(&snapshot_mutex);
    /* As Linux: no write of any value while a conditional snapshot has an owner. */
    if (tr->cond_update) {
        mutex_unlock(&snapshot_mutex);
        return -EBUSY;
    }
    switch (value) {
    case 0:
        err = cpu >= 0 ? -EINVAL : snapshot_free_locked(tr);
        break;
    case 1:
        if (cpu >= 0) {
            err = -EINVAL;
            break;
        }
        err = snapshot_alloc_locked(tr);
        if (!err)
            err = snapshot_swap_all(tr);
        break;
    default:
        if (tr->snapshot) {
            snapshot_hold_begin(tr);
            rb_reset(tr->snapshot, cpu);
            snapshot_hold_end(tr);
        }
        break;
    }
    mutex_unlock(&snapshot_mutex);
    return err;
}

struct ring_buffer *trace_snapshot_get(struct trace_array *tr)
{
    mutex_lock(&snapshot_mutex);
    tr->snapshot_readers++;
    struct ring_buffer *rb = tr->snapshot;
    mutex_unlock(&snapshot_mutex);
    return rb;
}

void trace_snapshot_put(struct trace_array *tr)
{
    mutex_lock(&snapshot_mutex);
    ASSERT(tr->snapshot_readers > 0);
    tr->snapshot_readers--;
    mutex_unlock(&snapshot_mutex);
}

bool trace_snapshot_empty(struct trace_array *tr, int cpu)
{
    struct ring_buffer *rb = tr->snapshot;
    if (!rb)
        return true;
    for (unsigned c = 0; c < rb_ncpus(rb); c++) {
        if (!cpu_data(c)->online || (cpu >= 0 && (int)c != cpu))
            continue;
        struct rb_stats st;
        rb_get_stats(rb, c, &st);
        if (st.entries)
            return false;
    }
    return true;
}

int trace_buffers_resize(struct trace_array *tr, int cpu, size_t bytes)
{
    /* Boot-time sizes come before any snapshot, and before threads can take a mutex. */
    if (!READ_ONCE(tr->snapshot))
        return rb_resize(tr->buffer, cpu, bytes);

    mutex_lock(&snapshot_mutex);
    snapshot_hold_begin(tr);
    size_t before[MAX_CPUS];
    for (unsigned c = 0; c < rb_ncpus(tr->buffer); c++)
        before[c] = rb_size(tr->buffer, c);
    int err = rb_resize(tr->buffer, cpu, bytes);
    if (!err && tr->snapshot) {
        err = rb_resize(tr->snapshot, cpu, bytes);
        /* Sizes stay equal, so that a swap never changes buffer_size_kb: undo. */
        for (unsigned c = 0; err && c < rb_ncpus(tr->buffer); c++)
            if (rb_size(tr->buffer, c) != before[c])
                rb_resize(tr->buffer, (int)c, before[c]);
    }
    snapshot_hold_end(tr);
    mutex_unlock(&snapshot_mutex);
    return err;
}

void trace_snapshot_clock_changed(struct trace_array *tr)
{
    if (!READ_ONCE(tr->snapshot))
        return;
    mutex_lock(&snapshot_mutex);
    if (tr->snapshot) {
        snapshot_hold_begin(tr);
        rb_set_clock(tr->snapshot, trace_array_clock_reader(tr));
        snapshot_hold_end(tr);
    }
    mutex_unlock(&snapshot_mutex);
}
