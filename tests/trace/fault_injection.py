"""Every shell test script on the shared boot, run again with allocations failing
(failslab and fail_page_alloc at several probabilities, no limit on times): each command
must come back to the prompt, no fault text may appear, and once injection is off and
tracing is reset, the heap must hold no more live allocations than after the same script
run without injection. Outputs are not compared: a command may fail with `Cannot
allocate memory` (or its own errno) wherever an allocation fails. Each script must have
had failures injected (the kernel's `times` countdown says how many): a script run whose
allocations all succeeded is run again, as many times as it takes for a working injector
to have failed one of its allocations but for a one-in-a-million chance (a script that
allocates little, as shell/long-line, may need dozens of runs at 5 %), so that injection
that broke cannot pass as two clean runs compared. Each script runs at 5 % and then at
30 % before the next script: one clean run sets its baseline for both.
`FAULT_SCRIPTS=AREA/FILE,...` picks scripts."""

import math
import os
import re

from harness import shelltest
from harness import tracefmt as tf
from harness.faultinject import INJECTORS, injected, restore_defaults, set_injection
from harness.paths import SHELL_DIR

SMP = [2]
TIMEOUT = 120
# Scripts that would measure the wrong thing under injection: a benchmark's timing loop,
# and the scripts that set the injection themselves (they would end it, and reset the
# countdown that says how many failures were injected).
SKIP = {"bench/bench", "fault/fault-injection", "fault/fault-injection-off"}
# The chance a script may have had of no injected failure in all its runs, working
# injection given: what sets how many runs it gets (runs_until_injected).
MISS_CHANCE = 1e-6
# The share of a clean run's heap allocations taken to be calls injection can fail in a
# later run. Fewer are than the count says: shell/long-line's first run made 29, and its
# later runs at 5 % went uninjected 19 times in 40, as 15 calls would. A quarter leaves
# room for scripts that allocate on a first run only.
ELIGIBLE_SHARE = 0.25
# More runs than this are not made (a script that allocates once runs 270 times at 5 %).
MAX_RUNS = 300


def scripts():
    """The shared-boot scripts; $FAULT_SCRIPTS (names as AREA/FILE, comma-separated) picks
    some."""
    tests = shelltest.parse_scripts(SHELL_DIR)
    only = set(filter(None, os.environ.get("FAULT_SCRIPTS", "").split(",")))
    return [t for t in tests if not t.own_boot and t.name not in SKIP
            and (not only or t.name in only)]


def live_allocations(sh):
    """Allocations not yet freed, once two readings a little apart agree (an exiting
    thread's stack is freed after it is gone)."""
    last = None
    for _ in range(20):
        now = read_live(sh)
        if now == last:
            return now
        last = now
        sh.run("sleep 0.1")
    return last


def read_heap(sh):
    lines = sh.run("cat /proc/meminfo")
    values = {}
    for line in lines:
        m = re.match(r"^(HeapAllocs|HeapFrees):\s+(\d+)$", line)
        if m:
            values[m[1]] = int(m[2])
    sh.check(len(values) == 2, "meminfo lacks HeapAllocs/HeapFrees", lines)
    return values


def read_live(sh):
    values = read_heap(sh)
    return values["HeapAllocs"] - values["HeapFrees"]


def allocations_of(sh, test):
    """Heap allocations one clean run of the script makes (less what reading the count
    costs): what sets how many calls a later run gives failslab to fail (ELIGIBLE_SHARE)."""
    first = read_heap(sh)["HeapAllocs"]
    second = read_heap(sh)["HeapAllocs"]
    run_script(sh, test)
    third = read_heap(sh)["HeapAllocs"]
    return max(0, third - second - (second - first))


def runs_until_injected(allocations, probability):
    """Runs after which a working injector has failed one of `allocations` calls a run
    at `probability` % but for MISS_CHANCE: 0 misses, for a script with no allocations
    injection could fail, are not asked for."""
    if allocations == 0:
        return 0
    log_miss_per_run = allocations * ELIGIBLE_SHARE * math.log(1 - probability / 100)
    return min(MAX_RUNS, max(1, math.ceil(math.log(MISS_CHANCE) / log_miss_per_run)))


def run_script(sh, test):
    sh.run("cd /")
    for step in test.steps:
        reply = sh.console.command(step.keys if step.keys.endswith((b"\r", b"\x03"))
                                   else step.keys + b"\r", sh.timeout)
        sh.reply_lines(step.source, reply)


def settle(sh):
    """Tracing's boot state, twice: the second pass frees what the first could not. The
    live patches off too, and ftrace_enabled back on (they are refused while one is on)."""
    for patch in ("livepatch_sample", "livepatch_work"):
        sh.run(f"echo 0 > /sys/kernel/livepatch/{patch}/enabled; livepatch wait")
    sh.run("echo 1 > /proc/sys/kernel/ftrace_enabled")
    tf.remove_function_commands(sh)
    tf.reset_tracing(sh)
    sh.do("echo > error_log", "echo 0 > /proc/sys/kernel/stack_tracer_enabled",
          "echo 0 > function_profile_enabled", "echo > set_graph_function",
          "echo > set_graph_notrace")
    tf.reset_tracing(sh)


def baseline(sh, test):
    """One clean run of the script, then tracing's boot state: (the run's allocations,
    the live allocations after it), the count each run under injection is judged by."""
    allocations = allocations_of(sh, test)
    settle(sh)
    return allocations, live_allocations(sh)


def under_injection(sh, probabilities):
    """Each script at each probability in turn, then the next script. A script's runs at
    the next probability start from the same clean baseline when the heap is back to it;
    when it is not (fewer live allocations is no leak, see below), a clean run takes a
    new baseline, as it would before the first."""
    failed, uninjected = [], []
    for test in scripts():
        allocations, before = baseline(sh, test)
        after = before
        for probability in probabilities:
            if after != before:
                allocations, before = baseline(sh, test)
            runs = runs_until_injected(allocations, probability)
            for _ in range(max(1, runs)):
                set_injection(sh, probability)
                run_script(sh, test)
                set_injection(sh, 0)
                count = injected(sh)
                if count:
                    break
            if runs and not count:
                uninjected.append(f"{test.name} at {probability} %: no failure in {runs} "
                                  f"runs of {allocations} allocations")
            settle(sh)
            after = live_allocations(sh)
            # More live allocations is a leak. Fewer is not: a state reached through failed
            # writes may hold fewer objects than the clean run left (seen once at 30 % after
            # function-graph-retval, -4); a double free would have tripped the heap's checks.
            if after > before:
                failed.append(f"{test.name} at {probability} %: {after - before:+d} live "
                              "allocations; set_ftrace_filter: "
                              f"{sh.run('cat set_ftrace_filter')[:6]}")
            sh.check(sh.run("echo alive") == ["alive"],
                     f"after {test.name} at {probability} %: the shell is broken")
    at = " and ".join(f"{p} %" for p in probabilities)
    sh.check(not failed, f"{len(failed)} script runs leaked under injection at {at}", failed)
    sh.check(not uninjected, f"{len(uninjected)} script runs had no injected failure at {at}",
             uninjected)


setup = tf.reset_tracing


def teardown(sh):
    set_injection(sh, 0)
    restore_defaults(sh)
    settle(sh)


def test_failing_5_then_30_percent(sh):
    """Each script at 5 %, then at 30 %: the two share the clean run that sets the
    script's baseline and run count, which two passes over every script made twice."""
    under_injection(sh, (5, 30))


# Files and two values each is switched between.
STATEFUL = (
    ("current_tracer", ("function", "nop")),
    ("buffer_size_kb", ("700", "1408")),
    ("set_ftrace_filter", ("work_*", "kfree")),
    ("events/sched/sched_switch/filter", ("prev_pid == 1", "next_pid == 2")),
    ("set_event", ("sched:sched_switch", "irq_vectors:local_timer_entry")),
)


def test_state_whole_on_failure(sh):
    """A write that fails for want of memory leaves the old state whole; one that
    succeeds leaves the new one; and a failed resize keeps the buffer's events."""
    outcomes = {"ok": 0, "failed": 0}
    for path, values in STATEFUL:
        shows = {}  # what the file reads after a write of each value that worked
        for v in values:
            sh.do(f"echo '{v}' > {path}")
            shows[v] = sh.run(f"cat {path}")
        current = values[1]
        for round_ in range(12):
            want = values[round_ % 2]
            sh.do("echo marker-before > trace_marker")
            set_injection(sh, 10)
            lines = sh.run(f"echo '{want}' > {path}")
            set_injection(sh, 0)
            state = sh.run(f"cat {path}")
            if not lines:
                outcomes["ok"] += 1
                sh.check(state == shows[want], f"{path}: `{want}` succeeded, reads {state}")
                current = want
            else:
                outcomes["failed"] += 1
                sh.check(any("Cannot allocate memory" in l for l in lines),
                         f"{path}: a failed write said something else", lines)
                # set_ftrace_filter commits at close what `>` truncated, even after a
                # failed write, as Linux's does (tests/shell/ftrace/ftrace-files.t): emptied then.
                # set_event's `>` turns every event off when the file opens, as Linux's
                # ftrace_event_set_open does with O_TRUNC: if echo then cannot allocate
                # its text, nothing is enabled.
                emptied = {"set_ftrace_filter": ["#### all functions enabled ####"],
                           "set_event": []}.get(path)
                allowed = [shows[current]] + ([emptied] if emptied is not None else [])
                sh.check(state in allowed,
                         f"{path}: a failed `{want}` left {state}, not {shows[current]}")
                if state != shows[current]:
                    current, shows[""] = "", emptied
                if path == "buffer_size_kb":
                    sh.check(any("marker-before" in l for l in sh.run("cat trace")),
                             "a failed resize lost the buffer's events")
            sh.do("echo > trace")
        sh.do(f"echo '{values[1]}' > {path}")
    sh.check(outcomes["ok"] and outcomes["failed"], f"no mix of outcomes: {outcomes}")


def test_snapshot_whole_on_failure(sh):
    """`echo 1 > snapshot` at 30 % (5 % when only the swap is left to do): it works (the
    trace moved into the snapshot) or fails for want of memory with nothing half-made (no
    snapshot when there was none, the trace still live), and the heap holds what it held
    before once the snapshot is freed."""
    sh.do("echo 0 > snapshot", "echo > trace")
    before = live_allocations(sh)
    outcomes = {"ok": 0, "failed": 0, "write refused": 0}
    for round_ in range(36):
        allocated = round_ % 3 == 2  # then the swap alone, which allocates nothing itself
        sh.do("echo 1 > snapshot" if allocated else "echo 0 > snapshot", "echo > trace",
              f"echo marker-{round_} > trace_marker")
        # Pages fail in odd rounds too: the buffer's hundreds of them then never all come.
        injectors = INJECTORS if round_ % 2 else ("failslab",)
        # The swap alone runs at 5 %: at 30 % the shell's own allocations for the line
        # failed it too often, and in four runs of eight no round worked, so the mix
        # checked below was luck.
        set_injection(sh, 5 if allocated else 30, injectors)
        lines = sh.run("echo 1 > snapshot")
        set_injection(sh, 0, injectors)
        if any("write error" in line for line in lines):
            outcomes["write refused"] += 1
        in_snapshot = sh.run(f"cat snapshot | grep -c marker-{round_}")
        in_trace = sh.run(f"cat trace | grep -c marker-{round_}")
        help_text = sh.run("cat snapshot | head -n 4")
        if not lines:
            outcomes["ok"] += 1
            sh.check(in_snapshot == ["1"] and in_trace == ["0"],
                     f"round {round_}: a swap that worked left the marker live",
                     in_snapshot + in_trace)
        else:
            outcomes["failed"] += 1
            sh.check(all("Cannot allocate memory" in line for line in lines),
                     f"round {round_}: a failed `echo 1 > snapshot` said something else", lines)
            sh.check(in_trace == ["1"] and in_snapshot == ["0"],
                     f"round {round_}: a failed swap moved the marker", in_snapshot + in_trace)
            if not allocated:
                sh.check(help_text[-1:] == ["# * Snapshot is freed *"],
                         f"round {round_}: a failed allocation left a snapshot", help_text)
    sh.do("echo 0 > snapshot", "echo > trace")
    after = live_allocations(sh)
    sh.check(after <= before, f"{after - before} allocations left behind by the rounds")
    sh.check(outcomes["ok"] and outcomes["failed"], f"no mix of outcomes: {outcomes}")


def test_graph_filter_whole_on_failure(sh):
    """The function graph op keeps its own copies of set_ftrace_filter and
    set_ftrace_notrace. A write of either at 10 % either changes both the filter and the
    graph's copy, or neither: never a graph op left with no filter, which is every
    function (enabled_functions would then list thousands of sites)."""
    sh.do("echo function_graph > current_tracer")
    outcomes = {"ok": 0, "failed": 0}
    try:
        for round_ in range(24):
            path = "set_ftrace_notrace" if round_ % 3 == 2 else "set_ftrace_filter"
            want = ("work_table_op", "kfree")[round_ % 2]
            sh.do("echo work_table_op > set_ftrace_filter", "echo > set_ftrace_notrace")
            set_injection(sh, 10)
            lines = sh.run(f"echo {want} > {path}")
            set_injection(sh, 0)
            outcomes["failed" if lines else "ok"] += 1
            filt = sh.run("cat set_ftrace_filter")
            sites = sh.run("cat enabled_functions")
            # Whatever the write did, the graph traces what the filter files say: at most
            # the one filtered function (none when it is also in notrace). A failed `>`
            # of set_ftrace_filter may leave it empty, every function, as Linux's does.
            if filt != ["#### all functions enabled ####"]:
                sh.check(len(sites) <= 1, f"round {round_}: `echo {want} > {path}` left "
                         f"{len(sites)} enabled sites with set_ftrace_filter {filt[:3]}",
                         sites[:5])
            if path == "set_ftrace_filter" and not lines:
                sh.check(filt == [want], f"round {round_}: the filter reads {filt[:3]}")
    finally:
        sh.do("echo nop > current_tracer", "echo > set_ftrace_filter",
              "echo > set_ftrace_notrace")
    sh.check(outcomes["ok"] and outcomes["failed"], f"no mix of outcomes: {outcomes}")
