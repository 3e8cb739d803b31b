/*
 * `work [SECONDS] [THREADS_PER_CPU]`: a realistic mixed load on every CPU, the thing
 * users trace. Each thread loops, until the time is up, over four kinds of work:
 *   - heap churn: allocations of varied sizes, some kept alive for a while;
 *   - a shared hash table behind one contended lock;
 *   - hand-off: items pushed into the next CPU's queue and popped from its own, with
 *     sleeps and cross-CPU wakeups when a queue is empty or full;
 *   - computation through a few layers of ordinary functions, each result checked by
 *     counting its bits (work_count_bits, which has a deliberate bug: see there).
 * At the end it checks its own books (every item handed off was received, the heap is
 * back where it started) and prints one summary line.
 */
#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/shell.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/wait.h>
#include <kernel/work.h>
#include <lib/printf.h>
#include <lib/random.h>
#include <lib/string.h>

#define WORK_MAX_SECONDS 3600
#define WORK_TABLE_BUCKETS 64
#define WORK_QUEUE_SLOTS 32
#define WORK_LIVE_ALLOCS 8

struct work_item {
    struct work_item *next;
    uint64_t key;
    uint64_t payload;
};

struct work_queue {
    struct spinlock lock;
    struct wait_queue not_empty;
    struct wait_queue not_full;
    uint64_t slots[WORK_QUEUE_SLOTS];
    unsigned head, count;
} __cacheline_aligned;

struct work_run {
    uint64_t deadline_ns;
    volatile bool stop;
    struct spinlock table_lock;
    struct work_item *table[WORK_TABLE_BUCKETS];
    struct work_queue queues[MAX_CPUS];
    unsigned ncpus;
    unsigned cpu_ids[MAX_CPUS];
    /* Totals, added once per thread at its end. */
    struct spinlock totals_lock;
    uint64_t allocations, alloc_failures, table_ops, contended, handed_off, received, checksum;
    uint64_t bit_checks[MAX_CPUS], bits_wrong[MAX_CPUS]; /* by slot */
    struct work_thread *threads;
    size_t nthreads;
    char failed_name[THREAD_NAME_LEN]; /* a thread that could not be created, or "" */
};

struct work_thread {
    struct work_run *run;
    unsigned slot; /* index of this thread's CPU in run->cpu_ids */
    uint64_t rng;
    struct thread *thread;
};

static uint64_t work_random(struct work_thread *w)
{
    /* Deterministic per thread, so a run's books can be checked. */
    return xorshift64(&w->rng);
}

/* The computation: three layers of plain functions, as real kernel code would have. */
static __noinline uint64_t work_rotate_mix(uint64_t a, uint64_t b)
{
    return ((a << 23) | (a >> 41)) ^ (b * 0x9e3779b97f4a7c15ULL);
}

static __noinline uint64_t work_hash_block(const uint64_t *block, size_t n, uint64_t seed)
{
    uint64_t h = seed;
    for (size_t i = 0; i < n; i++)
        h = work_rotate_mix(h, block[i]);
    return h;
}

static __noinline uint64_t work_compute(struct work_thread *w)
{
    uint64_t block[16];
    for (size_t i = 0; i < 16; i++)
        block[i] = work_random(w);
    uint64_t h = 0;
    for (int round = 0; round < 4; round++)
        h ^= work_hash_block(block, 16, h + round);
    return h;
}

/*
 * The bits set in v: a hash h is checked by counting h and ~h, which must add up to 64.
 * The bug is deliberate and stays: the loop stops before bit 63, so every check fails.
 * It is what the livepatch_work patch (samples/livepatch/livepatch-work.c) fixes while
 * the load runs; the summary's "bit counts wrong" shows which version ran.
 */
static __noinline unsigned work_count_bits(uint64_t v)
{
    unsigned n = 0;
    for (unsigned i = 0; i < 63; i++)
        n += (unsigned)(v >> i) & 1;
    return n;
}

static __noinline void work_heap_churn(struct work_thread *w, void **live, uint64_t *count,
                                       uint64_t *failures)
{
    unsigned idx = work_random(w) % WORK_LIVE_ALLOCS;
    kfree(live[idx]);
    size_t size = 16 + work_random(w) % 6000;
    live[idx] = kmalloc(size);
    if (live[idx]) {
        memset(live[idx], (int)idx, size < 64 ? size : 64);
        (*count)++;
    } else {
        (*failures)++;
    }
}

static __noinline void work_table_op(struct work_thread *w, uint64_t *ops, uint64_t *contended,
                                     uint64_t *failures)
{
    struct work_run *run = w->run;
    uint64_t key = work_random(w) % 512;
    unsigned bucket = key % WORK_TABLE_BUCKETS;
    struct work_item *fresh = kmalloc(sizeof(*fresh));
    if (!spin_trylock(&run->table_lock)) {
        (*contended)++;
        spin_lock(&run->table_lock);
    }
    struct work_item **pp = &run->table[bucket];
    while (*pp && (*pp)->key != key)
        pp = &(*pp)->next;
    struct work_item *gone = NULL;
    if (*pp) {
        gone = *pp;
        *pp = gone->next;
    } else if (fresh) {
        fresh->key = key;
        fresh->payload = key * 3;
        fresh->next = run->table[bucket];
        run->table[bucket] = fresh;
        fresh = NULL;
    } else {
        (*failures)++; /* the insertion this op was to make */
    }
    spin_unlock(&run->table_lock);
    kfree(gone);
    kfree(fresh);
    (*ops)++;
}

struct queue_check {
    struct work_queue *q;
    struct work_run *run;
};

static bool queue_has_room(void *arg)
{
    struct queue_check *c = arg;
    return READ_ONCE(c->q->count) < WORK_QUEUE_SLOTS || READ_ONCE(c->run->stop);
}

static bool queue_has_items(void *arg)
{
    struct queue_check *c = arg;
    return READ_ONCE(c->q->count) > 0 || READ_ONCE(c->run->stop);
}

/* Pushes a value into a queue, sleeping while it is full; false when the run stopped. */
static __noinline bool work_queue_push(struct work_run *run, struct work_queue *q, uint64_t v)
{
    struct queue_check c = {q, run};
    for (;;) {
        unsigned long flags = spin_lock_irqsave(&q->lock);
        if (q->count < WORK_QUEUE_SLOTS) {
            q->slots[(q->head + q->count) % WORK_QUEUE_SLOTS] = v;
            q->count++;
            spin_unlock_irqrestore(&q->lock, flags);
            wait_queue_wake_one(&q->not_empty);
            return true;
        }
        spin_unlock_irqrestore(&q->lock, flags);
        if (run->stop)
            return false;
        wait_event_timeout(&q->not_full, queue_has_room, &c, 5 * NSEC_PER_MSEC, false);
    }
}

/* Pops a value, sleeping a little while the queue is empty; false when there was none. */
static __noinline bool work_queue_pop(struct work_run *run, struct work_queue *q, uint64_t *v)
{
    struct queue_check c = {q, run};
    for (int tries = 0; tries < 2; tries++) {
        unsigned long flags = spin_lock_irqsave(&q->lock);
        if (q->count > 0) {
            *v = q->slots[q->head];
            q->head = (q->head + 1) % WORK_QUEUE_SLOTS;
            q->count--;
            spin_unlock_irqrestore(&q->lock, flags);
            wait_queue_wake_one(&q->not_full);
            return true;
        }
        spin_unlock_irqrestore(&q->lock, flags);
        if (run->stop)
            return false;
        wait_event_timeout(&q->not_empty, queue_has_items, &c, 2 * NSEC_PER_MSEC, false);
    }
    return false;
}

static int work_thread_main(void *arg)
{
    struct work_thread *w = arg;
    struct work_run *run = w->run;
    void *live[WORK_LIVE_ALLOCS] = {0};
    uint64_t allocations = 0, alloc_failures = 0, ops = 0, contended = 0, sent = 0, got = 0;
    uint64_t sum = 0;
    uint64_t checks = 0, wrong = 0;
    struct work_queue *mine = &run->queues[w->slot];
    struct work_queue *next = &run->queues[(w->slot + 1) % run->ncpus];

    while (!READ_ONCE(run->stop) && clock_ns() < run->deadline_ns) {
        work_heap_churn(w, live, &allocations, &alloc_failures);
        work_table_op(w, &ops, &contended, &alloc_failures);
        uint64_t h = work_compute(w);
        checks++;
        if (work_count_bits(h) + work_count_bits(~h) != 64)
            wrong++;
        if (work_queue_push(run, next, h)) {
            sent++;
            sum += h;
        }
        uint64_t v;
        if (work_queue_pop(run, mine, &v)) {
            got++;
            sum -= v;
        }
    }
    for (int i = 0; i < WORK_LIVE_ALLOCS; i++)
        kfree(live[i]);

    unsigned long flags = spin_lock_irqsave(&run->totals_lock);
    run->allocations += allocations;
    run->alloc_failures += alloc_failures;
    run->table_ops += ops;
    run->contended += contended;
    run->handed_off += sent;
    run->received += got;
    run->checksum += sum;
    run->bit_checks[w->slot] += checks;
    run->bits_wrong[w->slot] += wrong;
    spin_unlock_irqrestore(&run->totals_lock, flags);
    return 0;
}

/* What is still queued when every thread has stopped counts as received, for the books. */
static void drain_queues(struct work_run *run)
{
    for (unsigned i = 0; i < run->ncpus; i++) {
        struct work_queue *q = &run->queues[i];
        while (q->count) {
            run->checksum -= q->slots[q->head];
            q->head = (q->head + 1) % WORK_QUEUE_SLOTS;
            q->count--;
            run->received++;
        }
    }
    for (unsigned b = 0; b < WORK_TABLE_BUCKETS; b++) {
        while (run->table[b]) {
            struct work_item *it = run->table[b];
            run->table[b] = it->next;
            kfree(it);
        }
    }
}

struct work_run *work_start(uint64_t ms, unsigned per_cpu)
{
    struct work_run *run = kzalloc(sizeof(*run));
    struct work_thread *threads = kzalloc(sizeof(*threads) * MAX_CPUS * per_cpu);
    if (!run || !threads) {
        kfree(run);
        kfree(threads);
        return NULL;
    }
    run->threads = threads;
    spin_init(&run->table_lock, "work_table");
    spin_init(&run->totals_lock, "work_totals");
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (!cpu_data(cpu)->online)
            continue;
        struct work_queue *q = &run->queues[run->ncpus];
        spin_init(&q->lock, "work_queue");
        wait_queue_init(&q->not_empty, "work_not_empty");
        wait_queue_init(&q->not_full, "work_not_full");
        run->cpu_ids[run->ncpus++] = cpu;
    }
    run->deadline_ns = clock_ns() + ms * NSEC_PER_MSEC;

    for (unsigned slot = 0; slot < run->ncpus && !run->stop; slot++) {
        for (unsigned i = 0; i < per_cpu; i++) {
            struct work_thread *w = &threads[run->nthreads];
            char name[THREAD_NAME_LEN];
            snprintf(name, sizeof(name), "work/%u:%u", run->cpu_ids[slot], i);
            w->run = run;
            w->slot = slot;
            w->rng = 0x2545f4914f6cdd1dULL * (run->nthreads + 1);
            w->thread = kthread_create(work_thread_main, w, name, run->cpu_ids[slot]);
            if (!w->thread) {
                strlcpy(run->failed_name, name, sizeof(run->failed_name));
                run->stop = true;
                break;
            }
            run->nthreads++;
        }
    }
    return run;
}

const char *work_failed_thread(const struct work_run *run)
{
    return run->failed_name[0] ? run->failed_name : NULL;
}

void work_stop(struct work_run *run)
{
    run->stop = true;
    for (unsigned i = 0; i < run->ncpus; i++) {
        wait_queue_wake_all(&run->queues[i].not_empty);
        wait_queue_wake_all(&run->queues[i].not_full);
    }
}

void work_finish(struct work_run *run, struct work_summary *out)
{
    work_stop(run);
    for (size_t i = 0; i < run->nthreads; i++)
        kthread_join(run->threads[i].thread);
    drain_queues(run);

    out->threads = run->nthreads;
    out->cpus = run->ncpus;
    out->allocations = run->allocations;
    out->alloc_failures = run->alloc_failures;
    out->complete = !run->failed_name[0];
    out->table_ops = run->table_ops;
    out->contended = run->contended;
    out->handed_off = run->handed_off;
    out->received = run->received;
    out->books_ok = run->handed_off == run->received && run->checksum == 0;
    out->bit_checks = out->bits_wrong = 0;
    for (unsigned i = 0; i < MAX_CPUS; i++) {
        out->cpu_ids[i] = i < run->ncpus ? run->cpu_ids[i] : 0;
        out->bit_checks_cpu[i] = run->bit_checks[i];
        out->bits_wrong_cpu[i] = run->bits_wrong[i];
        out->bit_checks += run->bit_checks[i];
        out->bits_wrong += run->bits_wrong[i];
    }
    kfree(run->threads);
    kfree(run);
}

/* Parses "2", "0.5": seconds with up to three decimals, into milliseconds. */
static int parse_seconds_ms(const char *s, uint64_t *ms)
{
    uint64_t whole = 0, frac = 0, scale = 1000;
    const char *p = s;
    if (!*p)
        return -EINVAL;
    for (; *p >= '0' && *p <= '9'; p++) {
        whole = whole * 10 + (uint64_t)(*p - '0');
        if (whole > WORK_MAX_SECONDS)
            return -ERANGE;
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++) {
            if (scale > 1) {
                scale /= 10;
                frac += (uint64_t)(*p - '0') * scale;
            }
        }
    }
    if (*p)
        return -EINVAL;
    *ms = whole * 1000 + frac;
    return *ms ? 0 : -EINVAL;
}

SHELL_COMMAND(work, "work [SECONDS] [THREADS_PER_CPU]",
              "run a mixed load (heap, shared table, cross-CPU hand-off, compute) on every CPU")
{
    uint64_t ms = 2000;
    unsigned long per_cpu = 2;
    if (argc > 3)
        return shell_usage(ctx);
    if (argc >= 2 && parse_seconds_ms(argv[1], &ms) != 0) {
        shell_eprintf(ctx, "work: invalid time '%s' (0 < SECONDS <= %d)\n", argv[1],
                      WORK_MAX_SECONDS);
        return shell_usage(ctx);
    }
    if (argc == 3 && (kstrtoul(argv[2], 10, &per_cpu) != 0 || per_cpu == 0 ||
                      per_cpu > WORK_MAX_THREADS_PER_CPU)) {
        shell_eprintf(ctx, "work: invalid thread count '%s' (1..%d)\n", argv[2],
                      WORK_MAX_THREADS_PER_CPU);
        return shell_usage(ctx);
    }

    struct mm_stats before;
    mm_get_stats(&before);
    struct work_run *run = work_start(ms, (unsigned)per_cpu);
    if (!run) {
        shell_eprintf(ctx, "work: %s\n", strerror(ENOMEM));
        return 1;
    }
    if (work_failed_thread(run))
        shell_eprintf(ctx, "work: cannot create thread %s\n", work_failed_thread(run));

    /* Wait for the end, or for Ctrl-C, which stops the threads early. */
    bool interrupted = sleep_ns_interruptible(ms * NSEC_PER_MSEC) == -EINTR;
    struct work_summary sum;
    work_finish(run, &sum);

    /* A load that ran short (a thread or an allocation it was to make failed) did not
     * do what was asked: it says so and fails, however well its books add up. */
    bool short_run = !sum.complete || sum.alloc_failures;
    shell_printf(ctx,
                 "work: %zu threads on %u CPUs for %llu.%03llu s%s: %llu allocations, "
                 "%llu table ops (%llu contended), %llu items handed off, %llu received, "
                 "%llu of %llu bit counts wrong: %s\n",
                 sum.threads, sum.cpus, (unsigned long long)(ms / 1000),
                 (unsigned long long)(ms % 1000), interrupted ? " (interrupted)" : "",
                 (unsigned long long)sum.allocations, (unsigned long long)sum.table_ops,
                 (unsigned long long)sum.contended, (unsigned long long)sum.handed_off,
                 (unsigned long long)sum.received, (unsigned long long)sum.bits_wrong,
                 (unsigned long long)sum.bit_checks,
                 !sum.books_ok ? "MISMATCH"
                 : short_run   ? "INCOMPLETE"
                               : "ok");
    if (sum.alloc_failures)
        shell_eprintf(ctx, "work: %llu allocations failed: %s\n",
                      (unsigned long long)sum.alloc_failures, strerror(ENOMEM));

    struct mm_stats after;
    mm_get_stats(&after);
    if (after.heap_bytes_in_use != before.heap_bytes_in_use) {
        shell_eprintf(ctx, "work: heap in use changed from %llu to %llu bytes (leak)\n",
                      (unsigned long long)before.heap_bytes_in_use,
                      (unsigned long long)after.heap_bytes_in_use);
        return 1;
    }
    if (!sum.books_ok || short_run)
        return 1;
    return interrupted ? 130 : 0;
}
