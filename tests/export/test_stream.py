"""Streamed recordings (`fentros-trace record`, whose default is now to drain every CPU's
trace_pipe_raw over the host channel while the command runs: `xfer -c --follow`),
judged by trace-cmd as the snapshots in test_tracedat.py are, and by the kernel's own
per-CPU stats: every event the kernel counted is in the file or counted lost there.

FollowCommands drives `xfer -c --follow` and `--stop` by hand.

StreamedWork is the goal at make test's scale: the function tracer on every work_*
function at 2 CPUs at the default buffer size loses nothing and records more than the
buffer holds. `make bench-export` runs the same for 10 s (export.stream). StreamedOverrun
streams a 16 KB buffer under a burst written with preemption off, which no reader can
keep up with: its losses are in the pages, where trace-cmd shows them, and equal the
kernel's overrun count."""

import re
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import test_tracedat as base  # noqa: E402
from fentros_trace import stream  # noqa: E402
from fentros_trace.machine import Machine  # noqa: E402

# What record prints per CPU at the end.
CPU_LINE = re.compile(r"^CPU(\d+): (\d+) events recorded, (\d+) lost(.*)$", re.M)
STAT = re.compile(r"^(entries|overrun|commit overrun|dropped events|read events): (\d+)$", re.M)
# A function event in the kernel's buffer: header, context word, two 32-bit addresses.
KERNEL_FUNCTION_EVENT = 16


class StreamRecording(base.Recording):
    """A recording with the tool's defaults: streamed, with no kernel text (that would need
    the buffer whole after the command, a snapshot)."""

    def __init__(self, name, args, command):
        self.dir = base.REPO / "build" / "test-logs" / "export" / name
        base.shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        self.dat = self.dir / "trace.dat"
        self.text = None
        self.result = base.run([base.TOOL, "record", *args, "--progress", "--workdir",
                                self.dir / "machine", "-o", self.dat, "--", *command])


class ReportSummary:
    """What the tests ask of the recording's `trace-cmd report -l --ts-check`, read in one
    pass as trace-cmd writes it. A streamed recording holds millions of records: one run of
    report with both options instead of one each, and no list of its lines kept. --ts-check
    leaves report's output as it is and adds a warning for each record that goes back in
    time (`WARNING: Record on cpu N went backwards`)."""

    def __init__(self, rec):
        self.records = {}   # cpu: function records
        self.dropped = {}   # cpu: events trace-cmd says were dropped
        self.bad = []       # lines trace-cmd could not read (base.BAD_REPORT)
        self.backwards = []  # lines, of the output or the errors, saying "backwards"
        with tempfile.TemporaryFile() as errors:
            proc = subprocess.Popen([str(base.TRACE_CMD), "report", "-l", "--ts-check", "-i",
                                     str(rec.dat)], stdout=subprocess.PIPE, stderr=errors,
                                    text=True)
            # The time base.run allows a report, for the reading and the exit together.
            deadline = threading.Timer(600, proc.kill)
            deadline.start()
            try:
                for line in proc.stdout:
                    self.read_line(line.rstrip("\n"))
                self.code = proc.wait()
            finally:
                deadline.cancel()
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                proc.stdout.close()
            errors.seek(0)
            self.err = errors.read().decode(errors="replace")
        self.backwards += [line for line in self.err.splitlines() if "backwards" in line]

    def read_line(self, line):
        if base.bad_report_line(line):
            self.bad.append(line)
        if "backwards" in line:
            self.backwards.append(line)
        m = base.REPORT_LINE.match(line)
        if m:
            cpu = int(m["cpu"])
            self.records[cpu] = self.records.get(cpu, 0) + 1
        # DROPPED's own text, looked for first: most lines are records.
        if "EVENTS DROPPED" in line:
            m = base.DROPPED.match(line.strip())
            if m:
                self.dropped[int(m[1])] = self.dropped.get(int(m[1]), 0) + int(m[2])


class StreamCase(base.ExportCase):
    summary = None

    @classmethod
    def setUpClass(cls):
        if not base.TRACE_CMD:
            raise unittest.SkipTest("trace-cmd is not installed (make deps installs it)")
        cls.rec = StreamRecording(cls.__name__, cls.ARGS, cls.COMMAND)
        cls.summary = None

    def report_summary(self):
        """The recording's report, read once for the class's tests."""
        cls = type(self)
        if cls.summary is None:
            cls.summary = ReportSummary(self.rec)
        return cls.summary

    def printed_counts(self):
        """{cpu: (recorded, lost, rest of the line)} as record printed them."""
        return {int(c): (int(n), int(lost), rest)
                for c, n, lost, rest in CPU_LINE.findall(self.rec.result.stderr)}

    def stats(self, cpu):
        text = self.rec.files()[f"per_cpu/cpu{cpu}/stats"].decode()
        return {k: int(v) for k, v in STAT.findall(text)}

    def report_per_cpu(self):
        """{cpu: function records} and {cpu: events trace-cmd says were dropped}, from a
        report that must be clean (base.ExportCase.assert_clean_report's checks)."""
        summary = self.report_summary()
        self.assertEqual(summary.code, 0, summary.err)
        self.assertEqual(summary.bad[:5], [], "trace-cmd could not read every record")
        self.assertNotIn("FAILED", summary.err)
        return summary.records, summary.dropped

    def assert_time_monotonic(self):
        """base.ExportCase.assert_time_monotonic's check, on the shared report."""
        summary = self.report_summary()
        self.assertEqual(summary.code, 0, summary.err)
        self.assertFalse(summary.backwards)

    def assert_streamed(self):
        self.assertIn("over the host channel", self.rec.result.stderr)
        self.assertRegex(self.rec.result.stderr, r"bytes of pages streamed in")
        machine = self.rec.dir / "machine"
        self.assertEqual((machine / "debugcon.bin").stat().st_size, 0)

    def assert_counts_match_stats(self, ncpus):
        """The printed counts, the file's records and losses, and the kernel's stats (read
        after the stream ended) are the same numbers."""
        printed = self.printed_counts()
        self.assertEqual(sorted(printed), list(range(ncpus)), self.rec.result.stderr)
        records, dropped = self.report_per_cpu()
        for cpu in range(ncpus):
            st = self.stats(cpu)
            recorded, lost, rest = printed[cpu]
            self.assertEqual(rest, " (the kernel's stats agree)")
            self.assertEqual(st["entries"], 0, "events left in the buffer after the stream")
            self.assertEqual(recorded, st["read events"])
            self.assertEqual(records.get(cpu, 0), recorded)
            self.assertEqual(lost, st["overrun"])
            self.assertEqual(dropped.get(cpu, 0), lost)
        return printed


class StreamedWork(StreamCase):
    ARGS = ("-p", "function", "-l", "work_*", "--smp", "2")
    # work's seconds are wall-clock time: on a host loaded to 9 runnable threads a second,
    # 1 s of it wrote 119,000 events here, fewer than the buffer's 180,000. 3 s keep twice
    # the buffer's worth even then.
    COMMAND = ("work", "3")

    def test_streamed(self):
        self.assert_streamed()

    def test_nothing_lost(self):
        printed = self.assert_counts_match_stats(2)
        for cpu in range(2):
            st = self.stats(cpu)
            self.assertEqual((printed[cpu][1], st["overrun"], st["commit overrun"],
                              st["dropped events"]), (0, 0, 0, 0), f"CPU{cpu} lost events")

    def test_larger_than_the_buffer(self):
        buffer_bytes = 2 * 1410 * 1024  # the default buffer_size_kb at both CPUs
        recorded = sum(n for n, _, _ in self.printed_counts().values())
        self.assertGreater(recorded * KERNEL_FUNCTION_EVENT, buffer_bytes)
        streamed = re.search(r"\((\d+) bytes of pages streamed in", self.rec.result.stderr)
        self.assertGreater(int(streamed[1]), buffer_bytes)

    def test_time_monotonic(self):
        self.assert_time_monotonic()


class StreamedOverrun(StreamCase):
    # 20,000 rounds of the test chain with preemption off: 80,000 events, twenty times
    # what a 16 KB buffer holds, written before the CPU's worker can read a page of them.
    ARGS = ("-p", "function", "-l", "ftrace_test_*", "-b", "16", "--smp", "2")
    COMMAND = ("ftrace_test_call", "burst", "20000")

    def test_losses_in_the_file(self):
        self.assert_streamed()
        printed = self.assert_counts_match_stats(2)
        self.assertTrue(any(lost for _, lost, _ in printed.values()),
                        "a 16 KB buffer kept up with the burst: nothing to check")

    def test_time_monotonic(self):
        self.assert_time_monotonic()


class FollowCommands(unittest.TestCase):
    """`xfer -c --follow` and `--stop` at the shell: a stream holds the channel, a stop
    with tracing still on (the unfiltered function tracer also traces the workers' own
    reads, so the files never run dry) still ends, and every file ends with its total."""

    def test_follow_and_stop(self):
        workdir = base.REPO / "build" / "test-logs" / "export" / "FollowCommands"
        base.shutil.rmtree(workdir, ignore_errors=True)
        m = Machine(str(workdir), smp=2, shm=True)
        rx = None
        try:
            with m.reader.lock:
                rx = stream.StreamReceiver(m.reader.receiver.capture, str(workdir))
                m.reader.receiver = rx
            self.assertEqual(m.run("xfer -c --stop"), (1, ["xfer: not following any file"]))
            m.must("cd /sys/kernel/tracing")
            m.must("echo function > current_tracer")
            raw = ["per_cpu/cpu0/trace_pipe_raw", "per_cpu/cpu1/trace_pipe_raw"]
            self.assertEqual(m.run("xfer -c --follow nosuch"),
                             (1, ["xfer: nosuch: No such file or directory"]))
            self.assertEqual(m.must("xfer -c --follow " + " ".join(raw)), [])
            self.assertEqual(m.run("xfer -c --follow per_cpu/cpu0/trace_pipe_raw"),
                             (1, ["xfer: already following files (xfer -c --stop ends that)"]))
            self.assertEqual(m.run("xfer -c /proc/version"),
                             (1, ["xfer: host channel: Device or resource busy"]))
            threads = m.must("ps")
            for cpu in range(2):
                self.assertTrue([t for t in threads if t.endswith(f" xfer/{cpu}")], threads)
            m.must("work 0.2")
            began = time.monotonic()
            stopped = m.must("xfer -c --stop")
            self.assertLess(time.monotonic() - began, 10)
            m.reader.drain()
            self.assertRegex(stopped[-1], r"^xfer: 2 files, \d+ bytes$")
            self.assertEqual(int(stopped[-1].split()[3]), rx.streamed)
            self.assertEqual(sorted(sf.name for sf in rx.ended), raw)
            self.assertEqual([sf.status for sf in rx.ended], [0, 0])
            self.assertFalse([t for t in m.must("ps") if " xfer/" in t])
            # The channel is free again.
            m.must("echo 0 > tracing_on")
            self.assertEqual(m.must("xfer -c /proc/version"), ["xfer: 1 files, 49 bytes"])
            self.assertRegex(m.must("hostchan")[-1],
                             r"^frames: \d+ sent, 0 dropped \(0 bytes\)$")
        finally:
            m.close()
            if rx:
                rx.close()


if __name__ == "__main__":
    unittest.main()
