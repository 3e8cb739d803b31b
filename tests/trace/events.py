"""Trace events under load: every line in Linux 6.1's form, the sched_switch chain on each
CPU, the events that `work` must cause, and set_event_pid with options/event-fork."""

from harness import tracefmt as tf

setup = teardown = tf.reset_tracing
TIMEOUT = 120


def run_work(sh, seconds="0.1", threads=2):
    lines = sh.run(f"work {seconds} {threads}")
    sh.check(len(lines) == 1 and lines[0].endswith(": ok"), "work did not end well", lines)
    sh.do("echo 0 > tracing_on")


def read_events(sh):
    trace = tf.read_trace(sh)
    sh.check(not trace.errors, "lines not in Linux's form", trace.error_report())
    sh.check(trace.entries == trace.written,
             f"events were lost ({trace.entries}/{trace.written}): the checks need them all")
    sh.check(len(trace.events) == trace.entries, "header and lines disagree")
    return trace


def test_sched_switch_chain(sh):
    sh.do("echo sched:sched_switch > set_event")
    run_work(sh)
    trace = read_events(sh)
    switches = [e for e in trace.events if e.kind == "event"]
    sh.check(all(e.name == "sched_switch" for e in switches), "events other than sched_switch")
    sh.check(len(switches) == len(trace.events), "lines other than sched_switch")
    per_cpu = {}
    bad = []
    for e in switches:
        f = e.fields
        # The line's task is the one switched out.
        if e.pid != int(f["prev_pid"]):
            bad.append(f"line {e.lineno}: context pid {e.pid}, prev_pid {f['prev_pid']}")
        if e.pid != 0 and e.comm != f["prev_comm"]:
            bad.append(f"line {e.lineno}: context comm {e.comm}, prev_comm {f['prev_comm']}")
        if f["prev_pid"] == f["next_pid"]:
            bad.append(f"line {e.lineno}: a switch from a thread to itself")
        last = per_cpu.get(e.cpu)
        if last is not None and last.fields["next_pid"] != f["prev_pid"]:
            bad.append(f"CPU {e.cpu}: line {e.lineno} switches out pid {f['prev_pid']}, "
                       f"but line {last.lineno} switched in pid {last.fields['next_pid']}")
        per_cpu[e.cpu] = e
    sh.check(not bad, f"{len(bad)} breaks of the switch chain", bad[:10])
    counts = {cpu: sum(1 for e in switches if e.cpu == cpu) for cpu in range(sh.smp)}
    sh.check(all(n >= 4 for n in counts.values()),
             f"too few switches per CPU to judge the chain: {counts}")


def test_event_lines(sh):
    sh.do("echo 'sched:*' > set_event", "echo 'irq_vectors:*' >> set_event",
          "echo 'irq:*' >> set_event")
    run_work(sh, "0.05", 1)
    trace = read_events(sh)
    names = {e.name for e in trace.events if e.kind == "event"}
    # work makes threads (fork, wakeup_new), they sleep and wake each other, exit and are
    # joined (exit, free); the timer ticks on every CPU.
    expected = {"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new",
                "sched_process_fork", "sched_process_exit", "sched_process_free",
                "local_timer_entry", "local_timer_exit"}
    if sh.smp > 1:
        expected |= {"reschedule_entry", "reschedule_exit"}
    sh.check(expected <= names, f"missing events: {sorted(expected - names)}")
    sh.check(not {e.name for e in trace.events if e.kind != "event"} - {None},
             "lines of another kind")
    bad = [e for e in trace.events if e.name in ("local_timer_entry", "local_timer_exit")
           and (e.flags[2] != "h" or e.flags[0] != "d")]
    sh.check(not bad, "timer interrupt events not shown in hardirq with irqs off",
             [f"line {e.lineno}: {e.flags}" for e in bad[:5]])
    forks = [e for e in trace.events if e.name == "sched_process_fork"]
    children = {e.fields["child_pid"] for e in forks}
    new = {e.fields["pid"] for e in trace.events if e.name == "sched_wakeup_new"}
    sh.check(children == new, f"forked {sorted(children)} but woke new {sorted(new)}")
    sh.check(len(forks) == sh.smp, f"{len(forks)} forks for {sh.smp} work threads")
    for e in forks:
        sh.check(e.fields["comm"] == "sh" and e.pid == int(e.fields["pid"]),
                 f"line {e.lineno}: the parent is not the shell that ran work")


def test_set_event_pid_fork(sh):
    pid = tf.shell_pid(sh)
    sh.do("echo sched:sched_switch > set_event", f"echo {pid} > set_event_pid")
    sh.check(sh.run("cat set_event_pid") == [str(pid)], "set_event_pid does not list it")
    run_work(sh, "0.05", 1)
    trace = read_events(sh)
    # Without event-fork, only switches from or to the shell are recorded.
    stray = [e for e in trace.events
             if str(pid) not in (e.fields["prev_pid"], e.fields["next_pid"])]
    sh.check(trace.events and not stray, f"{len(stray)} switches involving neither side "
             f"listed", [f"line {e.lineno}" for e in stray[:5]])

    sh.do("echo > trace", "echo 1 > options/event-fork", "echo 1 > tracing_on")
    run_work(sh, "0.05", 1)
    trace = read_events(sh)
    workers = {e.pid for e in trace.events if e.comm.startswith("work/")}
    sh.check(len(workers) == sh.smp, f"event-fork: switches of {len(workers)} work threads, "
             f"expected {sh.smp}")
    # The exited children left the list again.
    sh.check(sh.run("cat set_event_pid") == [str(pid)], "exited children still listed")
    sh.do("echo > set_event_pid")


def test_notrace_pid(sh):
    # The idle threads take most timer ticks while the shell sleeps: listing pid 0 in
    # set_event_notrace_pid must leave only the ticks of other threads.
    sh.do("echo 0 > set_event_notrace_pid", "echo irq_vectors:local_timer_entry > set_event")
    sh.check(sh.run("cat set_event_notrace_pid") == ["0"], "set_event_notrace_pid does not list 0")
    sh.run("sleep 0.05")
    run_work(sh, "0.02", 1)
    trace = read_events(sh)
    idle = [e for e in trace.events if e.pid == 0]
    sh.check(trace.events and not idle, f"{len(idle)} ticks of idle recorded although pid 0 is "
             f"in set_event_notrace_pid ({len(trace.events)} events)")
    sh.do("echo > set_event_notrace_pid", "echo > trace", "echo 1 > tracing_on")
    sh.run("sleep 0.05")
    sh.do("echo 0 > tracing_on")
    trace = read_events(sh)
    sh.check(any(e.pid == 0 for e in trace.events), "no idle ticks once the list is empty")


def test_with_function_tracer(sh):
    # Events and function records share the per-CPU buffers and come out merged in time.
    # work_rotate_mix runs thousands of times a millisecond: left in, the buffer would
    # overflow on a fast run, and the checks need every event.
    sh.do("echo 'work_*' > set_ftrace_filter", "echo work_rotate_mix > set_ftrace_notrace",
          "echo function > current_tracer",
          "echo 'sched:*' > set_event", "echo 1 > events/irq_vectors/enable")
    run_work(sh, "0.02", 1)
    trace = read_events(sh)
    kinds = {e.kind for e in trace.events}
    sh.check({"function", "event"} <= kinds, f"kinds of lines: {sorted(kinds)}")
    back = tf.backwards_in_time(trace.events)
    sh.check(not back, f"{len(back)} lines older than the one before on their CPU",
             [f"line {b.lineno} after line {a.lineno}" for a, b in back[:5]])
    pipe = sh.run("cat trace_pipe | head -n 1")
    sh.check(len(pipe) == 1 and not tf.parse_trace(pipe, header=False).errors,
             "trace_pipe's first line is not in Linux's form", pipe)


def test_filter_true_false(sh):
    # A predicate true for some records keeps exactly those; one true for none keeps none.
    sh.do("echo 'next_pid == 0' > events/sched/sched_switch/filter",
          "echo sched:sched_switch > set_event")
    run_work(sh, "0.05", 1)
    trace = read_events(sh)
    sh.check(trace.events, "no switch to idle recorded")
    bad = [e for e in trace.events if e.fields["next_pid"] != "0"]
    sh.check(not bad, f"{len(bad)} records the filter should have discarded",
             [f"line {e.lineno}" for e in bad[:5]])
    sh.do("echo > trace", "echo 'next_pid == 0 && prev_pid == 0' > "
          "events/sched/sched_switch/filter", "echo 1 > tracing_on")
    run_work(sh, "0.05", 1)
    trace = read_events(sh)
    sh.check(not trace.events and trace.written == 0,
             f"an impossible filter let {trace.written} records through")
    sh.do("echo > trace", "echo 'common_pid != 0' > events/sched/filter",
          "echo 'sched:*' > set_event", "echo 1 > tracing_on")
    run_work(sh, "0.05", 1)
    trace = read_events(sh)
    idle = [e for e in trace.events if e.pid == 0]
    sh.check(trace.events and not idle, f"the system filter let {len(idle)} idle records in")
    sh.do("echo 0 > events/sched/filter")
