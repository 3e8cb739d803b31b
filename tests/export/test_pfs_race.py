"""Two writers of the pseudo file system at once: the host, through the host channel's file
service (tools/fentros_trace/fileclient.py), and the serial shell. The host adds and removes
kprobe events (their files appear and go under events/kprobes), enables them and rewrites
set_ftrace_filter in a loop, while the shell lists those directories, completes a name in
one, changes into one, reads the files the host writes and switches the tracer. Nothing may fault or hang, every answer must be one the
kernel could give, and once both stop the kernel's heap must hold what it held before.
A blocking read in the shell must not keep the host from ending it.

    python3 -m unittest discover -s tests/export -p test_pfs_race.py -t .
"""

import collections
import os
import re
import sys
import threading
import time
import unittest
from pathlib import Path
from typing import Deque, List

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

from fentros_trace.fileclient import FileClient  # noqa: E402
from fentros_machine.console import CRASH_RE  # noqa: E402
from fentros_trace.machine import Machine  # noqa: E402

TRACING = "/sys/kernel/tracing"
KPROBES = f"{TRACING}/events/kprobes"
# How long both sides hammer the files; each side makes hundreds of operations in it.
RACE_SECONDS = 10.0
# Events alive at once: removals then always meet a directory with other entries.
LIVE_EVENTS = 3
FILTERS = (b"work_*", b"pfs_*")

LS_ENTRY = re.compile(r"^(race_\d+|enable|filter)$")
PROBE_LINE = re.compile(r"^p:kprobes/race_\d+ pfs_open$")
FILTER_LINE = re.compile(r"^(work_[\w.]+|pfs_[\w.]+|#### all functions enabled ####)$")
LS_GONE = re.compile(rf"^ls: cannot access '{KPROBES}': No such file or directory$")


class PfsRace(unittest.TestCase):
    smp = 0
    m: Machine
    c: FileClient

    @classmethod
    def setUpClass(cls) -> None:
        workdir = REPO / "build" / "test-logs" / "export" / cls.__name__
        cls.m = Machine(str(workdir), smp=cls.smp, shm=True)
        cls.c = FileClient(cls.m.shm_file)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.c.close()
        cls.m.close()

    def tearDown(self) -> None:
        log = Path(self.m.console.log_path).read_text(errors="replace")
        self.assertIsNone(CRASH_RE.search(log), "crash text on the serial console")

    def host_write(self, name: str, data: bytes, flags: int = os.O_WRONLY | os.O_TRUNC) -> None:
        h = self.c.open(f"{TRACING}/{name}", flags)
        try:
            if data:
                self.assertEqual(self.c.write(h, data), len(data))
        finally:
            self.c.release(h)

    def heap_live(self) -> int:
        """Allocations not yet freed, as /proc/meminfo counts them."""
        fields = {}
        for line in self.m.must("cat /proc/meminfo"):
            key, _, value = line.partition(":")
            fields[key] = value.split()[0] if value.split() else ""
        return int(fields["HeapAllocs"]) - int(fields["HeapFrees"])

    def host_side(self, until: float, errors: List[BaseException], counts: List[int]) -> None:
        live: Deque[str] = collections.deque()
        i = 0
        try:
            while time.monotonic() < until:
                name = f"race_{i % (LIVE_EVENTS + 2)}"
                self.host_write("kprobe_events", f"p:kprobes/{name} pfs_open\n".encode(),
                                os.O_WRONLY | os.O_APPEND)
                live.append(name)
                self.host_write(f"events/kprobes/{name}/enable", b"1")
                self.host_write("set_ftrace_filter", FILTERS[i % 2])
                self.host_write(f"events/kprobes/{name}/enable", b"0")
                while len(live) > LIVE_EVENTS:
                    self.host_write("kprobe_events", f"-:kprobes/{live.popleft()}\n".encode(),
                                    os.O_WRONLY | os.O_APPEND)
                i += 1
            while live:
                self.host_write("kprobe_events", f"-:kprobes/{live.popleft()}\n".encode(),
                                os.O_WRONLY | os.O_APPEND)
            self.host_write("set_ftrace_filter", b"")
        except BaseException as e:  # reported by the test's thread
            errors.append(e)
        counts.append(i)

    def shell_round(self) -> None:
        """One of each shell operation; every answer must be one the kernel could give."""
        code, lines = self.m.run(f"ls {KPROBES}", timeout=60)
        if code == 0:
            bad = [line for line in lines if not LS_ENTRY.match(line)]
            self.assertEqual(bad, [], f"ls listed {lines}")
        else:
            # Between the last event's removal and the next one's creation the system's
            # directory is gone.
            self.assertEqual(code, 2, lines)
            self.assertTrue(lines and LS_GONE.match(lines[0]), lines)
        # Many directories the host removes and makes again, each looked up and listed.
        dirs = " ".join(f"kprobes/race_{n % (LIVE_EVENTS + 2)}" for n in range(40))
        code, lines = self.m.run(f"cd {TRACING}/events; ls -l {dirs} | wc -l", timeout=60)
        self.assertIn(code, (0, 2), lines)
        self.assertRegex(lines[-1], r"^\d+$")
        self.m.must("cd /")
        # Tab completion walks the directory: "e" is only "enable" there.
        code, lines = self.m.run(f"ls {KPROBES}/e\t", timeout=60)
        if code == 0:
            self.assertEqual(lines, [f"{KPROBES}/enable"])
        else:
            self.assertEqual(code, 2, lines)
        code, lines = self.m.run(f"cd {KPROBES}/race_1", timeout=60)
        self.assertIn(code, (0, 1), lines)
        self.m.must("cd /")
        lines = self.m.must(f"cat {TRACING}/set_ftrace_filter", timeout=60)
        self.assertEqual([x for x in lines if not FILTER_LINE.match(x)], [], lines)
        lines = self.m.must(f"cat {TRACING}/kprobe_events", timeout=60)
        self.assertEqual([x for x in lines if not PROBE_LINE.match(x)], [], lines)
        self.m.must(f"echo function > {TRACING}/current_tracer", timeout=60)
        self.m.must(f"echo nop > {TRACING}/current_tracer", timeout=60)

    def test_host_and_shell_write_at_once(self) -> None:
        # Once through both sides alone, and enough commands to fill the shell's history:
        # whatever either keeps allocated for good is then in the baseline.
        errors: List[BaseException] = []
        counts: List[int] = []
        self.host_side(time.monotonic() + 0.5, errors, counts)
        self.assertEqual(errors, [])
        for _ in range(8):
            self.shell_round()
        before = self.heap_live()

        host = threading.Thread(target=self.host_side,
                                args=(time.monotonic() + RACE_SECONDS, errors, counts),
                                daemon=True)
        host.start()
        rounds = 0
        while host.is_alive():
            self.shell_round()
            rounds += 1
        host.join()
        self.assertEqual(errors, [])
        self.assertGreater(rounds, 0)
        self.assertGreater(counts[-1], 0)
        print(f"\nsmp{self.smp}: {counts[-1]} host rounds (5 writes, 1 removal each) beside "
              f"{rounds} shell rounds (9 commands each)", file=sys.stderr)

        # Both stopped: the state is whole and nothing was leaked.
        self.assertEqual(self.m.must("echo still here"), ["still here"])
        self.assertEqual(self.m.must(f"cat {TRACING}/kprobe_events"), [])
        code, lines = self.m.run(f"ls {KPROBES}")
        self.assertEqual(code, 2, lines)
        self.assertEqual(self.m.must(f"cat {TRACING}/current_tracer"), ["nop"])
        self.assertEqual(self.m.must(f"cat {TRACING}/set_ftrace_filter"),
                         ["#### all functions enabled ####"])
        self.assertEqual(self.heap_live(), before)

    def test_shell_read_blocked_ended_by_host(self) -> None:
        # The shell's cat of trace_pipe sleeps for data; the host turning tracing off must
        # get through (a sleeping reader holds no lock) and end it.
        self.m.must(f"echo > {TRACING}/trace; echo 1 > {TRACING}/tracing_on; "
                    f"echo marked > {TRACING}/trace_marker")
        wrote: List[float] = []

        def turn_off() -> None:
            time.sleep(2)
            began = time.monotonic()
            self.host_write("tracing_on", b"0")
            wrote.append(time.monotonic() - began)

        host = threading.Thread(target=turn_off, daemon=True)
        host.start()
        lines = self.m.must(f"cat {TRACING}/trace_pipe", timeout=60)
        host.join(30)
        self.assertFalse(host.is_alive(), "the host's write did not return")
        self.assertEqual(len(wrote), 1)
        self.assertTrue(any("marked" in line for line in lines), lines)
        self.m.must(f"echo 1 > {TRACING}/tracing_on")


class PfsRace2(PfsRace):
    smp = 2


class PfsRace4(PfsRace):
    smp = 4


# Only the classes with a CPU count are tests.
del PfsRace
