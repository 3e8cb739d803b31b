"""trace_pipe: it blocks until Ctrl-C, feeds a pipeline that stops it (`| head -n 5`),
consumes what it shows (so `trace` then shows less), and reports events lost to
overwriting as `CPU:N [LOST M EVENTS]` before that CPU's first event."""

from harness import tracefmt as tf

setup = teardown = tf.reset_tracing
TIMEOUT = 120


def drain(sh, command="cat trace_pipe", quiet=3.0):
    """Reads trace_pipe until it has nothing more: returns (lines, ended by itself)."""
    running = sh.begin(command)
    how = running.wait_quiet(quiet, sh.timeout)
    if how == "prompt":
        return running.finish(), True
    lines = running.interrupt()
    # The shell shows ^C where the command was interrupted.
    if lines and lines[-1] == "^C":
        lines = lines[:-1]
    return lines, False


def markers(sh, count):
    """Records count markers with the nop tracer, then stops tracing."""
    sh.do("echo 1 > tracing_on", *[f"echo marker {i} > trace_marker" for i in range(count)],
          "echo 0 > tracing_on")


def test_ctrl_c_stops_it(sh):
    sh.do("echo function > current_tracer")
    running = sh.begin("cat trace_pipe")
    sh.check(running.wait_lines(20, 60), "cat trace_pipe printed fewer than 20 lines "
             "with the function tracer on")
    lines = running.interrupt()
    sh.check(sh.status() == 130, "cat trace_pipe after Ctrl-C: exit status is not 130")
    # The last line may have been cut by the interrupt; the ones before it are whole.
    trace = tf.parse_trace(lines[:-2], header=False)
    sh.check(not trace.errors, "trace_pipe lines not in Linux's format", trace.error_report())
    sh.check(len(trace.events) >= 18, f"{len(trace.events)} events parsed")
    sh.do("echo 0 > tracing_on")


def test_head_stops_it(sh):
    sh.do("echo function > current_tracer")
    lines = sh.run("cat trace_pipe | head -n 5")
    sh.check(len(lines) == 5, f"`cat trace_pipe | head -n 5` printed {len(lines)} lines",
             lines[:10])
    trace = tf.parse_trace(lines, header=False)
    sh.check(not trace.errors, "trace_pipe lines not in Linux's format", trace.error_report())
    sh.check(sh.status() == 0, "exit status of `cat trace_pipe | head -n 5` is not 0")


def test_consumes(sh):
    markers(sh, 3)
    before = tf.read_trace(sh)
    sh.check((before.entries, before.written) == (3, 3),
             f"3 markers: header says {before.entries}/{before.written}")
    lines, _ = drain(sh)
    pipe = tf.parse_trace(lines, header=False)
    sh.check(not pipe.errors, "trace_pipe lines not in Linux's format", pipe.error_report())
    sh.check([e.text for e in pipe.events] == [f"marker {i}" for i in range(3)],
             "trace_pipe did not show the 3 markers in order", lines)
    # Consumed events are gone: entries and written both drop (Linux prints 0/0 here).
    after = tf.read_trace(sh)
    sh.check((after.entries, after.written) == (0, 0) and not after.events,
             f"after trace_pipe: header {after.entries}/{after.written}, "
             f"{len(after.events)} events")
    cpu = pipe.events[0].cpu
    stats = tf.read_stats(sh, cpu)
    sh.check(stats["read events"] == 3 and stats["entries"] == 0,
             f"CPU {cpu} stats after consuming 3: entries {stats['entries']}, "
             f"read events {stats['read events']}")
    # `trace` does not consume: two reads show the same.
    markers(sh, 2)
    first, second = sh.run("cat trace"), sh.run("cat trace")
    sh.check(first == second and tf.parse_trace(first).entries == 2,
             "two reads of trace differ, or do not show the 2 new markers")


def test_ends_when_tracing_off(sh):
    # Linux's trace_pipe returns end-of-file once tracing is off and it has read something
    # (tracing_wait_pipe), so `cat trace_pipe` ends by itself after the last event.
    markers(sh, 2)
    lines, ended = drain(sh, quiet=5.0)
    sh.check(len(lines) == 2, f"expected the 2 markers, got {len(lines)} lines", lines)
    sh.check(ended, "with tracing off and everything read, cat trace_pipe kept waiting "
             "(Linux returns end-of-file there)")


def test_lost_events(sh):
    sh.do("echo 8 > buffer_size_kb", "echo function > current_tracer")
    lines = sh.run("work 0.05 1")
    sh.check(len(lines) == 1 and lines[0].endswith(": ok"), "work did not end well", lines)
    sh.do("echo 0 > tracing_on")
    stats = [tf.read_stats(sh, cpu) for cpu in range(sh.smp)]
    lines, _ = drain(sh)
    pipe = tf.parse_trace(lines, header=False)
    sh.check(not pipe.errors, "trace_pipe lines not in Linux's format", pipe.error_report())
    for cpu, s in enumerate(stats):
        lost = [e for e in pipe.events if e.kind == "lost" and e.cpu == cpu]
        shown = [e for e in pipe.events if e.kind != "lost" and e.cpu == cpu]
        sh.check(len(shown) == s["entries"], f"CPU {cpu}: trace_pipe showed {len(shown)} "
                 f"events, its stats said entries: {s['entries']}")
        if s["overrun"] == 0:
            sh.check(not lost, f"CPU {cpu}: LOST line without overrun")
            continue
        sh.check(len(lost) == 1, f"CPU {cpu} overran {s['overrun']} events: expected one "
                 f"`CPU:{cpu} [LOST {s['overrun']} EVENTS]` line, got {len(lost)}")
        sh.check(lost[0].lost == s["overrun"], f"CPU {cpu}: LOST {lost[0].lost} EVENTS, "
                 f"but its stats said overrun: {s['overrun']}")
        sh.check(not shown or lost[0].lineno < shown[0].lineno,
                 f"CPU {cpu}: the LOST line comes after the CPU's first event")
    sh.check(any(s["overrun"] for s in stats), "an 8 KB buffer did not overflow")
    after = tf.read_trace(sh)
    sh.check(after.entries == 0 and after.written == sum(s["overrun"] for s in stats),
             f"after trace_pipe: header {after.entries}/{after.written}, expected "
             f"0/{sum(s['overrun'] for s in stats)} (written = entries + overrun)")
