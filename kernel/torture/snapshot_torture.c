/*
 * `snapshot_torture SECONDS [SEED]`: takes snapshots while `work` runs on every CPU under
 * the function tracer (the load's functions, the allocator and the timer tick, so that
 * writers nest from interrupts too), in every way there is: the file's swap (every CPU,
 * waited for), tracing_snapshot() with preemption or interrupts off as a trigger calls
 * it, clears, frees and allocations, and readers of both buffers in between. Then it
 * stops tracing, takes one last snapshot and checks every CPU of both buffers: every
 * event decodes, is a function event of a traced function, comes in time order and is
 * counted once (iterated = the buffer's own count = the events of its pages, read whole
 * with rb_read_page), and the snapshot holds nothing written after the swap that put
 * it there.
 */
#include <arch/cpu.h>
#include <kernel/errno.h>
#include <kernel/ftrace.h>
#include <kernel/mm.h>
#include <kernel/shell.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/work.h>
#include <lib/string.h>

#include "trace_internal.h"

#define TORTURE_MAX_SECONDS 3600

static const char *const snapshot_torture_globs[] = {"work_*", "kmalloc", "kfree", "sched_tick"};

static uint64_t snapshot_torture_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

struct snapshot_check {
    unsigned long events, pages, page_events, entries;
    const char *why; /* the first inconsistency, NULL if none */
    unsigned cpu;
};

/* Walks one CPU of rb with an iterator, then reads (consumes) its pages whole. */
static void snapshot_check_cpu(struct ring_buffer *rb, unsigned cpu, uint64_t newest_allowed,
                               struct snapshot_check *out)
{
    bool had_error = out->why != NULL;
    struct rb_stats st;
    struct rb_record *rec = kmalloc(sizeof(*rec));
    void *page = kmalloc(PAGE_SIZE);
    struct rb_iter *it = rec && page ? rb_iter_start(rb, cpu) : NULL;
    if (!it) {
        out->why = out->why ? out->why : "no memory for the check";
        goto out;
    }
    rb_get_stats(rb, cpu, &st);
    unsigned long n = 0;
    uint64_t last = 0;
    while (rb_iter_peek(it, rec)) {
        const struct trace_fn_event *ev = (const void *)rec->data;
        if (!out->why && (rec->len < sizeof(*ev) || trace_ctx_type(ev->ctx) != TRACE_FN ||
                          !ftrace_rec_lookup(trace_addr_unpack(ev->ip))))
            out->why = "an event that is not a function event of a traced function";
        if (!out->why && rec->ts < last)
            out->why = "events out of time order";
        if (!out->why && rec->ts > newest_allowed)
            out->why = "an event newer than the swap that made the snapshot";
        last = rec->ts;
        n++;
        rb_iter_next(it);
    }
    rb_iter_finish(it);
    if (!out->why && n != st.entries)
        out->why = "iterated events differ from the buffer's count";
    unsigned long on_pages = 0;
    while (rb_read_page(rb, cpu, page)) {
        unsigned long lost;
        on_pages += rb_page_events(page, &lost);
        out->pages++;
    }
    if (!out->why && on_pages != n)
        out->why = "events on the pages differ from the iterated ones";
    out->events += n;
    out->page_events += on_pages;
    out->entries += st.entries;
    if (!had_error && out->why)
        out->cpu = cpu;
out:
    kfree(rec);
    kfree(page);
}

SHELL_COMMAND(snapshot_torture, "snapshot_torture SECONDS [SEED]",
              "take, clear, free and read snapshots while `work` runs under the function tracer")
{
    unsigned long seconds, seed = 0;
    if (argc < 2 || argc > 3 || kstrtoul(argv[1], 10, &seconds) || seconds == 0 ||
        seconds > TORTURE_MAX_SECONDS || (argc == 3 && (kstrtoul(argv[2], 0, &seed) || !seed)))
        return shell_usage(ctx);
    if (!seed)
        seed = (unsigned long)(arch_cycles() | 1);
    uint64_t rng = seed;
    struct trace_array *tr = &trace_global;

    if (trace_global.current != trace_find_tracer("nop") || tracing_snapshot_allocated(tr)) {
        shell_eprintf(ctx, "snapshot_torture: needs the nop tracer and no snapshot\n");
        return 1;
    }
    struct ftrace_hash *saved_filter = ftrace_hash_copy(ftrace_global_ops->filter_hash);
    struct ftrace_hash *filter = ftrace_hash_alloc();
    bool on_before = rb_record_is_on(tr->buffer);
    int err = saved_filter && filter ? 0 : -ENOMEM;
    for (size_t i = 0; !err && i < ARRAY_SIZE(snapshot_torture_globs); i++)
        if (ftrace_hash_apply_glob(filter, snapshot_torture_globs[i]) < 0)
            err = -EINVAL;
    bool filter_set = false;
    if (!err) {
        err = ftrace_ops_set_hashes(ftrace_global_ops, filter, NULL);
        filter_set = !err;
    } else {
        ftrace_hash_free(filter);
    }
    filter = NULL; /* the ops own it now, or it is freed */
    if (!err)
        err = trace_set_tracer("function");
    if (!err)
        err = trace_snapshot_write(tr, -1, 1);
    trace_set_on(true);
    struct work_run *load = err ? NULL : work_start(seconds * 1000 + 500, 1);
    if (!load || work_failed_thread(load)) {
        shell_eprintf(ctx, "snapshot_torture: cannot start (%d)\n", err);
        if (load)
            work_finish(load, &(struct work_summary){0});
        trace_set_tracer("nop");
        /* The filter as it was: put back if it was changed, else the copy is not needed. */
        if (filter_set)
            ftrace_ops_set_hashes(ftrace_global_ops, saved_filter, NULL);
        else
            ftrace_hash_free(saved_filter);
        trace_snapshot_write(tr, -1, 0);
        return 1;
    }

    uint64_t file_swaps = 0, atomic_swaps = 0, clears = 0, reallocs = 0, checks = 0;
    unsigned long missed_before = READ_ONCE(tr->snapshot_missed);
    const char *failed = NULL;
    struct snapshot_check check = {0};
    uint64_t deadline = clock_ns() + seconds * NSEC_PER_SEC;
    while (!failed && clock_ns() < deadline && !shell_interrupted()) {
        unsigned action = (unsigned)(snapshot_torture_rand(&rng) % 16);
        if (action < 5) {
            err = trace_snapshot_write(tr, -1, 1);
            file_swaps++;
        } else if (action < 10) {
            /* As a function probe or an event trigger calls it. */
            unsigned long flags = 0;
            bool irqs = action & 1;
            if (irqs)
                flags = arch_irq_save();
            else
                preempt_disable();
            err = tracing_snapshot(tr);
            if (irqs)
                arch_irq_restore(flags);
            else
                preempt_enable();
            atomic_swaps++;
        } else if (action < 12) {
            err = trace_snapshot_write(tr, -1, 2 + (unsigned)(snapshot_torture_rand(&rng) % 5));
            clears++;
        } else if (action == 12) {
            err = trace_snapshot_write(tr, -1, 0);
            if (!err)
                err = trace_snapshot_write(tr, -1, 1);
            reallocs++;
        } else {
            /* A reader of the snapshot while other CPUs' swaps may still land. */
            struct trace_iter *it = trace_iter_open_buffer(tr->snapshot, false, -1);
            unsigned long n = 0;
            uint64_t last[MAX_CPUS] = {0};
            while (it && trace_iter_next(it)) {
                if (it->rec.ts < last[it->rec.cpu])
                    failed = "a reader of the snapshot found events out of time order";
                last[it->rec.cpu] = it->rec.ts;
                n++;
            }
            trace_iter_close(it);
            checks++;
            err = 0;
        }
        /* EBUSY: a reader's iterator held a CPU's pages at that moment (none here). */
        if (err) {
            failed = "a snapshot operation failed";
            break;
        }
    }

    /* The end: stop recording, let every writer leave, then one last swap. */
    trace_set_on(false);
    smp_sync_all();
    if (!failed && trace_snapshot_write(tr, -1, 1) != 0)
        failed = "the last swap failed";
    uint64_t swapped_by = trace_clock_read();
    struct work_summary sum;
    work_finish(load, &sum);
    for (unsigned c = 0; !failed && c < rb_ncpus(tr->buffer); c++) {
        if (!cpu_data(c)->online)
            continue;
        snapshot_check_cpu(tr->snapshot, c, swapped_by, &check);
        snapshot_check_cpu(tr->buffer, c, UINT64_MAX, &check);
    }
    unsigned long missed = READ_ONCE(tr->snapshot_missed) - missed_before;

    trace_set_tracer("nop");
    ftrace_ops_set_hashes(ftrace_global_ops, saved_filter, NULL);
    trace_snapshot_write(tr, -1, 0);
    trace_clear(-1);
    trace_set_on(on_before);

    shell_printf(ctx,
                 "snapshot_torture: %lu s on %u CPU%s, seed %#lx: %llu file swaps, "
                 "%llu from atomic context (%lu CPU swaps missed), %llu clears, %llu "
                 "reallocations, %llu reads; checked %lu events on %lu pages\n",
                 seconds, cpus_online, cpus_online == 1 ? "" : "s", seed,
                 (unsigned long long)file_swaps, (unsigned long long)atomic_swaps, missed,
                 (unsigned long long)clears, (unsigned long long)reallocs,
                 (unsigned long long)checks, check.events, check.pages);
    if (!failed && check.why) {
        shell_eprintf(ctx, "snapshot_torture: CPU %u: %s\n", check.cpu, check.why);
        failed = "the buffers are inconsistent";
    }
    if (!failed && !sum.books_ok)
        failed = "the load's books do not balance";
    if (!failed && check.events == 0)
        failed = "nothing was recorded";
    if (failed) {
        shell_eprintf(ctx, "snapshot_torture: FAILED: %s\n", failed);
        return 1;
    }
    shell_printf(ctx, "snapshot_torture: ok\n");
    return 0;
}
