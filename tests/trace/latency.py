"""The latency tracers (irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt) against the
latency `preemptirq_delay` makes, on the last CPU: each finds it (the section is at least
the delay, and nothing else took as long), tracing_max_latency only rises, tracing_thresh
records every section over it (the latest replaces the maximum), and `trace` is Linux's
latency format, parsed field by field (header, task line, started/ended at, column legend,
lines, the stack trace). Also the preemptirq events' lines and the snapshot file, which
a latency tracer owns (EBUSY)."""

import re

from harness import tracefmt as tf

setup = teardown = tf.reset_tracing
TIMEOUT = 120

# Under TCG a section also holds the emulator's own delays: generous upper bounds, tight
# lower ones (a busy wait never ends early).
DELAY_US = 20000
SLACK_US = 30000

HEADER = [
    r"# tracer: (?P<tracer>\S+)",
    r"#",
    r"# (?P<tracer2>\S+) latency trace v1\.1\.5 on \S+",
    r"# -{68}",
    r"# latency: (?P<latency>\d+) us, #(?P<entries>\d+)/(?P<total>\d+), CPU#(?P<cpu>\d+) \| "
    r"\(M:preempt VP:0, KP:0, SP:0 HP:0 #P:(?P<ncpus>\d+)\)",
    r"#    -----------------",
    r"#    \| task: (?P<comm>.{0,16})-(?P<pid>\d+) \(uid:0 nice:0 policy:(?P<policy>\d) "
    r"rt_prio:(?P<rt_prio>\d+)\)",
    r"#    -----------------",
]
STARTED = [r"#  => started at: (?P<started>\S+)", r"#  => ended at:   (?P<ended>\S+)", r"#"]
LEGEND = [
    "#",
    "#                    _------=> CPU#            ",
    "#                   / _-----=> irqs-off/BH-disabled",
    "#                  | / _----=> need-resched    ",
    "#                  || / _---=> hardirq/softirq ",
    "#                  ||| / _--=> preempt-depth   ",
    "#                  |||| / _-=> migrate-disable ",
    "#                  ||||| /     delay           ",
    "#  cmd     pid     |||||| time  |   caller     ",
    "#     \\   /        ||||||  \\    |    /       ",
]
LINE = re.compile(r"(?P<comm>.{8})-(?P<pid>\d+) *(?P<cpu>[ \d]{3})(?P<flags>[.dDbNnhHsz][.Nn]"
                  r"[.hsHz][.0-9a-f][.0-9a-f]) (?P<time> *\d+)us(?P<mark>[ +!#*@$]): "
                  r"(?P<body>.*)")


def parse_latency_trace(sh, lines, with_bounds=True):
    """The latency trace's header fields and its lines; fails the test on any that is not
    Linux's."""
    fields = {}
    pos = 0
    expected = HEADER + (STARTED if with_bounds else []) + LEGEND
    for want in expected:
        sh.check(pos < len(lines), "trace ends inside the header", lines[:30])
        line = lines[pos]
        if want in LEGEND:
            sh.check(line == want, f"header line {pos + 1}: {line!r}, expected {want!r}",
                     lines[:30])
        else:
            m = re.fullmatch(want, line)
            sh.check(m is not None, f"header line {pos + 1} not Linux's: {line!r}", lines[:30])
            fields.update(m.groupdict())
        pos += 1
    events = []
    in_stack = False
    for line in lines[pos:]:
        if in_stack and line.startswith(" => "):
            events[-1]["stack"].append(line[4:])
            continue
        m = LINE.fullmatch(line)
        sh.check(m is not None, f"line not in Linux's latency format: {line!r}", lines[pos:pos + 30])
        ev = m.groupdict()
        ev["time"] = int(ev["time"])
        ev["stack"] = []
        in_stack = ev["body"] == "<stack trace>"
        events.append(ev)
    sh.check(fields["tracer"] == fields["tracer2"], "two tracer names in the header", lines[:4])
    sh.check(int(fields["entries"]) == len(events),
             f"header counts {fields['entries']} entries, trace has {len(events)}", lines[:30])
    sh.check(int(fields["ncpus"]) == sh.smp, "#P: is not the CPU count", lines[:6])
    times = [ev["time"] for ev in events]
    sh.check(times == sorted(times), "latency times go backwards", lines[pos:pos + 40])
    return fields, events


def max_latency(sh):
    lines = sh.run("cat tracing_max_latency")
    sh.check(len(lines) == 1 and lines[0].isdigit(), "tracing_max_latency: one number", lines)
    return int(lines[0])


def run_delay(sh, args):
    out = sh.run(f"preemptirq_delay {args}")
    sh.check(out == [], f"preemptirq_delay {args} printed something", out)


def delay_until_recorded(sh, args, usecs):
    """Runs the delay until a maximum at least that long is recorded. As on Linux, a
    section during which another CPU recorded a maximum is dropped (max_sequence); right
    after `echo 0 > tracing_max_latency` the other CPUs' short sections do that often, so
    they get a moment to settle first, and the delay a few more tries (a loaded host
    stretches any section of theirs)."""
    sh.run("sleep 0.5")
    for _ in range(6):
        run_delay(sh, args)
        lat = max_latency(sh)
        if lat >= usecs:
            return lat
    return lat


def max_and_trace(sh):
    """tracing_max_latency and the trace, read in one line: another CPU's new maximum
    could come between two."""
    out = sh.run("cat tracing_max_latency; cat trace")
    sh.check(out and out[0].isdigit(), "tracing_max_latency: one number", out[:3])
    return int(out[0]), out[1:]


def check_irqsoff_kind(sh, tracer, mode):
    cpu = sh.smp - 1
    sh.do("echo 0 > options/function-trace", f"echo {tracer} > current_tracer",
          "echo 0 > tracing_max_latency")
    delay_until_recorded(sh, f"-t {mode} -d {DELAY_US} -c {cpu}", DELAY_US)
    lat, lines = max_and_trace(sh)
    sh.check(DELAY_US <= lat <= DELAY_US + SLACK_US,
             f"{tracer}: tracing_max_latency {lat} us for a {DELAY_US} us section")
    fields, events = parse_latency_trace(sh, lines)
    sh.check(int(fields["latency"]) == lat, "header latency is not tracing_max_latency",
             [str(fields)])
    sh.check(int(fields["cpu"]) == cpu, f"{tracer}: section on CPU#{fields['cpu']}, not {cpu}")
    sh.check(fields["comm"] == "preemptirq_dela", f"{tracer}: task {fields['comm']!r}")
    # The section begins and ends in the delay's own functions (the caller of the
    # function that turned interrupts off, or, for preemption, the function itself).
    sh.check(fields["started"].startswith("preemptirq_delay_"),
             f"{tracer}: started at {fields['started']}")
    sh.check(fields["ended"].startswith("preemptirq_delay_"),
             f"{tracer}: ended at {fields['ended']}")
    # Function-trace off: the start, the end, the check and its stack trace (Linux's #4/4).
    sh.check(len(events) == 4, f"{tracer}: {len(events)} entries, expected 4",
             [e["body"] for e in events])
    sh.check(events[0]["time"] == 0, "the first entry is not at 0us", lines[-12:])
    sh.check(DELAY_US <= events[1]["time"] <= lat, f"{tracer}: section end at {events[1]['time']}us")
    sh.check(events[0]["mark"] in "#*", f"{tracer}: mark {events[0]['mark']!r} for a 20 ms gap")
    sh.check(events[3]["body"] == "<stack trace>" and events[3]["stack"],
             f"{tracer}: no stack trace at the end")
    want_flag = "d" if mode == "irq" else "."
    sh.check(events[0]["flags"][0] == want_flag and int(events[0]["cpu"]) == cpu,
             f"{tracer}: first line flags {events[0]['flags']} on CPU {events[0]['cpu']}")


def test_irqsoff_finds_irq_delay(sh):
    check_irqsoff_kind(sh, "irqsoff", "irq")


def test_preemptoff_finds_preempt_delay(sh):
    check_irqsoff_kind(sh, "preemptoff", "preempt")


def test_preemptirqsoff_finds_both(sh):
    check_irqsoff_kind(sh, "preemptirqsoff", "irq")
    check_irqsoff_kind(sh, "preemptirqsoff", "preempt")


def test_irqsoff_ignores_preempt_delay(sh):
    # A preemption-off section is not an interrupts-off one.
    sh.do("echo 0 > options/function-trace", "echo irqsoff > current_tracer",
          "echo 0 > tracing_max_latency")
    run_delay(sh, f"-t preempt -d {DELAY_US} -c {sh.smp - 1}")
    lat = max_latency(sh)
    sh.check(lat < DELAY_US, f"irqsoff reported {lat} us for a preemption-off section")


def test_max_latency_only_rises(sh):
    sh.do("echo 0 > options/function-trace", "echo irqsoff > current_tracer",
          "echo 0 > tracing_max_latency")
    seen = delay_until_recorded(sh, f"-d {DELAY_US} -c {sh.smp - 1}", DELAY_US)
    for usecs in (DELAY_US // 4, DELAY_US // 2):
        run_delay(sh, f"-d {usecs} -c {sh.smp - 1}")
        lat = max_latency(sh)
        sh.check(lat >= seen, f"tracing_max_latency fell from {seen} to {lat}")
        seen = lat
    sh.check(seen >= DELAY_US, f"the {DELAY_US} us section was not kept: {seen}")
    lat, lines = max_and_trace(sh)
    fields, _ = parse_latency_trace(sh, lines)
    sh.check(int(fields["latency"]) == lat >= seen, "the trace is not the maximum's")
    # Writing 0 restarts: a shorter section becomes the maximum.
    sh.do("echo 0 > tracing_max_latency")
    lat = delay_until_recorded(sh, f"-d {DELAY_US // 4} -c {sh.smp - 1}", DELAY_US // 4)
    sh.check(DELAY_US // 4 <= lat < DELAY_US, f"after `echo 0`: {lat} us")


def test_thresh_records_every_section_over_it(sh):
    sh.do("echo 0 > options/function-trace", "echo irqsoff > current_tracer",
          f"echo {DELAY_US // 4} > tracing_thresh")
    thresh = DELAY_US // 4
    for usecs in (DELAY_US, DELAY_US // 2, DELAY_US // 3):
        # Each section over the threshold is recorded, the last one replacing the others
        # (tracing_max_latency may fall); the trace is that section's. Another CPU's
        # section that a loaded host stretched past the threshold may come last: it is
        # recorded as rightly, and the delay runs again.
        others = []
        for _ in range(5):
            run_delay(sh, f"-d {usecs} -c {sh.smp - 1}")
            lat, lines = max_and_trace(sh)
            fields, _ = parse_latency_trace(sh, lines)
            sh.check(int(fields["latency"]) == lat, "the trace is not the latest section's",
                     lines[:8])
            if fields["comm"] == "preemptirq_dela":
                break
            sh.check(lat >= thresh, f"thresh: a {lat} us section under the {thresh} us "
                     "threshold was recorded", lines[:8])
            others.append(f"{fields['comm']}: {lat} us")
        sh.check(fields["comm"] == "preemptirq_dela",
                 f"the {usecs} us section was never the last recorded", others)
        sh.check(usecs <= lat <= usecs + SLACK_US, f"thresh: {lat} us after a {usecs} us section")


def test_function_trace_shows_the_section(sh):
    # Every function a CPU runs with interrupts off is traced now: other sections grow
    # long under TCG too, so the delay is the longest one.
    sh.do("echo 1 > options/function-trace", "echo irqsoff > current_tracer")
    delay_until_recorded(sh, f"-d {DELAY_US * 2} -c {sh.smp - 1}", DELAY_US * 2)
    fields, events = parse_latency_trace(sh, sh.run("cat trace"))
    sh.check(fields["comm"] == "preemptirq_dela", f"the maximum is not the delay's: {fields}")
    bodies = [e["body"] for e in events]
    sh.check(any(b.startswith("preemptirq_delay_busy_wait <-preemptirq_delay_irqoff")
                 for b in bodies), "the busy wait inside the section is not in the trace",
             bodies[:20])


# options/display-graph: the irqsoff tracers' trace as function_graph prints it with Linux's
# columns for them (REL TIME, CPU, TASK/PID, the flags, DURATION), under the latency banner.
GRAPH_LEGEND = [
    "#                                       _-----=> irqs-off        ",
    "#                                      / _----=> need-resched    ",
    "#                                     | / _---=> hardirq/softirq ",
    "#                                     || / _--=> preempt-depth   ",
    "#                                     ||| /                      ",
    "#   REL TIME      CPU  TASK/PID       ||||     DURATION                  FUNCTION CALLS",
    "#      |          |     |    |        ||||      |   |                     |   |   |   |",
]
GRAPH_LINE = re.compile(r" *(?P<rel>\d+) us \|  +(?P<cpu>\d+)\) (?P<task>.{14}) \|  "
                        r"(?P<flags>[.d][.N][.hz][.0-9a-f]\.) \| (?P<duration>.{14}\|)  "
                        r"(?P<body>.*)")


def test_display_graph_shows_the_section(sh):
    sh.do("echo 1 > options/function-trace", "echo 1 > options/display-graph",
          "echo irqsoff > current_tracer")
    lat = delay_until_recorded(sh, f"-d {DELAY_US * 2} -c {sh.smp - 1}", DELAY_US * 2)
    lines = sh.run("cat trace")
    # The banner as in the latency format, then the graph's legend and columns.
    pos = 0
    for want in HEADER + STARTED:
        sh.check(pos < len(lines) and re.fullmatch(want, lines[pos]) is not None,
                 f"header line {pos + 1} not Linux's: {lines[pos] if pos < len(lines) else ''!r}",
                 lines[:20])
        pos += 1
    sh.check(lines[pos] == "#", "no `#` line after the banner", lines[:20])
    sh.check(lines[pos + 1:pos + 1 + len(GRAPH_LEGEND)] == GRAPH_LEGEND,
             "the graph legend and columns are not Linux's for irqsoff", lines[pos:pos + 9])
    body = lines[pos + 1 + len(GRAPH_LEGEND):]
    graph = [GRAPH_LINE.fullmatch(line) for line in body]
    parsed = [m for m in graph if m]
    sh.check(len(parsed) >= 3, "too few graph lines", body[:20])
    rel = [int(m["rel"]) for m in parsed]
    sh.check(rel[0] == 0 and rel == sorted(rel), "REL TIME does not start at 0 and rise",
             body[:20])
    # The section's end, then the check that recorded it (after the latency was taken).
    sh.check(DELAY_US * 2 <= rel[-2] <= lat <= rel[-1],
             f"the section ends at {rel[-2]} us, checked at {rel[-1]} us; latency {lat} us",
             body[-6:])
    funcs = " ".join(m["body"] for m in parsed)
    sh.check("preemptirq_delay_busy_wait" in funcs,
             "the busy wait inside the section is not in the graph", body[:20])
    # Lines the graph does not draw (the stack trace at the end) keep the latency format.
    rest = [line for line, m in zip(body, graph) if not m]
    sh.check(any(line.endswith(": <stack trace>") for line in rest), "no stack trace", rest)
    # Off again: the latency format, from a clean slate. The idle loop's sections set a
    # new maximum at once, short ones on a quiet host; under a loaded host a vCPU held off
    # its CPU in one can make it tens of milliseconds (seen: over DELAY_US at 4 CPUs), so
    # the new maximum only has to be below the one recorded before.
    sh.do("echo 0 > options/display-graph")
    sh.check(max_latency(sh) < lat, "display-graph did not restart tracing_max_latency")


def test_wakeup_display_graph(sh):
    """wakeup_rt with display-graph: its columns (CPU, TASK/PID, overhead marks), and its
    wakeup and switch lines as comments in the graph, as Linux's print_graph_comment."""
    cpu = sh.smp - 1
    sh.do("echo 1 > options/display-graph", "echo wakeup_rt > current_tracer")
    delay_until_recorded(sh, f"-t wakeup -d {DELAY_US} -c {cpu}", DELAY_US)
    lines = sh.run("cat trace")
    sh.check("#   REL TIME      CPU  TASK/PID       ||||     DURATION                  "
             "FUNCTION CALLS" in lines, "no graph column line for wakeup_rt", lines[:24])
    comment = re.compile(r" *\d+ us \|  +\d+\) .{14} \|  \S{5} \|               \|  +"
                         r"/\* +\d+:120:[RS] (  \+|==>) \[\d{3}\] +\d+: 49:R preemptirq_wake \*/")
    found = [line for line in lines if comment.fullmatch(line)]
    sh.check(len(found) == 2, f"{len(found)} wakeup/switch comments, expected 2", lines[:40])


def check_wakeup(sh, tracer):
    cpu = sh.smp - 1
    sh.do("echo 0 > options/function-trace", f"echo {tracer} > current_tracer",
          "echo 0 > tracing_max_latency")
    delay_until_recorded(sh, f"-t wakeup -d {DELAY_US} -c {cpu}", DELAY_US)
    lat, lines = max_and_trace(sh)
    sh.check(DELAY_US <= lat <= DELAY_US + SLACK_US,
             f"{tracer}: {lat} us for a thread kept waiting {DELAY_US} us")
    fields, events = parse_latency_trace(sh, lines, with_bounds=False)
    sh.check(fields["comm"] == "preemptirq_wake" and fields["policy"] == "1" and
             fields["rt_prio"] == "50", f"{tracer}: task line {fields}")
    wake = [e for e in events if re.fullmatch(r" +\d+:120:R   \+ \[\d{3}\] +\d+: 49:R "
                                              r"preemptirq_wake", e["body"])]
    switch = [e for e in events if re.fullmatch(r" +\d+:120:[RS] ==> \[\d{3}\] +\d+: 49:R "
                                                r"preemptirq_wake", e["body"])]
    sh.check(len(wake) == 1 and len(switch) == 1, f"{tracer}: wakeup and switch lines",
             [e["body"] for e in events])
    sh.check(switch[0]["time"] - wake[0]["time"] >= DELAY_US - 1000,
             f"{tracer}: switch {switch[0]['time']}us after wakeup {wake[0]['time']}us")


def test_wakeup_finds_delay(sh):
    check_wakeup(sh, "wakeup")


def test_wakeup_rt_finds_delay(sh):
    check_wakeup(sh, "wakeup_rt")


def test_preemptirq_events(sh):
    sh.do("echo 1 > events/preemptirq/irq_disable/enable",
          "echo 1 > events/preemptirq/irq_enable/enable")
    run_delay(sh, f"-d 10 -c {sh.smp - 1}")
    sh.do("echo 0 > events/preemptirq/enable")
    lines = sh.run("cat trace | grep preemptirq_delay_irqoff")
    line = r"(irq_disable|irq_enable): caller=preemptirq_delay_irqoff\+0x[0-9a-f]+/0x[0-9a-f]+ " \
           r"parent=preemptirq_delay_run\+0x[0-9a-f]+/0x[0-9a-f]+"
    kinds = [m.group(1) for m in (re.search(line, ln) for ln in lines) if m]
    sh.check(kinds == ["irq_disable", "irq_enable"], "the delay's irq_disable and irq_enable",
             lines)
    context = r" {0,16}preemptirq_dela-\d+ +\[\d{3}\] d\.\.\.\. +\d+\.\d{6}: "
    sh.check(all(re.match(context, ln) for ln in lines), "event lines not in Linux's format",
             lines)


def test_snapshot_is_busy_under_latency_tracer(sh):
    sh.do("echo irqsoff > current_tracer")
    sh.check(sh.run("cat snapshot") == ["cat: snapshot: Device or resource busy"],
             "cat snapshot under irqsoff")
    sh.check(sh.run("echo 1 > snapshot") == ["echo: write error: Device or resource busy"],
             "echo 1 > snapshot under irqsoff")
    sh.do("echo nop > current_tracer")
    sh.check(sh.run("cat options/latency-format") == ["0"], "latency-format not restored")


HWLAT_LINE = re.compile(r" {0,16}hwlatd-\d+ +\[(?P<cpu>\d{3})\] d\.\.\.\. +\d+\.\d{6}: "
                        r"#(?P<seq>\d+) *inner/outer\(us\): +(?P<inner>\d+)/(?P<outer>\d+) *"
                        r"ts:\d+\.\d{9} count:(?P<count>\d+)")


def test_hwlat_samples(sh):
    # Under TCG the emulator takes the CPU away for far more than 1 us within any 20 ms
    # of spinning: every CPU in turn reports samples.
    sh.do("echo 20000 > hwlat_detector/width", "echo 40000 > hwlat_detector/window",
          "echo 1 > tracing_thresh", "echo hwlat > current_tracer")
    sh.run(f"sleep {0.2 * sh.smp}")
    sh.do("echo 0 > tracing_on")
    lines = [ln for ln in sh.run("cat trace") if not ln.startswith("#")]
    sh.do("echo nop > current_tracer", "echo 1000000 > hwlat_detector/window",
          "echo 500000 > hwlat_detector/width")
    samples = [HWLAT_LINE.fullmatch(ln) for ln in lines]
    sh.check(lines and all(samples), "hwlat lines not in Linux's format", lines[:10])
    seqs = [int(m["seq"]) for m in samples]
    sh.check(seqs == list(range(seqs[0], seqs[0] + len(seqs))), "sample numbers not in order",
             lines[:10])
    worst = max(max(int(m["inner"]), int(m["outer"])) for m in samples)
    lat = max_latency(sh)
    sh.check(lat >= worst, f"tracing_max_latency {lat} us below a {worst} us sample")
    for bad, path in (("0", "hwlat_detector/width"), ("10", "hwlat_detector/window")):
        sh.check(sh.run(f"echo {bad} > {path}") == ["echo: write error: Invalid argument"],
                 f"echo {bad} > {path} should be EINVAL")
