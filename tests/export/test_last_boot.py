"""A trace that survives a reset: an instance laid on reserve_mem memory
(`trace_instance=NAME@RANGE`), traced into, the machine reset by a panic under
panic=reboot, by a triple fault or by `reboot`, and read back in the next boot.

QEMU runs without -no-reboot here, so a reset boots the same ISO again with RAM kept.
`tools/fentros-trace extract` takes the instance after the reset; Debian's trace-cmd must
read the file and report the records the kernel's own `trace` shows."""

import re
import shutil
import subprocess
import sys
import unittest
from pathlib import Path
from typing import List, Tuple

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "fentros-trace"
sys.path.insert(0, str(REPO / "tools"))

from fentros_trace.machine import Machine  # noqa: E402

TRACE_CMD = shutil.which("trace-cmd")
RANGE = "reserve_mem=2M:4096:trace"
KEPT = re.compile(r"trace_instance: boot_map on trace: the last boot's buffer; (\d+) pages "
                  r"with (\d+) events kept, (\d+) pages dropped as invalid")
FUNCTION_LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S{5}\s+"
                           r"(?P<ts>\d+\.\d{6}): (?P<func>\w[\w.]*) <-(?P<parent>\w[\w.]*)$")
REPORT_LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?P<cpu>\d+)\S{5}\s+"
                         r"(?P<ts>\d+\.\d{6}): function:\s+(?P<func>\w[\w.]*)\s+<-- "
                         r"(?P<parent>\w[\w.]*)$")


def kernel_text_start() -> int:
    """Where the booted kernel's text starts, by binutils' nm of build/kernel.elf."""
    out = subprocess.run(["nm", str(REPO / "build" / "kernel.elf")], capture_output=True,
                         text=True, check=True).stdout
    return next(int(line.split()[0], 16) for line in out.splitlines()
                if line.split()[-1] == "__text_start")


def log_dir(name: str) -> Path:
    path = REPO / "build" / "test-logs" / "export" / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


class PanicThenExtract(unittest.TestCase):
    """The function tracer in the instance, `crash panic` under panic=reboot: after the
    reset the instance holds the functions that ran up to the reset, the panic path last,
    and `fentros-trace extract` writes them as a trace.dat trace-cmd reads."""

    @classmethod
    def setUpClass(cls) -> None:
        if not TRACE_CMD:
            raise unittest.SkipTest("trace-cmd is not installed (make deps installs it)")
        cls.dir = log_dir("last-boot-panic")
        cls.dat = cls.dir / "crash.dat"
        cls.text = cls.dir / "kernel.txt"
        cls.result = subprocess.run(
            [str(TOOL), "extract", "-B", "boot_map", "-o", str(cls.dat),
             "--kernel-text", str(cls.text), "--workdir", str(cls.dir / "machine"),
             "--cmdline", f"{RANGE} trace_instance=boot_map@trace panic=reboot",
             "--before", "echo function > instances/boot_map/current_tracer",
             "--reset", "crash panic"], capture_output=True, text=True, timeout=600)

    def setUp(self) -> None:
        self.assertEqual(self.result.returncode, 0, self.result.stderr)

    def kernel_rows(self) -> List[Tuple[int, int, str, str, str]]:
        rows = []
        for line in self.text.read_text(errors="replace").splitlines():
            m = FUNCTION_LINE.match(line)
            if m:
                rows.append((int(m["cpu"]), int(m["pid"]), m["ts"], m["func"], m["parent"]))
        return rows

    def test_boot_kept_the_pages(self) -> None:
        m = KEPT.search(self.result.stderr)
        self.assertIsNotNone(m, self.result.stderr)
        assert m is not None
        self.assertGreater(int(m[2]), 0)
        self.assertEqual(m[3], "0")

    def test_last_functions_are_the_panic(self) -> None:
        rows = self.kernel_rows()
        self.assertGreater(len(rows), 50, "too little was kept to see the crash")
        last = max(rows, key=lambda r: r[2])
        self.assertEqual((last[3], last[4]), ("arch_reboot", "panic_end"))
        tail = [(r[3], r[4]) for r in sorted(rows, key=lambda r: r[2])[-40:]]
        self.assertIn(("crash_panic", "shell_cmd_fn_crash"), tail)
        # panic() and panic_end() are not traced; what panic_end calls is.
        self.assertIn(("cmdline_has", "panic_end"), tail)

    def test_report_matches_kernel(self) -> None:
        r = subprocess.run([str(TRACE_CMD), "report", "-l", "-O", "parent=1", "-i",
                            str(self.dat)], capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = []
        for line in r.stdout.splitlines():
            m = REPORT_LINE.match(line)
            if m:
                report.append((int(m["cpu"]), int(m["pid"]), m["ts"], m["func"], m["parent"]))
        self.assertEqual(sorted(report), sorted(self.kernel_rows()))


class TripleFaultThenReboot(unittest.TestCase):
    """Events and a marker in the instance on the counter clock, a triple fault: the next
    boot shows them with last_boot_info, the range's fixed size and no snapshot; enabling
    an event there drops them and traces this boot, which a clean `reboot` keeps in turn."""

    def test_two_resets(self) -> None:
        machine = Machine(str(log_dir("last-boot-triple")), smp=2,
                          cmdline=f"{RANGE} trace_instance=boot_map@trace", reboot=True)
        try:
            self.check(machine)
        finally:
            machine.close()

    def check(self, m: Machine) -> None:
        m.must("cd /sys/kernel/tracing/instances/boot_map")
        self.assertEqual(m.must("cat last_boot_info"), ["# Current"])
        m.must("echo counter > trace_clock")
        m.must("echo 1 > events/sched/sched_switch/enable")
        m.must("echo before-the-fault > trace_marker")
        m.must("sleep 0.05")
        boot_log = m.reset("crash triple")
        kept = [KEPT.search(line) for line in boot_log]
        self.assertTrue(any(kept), "\n".join(boot_log[-20:]))

        m.must("cd /sys/kernel/tracing/instances/boot_map")
        info = m.must("cat last_boot_info")
        self.assertEqual(info[0], "trace_clock: counter")
        self.assertEqual(info[1:], [f"{kernel_text_start():x}\t[kernel]"])
        self.assertEqual(m.must("cat trace_clock"), ["local global [counter] uptime x86-tsc"])
        self.assertEqual(m.must("cat tracing_on"), ["1"])
        trace = m.must("cat trace")
        self.assertTrue(any(line.endswith("before-the-fault") for line in trace),
                        "\n".join(trace[-10:]))
        self.assertTrue(any("sched_switch: prev_comm=" in line for line in trace))
        status, out = m.run("echo 4096 > buffer_size_kb")
        self.assertEqual(status, 1)
        self.assertIn("Device or resource busy", " ".join(out))
        status, _ = m.run("cat snapshot")
        self.assertEqual(status, 1)

        # Recording into it ends the last boot's trace.
        m.must("echo 1 > events/sched/sched_wakeup/enable")
        self.assertEqual(m.must("cat last_boot_info"), ["# Current"])
        trace = m.must("cat trace")
        self.assertFalse(any(line.endswith("before-the-fault") for line in trace))
        m.must("echo after-the-fault > trace_marker")
        m.reset("reboot")
        m.must("cd /sys/kernel/tracing/instances/boot_map")
        trace = m.must("cat trace")
        self.assertTrue(any(line.endswith("after-the-fault") for line in trace))
        self.assertFalse(any(line.endswith("before-the-fault") for line in trace))
        self.assertTrue(any("sched_wakeup: comm=" in line for line in trace))


class TraceoffKeepsItUntilTracingOn(unittest.TestCase):
    """trace_instance=NAME^traceoff@RANGE,EVENTS: after a reset the events are ready and
    tracing is off, and the last boot's trace stays until tracing_on starts this boot's."""

    def test_held_until_tracing_on(self) -> None:
        machine = Machine(str(log_dir("last-boot-traceoff")), smp=2,
                          cmdline=f"{RANGE} trace_instance=boot_map^traceoff@trace,"
                                  "sched:sched_switch", reboot=True)
        try:
            self.check(machine)
        finally:
            machine.close()

    def check(self, m: Machine) -> None:
        m.must("cd /sys/kernel/tracing/instances/boot_map")
        self.assertEqual(m.must("cat tracing_on"), ["0"])
        self.assertEqual(m.must("cat set_event"), ["sched:sched_switch"])
        m.must("echo 1 > tracing_on")
        m.must("echo before-the-reboot > trace_marker")
        m.must("sleep 0.05")
        m.reset("reboot")
        m.must("cd /sys/kernel/tracing/instances/boot_map")
        self.assertEqual(m.must("cat set_event"), ["sched:sched_switch"])
        self.assertEqual(m.must("cat tracing_on"), ["0"])
        self.assertEqual(m.must("cat last_boot_info")[0], "trace_clock: local")
        m.must("sleep 0.05")
        trace = m.must("cat trace")
        self.assertTrue(any(line.endswith("before-the-reboot") for line in trace))
        m.must("echo 1 > tracing_on")
        self.assertEqual(m.must("cat last_boot_info"), ["# Current"])
        m.must("sleep 0.05")
        trace = m.must("cat trace")
        self.assertFalse(any(line.endswith("before-the-reboot") for line in trace))
        self.assertTrue(any("sched_switch: prev_comm=" in line for line in trace))


if __name__ == "__main__":
    unittest.main()
