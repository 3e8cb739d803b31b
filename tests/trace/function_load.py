"""The function tracer while `work` runs on every CPU: every line of `trace` is in
Linux's format, names only traced functions (and callers the kernel has), keeps time
order on each CPU, shows every CPU, and its header counts what it shows; with a filter
only the filtered functions appear; with a tiny buffer the header, the per-CPU stats and
the lines agree about what was overwritten."""

import fnmatch

from harness import tracefmt as tf

setup = teardown = tf.reset_tracing
TIMEOUT = 120
# 20 ms of `work` wrote about 93,000 events at SMP=1 into one CPU's buffer, with every
# function traced and with only work_* (its hashing loops are work_* functions): more
# than the default 1408 KB holds (90,173). The runs that must lose nothing get 4096 KB.
LOAD_BUFFER_KB = 4096


def run_work(sh, seconds):
    """One `work` run (one thread per CPU), which must end with its books balanced."""
    lines = sh.run(f"work {seconds} 1")
    sh.check(len(lines) == 1 and lines[0].startswith("work: ") and lines[0].endswith(": ok"),
             f"`work {seconds} 1` did not end well", lines)


def check_names(sh, trace, wanted=None):
    """Functions must be traceable ones (or the filter's); parents must be kernel code."""
    available = tf.available_functions(sh)
    symbols = tf.kernel_text_symbols(sh)
    allowed = wanted if wanted is not None else available
    bad = [e for e in trace.of_kind("function") if e.func_name not in allowed]
    sh.check(not bad, f"{len(bad)} event(s) name a function "
             + ("outside the filter" if wanted is not None
                else "not in available_filter_functions"),
             [f"line {e.lineno}: {e.func}" for e in bad[:10]])
    known = available | symbols if symbols else available
    bad = [e for e in trace.of_kind("function")
           if e.parent is not None and e.parent_name not in known]
    sh.check(not bad, f"{len(bad)} event(s) name a caller that is not a kernel function",
             [f"line {e.lineno}: {e.func} <-{e.parent}" for e in bad[:10]])


def check_time_order(sh, trace):
    bad = tf.backwards_in_time(trace.events)
    sh.check(not bad, f"{len(bad)} time stamp(s) go backwards on their CPU",
             [f"CPU {b.cpu}: line {a.lineno} at {a.ts} us, then line {b.lineno} at {b.ts} us"
              for a, b in bad[:10]])


def check_every_cpu(sh, trace, cpus):
    seen = {e.cpu for e in trace.events}
    sh.check(seen == set(cpus), f"events from CPUs {sorted(seen)}, expected {sorted(cpus)}")


def check_counts(sh, trace, expect_overrun):
    """The header against the lines and against per_cpu/cpuN/stats."""
    stats = [tf.read_stats(sh, cpu) for cpu in range(sh.smp)]
    entries = sum(s["entries"] for s in stats)
    overrun = sum(s["overrun"] for s in stats)
    sh.check(trace.ncpus == sh.smp, f"header says #P:{trace.ncpus}, expected {sh.smp}")
    sh.check(len(trace.events) == trace.entries,
             f"{len(trace.events)} events shown, header says {trace.entries} in the buffer")
    sh.check(trace.entries == entries,
             f"header says {trace.entries} in the buffer, per-CPU stats sum to {entries}")
    sh.check(trace.written == entries + overrun,
             f"header says {trace.written} written, stats entries + overrun = "
             f"{entries} + {overrun}")
    for cpu, s in enumerate(stats):
        shown = sum(1 for e in trace.events if e.cpu == cpu)
        sh.check(shown == s["entries"],
                 f"CPU {cpu}: {shown} events shown, its stats say entries: {s['entries']}")
        sh.check(s["commit overrun"] == 0 and s["dropped events"] == 0,
                 f"CPU {cpu}: commit overrun {s['commit overrun']}, dropped "
                 f"{s['dropped events']} (expected 0 in overwrite mode)")
    if expect_overrun:
        sh.check(trace.written > trace.entries,
                 f"a tiny buffer overflowed, yet written {trace.written} = entries "
                 f"{trace.entries}")
    else:
        sh.check(overrun == 0, f"{overrun} events overwritten: the buffer was meant to "
                 "hold them all")
        sh.check(trace.written == trace.entries,
                 f"nothing was overwritten, yet written {trace.written} != entries "
                 f"{trace.entries}")


def test_unfiltered(sh):
    sh.do(f"echo {LOAD_BUFFER_KB} > buffer_size_kb", "echo function > current_tracer")
    run_work(sh, "0.02")
    sh.do("echo 0 > tracing_on")
    trace = tf.read_trace(sh)
    sh.check(trace.tracer == "function", f"# tracer: {trace.tracer}")
    sh.check(len(trace.events) > 100, f"only {len(trace.events)} events while work ran")
    check_names(sh, trace)
    check_time_order(sh, trace)
    check_every_cpu(sh, trace, range(sh.smp))
    check_counts(sh, trace, expect_overrun=False)


def test_filtered(sh):
    sh.do("echo 'work_*' > set_ftrace_filter")
    wanted = set(sh.run("cat set_ftrace_filter"))
    expected = {f for f in tf.available_functions(sh) if fnmatch.fnmatchcase(f, "work_*")}
    sh.check(wanted == expected, "set_ftrace_filter is not every available work_* function",
             [f"listed: {sorted(wanted)}", f"available: {sorted(expected)}"])
    sh.do(f"echo {LOAD_BUFFER_KB} > buffer_size_kb", "echo function > current_tracer")
    run_work(sh, "0.02")
    sh.do("echo 0 > tracing_on")
    trace = tf.read_trace(sh)
    sh.check(len(trace.events) > 10, f"only {len(trace.events)} events while work ran")
    sh.check(not trace.of_kind("stack") and not trace.of_kind("marker"),
             "events other than function calls")
    check_names(sh, trace, wanted)
    check_time_order(sh, trace)
    check_every_cpu(sh, trace, range(sh.smp))
    check_counts(sh, trace, expect_overrun=False)
    # The work threads' own functions, seen on every CPU, prove the filter let them in.
    for cpu in range(sh.smp):
        names = {e.func_name for e in trace.events if e.cpu == cpu}
        sh.check("work_compute" in names, f"CPU {cpu} never shows work_compute",
                 [f"it shows {sorted(names)}"])


def test_tiny_buffer_overwrites(sh):
    sh.do("echo 8 > buffer_size_kb", "echo function > current_tracer")
    run_work(sh, "0.05")
    sh.do("echo 0 > tracing_on")
    trace = tf.read_trace(sh)
    check_names(sh, trace)
    check_time_order(sh, trace)
    check_every_cpu(sh, trace, range(sh.smp))
    check_counts(sh, trace, expect_overrun=True)
