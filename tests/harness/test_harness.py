"""Tests of the harness itself, without QEMU:
python3 -m unittest discover -s tests/harness"""

import tempfile
import unittest
from pathlib import Path

from console import Console, split_output
import ktap
import shelltest
from shelltest import ParseError, check_output, find_mismatch, parse_text


def expected(*lines):
    """Expectations from .t-style lines."""
    test = parse_text("$ x\n" + "".join(line + "\n" for line in lines), "t.t")
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
        }
        for what, text in bad.items():
            with self.subTest(what), self.assertRaises(ParseError):
                parse_text(text, "x.t")

    def test_empty_line_and_literal_dollar(self):
        exp = expected("~", "~ \\$\\?")
        self.assertIsNone(find_mismatch(exp, ["", "$?"]))


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
        reply = c.command(b"x\r\nWARNING: at foo\r\nfentros:/# ", 5)
        self.assertEqual(c.crash_lines(start), ["WARNING: at foo"])

    def test_timeout_and_exit(self):
        reply = self.console.command(b"hang\r\npartial", 0.3)
        self.assertTrue(reply.timed_out)
        self.assertEqual(reply.lines, ["partial"])
        self.console.proc.stdin.close()
        reply = self.console.command(b"", 5)
        self.assertEqual(reply.exit_status, 0)


if __name__ == "__main__":
    unittest.main()
