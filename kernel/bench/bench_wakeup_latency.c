/*
 * bench wakeup_latency: what histogram.rst's wakeup-latency example costs the threads it
 * watches. Two SCHED_FIFO threads named bench_pingpong on this CPU hand a turn back and
 * forth over wait queues: each hand-over wakes the other and sleeps, so a round trip is two
 * sched_waking events and two sched_switch events between the pair, as for two threads of
 * one process over pipes on Linux (`make bench-linux` runs the same triggers around such a
 * pair). Round trips are timed without the triggers, then with them, written through the
 * same tracefs files as a user writes them:
 *
 *   synthetic_events                     wakeup_latency u64 lat; pid_t pid; int prio
 *   events/sched/sched_waking/trigger    hist:keys=pid:ts0=common_timestamp.usecs if comm==...
 *   events/sched/sched_switch/trigger    hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-
 *                                        $ts0:onmatch(sched.sched_waking).wakeup_latency(...)
 *   events/synthetic/wakeup_latency/trigger   hist:keys=pid,prio,lat:sort=pid,lat
 *
 * The events stay off (the triggers alone, as in histogram.rst). Every file written is put
 * back; the row skips when a user has triggers on either sched event or has it on.
 */
#include <arch/cpu.h>
#include <kernel/bench.h>
#include <kernel/errno.h>
#include <kernel/mm.h>
#include <kernel/percpu.h>
#include <kernel/pseudofs.h>
#include <kernel/sched.h>
#include <kernel/thread.h>
#include <kernel/wait.h>
#include <lib/printf.h>
#include <lib/string.h>

#include "events/event_core.h"
#include "events/event_trigger.h"
#include "trace_internal.h"

#define PINGPONG_TRIPS 20 /* round trips per sample */
#define PINGPONG_COMM "bench_pingpong"

#define WAKEUP_LATENCY_SYNTH "wakeup_latency u64 lat; pid_t pid; int prio"
#define WAKEUP_LATENCY_WAKING                                                                      \
    "hist:keys=pid:ts0=common_timestamp.usecs if comm==\"" PINGPONG_COMM "\""
#define WAKEUP_LATENCY_SWITCH                                                                      \
    "hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking)."       \
    "wakeup_latency($wakeup_lat,next_pid,next_prio) if next_comm==\"" PINGPONG_COMM "\""
#define WAKEUP_LATENCY_HIST "hist:keys=pid,prio,lat:sort=pid,lat"

/* The files in the order they are written; removed in the reverse order. */
static const struct {
    const char *path;
    const char *text;
} wakeup_latency_files[] = {
    {"synthetic_events", WAKEUP_LATENCY_SYNTH},
    {"events/sched/sched_waking/trigger", WAKEUP_LATENCY_WAKING},
    {"events/sched/sched_switch/trigger", WAKEUP_LATENCY_SWITCH},
    {"events/synthetic/wakeup_latency/trigger", WAKEUP_LATENCY_HIST},
};
#define WAKEUP_LATENCY_FILES (sizeof(wakeup_latency_files) / sizeof(wakeup_latency_files[0]))

struct pingpong {
    struct wait_queue wq[2];
    volatile unsigned turn; /* the side that runs: 0 times the round trips, 1 echoes */
    volatile bool done;
    uint64_t *samples;
    unsigned count;
};

struct pingpong_side {
    struct pingpong *pp;
    unsigned me;
};

static bool pingpong_my_turn(void *arg)
{
    const struct pingpong_side *s = arg;
    return READ_ONCE(s->pp->turn) == s->me;
}

/* Gives the other side the turn and sleeps until it comes back: one wakeup, one switch. */
static void pingpong_pass(struct pingpong_side *s)
{
    struct pingpong *pp = s->pp;
    WRITE_ONCE(pp->turn, !s->me);
    wait_queue_wake_one(&pp->wq[!s->me]);
    wait_event(&pp->wq[s->me], pingpong_my_turn, s);
}

static void pingpong_finish(struct pingpong *pp)
{
    WRITE_ONCE(pp->done, true);
    WRITE_ONCE(pp->turn, 1);
    wait_queue_wake_one(&pp->wq[1]);
}

/* Equals under SCHED_FIFO: a wakeup never preempts, so each hand-over is a wakeup and then
 * a switch when the waker sleeps, as on Linux's side. Each thread sets its own policy before
 * it takes part: set from outside, the first could run before the second had it. */
static void pingpong_fifo(void) { sched_setscheduler(current_thread(), SCHED_FIFO, 1); }

static int pingpong_echo(void *arg)
{
    struct pingpong_side *s = arg;
    pingpong_fifo();
    wait_event(&s->pp->wq[1], pingpong_my_turn, s);
    while (!READ_ONCE(s->pp->done))
        pingpong_pass(s);
    return 0;
}

static int pingpong_timer(void *arg)
{
    struct pingpong_side *s = arg;
    struct pingpong *pp = s->pp;
    pingpong_fifo();
    /* One untimed sample first: both threads have run, the triggers' entries exist. */
    for (unsigned i = 0; i <= pp->count; i++) {
        uint64_t t0 = arch_cycles();
        for (unsigned t = 0; t < PINGPONG_TRIPS; t++)
            pingpong_pass(s);
        if (i)
            pp->samples[i - 1] = arch_cycles() - t0;
    }
    pingpong_finish(pp);
    return 0;
}

/* count samples of PINGPONG_TRIPS round trips between two threads on this CPU: 0 or -errno. */
static int pingpong_run(uint64_t *samples, unsigned count)
{
    struct pingpong pp = {.samples = samples, .count = count};
    wait_queue_init(&pp.wq[0], "bench_pingpong0");
    wait_queue_init(&pp.wq[1], "bench_pingpong1");
    struct pingpong_side timer_side = {&pp, 0}, echo_side = {&pp, 1};
    unsigned cpu = this_cpu_id();
    struct thread *echo = kthread_create(pingpong_echo, &echo_side, PINGPONG_COMM, cpu);
    if (!echo)
        return -ENOMEM;
    struct thread *timer = kthread_create(pingpong_timer, &timer_side, PINGPONG_COMM, cpu);
    if (!timer) {
        pingpong_finish(&pp);
        kthread_join(echo);
        return -ENOMEM;
    }
    kthread_join(timer);
    kthread_join(echo);
    return 0;
}

/* `echo TEXT >> FILE` under TRACEFS_ROOT: 0 or the errno. */
static int wakeup_latency_write(const char *file, const char *prefix, const char *text)
{
    char path[96], line[256];
    snprintf(path, sizeof(path), TRACEFS_ROOT "/%s", file);
    snprintf(line, sizeof(line), "%s%s", prefix, text);
    return pfs_write_path(path, line, PFS_APPEND);
}

/* "Hits: N" from the synthetic event's hist file (its totals, at the end), or 0. */
static uint64_t wakeup_latency_hits(void)
{
    struct pfs_file *f;
    if (pfs_open(NULL, TRACEFS_ROOT "/events/synthetic/wakeup_latency/hist", PFS_READ, &f))
        return 0;
    /* The totals are the last lines: keep the tail of what was read. */
    char buf[512];
    size_t kept = 0;
    for (;;) {
        ssize_t n = pfs_read(f, buf + kept, sizeof(buf) - 1 - kept);
        if (n <= 0)
            break;
        kept += (size_t)n;
        buf[kept] = '\0';
        if (kept > sizeof(buf) / 2) {
            size_t drop = kept - sizeof(buf) / 4;
            memmove(buf, buf + drop, kept - drop);
            kept -= drop;
        }
    }
    buf[kept] = '\0';
    pfs_close(f);
    const char *hits = strstr(buf, "Hits: ");
    uint64_t value = 0;
    for (const char *p = hits ? hits + 6 : ""; *p >= '0' && *p <= '9'; p++)
        value = value * 10 + (uint64_t)(*p - '0');
    return value;
}

static bool wakeup_latency_event_busy(const char *name)
{
    const struct trace_event_call *call = trace_event_find("sched", name);
    return !call || trace_event_is_registered(call) || trace_event_has_triggers(call);
}

BENCH_ROW(wakeup_latency, "two threads waking each other, without and with histogram.rst's "
                          "wakeup_latency triggers")
{
    unsigned runs = ctx->runs;
    if (wakeup_latency_event_busy("sched_waking") || wakeup_latency_event_busy("sched_switch")) {
        bench_row_skipped(ctx, "wakeup_latency", "sched_waking or sched_switch is in use");
        return;
    }
    uint64_t *off = bench_samples_alloc(ctx, "wakeup_latency", runs, 2), *on = off + runs;
    if (!off)
        return;
    int err = pingpong_run(off, runs);
    unsigned written = 0;
    while (!err && written < WAKEUP_LATENCY_FILES) {
        err = wakeup_latency_write(wakeup_latency_files[written].path, "",
                                   wakeup_latency_files[written].text);
        if (!err)
            written++;
    }
    uint64_t hits = 0;
    if (!err) {
        err = pingpong_run(on, runs);
        hits = wakeup_latency_hits();
    }
    int undo_err = 0;
    while (written > 0) {
        written--;
        int e = wakeup_latency_write(wakeup_latency_files[written].path, "!",
                                     wakeup_latency_files[written].text);
        undo_err = undo_err ? undo_err : e;
    }
    if (err == -EEXIST && !undo_err) {
        bench_row_skipped(ctx, "wakeup_latency", "a wakeup_latency synthetic event exists");
        kfree(off);
        return;
    }
    if (err || undo_err) {
        bench_row_failed(ctx, "wakeup_latency", "%s: %s",
                         err ? "setting up" : "removing the triggers",
                         strerror(-(err ? err : undo_err)));
        kfree(off);
        return;
    }
    struct bench_stats a = bench_stats_of(off, runs), b = bench_stats_of(on, runs);
    struct bench_stats trip_off = {a.min / PINGPONG_TRIPS, a.median / PINGPONG_TRIPS};
    struct bench_stats trip_on = {b.min / PINGPONG_TRIPS, b.median / PINGPONG_TRIPS};
    struct bench_stats cost = {trip_on.min > trip_off.min ? trip_on.min - trip_off.min : 0,
                               trip_on.median > trip_off.median ? trip_on.median - trip_off.median
                                                                : 0};
    bench_report_cycles(ctx, "wakeup_latency.off",
                        "round trip (2 wakeups, 2 switches), no triggers", trip_off);
    bench_report_cycles(ctx, "wakeup_latency.on", "the same with the wakeup_latency triggers",
                        trip_on);
    bench_report_cycles(ctx, "wakeup_latency.cost", "the triggers' cost per round trip", cost);
    /* The timed samples and the untimed first one. */
    uint64_t trips = (uint64_t)(runs + 1) * PINGPONG_TRIPS;
    bench_report_value(ctx, "wakeup_latency.matches", "wakeup_latency events per 1000 round trips",
                       hits * 1000 / trips, "per mille");
    kfree(off);
}
