/*
 * The hwlat tracer, as Linux 6.1's in its round-robin mode: once per window, one CPU in
 * turn spins for width with interrupts off, reading the clock twice in a row; a gap
 * between the two reads (inner) or between one pair and the next (outer) is time the CPU
 * was taken away without any interrupt: on hardware SMIs, here the emulator. A sample
 * whose largest gap is over tracing_thresh (10 us when it is 0, as Linux sets it) becomes
 * one line:
 *
 *   #1     inner/outer(us):   12/15    ts:12.345678901 count:3
 *
 * (count: reads over the threshold in the sample); the largest gap is tracing_max_latency.
 * hwlat_detector/width and window (us) are Linux's files, width never over window. ts is
 * the time since boot: there is no wall clock here.
 *
 * Threads never migrate, so a thread per CPU (hwlatd) waits for its turn rather than one
 * thread moving from CPU to CPU. They are detached: stopping bumps a generation they
 * check, and a thread of an older generation leaves at its next look (up to a sample's
 * width later; osnoise and timerlat, whose loops look every read, join theirs instead).
 */
#include <arch/cpu.h>
#include <kernel/errno.h>
#include <kernel/irqflags.h>
#include <kernel/percpu.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/printf.h>

#include "latency.h"

#define HWLAT_DEFAULT_WIDTH_US 500000ULL
#define HWLAT_DEFAULT_WINDOW_US 1000000ULL
#define HWLAT_DEFAULT_THRESH_NS 10000ULL

static volatile uint64_t hwlat_width_us = HWLAT_DEFAULT_WIDTH_US;
static volatile uint64_t hwlat_window_us = HWLAT_DEFAULT_WINDOW_US;
static volatile unsigned hwlat_generation;
static volatile bool hwlat_running;
static volatile unsigned hwlat_turn;
static uint32_t hwlat_seqnum;

static uint64_t hwlat_thresh_ns(void)
{
    uint64_t t = tracing_thresh_ns();
    return t ? t : HWLAT_DEFAULT_THRESH_NS;
}

static void hwlat_record(uint64_t inner_us, uint64_t outer_us, uint64_t ts, uint32_t count)
{
    struct percpu *cpu = this_cpu();
    if (!trace_should_record_on(cpu))
        return;
    struct rb_reservation res;
    struct trace_hwlat_event *ev = rb_reserve(trace_global.buffer, sizeof(*ev), &res);
    if (!ev)
        return;
    ev->ctx = trace_ctx_on(cpu, TRACE_HWLAT, 0);
    ev->seqnum = __atomic_add_fetch(&hwlat_seqnum, 1, __ATOMIC_RELAXED);
    ev->inner_us = (uint32_t)inner_us;
    ev->outer_us = (uint32_t)outer_us;
    ev->count = count;
    ev->ts_lo = (uint32_t)ts;
    ev->ts_hi = (uint32_t)(ts >> 32);
    rb_commit(trace_global.buffer, &res);
}

/* One sample: width of spinning with interrupts off. */
static void hwlat_sample(void)
{
    uint64_t thresh = hwlat_thresh_ns();
    uint64_t width = hwlat_width_us * 1000;
    uint64_t inner = 0, outer = 0, last_t2 = 0;
    uint32_t count = 0;
    local_irq_disable();
    uint64_t start = clock_ns(), t2;
    do {
        uint64_t t1 = clock_ns();
        t2 = clock_ns();
        if (last_t2) {
            uint64_t gap = t1 - last_t2;
            if (gap > outer)
                outer = gap;
            if (gap > thresh)
                count++;
        }
        last_t2 = t2;
        uint64_t diff = t2 - t1;
        if (diff > thresh)
            count++;
        if (diff > inner)
            inner = diff;
    } while (t2 - start <= width);
    /* Recorded before interrupts come back, as Linux records it (its line shows d). */
    if (inner > thresh || outer > thresh) {
        hwlat_record(inner / 1000, outer / 1000, start, count);
        uint64_t worst = inner > outer ? inner : outer;
        if (worst > latency_max_ns)
            latency_max_ns = worst;
    }
    local_irq_enable();
}

static int hwlat_thread(void *arg)
{
    unsigned me = (unsigned)(uintptr_t)arg;
    unsigned generation = hwlat_generation;
    while (READ_ONCE(hwlat_running) && READ_ONCE(hwlat_generation) == generation) {
        unsigned ncpus = cpus_online;
        if (READ_ONCE(hwlat_turn) % ncpus == me) {
            hwlat_sample();
            __atomic_add_fetch(&hwlat_turn, 1, __ATOMIC_RELAXED);
            uint64_t rest = hwlat_window_us - hwlat_width_us;
            sleep_ns(rest ? rest * 1000 : NSEC_PER_MSEC);
        } else {
            sleep_ns(NSEC_PER_MSEC * 10);
        }
    }
    return 0;
}

static int hwlat_init(void)
{
    /* As Linux's hwlat, tracing_thresh 0 means 10 us while it runs (hwlat_thresh_ns). */
    latency_max_ns = 0;
    hwlat_seqnum = 0;
    hwlat_turn = 0;
    __atomic_add_fetch(&hwlat_generation, 1, __ATOMIC_SEQ_CST);
    WRITE_ONCE(hwlat_running, true);
    for (unsigned c = 0; c < MAX_CPUS; c++) {
        if (!cpu_data(c)->online)
            continue;
        struct thread *t = kthread_create(hwlat_thread, (void *)(uintptr_t)c, "hwlatd", c);
        if (!t) {
            WRITE_ONCE(hwlat_running, false);
            return -ENOMEM;
        }
        kthread_detach(t);
    }
    return 0;
}

static void hwlat_reset(void)
{
    WRITE_ONCE(hwlat_running, false);
    __atomic_add_fetch(&hwlat_generation, 1, __ATOMIC_SEQ_CST);
}

TRACER(hwlat, .name = "hwlat", .init = hwlat_init, .reset = hwlat_reset);

/* ---- hwlat_detector/width and window (us): width never over window, as Linux ---- */

static int show_hwlat_value(struct seqbuf *s, void *data)
{
    const volatile uint64_t *v = data;
    return seq_printf(s, "%llu\n", (unsigned long long)*v);
}

static ssize_t store_hwlat_width(void *data, const char *buf, size_t len)
{
    unsigned long v;
    int err = tracefs_parse_ulong(buf, len, &v);
    if (err)
        return err;
    if (v == 0 || v > hwlat_window_us)
        return -EINVAL;
    hwlat_width_us = v;
    return len;
}

static ssize_t store_hwlat_window(void *data, const char *buf, size_t len)
{
    unsigned long v;
    int err = tracefs_parse_ulong(buf, len, &v);
    if (err)
        return err;
    if (v < hwlat_width_us || v > 1000000000UL)
        return -EINVAL;
    hwlat_window_us = v;
    return len;
}

TRACEFS_FILE(hwlat_width, .path = "hwlat_detector/width", .mode = 0640, .show = show_hwlat_value,
             .store = store_hwlat_width, .data = (void *)&hwlat_width_us);
TRACEFS_FILE(hwlat_window, .path = "hwlat_detector/window", .mode = 0640, .show = show_hwlat_value,
             .store = store_hwlat_window, .data = (void *)&hwlat_window_us);
