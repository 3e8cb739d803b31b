"""The osnoise and timerlat tracers: each starts and stops at every CPU count, `trace` has
Linux 6.1's header and lines, parsed field by field (every body is printed again from its
numbers with Linux's widths and must come out the same), the numbers agree with each other
(noise <= runtime, % available as Linux computes it, an irq latency never over its thread
latency), osnoise/cpus chooses the CPUs (also while running), the stop_tracing files turn
tracing off with Linux's line, print_stack adds the timer interrupt's stack, and the
osnoise: events' lines. Under TCG the numbers are the emulator's: only their relations are
checked, never their size."""

import re

from harness import tracefmt as tf

setup = teardown = tf.reset_tracing
TIMEOUT = 120

OSNOISE_HEADER = [
    "# tracer: osnoise",
    "#",
    "#                                _-----=> irqs-off",
    "#                               / _----=> need-resched",
    "#                              | / _---=> hardirq/softirq",
    "#                              || / _--=> preempt-depth",
    "#                              ||| / _-=> migrate-disable                         MAX",
    "#                              |||| /     delay                                   SINGLE"
    "      Interference counters:",
    "#                              |||||               RUNTIME      NOISE  % OF CPU  NOISE    "
    "+-----------------------------+",
    "#           TASK-PID      CPU# |||||   TIMESTAMP    IN US       IN US  AVAILABLE  IN US     "
    "HW    NMI    IRQ   SIRQ THREAD",
    "#              | |         |   |||||      |           |             |    |            |      "
    "|      |      |      |      |",
]

TIMERLAT_HEADER = [
    "# tracer: timerlat",
    "#",
    "#                                _-----=> irqs-off",
    "#                               / _----=> need-resched",
    "#                              | / _---=> hardirq/softirq",
    "#                              || / _--=> preempt-depth",
    "#                              ||| / _-=> migrate-disable",
    "#                              |||| /     delay",
    "#                              |||||            ACTIVATION",
    "#           TASK-PID      CPU# |||||   TIMESTAMP   ID            CONTEXT                 "
    "LATENCY",
    "#              | |         |   |||||      |         |                  |                  "
    "     |",
]

OSNOISE_BODY = re.compile(r"(?P<runtime>\d+) +(?P<noise>\d+) +(?P<int>\d+)\.(?P<dec>\d{5}) +"
                          r"(?P<max>\d+) +(?P<hw>\d+) +(?P<nmi>\d+) +(?P<irq>\d+) +"
                          r"(?P<sirq>\d+) +(?P<thread>\d+)")
TIMERLAT_BODY = re.compile(r"#(?P<seq>\d+) +context +(?P<ctx>irq|thread) timer_latency +"
                           r"(?P<lat>\d+) ns")
STOP_LINE = re.compile(r"\S+: stop tracing hit on cpu (?P<cpu>\d+)")
NS_TIME = r"(?P<start>\d+\.\d{9})"
EVENT_BODIES = {
    "sample_threshold": re.compile(rf"start {NS_TIME} duration (?P<duration>\d+) ns "
                                   r"interference (?P<interference>\d+)"),
    "irq_noise": re.compile(rf"(?P<desc>[a-zA-Z_0-9]+):(?P<vector>\d+) start {NS_TIME} "
                            r"duration (?P<duration>\d+) ns"),
    "thread_noise": re.compile(rf" *(?P<comm>\S.*):(?P<pid>\d+) start {NS_TIME} "
                               r"duration (?P<duration>\d+) ns"),
    "nmi_noise": re.compile(rf"start {NS_TIME} duration (?P<duration>\d+) ns"),
}


def last_cpu(sh):
    return sh.smp - 1


def split_trace(sh, lines, header):
    """The header checked line by line, then each line's context and body."""
    sh.check(lines[:len(header)] == header, "header is not Linux's",
             [f"got:  {g!r}" for g in lines[:len(header)]] + [f"want: {w!r}" for w in header])
    rows = []
    for line in lines[len(header):]:
        ctx = tf.parse_context(line)
        if isinstance(ctx, str):
            rows.append((line, None))
            continue
        rows.append((line, ctx))
    return rows


def osnoise_body(m):
    """Linux's trace_osnoise_print from the numbers."""
    runtime, noise = int(m["runtime"]), int(m["noise"])
    ratio = (runtime - noise) * 10000000 // runtime if runtime else 0
    return (f"{runtime} {noise:10d} {ratio // 100000:3d}.{ratio % 100000:05d} {int(m['max']):7d}"
            + "".join(f" {int(m[k]):6d}" for k in ("hw", "nmi", "irq", "sirq", "thread")))


def run_tracer(sh, tracer, seconds, *settings):
    """settings, then tracer for seconds; `trace` read with tracing off, then nop."""
    sh.do(*settings, f"echo {tracer} > current_tracer")
    sh.run(f"sleep {seconds}")
    sh.do("echo 0 > tracing_on")
    lines = sh.run("cat trace")
    sh.do("echo nop > current_tracer")
    return lines


def run_osnoise(sh, seconds, runtime=100000, period=200000):
    # The runtime first: it may never be over the period.
    return run_tracer(sh, "osnoise", seconds, f"echo {runtime} > osnoise/runtime_us",
                      f"echo {period} > osnoise/period_us")


def summaries(sh, rows):
    out = []
    for line, ctx in rows:
        if ctx is None:
            sh.fail("line without a context", [line])
            continue
        comm, pid, cpu, flags, ts, body = ctx
        m = OSNOISE_BODY.fullmatch(body)
        if not m:
            continue
        out.append((line, comm, cpu, flags, m, body))
    return out


def test_osnoise_summary_lines(sh):
    lines = run_osnoise(sh, 0.7)
    rows = split_trace(sh, lines, OSNOISE_HEADER)
    sums = summaries(sh, rows)
    cpus = {cpu for _, _, cpu, _, _, _ in sums}
    sh.check(cpus == set(range(sh.smp)), f"summaries from CPUs {sorted(cpus)}", lines[-10:])
    for line, comm, cpu, flags, m, body in sums:
        sh.check(comm == f"osnoise/{cpu}", f"summary from {comm} on CPU {cpu}", [line])
        sh.check(flags == ".....", f"flags {flags}: the thread writes with everything on", [line])
        sh.check(body == osnoise_body(m), "body not in Linux's widths",
                 [line, "want: " + osnoise_body(m)])
        runtime, noise, single = int(m["runtime"]), int(m["noise"]), int(m["max"])
        # The loop ends at its first read past the runtime: by at most the last gap, which
        # is under the 5 us threshold or counted in the max single noise.
        sh.check(100000 <= runtime <= 100000 + max(5, single) + 1,
                 f"runtime {runtime} us for 100000", [line])
        sh.check(noise <= runtime, "noise over runtime", [line])
        sh.check(single <= noise or (single == 0 and noise == 0), "max single over the sum",
                 [line])
        sh.check(int(m["sirq"]) == 0, "softirqs counted where there are none", [line])
        sh.check(int(m["nmi"]) == 0, "NMIs counted where none came", [line])
    others = [ln for ln, ctx in rows if ctx and not OSNOISE_BODY.fullmatch(ctx[5])]
    sh.check(not others, "lines other than summaries", others[:5])


def test_osnoise_cpus(sh):
    last = last_cpu(sh)
    sh.check(sh.run("cat osnoise/cpus") == [f"0-{last}" if last else "0"], "default cpus")
    sh.do(f"echo {last} > osnoise/cpus")
    sh.check(sh.run("cat osnoise/cpus") == [str(last)], "cpus read back")
    sums = summaries(sh, split_trace(sh, run_osnoise(sh, 0.5), OSNOISE_HEADER))
    sh.check(sums and {cpu for _, _, cpu, _, _, _ in sums} == {last},
             f"summaries from CPUs other than {last}", [s[0] for s in sums][:5])
    # Changed while it runs: its threads move to the new CPUs.
    sh.do("echo 100000 > osnoise/runtime_us", "echo 200000 > osnoise/period_us",
          "echo osnoise > current_tracer", "echo 0 > osnoise/cpus", "echo > trace",
          "echo 1 > tracing_on")
    sh.run("sleep 0.5")
    sh.do("echo 0 > tracing_on")
    threads = [ln.split()[-1] for ln in sh.run("ps") if "osnoise/" in ln]
    lines = sh.run("cat trace")
    sums = summaries(sh, split_trace(sh, lines, OSNOISE_HEADER))
    sh.do("echo nop > current_tracer")
    sh.check(threads == ["osnoise/0"], f"threads {threads} after cpus 0")
    sh.check(sums and {cpu for _, _, cpu, _, _, _ in sums} == {0}, "summaries after cpus 0",
             lines[-5:])
    sh.check(not [ln for ln in sh.run("ps") if "osnoise/" in ln], "threads left after nop")
    for bad, err in ((f"{sh.smp}", "Numerical result out of range"),
                     ("0-", "Invalid argument"), ("a", "Invalid argument"),
                     ("1-0", "Invalid argument"), ("0,,1", "Invalid argument")):
        sh.check(sh.run(f"echo {bad} > osnoise/cpus") == [f"echo: write error: {err}"],
                 f"echo {bad} > osnoise/cpus")
    sh.check(sh.run("cat osnoise/cpus") == ["0"], "a refused write changed cpus")


def test_osnoise_events(sh):
    sh.do("echo 1 > events/osnoise/enable")
    lines = run_osnoise(sh, 0.5)
    sh.do("echo 0 > events/osnoise/enable")
    rows = split_trace(sh, lines, OSNOISE_HEADER)
    seen = set()
    for line, ctx in rows:
        body = ctx[5]
        if OSNOISE_BODY.fullmatch(body):
            continue
        name, _, text = body.partition(": ")
        sh.check(name in EVENT_BODIES, "an unknown line", [line])
        if name not in EVENT_BODIES:
            continue
        m = EVENT_BODIES[name].fullmatch(text)
        sh.check(m is not None, f"{name} line not in Linux's format", [line])
        if not m:
            continue
        seen.add(name)
        if name == "sample_threshold":
            # tracing_thresh is 0: Linux's default of 5 us decides what is noise.
            sh.check(int(m["duration"]) >= 5000, "a sample under the threshold", [line])
        if name == "irq_noise":
            sh.check(ctx[3][2] == "h", "irq_noise outside the interrupt", [line])
    sh.check({"sample_threshold", "irq_noise"} <= seen, f"only {sorted(seen)} seen")
    lines = sh.run("cat events/osnoise/sample_threshold/format")
    sh.check(lines[-1] == 'print fmt: "start %llu.%09u duration %llu ns interference %llu", '
             "(REC->start) / 1000000000UL, (REC->start) % 1000000000UL, REC->duration, "
             "REC->interference", "sample_threshold's print fmt", lines[-1:])


def test_osnoise_stop_tracing_us(sh):
    # Under TCG some gap is always over 1 us: the first one stops tracing.
    sh.do("echo 1 > osnoise/stop_tracing_us")
    lines = run_osnoise(sh, 0.5)
    sh.check(sh.run("cat tracing_on") == ["0"], "tracing still on")
    rows = split_trace(sh, lines, OSNOISE_HEADER)
    stops = [ctx for _, ctx in rows if ctx and STOP_LINE.fullmatch(ctx[5])]
    sh.check(stops, "no stop line", lines[-5:])


def test_osnoise_stop_tracing_total_us(sh):
    sh.do("echo 1 > osnoise/stop_tracing_total_us")
    lines = run_osnoise(sh, 0.5)
    sh.check(sh.run("cat tracing_on") == ["0"], "tracing still on")
    rows = split_trace(sh, lines, OSNOISE_HEADER)
    sums = summaries(sh, rows)
    stops = [ctx for _, ctx in rows if ctx and STOP_LINE.fullmatch(ctx[5])]
    sh.check(stops and sums, "no summary with its stop line", lines[-5:])
    sh.check(all(int(m["noise"]) > 1 for _, _, _, _, m, _ in sums), "stopped below 1 us")


def run_timerlat(sh, seconds, *settings):
    return run_tracer(sh, "timerlat", seconds, *settings)


def activations(sh, rows):
    """(cpu, seq) -> {"irq": latency, "thread": latency}, checking each line."""
    acts = {}
    for line, ctx in rows:
        if ctx is None:
            continue
        comm, pid, cpu, flags, ts, body = ctx
        m = TIMERLAT_BODY.fullmatch(body)
        if not m:
            continue
        seq, kind, lat = int(m["seq"]), m["ctx"], int(m["lat"])
        want = f"#{seq:<5} context {kind:>6} timer_latency {lat:9d} ns"
        sh.check(body == want, "body not in Linux's widths", [line, "want: " + want])
        if kind == "thread":
            sh.check(comm == f"timerlat/{cpu}" and flags == ".....",
                     "thread line not from the CPU's thread", [line])
        else:
            sh.check(flags[0] == "d" and flags[2] == "h", "irq line outside the interrupt",
                     [line])
        sh.check((cpu, seq, kind) not in {(c, s, k) for (c, s), v in acts.items() for k in v},
                 "an activation twice", [line])
        acts.setdefault((cpu, seq), {})[kind] = lat
    return acts


def test_timerlat_lines(sh):
    lines = run_timerlat(sh, 0.3)
    rows = split_trace(sh, lines, TIMERLAT_HEADER)
    acts = activations(sh, rows)
    cpus = {cpu for cpu, _ in acts}
    sh.check(cpus == set(range(sh.smp)), f"activations on CPUs {sorted(cpus)}", lines[-6:])
    for (cpu, seq), lat in sorted(acts.items()):
        if "thread" in lat:
            sh.check("irq" in lat, f"CPU {cpu} activation {seq}: a thread line without its irq")
            sh.check(lat.get("irq", 0) <= lat["thread"],
                     f"CPU {cpu} activation {seq}: irq latency over the thread's", [str(lat)])
    for cpu in cpus:
        seqs = sorted(seq for c, seq in acts if c == cpu)
        sh.check(seqs == list(range(seqs[0], seqs[0] + len(seqs))),
                 f"CPU {cpu}: activations not consecutive", [str(seqs[:20])])
    sh.check(not [ln for ln in sh.run("ps") if "timerlat/" in ln], "threads left after nop")


def test_timerlat_period_and_cpus(sh):
    last = last_cpu(sh)
    # 100 ms: about 3 activations in 0.3 s where 1 ms makes hundreds.
    lines = run_timerlat(sh, 0.35, "echo 100000 > osnoise/timerlat_period_us",
                         f"echo {last} > osnoise/cpus")
    acts = activations(sh, split_trace(sh, lines, TIMERLAT_HEADER))
    sh.check({cpu for cpu, _ in acts} == {last}, "activations on other CPUs")
    sh.check(1 <= len(acts) <= 6, f"{len(acts)} activations at a 100 ms period")
    for bad in ("99", "1000001", "x", ""):
        sh.check(sh.run(f"echo '{bad}' > osnoise/timerlat_period_us") ==
                 ["echo: write error: Invalid argument"], f"timerlat_period_us {bad!r}")
    sh.check(sh.run("cat osnoise/timerlat_period_us") == ["100000"], "refused write changed it")


def test_timerlat_stop_tracing(sh):
    # An irq latency of at least 1 us is certain under TCG: the first activation stops.
    lines = run_timerlat(sh, 0.3, "echo 1 > osnoise/stop_tracing_us")
    sh.check(sh.run("cat tracing_on") == ["0"], "stop_tracing_us left tracing on")
    rows = split_trace(sh, lines, TIMERLAT_HEADER)
    sh.check([ctx for _, ctx in rows if ctx and STOP_LINE.fullmatch(ctx[5])], "no stop line",
             lines[-5:])
    sh.do("echo 1 > tracing_on", "echo > trace", "echo 0 > osnoise/stop_tracing_us")
    lines = run_timerlat(sh, 0.3, "echo 1 > osnoise/stop_tracing_total_us")
    sh.check(sh.run("cat tracing_on") == ["0"], "stop_tracing_total_us left tracing on")
    rows = split_trace(sh, lines, TIMERLAT_HEADER)
    acts = activations(sh, rows)
    sh.check(any("thread" in v for v in acts.values()), "stopped before a thread line")


def test_timerlat_print_stack(sh):
    lines = run_timerlat(sh, 0.2, "echo 1 > osnoise/print_stack")
    rows = split_trace(sh, lines, TIMERLAT_HEADER)
    after_thread = 0
    for i, (line, ctx) in enumerate(rows):
        if ctx and ctx[5] == "<stack trace>":
            # The line before it of the same CPU (the others' interleave).
            prev = next((c for _, c in reversed(rows[:i]) if c and c[2] == ctx[2]), None)
            sh.check(prev and TIMERLAT_BODY.fullmatch(prev[5]) and "thread" in prev[5],
                     "a stack not after a thread line", [str(prev), line])
            after_thread += 1
            frames = [ln for ln, _ in rows[i + 1:i + 4]]
            sh.check(frames and all(tf.FRAME_RE.fullmatch(f) for f in frames[:1]),
                     "stack frames not in Linux's format", frames)
    sh.check(after_thread > 0, "no stack printed at print_stack 1")


def test_files_refuse(sh):
    sh.check(sh.run("echo 10 > osnoise/period_us") == ["echo: write error: Invalid argument"],
             "period below runtime")
    sh.check(sh.run("echo 2000000 > osnoise/runtime_us") ==
             ["echo: write error: Invalid argument"], "runtime over period")
    for path in ("period_us", "runtime_us", "stop_tracing_us", "stop_tracing_total_us",
                 "print_stack"):
        sh.check(sh.run(f"echo -1 > osnoise/{path}") == ["echo: write error: Invalid argument"],
                 f"-1 into {path}")
    sh.check(sh.run("cat osnoise/period_us osnoise/runtime_us") == ["1000000", "1000000"],
             "refused writes changed the files")
