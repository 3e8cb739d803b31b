"""trace.dat from `tools/fentros-trace record`, judged by Debian's trace-cmd.

Each scenario boots fentros once through the tool (a short `work` run), with the
kernel's own `cat trace` of the same buffer saved beside the file. trace-cmd must read
the file without complaint and report the same records as the kernel printed: tasks,
pids, CPUs, flags, timestamps and bodies (function_graph as trace-cmd's own plugin draws
it), keep time monotonic per CPU, show the events the kernel counted lost, and survive a
conversion to version 7 and back. The Chrome JSON and folded outputs of `convert` are
checked against trace-cmd's raw view of the same records."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "fentros-trace"
sys.path.insert(0, str(REPO / "tools"))

from fentros_trace import channel  # noqa: E402

TRACE_CMD = shutil.which("trace-cmd")

# The kernel's `cat trace` line (function tracer, events): task-pid [cpu] flags ts: body
KERNEL_LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<flags>\S{5})\s+"
                         r"(?P<ts>\d+\.\d{6}): (?P<body>.*)$")
# trace-cmd report -l: task-pid cpu+flags ts: event: body
REPORT_LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?P<cpu>\d+)(?P<flags>\S{5})\s+"
                         r"(?P<ts>\d+\.\d{6}): (?P<event>\w+):\s*(?P<body>.*)$")
# trace-cmd report (no -l): task-pid [cpu] ts: event: body
PLAIN_REPORT_LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+"
                               r"(?P<ts>\d+\.\d{6}): (?P<event>\w+):\s*(?P<body>.*)$")
DROPPED = re.compile(r"^CPU:\s*(\d+) \[(\d+) EVENTS DROPPED\]")
BAD_REPORT = re.compile(r"\[UNKNOWN EVENT\]|\[FAILED TO PARSE\]|\b0xffffffff[0-9a-f]{8}\b")


def bad_report_line(line):
    """BAD_REPORT.search(line), asked only of lines holding one of its fixed parts: the
    regex alone cost most of the time of reading a report of millions of lines."""
    return ("[" in line or "0xffffffff" in line) and BAD_REPORT.search(line) is not None


def run(argv, **kw):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=600,
                          **kw)


class Recording:
    """One `fentros-trace record` run: its trace.dat, the kernel's text, the capture."""

    def __init__(self, name, args, command):
        # Kept for a look after the run, as the other tests' logs are.
        self.dir = REPO / "build" / "test-logs" / "export" / name
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        self.dat = self.dir / "trace.dat"
        self.text = self.dir / "kernel.txt"
        # The debug console unless the scenario names a channel (a later --channel wins).
        self.result = run([TOOL, "record", "--channel", "debugcon", *args, "--workdir",
                           self.dir / "machine", "-o", self.dat, "--kernel-text", self.text, "--",
                           *command])

    def ok(self):
        return self.result.returncode == 0 and self.dat.exists()

    def files(self):
        # --channel shm writes what came over the host channel into a capture of its own.
        shm = self.dir / "machine" / "shm-capture.bin"
        return channel.read_files(shm if shm.exists() else self.dir / "machine" / "debugcon.bin")

    def report(self, *options, path=None):
        r = run([TRACE_CMD, "report", *options, "-i", path or self.dat])
        return r.returncode, r.stdout.splitlines(), r.stderr

    def kernel_lines(self):
        return self.text.read_text(errors="replace").splitlines()


def by_cpu(rows):
    out = {}
    for row in rows:
        out.setdefault(row[0], []).append(row[1:])
    return out


class ExportCase(unittest.TestCase):
    ARGS = ()
    COMMAND = ("work", "0.01")
    rec = None

    @classmethod
    def setUpClass(cls):
        if not TRACE_CMD:
            raise unittest.SkipTest("trace-cmd is not installed (make deps installs it)")
        cls.rec = Recording(cls.__name__, cls.ARGS, cls.COMMAND)

    def setUp(self):
        self.assertTrue(self.rec.ok(), "fentros-trace record failed:\n" + self.rec.result.stderr)

    def assert_clean_report(self, *options):
        code, lines, err = self.rec.report(*options)
        self.assertEqual(code, 0, err)
        bad = [line for line in lines if bad_report_line(line)]
        self.assertEqual(bad[:5], [], "trace-cmd could not read every record")
        self.assertNotIn("FAILED", err)
        return lines

    def assert_time_monotonic(self):
        code, lines, err = self.rec.report("--ts-check")
        self.assertEqual(code, 0, err)
        self.assertFalse([line for line in lines + err.splitlines() if "backwards" in line])

    def assert_same_after_v7(self):
        v7 = self.rec.dir / "v7.dat"
        v6 = self.rec.dir / "v6.dat"
        for src, dst, version in ((self.rec.dat, v7, "7"), (v7, v6, "6")):
            r = run([TRACE_CMD, "convert", "-i", src, "-o", dst, "--file-version", version])
            self.assertEqual(r.returncode, 0, r.stderr)
        original = self.rec.report()[1]
        self.assertGreater(len(original), 100)
        self.assertEqual(self.rec.report(path=v7)[1], original)
        self.assertEqual(self.rec.report(path=v6)[1], original)


class FunctionTracer(ExportCase):
    """The function tracer at 2 CPUs: every line of `cat trace` is in the report."""
    ARGS = ("-p", "function", "--smp", "2")
    # work's 10 ms are wall-clock time, so a busy host leaves fewer calls in them; the
    # chain calls after it make the record count independent of the host's load.
    COMMAND = ("work", "0.01;", "ftrace_test_call", "chain", "1000")

    def test_report_is_clean(self):
        self.assert_clean_report("-l", "-O", "parent=1")

    def test_same_records_as_kernel(self):
        kernel = []
        for line in self.rec.kernel_lines():
            m = KERNEL_LINE.match(line)
            if m:
                kernel.append((int(m["cpu"]), m["comm"], int(m["pid"]), m["flags"], m["ts"],
                               m["body"].replace(" <-", " <- ")))
        report = []
        for line in self.assert_clean_report("-l", "-O", "parent=1"):
            m = REPORT_LINE.match(line)
            if m:
                self.assertEqual(m["event"], "function", line)
                report.append((int(m["cpu"]), m["comm"], int(m["pid"]), m["flags"], m["ts"],
                               " ".join(m["body"].replace("<--", "<-").split())))
        self.assertGreater(len(kernel), 1000, "the kernel traced too little to compare")
        self.assertEqual(len(report), len(kernel))
        self.assertEqual(by_cpu(report), by_cpu(kernel))

    def test_time_monotonic(self):
        self.assert_time_monotonic()

    def test_v7_round_trip(self):
        self.assert_same_after_v7()


def graph_rows(lines, kernel):
    """(cpu, duration, call text) of function_graph lines, kernel's or trace-cmd's."""
    rows = []
    for line in lines:
        if kernel:
            m = re.match(r"^\s*(\d+)\)\s(.*)$", line)
            if not m:
                continue
            cpu, rest = int(m[1]), m[2]
        else:
            m = PLAIN_REPORT_LINE.match(line)
            if not m or not m["event"].startswith("funcgraph"):
                continue
            cpu, rest = int(m["cpu"]), m["body"]
        d = re.match(r"^\s*(?:[!+#*@$]?\s*([\d.]+) us)?\s*\|\s*(.*)$", rest)
        if not d:
            continue
        call = d[2].strip()
        if call.startswith("/*") or "==========" in call:
            continue  # events as comments, interrupt arrows: not graph records
        call = re.sub(r"\s*/\*.*\*/$", "", call)  # the kernel names unmatched returns
        rows.append((cpu, d[1] or "", call))
    return rows


def merge_split_leaves(rows):
    """A leaf call drawn as `f() {` then `}` -> `f();` with the return's duration.
    trace-cmd 3.1.6's plugin sometimes draws a leaf that way when another CPU's record
    falls between its entry and its return; the kernel always merges them. The records
    are the same; only the drawing differs."""
    out, i = [], 0
    while i < len(rows):
        dur, call = rows[i]
        if (call.endswith("() {") and not dur and i + 1 < len(rows) and rows[i + 1][1] == "}"
                and rows[i + 1][0]):
            out.append((rows[i + 1][0], call[:-2] + ";"))
            i += 2
            continue
        out.append((dur, call))
        i += 1
    return out


def same_duration(kernel, report):
    """The kernel prints a duration in at most 7 characters (Linux's print_graph_duration),
    trace-cmd's plugin with all its digits; the markers differ too (trace-cmd has no `*`
    or `@`), so the numbers are compared, the kernel's being a prefix of trace-cmd's."""
    return report.startswith(kernel) if kernel else not report


class FunctionGraph(ExportCase):
    """function_graph from the `work` command at 4 CPUs, with sched_switch."""
    ARGS = ("-p", "function_graph", "-g", "shell_cmd_fn_work", "-e", "sched:sched_switch",
            "--smp", "4")

    def test_report_is_clean(self):
        self.assert_clean_report()

    def test_same_calls_as_kernel(self):
        kernel = graph_rows(self.rec.kernel_lines(), True)
        report = graph_rows(self.assert_clean_report(), False)
        self.assertGreater(len(kernel), 20, "the kernel traced too little to compare")
        kernel = {cpu: merge_split_leaves(rows) for cpu, rows in by_cpu(kernel).items()}
        report = {cpu: merge_split_leaves(rows) for cpu, rows in by_cpu(report).items()}
        self.assertEqual(sorted(report), sorted(kernel))
        for cpu, rows in kernel.items():
            self.assertEqual([call for _, call in report[cpu]], [call for _, call in rows])
            wrong = [(k, r) for (k, _), (r, _) in zip(rows, report[cpu])
                     if not same_duration(k, r)]
            self.assertEqual(wrong[:5], [], f"CPU {cpu}: durations differ")

    def test_sched_switch_fields(self):
        kernel = [l.split("/* sched_switch: ")[1].rstrip(" */") for l in self.rec.kernel_lines()
                  if "/* sched_switch: " in l]
        report = [m["body"] for m in map(PLAIN_REPORT_LINE.match, self.rec.report("-N")[1])
                  if m and m["event"] == "sched_switch"]
        self.assertTrue(kernel)
        self.assertEqual(sorted(report), sorted(kernel))

    def test_time_monotonic(self):
        self.assert_time_monotonic()

    def test_chrome_json_slices(self):
        out = self.rec.dir / "trace.json"
        r = run([TOOL, "convert", self.rec.dat, "--to", "chrome-json", "-o", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        events = json.loads(out.read_text())["traceEvents"]
        slices = [e for e in events if e.get("cat") == "function_graph"]
        self.assertTrue(all(e["ph"] == "X" and e["dur"] >= 0 for e in slices))
        self.assertFalse([e for e in events if e["ph"] in ("B", "E")])
        raw = [m for m in map(PLAIN_REPORT_LINE.match, self.rec.report("-N")[1]) if m]
        exits = [m for m in raw if m["event"] == "funcgraph_exit"]
        self.assertGreater(len(exits), 20)
        self.assertEqual(len(slices), len(exits), "one slice per function_graph return")
        switches = [m for m in raw if m["event"] == "sched_switch"]
        cpu_tracks = [e for e in events if e.get("cat") == "sched" and e["ph"] == "X"]
        self.assertEqual(len(cpu_tracks), len(switches), "a run slice per sched_switch")

    def test_folded_totals(self):
        out = self.rec.dir / "trace.folded"
        r = run([TOOL, "convert", self.rec.dat, "--to", "folded", "-o", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        total = 0
        for line in out.read_text().splitlines():
            stack, _, value = line.rpartition(" ")
            self.assertTrue(stack and value.isdigit(), line)
            total += int(value)
        # What the folded values must add up to, from trace-cmd's raw view of the same
        # records: each return's duration counts once, inside the nearest caller the trace
        # saw enter if that caller returns too, and on its own if there is no such caller
        # (a top-level call) or the caller never returns in the trace (it was still running
        # when the recording stopped, or its return was lost): then the time charged to it
        # is all that is left of it.
        entry = re.compile(r"--> (\S+) \((\d+)\)")
        leave = re.compile(r"<-- (\S+) \((\d+)\) \(start: ([0-9a-f]+)\s+end: ([0-9a-f]+)\)")
        stacks = {}  # thread -> frames by depth: [func, time charged to it], or None (unseen)
        top = 0

        def drop(stack, depth):
            nonlocal top
            top += sum(frame[1] for frame in stack[depth:] if frame)
            del stack[depth:]

        def push(stack, depth, func):
            drop(stack, depth)
            stack.extend([None] * (depth - len(stack)))
            stack.append([func, 0])

        for m in map(PLAIN_REPORT_LINE.match, self.rec.report("-N")[1]):
            if not m or m["event"] not in ("funcgraph_entry", "funcgraph_exit"):
                continue
            pid, cpu = int(m["pid"]), int(m["cpu"])
            stack = stacks.setdefault(("idle", cpu) if pid == 0 else pid, [])
            if m["event"] == "funcgraph_entry":
                f = entry.search(m["body"])
                self.assertIsNotNone(f, m["body"])
                push(stack, int(f[2]), f[1])
                continue
            f = leave.search(m["body"])
            self.assertIsNotNone(f, m["body"])
            depth, duration = int(f[2]), int(f[4], 16) - int(f[3], 16)
            if len(stack) <= depth or not stack[depth] or stack[depth][0] != f[1]:
                push(stack, depth, f[1])
            drop(stack, depth + 1)  # callees that never returned
            del stack[depth:]  # what was charged to it is inside its own duration
            parent = next((frame for frame in reversed(stack) if frame), None)
            if parent:
                parent[1] += duration
            else:
                top += duration
        for stack in stacks.values():
            drop(stack, 0)
        self.assertGreater(top, 0)
        self.assertEqual(total, top)


class EventsAlone(ExportCase):
    """Trace events with the nop tracer at 1 CPU, bodies from their print fmt, and a
    marker, whose print record must name tracing_mark_write as Linux's does."""
    ARGS = ("-e", "sched:*", "-e", "irq_vectors:*", "--smp", "1")
    COMMAND = ("echo", "hello", "marker", ">", "trace_marker;", "work", "0.01")

    def test_same_events_as_kernel(self):
        kernel = []
        for line in self.rec.kernel_lines():
            m = KERNEL_LINE.match(line)
            if m:
                event, _, body = m["body"].partition(": ")
                if event == "tracing_mark_write":  # a marker: ftrace's print event
                    event, body = "print", m["body"]
                kernel.append((int(m["cpu"]), m["comm"], int(m["pid"]), m["flags"], m["ts"],
                               event, body))
        report = []
        for line in self.assert_clean_report("-l", "-N"):
            m = REPORT_LINE.match(line)
            if m:
                report.append((int(m["cpu"]), m["comm"], int(m["pid"]), m["flags"], m["ts"],
                               m["event"], m["body"]))
        self.assertGreater(len(kernel), 10)
        self.assertTrue(any(k[5] == "sched_switch" for k in kernel))
        self.assertIn("tracing_mark_write: hello marker", [k[6] for k in kernel])
        self.assertEqual(report, kernel)

    def test_time_monotonic(self):
        self.assert_time_monotonic()


class Instance(ExportCase):
    """record -B: the instance's function tracer (its own filter) and event, in its own
    buffer; the report holds what the instance's `trace` holds, and nothing of the top
    level's (the marker written there)."""
    ARGS = ("-B", "rec", "-p", "function", "-l", "work_*", "-e", "sched:sched_switch",
            "--smp", "2")
    COMMAND = ("echo", "top-only", ">", "trace_marker;", "work", "0.01")

    def test_same_records_as_kernel(self):
        kernel = []
        for line in self.rec.kernel_lines():
            m = KERNEL_LINE.match(line)
            if m:
                kernel.append((int(m["cpu"]), int(m["pid"]), m["ts"]))
        events = []
        report = []
        for line in self.assert_clean_report("-l"):
            m = REPORT_LINE.match(line)
            if m:
                events.append(m["event"])
                report.append((int(m["cpu"]), int(m["pid"]), m["ts"]))
                if m["event"] == "function":
                    self.assertTrue(m["body"].startswith("work_"), line)
        self.assertIn("sched_switch", events)
        self.assertIn("function", events)
        self.assertNotIn("print", events)
        self.assertEqual(sorted(report), sorted(kernel))

    def test_bad_name(self):
        r = run([TOOL, "record", "-B", "a/b", "--", "echo"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("an instance name is one word", r.stderr)


class Overrun(ExportCase):
    """A small buffer overwritten at 2 CPUs: the report shows what the stats counted."""
    ARGS = ("-p", "function", "-b", "16", "--smp", "2")
    COMMAND = ("work", "0.05")

    def test_dropped_events_match_stats(self):
        files = self.rec.files()
        overrun = {}
        for cpu in range(2):
            stats = files[f"per_cpu/cpu{cpu}/stats"].decode()
            overrun[cpu] = int(re.search(r"^overrun: (\d+)$", stats, re.M)[1])
        self.assertTrue(any(overrun.values()), "the buffer did not overflow")
        dropped = {0: 0, 1: 0}
        for line in self.assert_clean_report():
            m = DROPPED.match(line.strip())
            if m:
                dropped[int(m[1])] += int(m[2])
        self.assertEqual(dropped, overrun)


class Timerlat(ExportCase):
    """The timerlat tracer at 2 CPUs: each activation's irq and thread lines, widened to
    Linux's ftrace/timerlat records, reported by trace-cmd with the same sequence numbers,
    contexts and latencies as the kernel printed."""
    ARGS = ("-p", "timerlat", "--smp", "2")
    COMMAND = ("sleep", "0.1")
    KERNEL = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S{5}\s+"
                        r"(?P<ts>\d+\.\d{6}): #(?P<seq>\d+)\s+context\s+(?P<ctx>irq|thread)\s+"
                        r"timer_latency\s+(?P<lat>\d+) ns$")
    REPORT = re.compile(r"seq:(?P<seq>\d+)\s+context:(?P<ctx>\d)\s+timer_latency:(?P<lat>\d+)")

    def test_same_samples_as_kernel(self):
        kernel = []
        for line in self.rec.kernel_lines():
            m = self.KERNEL.match(line)
            if m:
                kernel.append((int(m["cpu"]), m["ts"], int(m["seq"]),
                               0 if m["ctx"] == "irq" else 1, int(m["lat"])))
        report = []
        for line in self.assert_clean_report("-l"):
            m = REPORT_LINE.match(line)
            if m:
                self.assertEqual(m["event"], "timerlat", line)
                body = self.REPORT.search(m["body"])
                self.assertIsNotNone(body, line)
                report.append((int(m["cpu"]), m["ts"], int(body["seq"]), int(body["ctx"]),
                               int(body["lat"])))
        self.assertGreater(len(kernel), 20, "too few activations to compare")
        self.assertEqual({k[3] for k in kernel}, {0, 1})
        self.assertEqual(sorted(report), sorted(kernel))


class KprobeEvents(ExportCase):
    """kprobe events made at run time at 1 CPU, an entry probe (a string, a signed number,
    memory through a pointer, every other call a faulting pointer) and a return probe:
    trace-cmd reads every record with nothing but the format files the kernel wrote, and
    finds the values the kernel's own text shows, at the function's address."""
    ARGS = ("-k", "p:pt ftrace_probe_target name=+0(%di):string n=%dx:s64 id=+0(%si):x64",
            "-k", "r:ptr ftrace_probe_target ret=$retval:s64", "-e", "kprobes:*",
            "--smp", "1")
    COMMAND = ("ftrace_test_call", "probe", "6")

    def test_probe_records(self):
        kallsyms = self.rec.files()["/proc/kallsyms"].decode()
        func = re.search(r"^([0-9a-f]+) [tT] ftrace_probe_target$", kallsyms, re.M)
        self.assertIsNotNone(func)
        func = func[1]
        kernel = []
        for line in self.rec.kernel_lines():
            m = KERNEL_LINE.match(line)
            if m:
                event, _, body = m["body"].partition(": ")
                # Past "(place) ": the arguments; a faulting string has no bytes, which
                # libtraceevent prints as an empty string where the kernel says (fault).
                kernel.append((m["ts"], event, body.partition(") ")[2].replace(
                    "name=(fault)", 'name=""')))
        report = []
        for line in self.assert_clean_report("-l", "-N"):
            m = REPORT_LINE.match(line)
            if m:
                place, _, args = m["body"].partition(") ")
                if m["event"] == "pt":
                    self.assertEqual(place, f"({func}", line)
                else:
                    # Linux's print fmt names the function first (its own text the caller).
                    self.assertRegex(place, rf"^\({func} <- [0-9a-f]{{16}}$", line)
                report.append((m["ts"], m["event"], args))
        self.assertEqual(len(kernel), 12)
        self.assertIn((kernel[0][0], "pt", 'name="probe-name" n=-1 id=0x1122334455667788'),
                      report)
        self.assertIn((kernel[3][0], "ptr", "ret=0"), report)
        self.assertEqual(report, kernel)


class Errors(unittest.TestCase):
    """What a user can get wrong: a clear message and a non-zero exit."""

    def test_unknown_tracer(self):
        r = run([TOOL, "record", "-p", "nosuch", "--smp", "1", "-o", os.devnull, "--", "echo"])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("Invalid argument", r.stderr)

    def test_unknown_event(self):
        r = run([TOOL, "record", "-e", "nosuch:event", "--smp", "1", "-o", os.devnull, "--",
                 "echo"])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("set_event", r.stderr)

    def test_no_kernel(self):
        r = run([TOOL, "record", "--iso", "/nonexistent.iso", "--", "echo"])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no kernel built", r.stderr)

    def test_no_qemu(self):
        r = run([TOOL, "record", "--", "echo"], env={**os.environ, "QEMU": "no-such-qemu"})
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("QEMU is not installed", r.stderr)

    def test_failed_command(self):
        """The trace of a command that fails is written all the same; the tool exits with
        the command's status and leaves no work directory behind."""
        with tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as tmp:
            dat = Path(d) / "trace.dat"
            r = run([TOOL, "record", "-e", "sched:*", "--smp", "1", "-o", dat, "--", "work",
                     "0.01;", "nosuchcommand"], env={**os.environ, "TMPDIR": tmp})
            self.assertEqual(r.returncode, 127, r.stderr)  # the shell's "command not found"
            self.assertIn("`work 0.01; nosuchcommand` exited with status 127", r.stderr)
            self.assertEqual(os.listdir(tmp), [], "the capture's work directory is left")
            if TRACE_CMD:
                report = run([TRACE_CMD, "report", "-i", dat])
                self.assertEqual(report.returncode, 0, report.stderr)
                self.assertIn("sched_switch", report.stdout)

    def test_convert_foreign_and_truncated(self):
        with tempfile.TemporaryDirectory() as d:
            foreign = Path(d) / "foreign.dat"
            foreign.write_bytes(b"not a trace at all")
            r = run([TOOL, "convert", foreign, "--to", "folded", "-o", Path(d) / "out"])
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("not a trace.dat file", r.stderr)
            # A real header cut short.
            cut = Path(d) / "cut.dat"
            cut.write_bytes(b"\x17\x08\x44tracing6\0\0\x08" + bytes(4) + b"header_page\0")
            r = run([TOOL, "convert", cut, "--to", "chrome-json", "-o", Path(d) / "out"])
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("truncated", r.stderr)


if __name__ == "__main__":
    unittest.main()
