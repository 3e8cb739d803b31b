"""Tests of the harness itself, without QEMU:
python3 -m unittest discover -s tests/harness"""

import contextlib
import importlib.util
import io
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from fentros_machine.console import Console, split_output  # noqa: E402
import ktap  # noqa: E402
import shelltest  # noqa: E402
import tracefmt  # noqa: E402
import tracetest  # noqa: E402
from shelltest import ParseError, check_output, find_mismatch, parse_text  # noqa: E402


def expected(*lines):
    """Expectations from .t-style lines."""
    test = parse_text("# Expectations under test.\n$ x\n" + "".join(line + "\n" for line in lines),
                      "t.t")
    return test.steps[0].expected


class ParseTests(unittest.TestCase):
    def test_directives_and_steps(self):
        test = parse_text("# A comment: not a directive.\n# smp: 1, 4\n# timeout: 5\n"
                          "# cmdline: a=1 b=2\n\n$ echo a\na\n\n# between\n$\n", "x.t")
        self.assertEqual(test.smp, [1, 4])
        self.assertEqual(test.timeout, 5.0)
        self.assertEqual(test.cmdline, "a=1 b=2")
        self.assertTrue(test.own_boot)
        self.assertEqual([s.keys for s in test.steps], [b"echo a\r", b"\r"])
        self.assertEqual([e.text for e in test.steps[0].expected], ["a"])

    def test_expect_without_commands(self):
        test = parse_text("# expect: crash\n", "x.t")
        self.assertEqual(test.expect, "crash")
        self.assertEqual(test.steps, [])

    def test_raw_keys(self):
        test = parse_text("$< ab\\x7fc\\e[A\\t\\\\\\r\n", "x.t")
        self.assertEqual(test.steps[0].keys, b"ab\x7fc\x1b[A\t\\\r")

    def test_errors(self):
        bad = {
            "no commands": "# just a comment\n",
            "text after blank line": "$ echo a\n\na\n",
            "dollar without space": "$ echo a\n$?\n",
            "bad regex": "$ echo a\n~ (\n",
            "raw without line end": "$< abc\n",
            "raw with two line ends": "$< a\\rb\\r\n",
            "directive after command": "$ echo a\n\n# smp: 1\n",
            "bad expect": "# expect: explode\n$ x\n",
            "bad escape": "$< \\q\\r\n",
            "only ... without a comment": "$ echo a\n...\n",
            "only ... and ! without a comment": "# why\n$ echo a\n$ echo b\n...\n! x\n",
        }
        for what, text in bad.items():
            with self.subTest(what), self.assertRaises(ParseError):
                parse_text(text, "x.t")

    def test_any_output_needs_a_comment(self):
        test = parse_text("# Which allocation fails varies.\n$ echo a\n...\n", "x.t")
        self.assertTrue(test.steps[0].accepts_empty_output())
        self.assertFalse(parse_text("$ echo a\n...\na\n", "x.t").steps[0].accepts_empty_output())

    def test_empty_line_and_literal_dollar(self):
        exp = expected("~", "~ \\$\\?")
        self.assertIsNone(find_mismatch(exp, ["", "$?"]))


class ReporterTests(unittest.TestCase):
    def test_selftest_skipped_at_every_cpu_count_fails(self):
        run_py = Path(__file__).parent.parent / "run.py"
        spec = importlib.util.spec_from_file_location("run", run_py)
        run = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(run)
        reporter = run.Reporter(keep_going=True)
        reporter.selftest_outcome("raced", 2, "SKIP busy")
        reporter.selftest_outcome("raced", 4, "SKIP busy")
        reporter.selftest_outcome("ran_once", 1, "SKIP needs a second CPU")
        reporter.selftest_outcome("ran_once", 2, None)
        reporter.selftest_outcome("one_count", 2, "SKIP busy")
        with contextlib.redirect_stdout(io.StringIO()):
            reporter.fail_always_skipped()
        self.assertEqual(reporter.failures, ["FAIL selftest/raced: skipped at every CPU count"])


class LineWriterTests(unittest.TestCase):
    """run.py's stdout while the host checks print beside the boots: whole lines only."""

    def test_threads_write_whole_lines(self):
        run_py = Path(__file__).parent.parent / "run.py"
        spec = importlib.util.spec_from_file_location("run", run_py)
        run = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(run)
        out = io.StringIO()
        writer = run.LineWriter(out)

        def write(tag):
            for i in range(200):
                # print()'s two writes: the text, then its newline.
                writer.write(f"{tag} {i} begins,")
                writer.write(f" {tag} {i} ends")
                writer.write("\n")
        threads = [threading.Thread(target=write, args=(t,)) for t in "ab"]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        lines = out.getvalue().split("\n")
        self.assertEqual(lines.pop(), "")
        self.assertEqual(len(lines), 400)
        for line in lines:
            tag, i = line.split()[:2]
            self.assertEqual(line, f"{tag} {i} begins, {tag} {i} ends")
        writer.write("no newline yet")
        self.assertEqual(len(out.getvalue().split("\n")), 401)


class MatchTests(unittest.TestCase):
    def test_exact(self):
        self.assertIsNone(find_mismatch(expected("a", "b"), ["a", "b"]))
        self.assertEqual(find_mismatch(expected("a", "b"), ["a", "c"]), (1, 1))
        self.assertEqual(find_mismatch(expected("a"), ["a", "extra"]), (1, 1))
        self.assertEqual(find_mismatch(expected("a", "b"), ["a"]), (1, 1))
        self.assertEqual(find_mismatch(expected(), ["x"]), (0, 0))
        self.assertIsNone(find_mismatch(expected(), []))

    def test_regex_is_a_full_match(self):
        self.assertIsNone(find_mismatch(expected("~ a.c"), ["abc"]))
        self.assertIsNotNone(find_mismatch(expected("~ a.c"), ["abcd"]))

    def test_any(self):
        exp = expected("...", "x", "...", "y", "...")
        self.assertIsNone(find_mismatch(exp, ["x", "y"]))
        self.assertIsNone(find_mismatch(exp, ["1", "x", "2", "3", "y", "4"]))
        self.assertIsNone(find_mismatch(expected("..."), []))
        # The report points at the furthest expectation reached.
        self.assertEqual(find_mismatch(exp, ["x", "z"]), (3, 2))

    def test_long_output(self):
        lines = [str(i) for i in range(20000)]
        self.assertIsNone(find_mismatch(expected("...", "19999"), lines))

    def test_report(self):
        test = parse_text("$ ls\n...\nb\n! secret\n", "x.t")
        step = test.steps[0]
        self.assertIsNone(check_output(test, step, ["a", "b"]))
        report = "\n".join(check_output(test, step, ["a", "c"]))
        self.assertIn("expected (line 3): b", report)
        self.assertIn("got end of output", report)
        report = "\n".join(check_output(test, step, ["my secret", "b"]))
        self.assertIn("forbids secret", report)
        report = "\n".join(check_output(test, step, ["b", "trailing "]))
        self.assertIn("'trailing '", report)


class SplitOutputTests(unittest.TestCase):
    def test_echo_dropped(self):
        self.assertEqual(split_output(b"echo a\r\na\r\n"), ["a"])
        self.assertEqual(split_output(b"true\r\n"), [])
        self.assertEqual(split_output(b"echo\r\n\r\n"), [""])
        self.assertEqual(split_output(b"printf x\r\nx"), ["x"])
        self.assertEqual(split_output(b"no newline yet"), [])
        self.assertEqual(split_output(b"ab\b \bc\r\nout\r\n"), ["out"])
        # Kernel messages in the middle of the echo come first; the echo goes on after them.
        self.assertEqual(split_output(b"cd /sys/ke[    1.243595] Dumping ftrace buffer:\r\n"
                                      b"[    1.243634]    (ftrace buffer empty)\r\n"
                                      b"rnel[    1.300000] x\r\n\r\nout\r\n"),
                         ["[    1.243595] Dumping ftrace buffer:",
                          "[    1.243634]    (ftrace buffer empty)", "[    1.300000] x", "out"])
        self.assertEqual(split_output(b"dmesg\r\n[    0.000000] fentros\r\n"),
                         ["[    0.000000] fentros"])
        self.assertEqual(split_output(b"ls[    1.000000] late\r\n"), [])


class KtapTests(unittest.TestCase):
    def test_good_run(self):
        run = ktap.parse(["KTAP version 1", "1..3", "ok 1 a", "    # t.c:1: boom",
                          "not ok 2 b", "ok 3 c # SKIP no SMP", "# selftest: done"])
        self.assertEqual(run.problems, [])
        self.assertEqual([(r.name, r.ok, r.skipped) for r in run.results],
                         [("a", True, False), ("b", False, False), ("c", True, True)])
        self.assertEqual(run.results[1].diagnostics, ["    # t.c:1: boom"])

    def test_problems(self):
        self.assertTrue(ktap.parse(["ok 1 a"]).problems)
        run = ktap.parse(["KTAP version 1", "1..3", "ok 1 a"])
        self.assertEqual(run.problems, ["plan says 3 tests, 1 results"])
        run = ktap.parse(["KTAP version 1", "1..2", "ok 1 a", "ok 3 b"])
        self.assertEqual(run.problems, ["result 2 is numbered 3"])

    def test_duplicate_names(self):
        run = ktap.parse(["KTAP version 1", "1..2", "ok 1 a", "ok 2 a"])
        self.assertEqual([r.name for r in run.results], ["a", "a.2"])


class ConsoleTests(unittest.TestCase):
    """`cat` plays a shell that echoes what it is sent."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.console = Console(["cat"], Path(self.dir.name) / "serial.log")

    def tearDown(self):
        self.console.kill()
        self.dir.cleanup()

    def test_command_and_crash_text(self):
        c = self.console
        c.send(b"boot log\r\nfentros:/# ")
        self.assertEqual(c.wait_boot(5).cwd, "/")
        start = c.mark()
        # The echo holds a prompt-like text and "BUG:": neither ends the command nor
        # counts as a kernel report.
        reply = c.command(b"echo BUG: fentros:/# \r\nhi\r\nfentros:/tmp# ", 5)
        self.assertEqual((reply.lines, reply.cwd), (["hi"], "/tmp"))
        self.assertEqual(c.crash_lines(start), [])
        reply = c.command(b"x\r\nWARNING: CPU: 0 at foo\r\nfentros:/# ", 5)
        self.assertEqual(c.crash_lines(start), ["WARNING: CPU: 0 at foo"])

    def test_prompt_with_kernel_messages_after_it(self):
        # Kernel messages printed after the prompt (a dump probe firing on another CPU)
        # still leave the shell at its prompt; half a message does not.
        c = self.console
        c.send(b"fentros:/# ")
        c.wait_boot(5)
        start = c.begin(b"echo x\r\nx\r\nfentros:/tmp# [    1.214309] Dumping ftrace buffer:\r\n")
        reply = c.finish(start, 5)
        self.assertEqual((reply.lines, reply.cwd), (["x"], "/tmp"))
        start = c.begin(b"echo y\r\ny\r\nfentros:/# [    1.214309] Dumping ftr")
        time.sleep(0.3)
        self.assertFalse(c.at_prompt(start))
        c.send(b"ace buffer:\r\n")
        self.assertEqual(c.finish(start, 5).lines, ["y"])

    def test_redrawn_prompt_does_not_end_the_command(self):
        # A Tab in the typed line: the editor prints the completions, then "\r\x1b[K", the
        # prompt and the line again. Output that stops right after that prompt is not the end.
        c = self.console
        c.send(b"fentros:/# ")
        c.wait_boot(5)
        start = c.begin(b"ab\r\nabc  abd\r\n\r\x1b[Kfentros:/# ")
        time.sleep(0.3)
        self.assertFalse(c.at_prompt(start))
        c.send(b"abx\r\nfentros: abx: command not found\r\nfentros:/# ")
        self.assertEqual(c.finish(start, 5).lines[-1], "fentros: abx: command not found")
        # Output that ends in a bare carriage return still ends at the prompt after it.
        reply = c.command(b"printf 'x\\r'\r\nx\rfentros:/# ", 5)
        self.assertFalse(reply.timed_out)

    def test_begin_wait_interrupt(self):
        c = self.console
        c.send(b"fentros:/# ")
        c.wait_boot(5)
        start = c.begin(b"cat trace_pipe\r\none\r\ntwo\r\n")
        self.assertTrue(c.wait_output(start, lambda buf, s: buf.count(b"\n", s) >= 3, 5))
        self.assertFalse(c.wait_output(start, lambda buf, s: buf.find(b"three", s) >= 0, 0.2))
        self.assertFalse(c.at_prompt(start))
        c.send(b"^C\r\nfentros:/# ")
        reply = c.finish(start, 5)
        self.assertTrue(c.at_prompt(start))
        self.assertEqual(reply.lines, ["one", "two", "^C"])

    def test_timeout_and_exit(self):
        reply = self.console.command(b"hang\r\npartial", 0.3)
        self.assertTrue(reply.timed_out)
        self.assertEqual(reply.lines, ["partial"])
        self.console.proc.stdin.close()
        reply = self.console.command(b"", 5)
        self.assertEqual(reply.exit_status, 0)


# Linux 6.1's function trace (tests/reference/linux-6.1-outputs.txt, cut short), with lines in
# its formats added: sym-offset and sym-addr, an interrupt's context, the widest comm-pid.
LINUX_TRACE = """# tracer: function
#
# entries-in-buffer/entries-written: 18/18   #P:2
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
              sh-93      [001] .N...     2.030364: schedule <-exit_to_user_mode_prepare
              sh-93      [001] .N...     2.031436: <stack trace>
 => 0xffffffffc0306083
 => schedule
     rcu_preempt-15      [001] .....     2.031697: schedule+0x0/0xd0 <ffffffff9ba114f0> <-schedule_timeout+0x94/0x150 <ffffffff9ba16db4>
          <idle>-0       [000] dNh1.     7.094462: tick_irq_enter <-sysvec_apic_timer_interrupt
              sh-93      [000] .....     2.403465: tracing_mark_write: hello marker
ksoftirqd/1234567-12345678 [001] d..1. 12345.000001: work_rotate_mix <-work_hash_block.constprop.0
""".split("\n")[:-1]


class TraceFormatTests(unittest.TestCase):
    def test_linux_trace(self):
        trace = tracefmt.parse_trace(LINUX_TRACE)
        self.assertEqual(trace.errors, [])
        self.assertEqual((trace.tracer, trace.entries, trace.written, trace.ncpus),
                         ("function", 18, 18, 2))
        kinds = [e.kind for e in trace.events]
        self.assertEqual(kinds, ["function", "stack", "function", "function", "marker",
                                 "function"])
        first, stack, addr, idle, marker, long_names = trace.events
        self.assertEqual((first.comm, first.pid, first.cpu, first.flags, first.ts),
                         ("sh", 93, 1, ".N...", 2030364))
        self.assertEqual((first.func_name, first.parent_name),
                         ("schedule", "exit_to_user_mode_prepare"))
        self.assertEqual(stack.frames, ["0xffffffffc0306083", "schedule"])
        self.assertEqual((addr.func_name, addr.parent_name), ("schedule", "schedule_timeout"))
        self.assertEqual((idle.comm, idle.pid, idle.flags), ("<idle>", 0, "dNh1."))
        self.assertEqual(marker.text, "hello marker")
        # Wider than the columns: %16s and %-7d only pad, never cut.
        self.assertEqual((long_names.comm, long_names.pid, long_names.ts),
                         ("ksoftirqd/1234567", 12345678, 12345000001))

    def test_widths_are_checked(self):
        bad = {
            "             sh-93      [001] .....     2.030364: f <-g": "16 columns",
            "              sh-93     [001] .....     2.030364: f <-g": "7 columns",
            "              sh-93      [001] .....    2.030364: f <-g": "%5lu.%06lu",
            "              sh-93      [001] .....     2.0303: f <-g": "not an event line",
            "              sh-93      [001] ..q..     2.030364: f <-g": "flags",
            "              sh-93      [001] .....     2.030364: f <-": "func <-parent",
            " => schedule": "not an event line",
        }
        for line, reason in bad.items():
            with self.subTest(line):
                trace = tracefmt.parse_trace([line], header=False)
                self.assertEqual(len(trace.errors), 1)
                self.assertIn(reason, trace.errors[0][2])

    def test_other_formats(self):
        # noirq-info, and a counter clock's %12llu.
        lines = ["# tracer: function", "#", "# entries-in-buffer/entries-written: 1/3   #P:4",
                 "#"] + tracefmt.HEADER_NO_IRQ_INFO + [
                 "     rcu_preempt-15      [000]             3: schedule <-rcu_gp_kthread"]
        trace = tracefmt.parse_trace(lines, ns_clock=False, irq_info=False)
        self.assertEqual(trace.errors, [])
        self.assertEqual((trace.entries, trace.written, trace.events[0].ts), (1, 3, 3))
        # Without context-info, Linux prints `# tracer:`, `#` and the bare events.
        trace = tracefmt.parse_trace(["# tracer: function", "#", "schedule <-do_wait"],
                                     context_info=False)
        self.assertEqual(trace.errors, [])
        self.assertEqual(trace.events[0].func_name, "schedule")
        # trace_pipe: no header, LOST lines.
        trace = tracefmt.parse_trace(["CPU:1 [LOST 21750 EVENTS]", LINUX_TRACE[12]],
                                     header=False)
        self.assertEqual([(e.kind, e.cpu, e.lost) for e in trace.events],
                         [("lost", 1, 21750), ("function", 1, None)])
        # A header that is not Linux's is an error.
        lines = list(LINUX_TRACE)
        lines[5] = "#                               / _----=> need resched"
        self.assertTrue(tracefmt.parse_trace(lines).errors)

    def test_stats_and_time_order(self):
        stats = tracefmt.parse_stats(["entries: 2", "overrun: 0", "commit overrun: 0",
                                      "bytes: 32", "oldest event ts:     1.678991",
                                      "now ts: 21", "dropped events: 0", "read events: 5"])
        self.assertEqual((stats["entries"], stats["oldest event ts"], stats["now ts"],
                          stats["read events"]), (2, 1678991, 21, 5))
        with self.assertRaises(ValueError):
            tracefmt.parse_stats(["entries: 2"])
        with self.assertRaises(ValueError):
            tracefmt.parse_stats(["entries: x", "overrun: 0", "commit overrun: 0", "bytes: 0",
                                  "oldest event ts: 0", "now ts: 0", "dropped events: 0",
                                  "read events: 0"])
        events = tracefmt.parse_trace(LINUX_TRACE).events
        # Line 16 (CPU 1, 2.031697) after line 13 (CPU 1, 2.031436) is in order; CPU 0
        # goes from 7.094 back to 2.403.
        bad = tracefmt.backwards_in_time(events)
        self.assertEqual([(a.lineno, b.lineno) for a, b in bad], [(18, 19)])
        self.assertEqual(tracefmt.cpu_mask([0, 1, 3]), "b")


class TraceTestFileTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = Path(self.dir.name) / name
        path.write_text(text)
        return tracetest.TraceTestFile(path)

    def test_load_and_run(self):
        f = self.write("demo.py", "SMP = [2, 4]\nTIMEOUT = 9\ncalls = []\n"
                       "def setup(sh): calls.append('setup')\n"
                       "def teardown(sh): calls.append('teardown')\n"
                       "def test_b(sh): calls.append(sh.smp)\n"
                       "def test_a(sh): sh.check(False, 'nope', ['why'])\n"
                       "def test_c(sh): raise KeyError('k')\n"
                       "def helper(sh): pass\n")
        self.assertIsNone(f.error)
        self.assertEqual((f.smp, f.timeout), ([2, 4], 9.0))
        self.assertEqual([name for name, _ in f.tests], ["b", "a", "c"])
        tests = dict(f.tests)
        self.assertIsNone(tracetest.run_test(f, tests["b"], None, 2, 60, {}))
        failure = tracetest.run_test(f, tests["a"], None, 2, 60, {})
        self.assertEqual((failure.message, failure.details, failure.fatal),
                         ("nope", ["why"], False))
        failure = tracetest.run_test(f, tests["c"], None, 2, 60, {})
        self.assertIn("KeyError", failure.message)
        module_calls = tests["b"].__globals__["calls"]
        self.assertEqual(module_calls, ["setup", 2, "teardown"] + ["setup", "teardown"] * 2)

    def test_fatal_failure_skips_teardown(self):
        f = self.write("fatal.py", "calls = []\n"
                       "def teardown(sh): calls.append('teardown')\n"
                       "def test_hang(sh):\n"
                       "    raise tracetest.TestFailure('hung', fatal=True)\n")
        f2 = self.write("ok.py", "def test_x(sh): pass\n")
        self.assertIsNone(f2.error)
        # The script sees the harness module under the name it imports.
        tests = dict(f.tests)
        tests["hang"].__globals__["tracetest"] = tracetest
        failure = tracetest.run_test(f, tests["hang"], None, 1, 60, {})
        self.assertTrue(failure.fatal)
        self.assertEqual(tests["hang"].__globals__["calls"], [])

    def test_bad_files(self):
        self.assertIn("SyntaxError", self.write("bad.py", "def (:\n").error)
        self.assertIn("no test_* functions", self.write("empty.py", "x = 1\n").error)


if __name__ == "__main__":
    unittest.main()
