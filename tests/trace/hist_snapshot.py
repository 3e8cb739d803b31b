"""onmax($wakeup_lat).snapshot(): under a load that wakes threads, the swap it keeps is the
one of the largest latency across every entry, as the hist file's own entries show, and
the snapshot holds the sched_switch of the key that made it (the swap comes after the
switch's commit, at 1 CPU too). The snapshot outlives the trigger."""

import re

from harness import tracefmt as tf

TIMEOUT = 120
SWITCH = "events/sched/sched_switch"
TRIGGER = ("hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:"
           "onmax($wakeup_lat).save(prev_pid):onmax($wakeup_lat).snapshot()")
ENTRY = re.compile(r"^\{ next_pid: +(\d+) \} hitcount: +\d+$")
MAX = re.compile(r"^\tmax: +(\d+)  prev_pid: +\d+$")
TAKEN = re.compile(r"^\ttriggering value \{ onmax\(\$wakeup_lat\) \}: +(\d+)\t"
                   r"triggered by event with key: \{ next_pid: +(\d+) \}$")


def setup(sh):
    tf.reset_tracing(sh)


def teardown(sh):
    sh.run(f"echo '!{TRIGGER}' >> {SWITCH}/trigger")
    sh.run("echo '!hist:keys=pid:ts0=common_timestamp.usecs' >> "
           "events/sched/sched_waking/trigger")
    sh.run("echo 0 > snapshot")
    tf.reset_tracing(sh)


def test_swap_of_the_largest_latency(sh):
    # The events record before the triggers go in: a maximum found while sched_switch was
    # not recording yet (between the two enables, on a slow host) would swap a buffer
    # without its switch.
    sh.do("echo 1 > events/sched/sched_waking/enable", f"echo 1 > {SWITCH}/enable",
          "echo 'hist:keys=pid:ts0=common_timestamp.usecs' >> events/sched/sched_waking/trigger",
          f"echo '{TRIGGER}' >> {SWITCH}/trigger")
    lines = sh.run("work 0.2 2")
    sh.check(len(lines) == 1 and lines[0].endswith(": ok"), "work did not end well", lines)
    sh.do("; ".join(["sleep 0.01"] * 8), "echo 0 > events/sched/enable")
    hist = sh.run(f"cat {SWITCH}/hist")
    maxima, key = {}, None
    taken = None
    for line in hist:
        if m := ENTRY.match(line):
            key = int(m[1])
        elif (m := MAX.match(line)) and key is not None:
            maxima[key] = int(m[1])
        elif m := TAKEN.match(line):
            taken = (int(m[1]), int(m[2]))
    sh.check(maxima and taken, "no entries, or no `Snapshot taken` in the hist file", hist[-12:])
    # One max line per entry, .save()'s: .snapshot() shows its value under the table only.
    entries = sum(1 for line in hist if ENTRY.match(line))
    max_lines = [line for line in hist if line.startswith("\tmax:")]
    sh.check(len(max_lines) == entries == len(maxima) and all(MAX.match(x) for x in max_lines),
             f"{len(max_lines)} max lines for {entries} entries", max_lines[:6])
    value, pid = taken
    largest = max(maxima.values())
    sh.check(value == largest, f"the swap was for {value}, the largest entry max is {largest}",
             hist[-12:])
    sh.check(maxima.get(pid) == value, f"key {pid}'s entry has max {maxima.get(pid)}, "
             f"the swap says {value}", hist[-12:])
    sh.run(f"echo '!{TRIGGER}' >> {SWITCH}/trigger")
    snap = tf.read_trace(sh, "snapshot")
    # The swap comes after the commit of the switch that made it: that switch is in it.
    # (Not necessarily as its CPU's last record: a swap that finds a writer inside on its
    # CPU is finished later by a cross-CPU call, trace_snapshot.c.)
    switches = [e for e in snap.events if e.kind == "event" and e.name == "sched_switch"
                and int(e.fields["next_pid"]) == pid]
    sh.check(switches, f"the snapshot has no sched_switch to pid {pid} "
             f"({len(snap.events)} events)")
    # Its sched_waking is not required: the swap of another maximum may have come between
    # the waking and the switch, and a swap keeps what the live buffer recorded since the
    # swap before it, as on Linux, whose swaps trade the two buffers without clearing either.
