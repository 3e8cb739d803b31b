/*
 * Host stress test of kernel/trace/ring_buffer.c.
 *
 * The ring buffer is compiled unchanged against the kernel's headers. Each writer thread
 * is a CPU: this_cpu_id() reads %gs, so every thread points its GS base at its own
 * struct percpu. Interrupts are signals sent to a writer thread (SIGUSR1 an irq, SIGUSR2
 * an NMI that may land inside the irq), plus the buffer's test hooks, which run a nested
 * writer at chosen points inside the writer code (built with RB_TEST_HOOKS). The sync
 * round the buffer uses to wait for writers is a signal every writer thread answers.
 *
 * Each writer numbers its events per nesting depth: the events of one depth never overlap
 * in time, so in the buffer they appear in order. Payloads carry CPU, depth, sequence, the
 * clock read just before and after the reservation, a checksum and a fill pattern. Readers
 * check every consumed event: intact, from the right CPU, sequence increasing per depth,
 * time never going backwards, time inside its reservation window, gaps covered by reported
 * lost events; at the end of each phase every event written was consumed or reported lost
 * and the buffer's counters match the test's own.
 *
 * Built a second time with RB_SELFTEST_UNIT, this file instead wraps the kernel self-tests
 * (kernel/trace/ring_buffer_selftests.c) so they run here too, under the sanitizers.
 *
 *   make -C tests/host rb_stress && tests/host/rb_stress [-t seconds] [-w writers] [-r readers]
 */
#ifdef RB_SELFTEST_UNIT

#include <kernel/compiler.h>

/* The kernel registers self-tests by linker section; here a constructor registers each. */
struct selftest_ctx;
void host_selftest_register(const char *name, void (*fn)(struct selftest_ctx *t));
#define SELFTEST(test_name)                                                                        \
    static void selftest_fn_##test_name(struct selftest_ctx *t);                                   \
    __attribute__((constructor)) static void selftest_reg_##test_name(void)                        \
    {                                                                                              \
        host_selftest_register(#test_name, selftest_fn_##test_name);                               \
    }                                                                                              \
    static void selftest_fn_##test_name(struct selftest_ctx *t)

#include <kernel/selftest.h>

#include "../../kernel/trace/ring_buffer_selftests.c"

#else /* the stress test */

#define _GNU_SOURCE
#include <asm/prctl.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* glibc's <sys/cdefs.h> and the kernel's compiler.h both define this one. */
#undef __always_inline
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>

#include "trace_internal.h"

#define MAX_WRITERS 8
#define MAX_READERS 8
#define MAX_DEPTH 4 /* thread, irq, nmi, and one more level of hooks */
#define MAX_HOOKS 32
#define SMALL_LEN 12
#define BIG_HEADER 32

/* The layout of include/kernel/selftest.h's, which the wrapped self-tests are built with. */
struct selftest_ctx {
    const char *name;
    int failures;
    int checks;
    const char *skip_reason;
};
struct host_selftest {
    const char *name;
    void (*fn)(struct selftest_ctx *t);
};

unsigned rb_test_hook_count(void);
const char *rb_test_hook_name(int point);

/* ---------------------------------------------------------------------------------- */
/* Failure reporting and randomness */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "rb_stress: FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fail(__VA_ARGS__);                                                                     \
    } while (0)

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---------------------------------------------------------------------------------- */
/* Test state */

enum { ROLE_MAIN, ROLE_WRITER, ROLE_READER };
enum { CLOCK_FINE, CLOCK_COARSE, CLOCK_JUMPY };

struct writer {
    struct percpu percpu; /* first: %gs points here */
    pthread_t thread;
    unsigned cpu;
    uint64_t rng[MAX_DEPTH];
    /* Indexed by depth: each is changed only by code running at that depth. */
    uint64_t next_seq[MAX_DEPTH];
    unsigned long commits[MAX_DEPTH], nulls[MAX_DEPTH], discards[MAX_DEPTH];
    unsigned long landed[MAX_DEPTH];
    unsigned long hook_nested[MAX_HOOKS];
    volatile unsigned char inflight[MAX_DEPTH];
    uint64_t clock_offset;
    _Atomic unsigned long parked_gen;
    _Atomic unsigned long sync_ack;
    _Atomic int started;
} __attribute__((aligned(64)));

struct vstate {
    pthread_mutex_t lock;
    uint64_t last_seq[MAX_DEPTH];
    bool seen[MAX_DEPTH];
    unsigned long consumed[MAX_DEPTH];
    unsigned long lost, gaps, total, peeks;
    uint64_t last_ts;
};

struct phase {
    const char *name;
    bool overwrite, strict, control;
    bool resizes_only; /* control phase: only resizes, which keep events, so still strict */
    unsigned pages;
    int clock_mode;
    unsigned hook_rate;  /* a hook runs a nested writer once in this many calls */
    unsigned burst_rate; /* the burst point runs a long burst once in this many calls */
    unsigned burst;
    unsigned reader_delay; /* microseconds between reader batches, at most */
    unsigned writer_nap;   /* writers nap once in this many events (0: never) */
};

static struct {
    struct ring_buffer *rb;
    unsigned nwriters, nreaders;
    struct writer *writers;
    const struct phase *phase;
    _Atomic int running, quit, writers_quit, clock_mode;
    _Atomic unsigned long pause_gen;
    _Atomic unsigned long reader_parked[MAX_READERS];
    int burst_point, corrupt_point;
    int only_phase;  /* -p: run just this phase */
    bool no_hooks;   /* -H: no nested writers from hooks */
    bool no_signals; /* -S: no nested writers from signals */
    int only_hook;   /* -k NAME: nested writers from this hook point only */
    const char *only_hook_name;
    _Atomic unsigned long signals_sent;
    _Atomic unsigned long reader_hook_delays;
    _Atomic unsigned long sync_rounds;
} g;

static struct vstate vs[MAX_WRITERS];

static const struct phase *cur_phase(void) { return __atomic_load_n(&g.phase, __ATOMIC_ACQUIRE); }
static __thread struct writer *tl_w;
static __thread int tl_depth;
static __thread int tl_role;
static __thread uint64_t tl_rng = 88172645463325252ULL;

/* Totals over the run, for the report. */
static struct {
    unsigned long phases, written, consumed, lost, dropped, commit_overrun, discards, nulls;
    unsigned long nested[MAX_DEPTH], landed[MAX_DEPTH], hook_nested[MAX_HOOKS];
    unsigned long iterations, iterated, resets, resizes, resize_enomem, resize_ebusy;
    unsigned long peeks, stats_checks;
} report;

/* ---------------------------------------------------------------------------------- */
/* Kernel shims */

static void set_cpu(struct percpu *pc, unsigned cpu)
{
    memset(pc, 0, sizeof(*pc));
    pc->self = pc;
    pc->cpu = cpu;
    if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)pc) != 0)
        fail("arch_prctl(ARCH_SET_GS) failed");
    CHECK(this_cpu_id() == cpu, "this_cpu_id() does not read the GS base");
}

static _Atomic long pages_out;
static _Atomic long page_fail_countdown = -1;
static const long host_free_pages = 20000;

uint64_t page_alloc(void)
{
    long k = atomic_load(&page_fail_countdown);
    if (k >= 0) {
        atomic_store(&page_fail_countdown, k - 1);
        if (k == 0)
            return 0;
    }
    if (atomic_load(&pages_out) >= host_free_pages)
        return 0;
    void *p = aligned_alloc(PAGE_SIZE, PAGE_SIZE);
    if (!p)
        return 0;
    memset(p, 0xa5, PAGE_SIZE); /* no stale zeroes to hide a missing reset */
    atomic_fetch_add(&pages_out, 1);
    return (uint64_t)(uintptr_t)p - DIRECT_MAP_BASE;
}

void page_free(uint64_t phys)
{
    atomic_fetch_sub(&pages_out, 1);
    free(phys_to_virt(phys));
}

void *kmalloc(size_t size) { return malloc(size); }
void *kzalloc(size_t size) { return calloc(1, size); }
void kfree(void *p) { free(p); }

void mm_get_stats(struct mm_stats *st)
{
    memset(st, 0, sizeof(*st));
    st->total_pages = host_free_pages;
    st->free_pages = host_free_pages - atomic_load(&pages_out);
}

void spin_init(struct spinlock *l, const char *name)
{
    l->next = 0;
    l->serving = 0;
    l->holder = 0;
    l->name = name;
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
    uint16_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
    for (unsigned spins = 0; __atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket; spins++)
        if (spins > 100)
            sched_yield();
    CHECK(l->holder == 0, "reader lock %s held twice", l->name);
    l->holder = 1;
    return 0;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
    CHECK(l->holder == 1, "reader lock %s released while free", l->name);
    l->holder = 0;
    __atomic_store_n(&l->serving, (uint16_t)(l->serving + 1), __ATOMIC_RELEASE);
}

/*
 * The IPI of a sync round is a signal; its handler's acknowledgement is a release store. An
 * IPI always arrives, but ThreadSanitizer defers signals and now and then loses one, so a
 * writer that has not answered for a while is sent another.
 */
static pthread_mutex_t sync_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned long sync_gen;

void smp_sync_all(void)
{
    pthread_mutex_lock(&sync_lock);
    unsigned long gen = atomic_fetch_add(&sync_gen, 1) + 1;
    unsigned n = g.writers ? g.nwriters : 0;
    for (unsigned i = 0; i < n; i++)
        if (atomic_load(&g.writers[i].started))
            pthread_kill(g.writers[i].thread, SIGURG);
    for (unsigned i = 0; i < n; i++) {
        struct writer *w = &g.writers[i];
        for (unsigned spins = 1; atomic_load(&w->started) && atomic_load(&w->sync_ack) < gen;
             spins++) {
            sched_yield();
            if (spins % 1000 == 0)
                pthread_kill(w->thread, SIGURG);
        }
    }
    atomic_fetch_add(&g.sync_rounds, 1);
    pthread_mutex_unlock(&sync_lock);
}

static void sync_handler(int sig)
{
    if (tl_w)
        atomic_store(&tl_w->sync_ack, atomic_load(&sync_gen));
}

/* Per-CPU monotonic: the offset of a writer only grows, and only its own thread moves it. */
uint64_t clock_ns(void)
{
    uint64_t ns = now_ns();
    if (tl_w)
        ns += tl_w->clock_offset;
    if (atomic_load_explicit(&g.clock_mode, memory_order_relaxed) == CLOCK_COARSE)
        ns &= ~(uint64_t)4095;
    return ns;
}

/* ---------------------------------------------------------------------------------- */
/* Events */

static uint32_t small_check(unsigned cpu, unsigned depth, uint64_t seq)
{
    return mix64(seq * 131 + cpu * 7 + depth) & 0xfffff;
}

static uint8_t fill_byte(uint64_t seq, unsigned i) { return (uint8_t)(mix64(seq) >> 8) + i * 37; }

static uint32_t big_check(uint32_t tag, uint64_t seq, uint64_t t0, uint64_t t1)
{
    return (uint32_t)mix64(tag ^ mix64(seq ^ mix64(t0 ^ mix64(t1))));
}

static void fill_event(uint8_t *p, unsigned len, unsigned cpu, unsigned depth, uint64_t seq,
                       uint64_t t0, uint64_t t1)
{
    if (len == SMALL_LEN) {
        uint32_t tag = cpu << 24 | depth << 20 | small_check(cpu, depth, seq);
        memcpy(p, &tag, 4);
        memcpy(p + 4, &seq, 8);
        return;
    }
    uint32_t tag = cpu << 24 | depth << 20 | len;
    uint32_t check = big_check(tag, seq, t0, t1);
    memcpy(p, &tag, 4);
    memcpy(p + 4, &check, 4);
    memcpy(p + 8, &seq, 8);
    memcpy(p + 16, &t0, 8);
    memcpy(p + 24, &t1, 8);
    for (unsigned i = BIG_HEADER; i < len; i++)
        p[i] = fill_byte(seq, i);
}

struct decoded {
    unsigned cpu, depth;
    uint64_t seq, t0, t1;
    bool big;
};

static void decode_event(const struct rb_record *r, unsigned cpu, struct decoded *d)
{
    uint32_t tag;
    memcpy(&tag, r->data, 4);
    d->cpu = tag >> 24;
    d->depth = (tag >> 20) & 15;
    CHECK(d->cpu == cpu && r->cpu == cpu, "cpu %u: event claims cpu %u (record %u)", cpu, d->cpu,
          r->cpu);
    CHECK(d->depth < MAX_DEPTH, "cpu %u: bad depth %u", cpu, d->depth);
    if (r->len == SMALL_LEN) {
        memcpy(&d->seq, r->data + 4, 8);
        d->big = false;
        CHECK((tag & 0xfffff) == small_check(cpu, d->depth, d->seq),
              "cpu %u: small event seq %llu corrupt", cpu, (unsigned long long)d->seq);
        return;
    }
    unsigned len = tag & 0xfffff;
    uint32_t check;
    memcpy(&check, r->data + 4, 4);
    memcpy(&d->seq, r->data + 8, 8);
    memcpy(&d->t0, r->data + 16, 8);
    memcpy(&d->t1, r->data + 24, 8);
    d->big = true;
    CHECK(len >= BIG_HEADER && len <= RB_MAX_PAYLOAD && r->len == ((len + 3) & ~3u),
          "cpu %u: record length %u for an event of %u bytes", cpu, r->len, len);
    CHECK(check == big_check(tag, d->seq, d->t0, d->t1), "cpu %u: event seq %llu corrupt", cpu,
          (unsigned long long)d->seq);
    for (unsigned i = BIG_HEADER; i < len; i++)
        CHECK(r->data[i] == fill_byte(d->seq, i), "cpu %u: event seq %llu byte %u corrupt", cpu,
              (unsigned long long)d->seq, i);
}

/* One event at the current depth: reserve, fill, commit (or now and then discard). */
static void write_one(struct writer *w, int depth)
{
    uint64_t r = rnd(&w->rng[depth]);
    unsigned pick = r % 100, len;
    if (pick < 55)
        len = SMALL_LEN;
    else if (pick < 90)
        len = BIG_HEADER + (r >> 8) % (113 - BIG_HEADER);
    else if (pick < 98)
        len = 113 + (r >> 8) % 400;
    else if (pick < 99)
        len = 513 + (r >> 8) % (RB_MAX_PAYLOAD - 512);
    else /* a whole page: it only fits an empty one, whatever the time and the nesting */
        len = RB_MAX_PAYLOAD - (r >> 8) % 4;

    struct rb_reservation res;
    w->inflight[depth] = 1;
    uint64_t t0 = clock_ns();
    uint8_t *p = rb_reserve(g.rb, len, &res);
    uint64_t t1 = clock_ns();
    if (!p) {
        w->nulls[depth]++;
        w->inflight[depth] = 0;
        return;
    }
    if ((r >> 32) % 61 == 0) {
        memset(p, 0xee, len);
        rb_discard(g.rb, &res);
        w->discards[depth]++;
        w->inflight[depth] = 0;
        return;
    }
    uint64_t seq = w->next_seq[depth]++;
    fill_event(p, len, w->cpu, depth, seq, t0, t1);
    rb_commit(g.rb, &res);
    w->commits[depth]++;
    w->inflight[depth] = 0;
}

/* An interrupt on this writer's CPU: a few events one level deeper. */
static void nest(struct writer *w, unsigned count)
{
    int depth = tl_depth + 1;
    if (depth >= MAX_DEPTH)
        return;
    for (int d = 0; d < depth; d++)
        if (w->inflight[d]) {
            w->landed[depth]++;
            break;
        }
    tl_depth = depth;
    for (unsigned i = 0; i < count; i++)
        write_one(w, depth);
    tl_depth = depth - 1;
}

static void irq_handler(int sig)
{
    struct writer *w = tl_w;
    int depth = tl_depth + 1;
    if (!w || depth >= MAX_DEPTH || !atomic_load_explicit(&g.running, memory_order_relaxed))
        return;
    int saved = errno;
    nest(w, 1 + rnd(&w->rng[depth]) % 3);
    errno = saved;
}

void rb_test_hook(int point)
{
    if (point == g.corrupt_point)
        fail("a reader found a malformed event (thread role %d)", tl_role);
    if (tl_role == ROLE_MAIN)
        return;
    if (tl_role == ROLE_READER) {
        /* Readers: stretch the window between finding the head and swapping it. */
        if ((rnd(&tl_rng) & 3) == 0) {
            atomic_fetch_add_explicit(&g.reader_hook_delays, 1, memory_order_relaxed);
            if (rnd(&tl_rng) & 1)
                sched_yield();
            else
                for (unsigned i = rnd(&tl_rng) % 3000; i; i--)
                    __builtin_ia32_pause();
        }
        return;
    }
    struct writer *w = tl_w;
    const struct phase *ph = cur_phase();
    if (g.no_hooks || (g.only_hook >= 0 && point != g.only_hook) ||
        !atomic_load_explicit(&g.running, memory_order_relaxed) || tl_depth + 1 >= MAX_DEPTH)
        return;
    uint64_t r = rnd(&w->rng[tl_depth]);
    unsigned count = 0;
    /* "reserve_timed": the outer event has its space but no header yet. */
    if (ph->burst && tl_depth == 0 && point == g.burst_point && r % ph->burst_rate == 0)
        count = ph->burst;
    else if ((r >> 20) % ph->hook_rate == 0)
        count = 1 + (r >> 40) % 3;
    if (!count)
        return;
    w->hook_nested[point]++;
    nest(w, count);
}

/* ---------------------------------------------------------------------------------- */
/* Verification */

/* Checks one consumed event against everything seen on its CPU before. Under vs[cpu].lock. */
static void verify(unsigned cpu, const struct rb_record *r, unsigned long lost)
{
    struct vstate *v = &vs[cpu];
    const struct phase *ph = cur_phase();
    struct decoded d;

    decode_event(r, cpu, &d);
    v->lost += lost;
    if (!ph->overwrite)
        CHECK(lost == 0, "cpu %u: %lu events lost in producer/consumer mode", cpu, lost);
    CHECK(!v->seen[d.depth] || d.seq > v->last_seq[d.depth], "cpu %u depth %u: seq %llu after %llu",
          cpu, d.depth, (unsigned long long)d.seq, (unsigned long long)v->last_seq[d.depth]);
    uint64_t gap = v->seen[d.depth] ? d.seq - v->last_seq[d.depth] - 1 : d.seq;
    v->gaps += gap;
    if (ph->strict)
        CHECK(v->gaps <= v->lost, "cpu %u depth %u: %lu events missing, %lu reported lost", cpu,
              d.depth, v->gaps, v->lost);
    CHECK(r->ts >= v->last_ts, "cpu %u: time went back from %llu to %llu (seq %llu depth %u)", cpu,
          (unsigned long long)v->last_ts, (unsigned long long)r->ts, (unsigned long long)d.seq,
          d.depth);
    if (d.big)
        CHECK(r->ts >= d.t0 && r->ts <= d.t1,
              "cpu %u: time %llu outside its reservation [%llu, %llu] (seq %llu depth %u)", cpu,
              (unsigned long long)r->ts, (unsigned long long)d.t0, (unsigned long long)d.t1,
              (unsigned long long)d.seq, d.depth);
    v->last_ts = r->ts;
    v->last_seq[d.depth] = d.seq;
    v->seen[d.depth] = true;
    v->consumed[d.depth]++;
    v->total++;
}

/* Consumes up to max events of cpu; under vs[cpu].lock. Returns how many. */
static unsigned consume_batch(unsigned cpu, unsigned max)
{
    unsigned n = 0;
    struct rb_record rec;
    for (; n < max; n++) {
        uint64_t peeked = 0;
        bool have = rb_peek_ts(g.rb, cpu, &peeked);
        unsigned long lost;
        bool got = rb_consume(g.rb, cpu, &rec, &lost);
        if (!cur_phase()->control) {
            /* The peeked event is on the reader page: nothing but a reset can take it. */
            CHECK(!have || got, "cpu %u: peeked an event but consumed none", cpu);
            CHECK(!have || rec.ts == peeked, "cpu %u: peeked time %llu, consumed %llu", cpu,
                  (unsigned long long)peeked, (unsigned long long)rec.ts);
            vs[cpu].peeks += have;
        }
        if (!got)
            break;
        verify(cpu, &rec, lost);
    }
    return n;
}

static void check_stats_sane(unsigned cpu)
{
    struct rb_stats st;
    rb_get_stats(g.rb, cpu, &st);
    /* Writers keep going while the counters are read, so only the bounds are exact. */
    CHECK(st.entries < (1UL << 32) && st.bytes < (1UL << 40), "cpu %u: stats underflow (%lu, %lu)",
          cpu, st.entries, st.bytes);
}

/* ---------------------------------------------------------------------------------- */
/* Threads */

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    set_cpu(&w->percpu, w->cpu);
    tl_w = w;
    tl_role = ROLE_WRITER;
    atomic_store(&w->started, 1);
    unsigned long events = 0;

    while (!atomic_load(&g.writers_quit)) {
        unsigned long gen = atomic_load(&g.pause_gen);
        if (!atomic_load(&g.running)) {
            if (atomic_load(&w->parked_gen) != gen) {
                /*
                 * An outer writer that found recording off leaves the events of writers
                 * nested into it uncommitted; the next outermost commit covers them.
                 */
                struct rb_reservation res;
                if (rb_reserve(g.rb, 4, &res))
                    rb_discard(g.rb, &res);
                else
                    w->nulls[0]++;
                atomic_store(&w->parked_gen, gen);
            }
            usleep(100);
            continue;
        }
        const struct phase *ph = cur_phase();
        if (++events % 997 == 0 && ph->clock_mode == CLOCK_JUMPY) {
            uint64_t r = rnd(&w->rng[0]);
            w->clock_offset += (1ULL << (26 + r % 15)) + (r >> 40);
        }
        if (ph->writer_nap && events % ph->writer_nap == 0)
            usleep(rnd(&w->rng[0]) % 300);
        write_one(w, 0);
    }
    atomic_store(&w->started, 0);
    return NULL;
}

static void *reader_main(void *arg)
{
    static struct percpu reader_percpu[MAX_READERS];
    unsigned idx = (unsigned)(uintptr_t)arg;
    set_cpu(&reader_percpu[idx], 100 + idx);
    tl_role = ROLE_READER;
    tl_rng ^= mix64(idx + 1);

    while (!atomic_load(&g.quit)) {
        unsigned long gen = atomic_load(&g.pause_gen);
        if (!atomic_load(&g.running)) {
            atomic_store(&g.reader_parked[idx], gen);
            usleep(200);
            continue;
        }
        unsigned start = rnd(&tl_rng) % g.nwriters;
        unsigned got = 0;
        for (unsigned k = 0; k < g.nwriters; k++) {
            unsigned cpu = (start + k) % g.nwriters;
            if (pthread_mutex_trylock(&vs[cpu].lock))
                continue;
            got += consume_batch(cpu, 1 + rnd(&tl_rng) % 200);
            pthread_mutex_unlock(&vs[cpu].lock);
        }
        if (rnd(&tl_rng) % 32 == 0)
            check_stats_sane(rnd(&tl_rng) % g.nwriters);
        unsigned delay = cur_phase()->reader_delay;
        if (delay && rnd(&tl_rng) % 4)
            usleep(rnd(&tl_rng) % delay);
        else if (!got)
            sched_yield();
    }
    return NULL;
}

/* Sends the writers their interrupts: irqs mostly, NMIs sometimes, at random moments. */
static void *ticker_main(void *arg)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    while (!atomic_load(&g.quit)) {
        if (!atomic_load(&g.running) || g.no_signals) {
            usleep(200);
            continue;
        }
        struct writer *w = &g.writers[rnd(&s) % g.nwriters];
        pthread_kill(w->thread, rnd(&s) % 4 ? SIGUSR1 : SIGUSR2);
        atomic_fetch_add_explicit(&g.signals_sent, 1, memory_order_relaxed);
        for (unsigned i = rnd(&s) % 400; i; i--)
            __builtin_ia32_pause();
        if (rnd(&s) % 64 == 0)
            sched_yield();
    }
    return NULL;
}

/* ---------------------------------------------------------------------------------- */
/* Control operations, run by the main thread during "control" phases */

static long expected_pages(void)
{
    long n = 0;
    for (unsigned c = 0; c < g.nwriters; c++)
        n += rb_size(g.rb, c) / RB_PAGE_DATA_SIZE + 1;
    return n;
}

static void control_iterate(uint64_t *s)
{
    unsigned cpu = rnd(s) % g.nwriters;
    struct vstate *v = &vs[cpu];
    pthread_mutex_lock(&v->lock); /* consumers of this CPU stand aside */
    struct rb_iter *it = rb_iter_start(g.rb, cpu);
    CHECK(it, "rb_iter_start failed");
    uint64_t first_ts = 0;
    bool have_first = rb_peek_ts(g.rb, cpu, &first_ts);
    struct rb_stats st;
    rb_get_stats(g.rb, cpu, &st);

    uint64_t last_seq[MAX_DEPTH];
    bool seen[MAX_DEPTH];
    for (int d = 0; d < MAX_DEPTH; d++) {
        last_seq[d] = v->last_seq[d];
        seen[d] = v->seen[d];
    }
    uint64_t last_ts = v->last_ts;
    unsigned long n = 0;
    struct rb_record r;
    while (rb_iter_peek(it, &r)) {
        struct decoded d;
        decode_event(&r, cpu, &d);
        if (n == 0)
            CHECK(have_first && r.ts == first_ts, "cpu %u: iterator starts at %llu, reader at %llu",
                  cpu, (unsigned long long)r.ts, (unsigned long long)first_ts);
        CHECK(!seen[d.depth] || d.seq > last_seq[d.depth],
              "cpu %u depth %u: iterator seq %llu after %llu", cpu, d.depth,
              (unsigned long long)d.seq, (unsigned long long)last_seq[d.depth]);
        CHECK(r.ts >= last_ts, "cpu %u: iterator time went back", cpu);
        if (d.big)
            CHECK(r.ts >= d.t0 && r.ts <= d.t1, "cpu %u: iterator time outside window", cpu);
        last_seq[d.depth] = d.seq;
        seen[d.depth] = true;
        last_ts = r.ts;
        CHECK(rb_iter_next(it), "cpu %u: rb_iter_next after a successful peek", cpu);
        if (++n == 50) {
            size_t other = rb_size(g.rb, cpu) == 3 * RB_PAGE_DATA_SIZE ? 4 : 3;
            int err = rb_resize(g.rb, (int)cpu, other * RB_PAGE_DATA_SIZE);
            CHECK(err == -EBUSY, "cpu %u: resize under an iterator returned %d", cpu, err);
            report.resize_ebusy++;
        }
    }
    CHECK(!have_first || n > 0, "cpu %u: reader has an event, iterator none", cpu);
    CHECK(n <= st.entries, "cpu %u: iterated %lu events, %lu in the buffer", cpu, n, st.entries);
    rb_iter_finish(it);
    pthread_mutex_unlock(&v->lock);
    report.iterations++;
    report.iterated += n;
}

static void control_resize(uint64_t *s, bool inject)
{
    static const unsigned sizes[] = {2, 3, 4, 8, 16, 40};
    int cpu = rnd(s) % 3 ? (int)(rnd(s) % g.nwriters) : -1;
    unsigned pages = sizes[rnd(s) % 6];
    size_t before[MAX_WRITERS];
    for (unsigned c = 0; c < g.nwriters; c++)
        before[c] = rb_size(g.rb, c);
    bool change = false;
    for (unsigned c = 0; c < g.nwriters; c++)
        change =
            change || ((cpu < 0 || (unsigned)cpu == c) && before[c] != pages * RB_PAGE_DATA_SIZE);
    long out = atomic_load(&pages_out);
    if (inject)
        atomic_store(&page_fail_countdown, (long)(rnd(s) % (pages + 1)));
    int err = rb_resize(g.rb, cpu, pages * RB_PAGE_DATA_SIZE - rnd(s) % 100);
    atomic_store(&page_fail_countdown, -1);
    if (inject && change) {
        CHECK(err == -ENOMEM, "resize with a failing allocation returned %d", err);
        CHECK(atomic_load(&pages_out) == out, "failed resize leaked %ld pages",
              atomic_load(&pages_out) - out);
        for (unsigned c = 0; c < g.nwriters; c++)
            CHECK(rb_size(g.rb, c) == before[c], "failed resize changed cpu %u", c);
        report.resize_enomem++;
    } else {
        CHECK(err == 0, "resize returned %d", err);
        for (unsigned c = 0; c < g.nwriters; c++)
            if (cpu < 0 || (unsigned)cpu == c)
                CHECK(rb_size(g.rb, c) == pages * RB_PAGE_DATA_SIZE, "resize did not take");
        report.resizes++;
    }
    CHECK(atomic_load(&pages_out) == expected_pages(), "pages leaked: %ld out, %ld in buffers",
          atomic_load(&pages_out), expected_pages());
}

static void control_step(uint64_t *s)
{
    if (cur_phase()->resizes_only) {
        control_resize(s, rnd(s) % 3 == 0);
        return;
    }
    switch (rnd(s) % 10) {
    case 0:
    case 1:
    case 2:
    case 3:
        control_iterate(s);
        break;
    case 4:
    case 5:
        rb_reset(g.rb, rnd(s) % 2 ? -1 : (int)(rnd(s) % g.nwriters));
        report.resets++;
        break;
    case 6:
    case 7:
        control_resize(s, false);
        break;
    case 8:
        control_resize(s, true);
        break;
    default:
        for (unsigned c = 0; c < g.nwriters; c++)
            check_stats_sane(c);
        report.stats_checks++;
    }
}

/* ---------------------------------------------------------------------------------- */
/* Phases */

static const struct phase phases[] = {
    {.name = "overwrite",
     .overwrite = true,
     .strict = true,
     .pages = 4,
     .clock_mode = CLOCK_JUMPY,
     .hook_rate = 40,
     .reader_delay = 300},
    {.name = "producer-consumer",
     .overwrite = false,
     .strict = true,
     .pages = 4,
     .clock_mode = CLOCK_COARSE,
     .hook_rate = 40,
     .reader_delay = 300},
    {.name = "control",
     .overwrite = true,
     .strict = false,
     .control = true,
     .pages = 16,
     .clock_mode = CLOCK_FINE,
     .hook_rate = 60,
     .reader_delay = 100},
    {.name = "commit-overrun",
     .overwrite = true,
     .strict = true,
     .pages = 2,
     .clock_mode = CLOCK_FINE,
     .hook_rate = 80,
     .burst_rate = 3000,
     .burst = 700,
     .reader_delay = 100},
    {.name = "reader-keeps-up",
     .overwrite = true,
     .strict = true,
     .pages = 8,
     .clock_mode = CLOCK_JUMPY,
     .hook_rate = 30,
     .writer_nap = 40},
    {.name = "producer-consumer-keeps-up",
     .overwrite = false,
     .strict = true,
     .pages = 3,
     .clock_mode = CLOCK_FINE,
     .hook_rate = 30,
     .writer_nap = 60},
    {.name = "resize",
     .overwrite = true,
     .strict = true,
     .control = true,
     .resizes_only = true,
     .pages = 4,
     .clock_mode = CLOCK_FINE,
     .hook_rate = 60,
     .reader_delay = 100},
};

static void pause_writers(void)
{
    atomic_store(&g.running, 0);
    unsigned long gen = atomic_fetch_add(&g.pause_gen, 1) + 1;
    for (unsigned i = 0; i < g.nwriters; i++)
        while (atomic_load(&g.writers[i].parked_gen) != gen)
            usleep(100);
    for (unsigned i = 0; i < g.nreaders; i++)
        while (atomic_load(&g.reader_parked[i]) != gen)
            usleep(100);
}

static void drain_and_check(const struct phase *ph)
{
    for (unsigned c = 0; c < g.nwriters; c++) {
        pthread_mutex_lock(&vs[c].lock);
        while (consume_batch(c, 1000))
            ;
        pthread_mutex_unlock(&vs[c].lock);
    }
    for (unsigned c = 0; c < g.nwriters; c++) {
        struct writer *w = &g.writers[c];
        struct vstate *v = &vs[c];
        struct rb_stats st;
        rb_get_stats(g.rb, c, &st);
        CHECK(st.entries == 0 && st.bytes == 0, "%s cpu %u: drained but %lu entries, %lu bytes",
              ph->name, c, st.entries, st.bytes);
        unsigned long written = 0, consumed = 0, missing = 0, nulls = 0, discards = 0;
        for (int d = 0; d < MAX_DEPTH; d++) {
            CHECK(w->next_seq[d] == w->commits[d], "test bookkeeping");
            written += w->commits[d];
            nulls += w->nulls[d];
            discards += w->discards[d];
            consumed += v->consumed[d];
            missing += w->next_seq[d] - v->consumed[d];
            report.nested[d] += w->commits[d];
            report.landed[d] += w->landed[d];
        }
        if (ph->strict) {
            CHECK(st.read == consumed, "%s cpu %u: buffer read %lu, test consumed %lu", ph->name, c,
                  st.read, consumed);
            CHECK(st.overrun == v->lost, "%s cpu %u: overrun %lu, lost events reported %lu",
                  ph->name, c, st.overrun, v->lost);
            CHECK(missing == v->lost, "%s cpu %u: %lu events never seen, %lu reported lost",
                  ph->name, c, missing, v->lost);
            CHECK(st.entries + st.overrun + st.read == written,
                  "%s cpu %u: entries+overrun+read = %lu, written %lu", ph->name, c,
                  st.entries + st.overrun + st.read, written);
            /* A resize refuses writers while it rebuilds, without counting them. */
            if (!ph->control)
                CHECK(nulls == st.dropped + st.commit_overrun,
                      "%s cpu %u: %lu refused reservations, dropped %lu + commit overrun %lu",
                      ph->name, c, nulls, st.dropped, st.commit_overrun);
            if (!ph->overwrite)
                CHECK(st.overrun == 0, "%s cpu %u: overrun in producer/consumer mode", ph->name, c);
        }
        report.written += written;
        report.consumed += consumed;
        report.lost += v->lost;
        report.dropped += st.dropped;
        report.commit_overrun += st.commit_overrun;
        report.discards += discards;
        report.nulls += nulls;
        report.peeks += v->peeks;
        for (unsigned h = 0; h < MAX_HOOKS; h++)
            report.hook_nested[h] += w->hook_nested[h];
        printf("  %-27s cpu %u: written %8lu consumed %8lu lost %8lu dropped %6lu "
               "commit-overrun %5lu discarded %5lu\n",
               c ? "" : ph->name, c, written, consumed, v->lost, st.dropped, st.commit_overrun,
               discards);
    }
}

static void run_phase(const struct phase *ph, double seconds)
{
    __atomic_store_n(&g.phase, ph, __ATOMIC_RELEASE);
    atomic_store(&g.clock_mode, ph->clock_mode);
    rb_set_overwrite(g.rb, ph->overwrite);
    CHECK(rb_resize(g.rb, -1, ph->pages * RB_PAGE_DATA_SIZE) == 0, "resize for the phase");
    rb_reset(g.rb, -1);
    for (unsigned c = 0; c < g.nwriters; c++) {
        struct writer *w = &g.writers[c];
        memset(w->next_seq, 0, sizeof(w->next_seq));
        memset(w->commits, 0, sizeof(w->commits));
        memset(w->nulls, 0, sizeof(w->nulls));
        memset(w->discards, 0, sizeof(w->discards));
        memset(w->landed, 0, sizeof(w->landed));
        memset(w->hook_nested, 0, sizeof(w->hook_nested));
        struct vstate *v = &vs[c];
        pthread_mutex_lock(&v->lock);
        memset(v->last_seq, 0, sizeof(v->last_seq));
        memset(v->seen, 0, sizeof(v->seen));
        memset(v->consumed, 0, sizeof(v->consumed));
        v->lost = v->gaps = v->total = v->peeks = 0;
        v->last_ts = 0;
        pthread_mutex_unlock(&v->lock);
    }

    atomic_store(&g.running, 1);
    uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
    uint64_t s = mix64(end) | 1;
    while (now_ns() < end) {
        if (ph->control) {
            control_step(&s);
            usleep(rnd(&s) % 2000);
        } else {
            usleep(20000);
        }
    }
    pause_writers();
    drain_and_check(ph);
    report.phases++;
}

/* ---------------------------------------------------------------------------------- */
/* Self-tests (the kernel's, built into this program from the other unit) */

static struct host_selftest host_tests[64];
static unsigned host_ntests;

void host_selftest_register(const char *name, void (*fn)(struct selftest_ctx *t))
{
    host_tests[host_ntests++] = (struct host_selftest){name, fn};
}

void selftest_fail(struct selftest_ctx *t, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("    # %s:%d: ", file, line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    t->failures++;
}

static int run_selftests(void)
{
    int failed = 0;
    printf("KTAP version 1\n1..%u\n", host_ntests);
    for (unsigned i = 0; i < host_ntests; i++) {
        struct selftest_ctx t = {.name = host_tests[i].name};
        long out = atomic_load(&pages_out);
        host_tests[i].fn(&t);
        if (atomic_load(&pages_out) != out)
            selftest_fail(&t, __FILE__, __LINE__, "%ld pages leaked",
                          atomic_load(&pages_out) - out);
        if (!t.failures && !t.skip_reason && t.checks == 0)
            selftest_fail(&t, __FILE__, __LINE__, "the test made no check and did not SKIP");
        failed += t.failures != 0;
        if (t.skip_reason && !t.failures)
            printf("ok %u %s # SKIP %s\n", i + 1, t.name, t.skip_reason);
        else
            printf("%s %u %s (%d checks)\n", t.failures ? "not ok" : "ok", i + 1, t.name, t.checks);
    }
    return failed;
}

/* Allocation failure at every point of a resize: -ENOMEM, nothing leaked, events intact. */
static void resize_failure_sweep(void)
{
    struct rb_reservation res;
    struct ring_buffer *rb = rb_create(3 * RB_PAGE_DATA_SIZE, 2);
    CHECK(rb, "rb_create");
    long base = atomic_load(&pages_out);
    for (uint32_t i = 0; i < 500; i++) {
        uint32_t *p = rb_reserve(rb, 12, &res);
        CHECK(p, "write before resize");
        *p = i;
        rb_commit(rb, &res);
    }
    for (long k = 0; k < 2 * 7; k++) { /* two CPUs, six pages and a reader page each */
        atomic_store(&page_fail_countdown, k);
        int err = rb_resize(rb, -1, 6 * RB_PAGE_DATA_SIZE);
        atomic_store(&page_fail_countdown, -1);
        CHECK(err == -ENOMEM, "resize failing at allocation %ld returned %d", k, err);
        CHECK(atomic_load(&pages_out) == base, "resize failing at %ld leaked", k);
    }
    struct rb_record r;
    for (uint32_t i = 0; i < 500; i++) {
        CHECK(rb_consume(rb, 0, &r, NULL), "event %u gone after failed resizes", i);
        uint32_t seq;
        memcpy(&seq, r.data, 4);
        CHECK(seq == i, "event %u became %u after failed resizes", i, seq);
    }
    CHECK(!rb_consume(rb, 0, &r, NULL), "extra events");
    rb_destroy(rb);
    printf("resize failure sweep: ok\n");
}

/* ---------------------------------------------------------------------------------- */

static void install(int sig, void (*fn)(int), int block)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = fn;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (block)
        sigaddset(&sa.sa_mask, block);
    sigaction(sig, &sa, NULL);
}

int main(int argc, char **argv)
{
    double seconds = 40;
    int opt;
    g.nwriters = 3;
    g.nreaders = 2;
    g.only_phase = -1;
#ifdef __SANITIZE_THREAD__
    /*
     * ThreadSanitizer runs signal handlers only at its own safe points, never inside the
     * writer code, and nested handlers can leave a thread with every signal blocked, which
     * would stall the sync round. Its build nests writers through the hooks alone.
     */
    g.no_signals = true;
#endif
    while ((opt = getopt(argc, argv, "t:w:r:p:k:HS")) != -1) {
        switch (opt) {
        case 'k':
            g.only_hook_name = optarg;
            break;
        case 'p':
            g.only_phase = atoi(optarg);
            break;
        case 'H':
            g.no_hooks = true;
            break;
        case 'S':
            g.no_signals = true;
            break;
        case 't':
            seconds = atof(optarg);
            break;
        case 'w':
            g.nwriters = atoi(optarg);
            break;
        case 'r':
            g.nreaders = atoi(optarg);
            break;
        default:
            fprintf(
                stderr,
                "usage: %s [-t seconds] [-w writers] [-r readers] [-p phase] [-k hook] [-H] [-S]\n"
                "  -p N  run only phase N; -k NAME nest only at hook NAME;\n"
                "  -H no nested writers from hooks; -S none from signals\n",
                argv[0]);
            return 2;
        }
    }
    if (g.nwriters < 1 || g.nwriters > MAX_WRITERS || g.nreaders < 1 || g.nreaders > MAX_READERS)
        fail("1..%d writers and 1..%d readers", MAX_WRITERS, MAX_READERS);
    setvbuf(stdout, NULL, _IOLBF, 0);
    CHECK(rb_test_hook_count() <= MAX_HOOKS, "too many hooks");
    g.burst_point = g.corrupt_point = g.only_hook = -1;
    for (unsigned h = 0; h < rb_test_hook_count(); h++) {
        if (g.only_hook_name && strcmp(rb_test_hook_name(h), g.only_hook_name) == 0)
            g.only_hook = h;
        if (strcmp(rb_test_hook_name(h), "reserve_timed") == 0)
            g.burst_point = h;
        if (strcmp(rb_test_hook_name(h), "reader_corrupt") == 0)
            g.corrupt_point = h;
    }
    CHECK(g.burst_point >= 0 && g.corrupt_point >= 0, "hooks missing");
    CHECK(!g.only_hook_name || g.only_hook >= 0, "no hook named %s", g.only_hook_name);

    install(SIGUSR1, irq_handler, 0);
    install(SIGUSR2, irq_handler, SIGUSR1); /* an NMI: irqs stay off inside it */
    install(SIGURG, sync_handler, 0);

    static struct percpu main_percpu;
    set_cpu(&main_percpu, 0);
    int failed = run_selftests();
    resize_failure_sweep();
    CHECK(atomic_load(&pages_out) == 0, "self-tests leaked %ld pages", atomic_load(&pages_out));
    set_cpu(&main_percpu, 99); /* the main thread is no writer's CPU from here */

    g.rb = rb_create(4 * RB_PAGE_DATA_SIZE, g.nwriters);
    CHECK(g.rb, "rb_create");
    g.phase = &phases[0];
    g.writers = aligned_alloc(64, sizeof(struct writer) * g.nwriters);
    memset(g.writers, 0, sizeof(struct writer) * g.nwriters);
    for (unsigned c = 0; c < g.nwriters; c++) {
        pthread_mutex_init(&vs[c].lock, NULL);
        struct writer *w = &g.writers[c];
        w->cpu = c;
        for (int d = 0; d < MAX_DEPTH; d++)
            w->rng[d] = mix64(c * 16 + d + 1) | 1;
        pthread_create(&w->thread, NULL, writer_main, w);
    }
    for (unsigned c = 0; c < g.nwriters; c++)
        while (!atomic_load(&g.writers[c].started))
            usleep(100);
    pthread_t readers[MAX_READERS], ticker;
    for (unsigned i = 0; i < g.nreaders; i++)
        pthread_create(&readers[i], NULL, reader_main, (void *)(uintptr_t)i);
    pthread_create(&ticker, NULL, ticker_main, NULL);

    unsigned nphases = sizeof(phases) / sizeof(phases[0]);
    double per_phase = seconds / (2 * nphases);
    if (per_phase < 0.2)
        per_phase = 0.2;
    uint64_t start = now_ns();
    printf("stress: %u writers, %u readers, %.1f s per phase\n", g.nwriters, g.nreaders, per_phase);
    if (g.only_phase >= 0 && g.only_phase < (int)nphases)
        per_phase = seconds / 2;
    for (unsigned i = 0; i == 0 || (now_ns() - start) / 1e9 < seconds; i++)
        run_phase(&phases[g.only_phase >= 0 ? g.only_phase % nphases : i % nphases], per_phase);
    double elapsed = (now_ns() - start) / 1e9;

    atomic_store(&g.quit, 1);
    pthread_join(ticker, NULL);
    for (unsigned i = 0; i < g.nreaders; i++)
        pthread_join(readers[i], NULL);
    rb_destroy(g.rb); /* its sync round still needs the writers */
    atomic_store(&g.writers_quit, 1);
    for (unsigned c = 0; c < g.nwriters; c++)
        pthread_join(g.writers[c].thread, NULL);
    CHECK(atomic_load(&pages_out) == 0, "%ld pages leaked", atomic_load(&pages_out));

    printf("\n%.1f s, %lu phases: %lu events written, %lu consumed, %lu lost to overwrite, "
           "%lu dropped, %lu commit overrun, %lu discarded\n",
           elapsed, report.phases, report.written, report.consumed, report.lost, report.dropped,
           report.commit_overrun, report.discards);
    printf("events by depth (0 = thread):");
    for (int d = 0; d < MAX_DEPTH; d++)
        printf(" %lu", report.nested[d]);
    printf("\nnested writes that began inside another write, by depth:");
    for (int d = 1; d < MAX_DEPTH; d++)
        printf(" %lu", report.landed[d]);
    printf("\nsignals sent %lu, sync rounds %lu, reader delays at hooks %lu, peek==consume %lu\n",
           atomic_load(&g.signals_sent), atomic_load(&g.sync_rounds),
           atomic_load(&g.reader_hook_delays), report.peeks);
    printf("nested writers run from hooks:");
    for (unsigned h = 0; h < rb_test_hook_count(); h++)
        if (report.hook_nested[h])
            printf(" %s=%lu", rb_test_hook_name(h), report.hook_nested[h]);
    printf("\ncontrol: %lu iterations (%lu events), %lu resets, %lu resizes, %lu failed (ENOMEM), "
           "%lu refused (EBUSY), %lu stats sweeps\n",
           report.iterations, report.iterated, report.resets, report.resizes, report.resize_enomem,
           report.resize_ebusy, report.stats_checks);
    if (failed) {
        printf("rb_stress: %d self-tests failed\n", failed);
        return 1;
    }
    printf("rb_stress: PASS\n");
    return 0;
}

#endif
