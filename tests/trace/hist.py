"""Histograms that measure between two events: the wakeup latency example of Linux's
Documentation/trace/histogram.rst with fentros's events (sched_waking, sched_switch), whose
synthetic wakeup_latency events must give exactly the latencies of the sched_waking /
sched_switch pairs recorded in the same trace; and the same triggers with those two events off,
where each trigger's time is read only when it asks for it."""

from harness import tracefmt as tf

TIMEOUT = 120


# histogram.rst's pair: sched_waking saves its time per pid, sched_switch makes the latency.
WAKEUP_LATENCY_TRIGGERS = (
    "echo 'hist:keys=pid:ts0=common_timestamp.usecs' >> events/sched/sched_waking/trigger",
    "echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:"
    "onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,next_prio)' "
    ">> events/sched/sched_switch/trigger")


def run_wakeups(sh):
    lines = sh.run("work 0.1 2")
    sh.check(len(lines) == 1 and lines[0].endswith(": ok"), "work did not end well", lines)
    # On one CPU work's threads seldom sleep; the shell's own sleeps make wakeups anyway.
    sh.do("; ".join(["sleep 0.01"] * 8))


def setup(sh):
    tf.reset_tracing(sh)


def teardown(sh):
    tf.reset_tracing(sh)
    sh.run("echo '!wakeup_latency' >> synthetic_events")


def test_wakeup_latency_matches_trace(sh):
    # The events record before the triggers go in, so that every variable set has its line.
    sh.do("echo 'wakeup_latency u64 lat; pid_t pid; int prio' > synthetic_events",
          "echo 1 > events/synthetic/wakeup_latency/enable",
          "echo 1 > events/sched/sched_switch/enable",
          "echo 1 > events/sched/sched_waking/enable",
          *WAKEUP_LATENCY_TRIGGERS)
    run_wakeups(sh)
    sh.do("echo 0 > tracing_on")
    trace = tf.read_trace(sh)
    sh.check(trace.entries == trace.written,
             f"events were lost ({trace.entries}/{trace.written}): the check needs them all")
    # Walk the trace in its order: each sched_waking sets its pid's time stamp (in the
    # trace's microseconds, as common_timestamp.usecs truncates), each sched_switch uses
    # the one of its next_pid, once, and a wakeup_latency event follows on that CPU.
    woken, expect, bad = {}, {}, []
    matched = pairs = 0
    for e in trace.events:
        if e.kind != "event":
            continue
        f = e.fields
        if e.name == "sched_waking":
            woken[int(f["pid"])] = int(round(e.ts * 1e6)) if isinstance(e.ts, float) else e.ts
        elif e.name == "sched_switch":
            pid = int(f["next_pid"])
            ts = int(round(e.ts * 1e6)) if isinstance(e.ts, float) else e.ts
            if pid in woken:
                expect[e.cpu] = (pid, ts - woken.pop(pid), int(f["next_prio"]), e.lineno)
                pairs += 1
            else:
                expect[e.cpu] = None
        elif e.name == "wakeup_latency":
            want = expect.pop(e.cpu, None)
            got = (int(f["pid"]), int(f["lat"]), int(f["prio"]))
            if want is None:
                bad.append(f"line {e.lineno}: wakeup_latency {got} after no waking/switch pair")
            elif got != want[:3]:
                bad.append(f"line {e.lineno}: wakeup_latency {got}, the pair before it "
                           f"(switch at line {want[3]}) gives {want[:3]}")
            else:
                matched += 1
    sh.check(not bad, f"{len(bad)} latencies differ from the trace's pairs", bad[:10])
    sh.check(pairs >= 4, f"only {pairs} waking/switch pairs in the trace")
    # A waking whose trigger ran a moment after a switch on another CPU read its
    # variable is missed; almost all are not.
    sh.check(matched >= pairs * 9 // 10, f"{matched} wakeup_latency events for {pairs} pairs")
    hist = sh.run("cat events/sched/sched_switch/hist")
    sh.check(hist[2].startswith("# trigger info: hist:keys=next_pid:vals=hitcount:"
                                "wakeup_lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:"
                                "clock=global:onmatch(sched.sched_waking).wakeup_latency("
                                "$wakeup_lat,next_pid,next_prio) [active]"), "trigger info", hist[:4])
    sh.run("echo > events/sched/sched_switch/trigger")
    sh.run("echo > events/sched/sched_waking/trigger")


def test_wakeup_latency_with_events_off(sh):
    # The same triggers with sched_waking and sched_switch off: their records are built
    # for the triggers only, and the time each trigger reads is the clock's now, read only
    # by triggers that use it. A time that was never read would make every latency 0 (or
    # the time since boot); real ones are small, mostly above 0, and end before the
    # wakeup_latency event that reports them.
    sh.do("echo 'wakeup_latency u64 lat; pid_t pid; int prio' > synthetic_events",
          "echo 1 > events/synthetic/wakeup_latency/enable",
          *WAKEUP_LATENCY_TRIGGERS)
    run_wakeups(sh)
    sh.do("echo 0 > tracing_on")
    trace = tf.read_trace(sh)
    lats, bad = [], []
    for e in trace.events:
        if e.kind != "event":
            continue
        sh.check(e.name == "wakeup_latency", f"line {e.lineno}: {e.name} recorded while off")
        lat = int(e.fields["lat"])
        ts_us = int(round(e.ts * 1e6)) if isinstance(e.ts, float) else e.ts
        if lat > ts_us or lat >= 1_000_000:
            bad.append(f"line {e.lineno}: lat={lat} at {ts_us} us")
        lats.append(lat)
    sh.check(len(lats) >= 4, f"only {len(lats)} wakeup_latency events")
    sh.check(not bad, f"{len(bad)} latencies cannot be", bad[:10])
    positive = sum(1 for lat in lats if lat > 0)
    sh.check(positive >= len(lats) * 9 // 10, f"{positive} of {len(lats)} latencies above 0",
             sorted(lats)[:20])
    sh.run("echo > events/sched/sched_switch/trigger")
    sh.run("echo > events/sched/sched_waking/trigger")
