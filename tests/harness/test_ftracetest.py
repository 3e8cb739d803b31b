"""tests/ftracetest/ftracetest.py without QEMU or FUSE: the name map, the parsing of
ftracetest's output and logs, and the verdict against expected_pass.txt."""

import importlib.util
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

FTRACETEST = Path(__file__).resolve().parent.parent / "ftracetest" / "ftracetest.py"
IN_NAMESPACE = FTRACETEST.parent / "in_namespace.sh"
_spec = importlib.util.spec_from_file_location("ftracetest", FTRACETEST)
ft = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ft)


class NameMap(unittest.TestCase):
    def test_the_tree_map_loads_and_names_distinct_functions(self):
        pairs = ft.load_name_map(ft.NAME_MAP.read_text())
        self.assertIn(("kernel_clone", "kthread_create"), pairs)
        self.assertEqual(len({linux for linux, _ in pairs}), len(pairs))

    def test_bad_line_refused(self):
        with self.assertRaises(ft.FtracetestError):
            ft.load_name_map("vfs_read\n")

    def test_whole_words_only(self):
        pairs = [("vfs_read", "pfs_read")]
        self.assertEqual(ft.apply_name_map("p vfs_read x=1\n", pairs), "p pfs_read x=1\n")
        self.assertEqual(ft.apply_name_map("p my_vfs_read vfs_readv\n", pairs),
                         "p my_vfs_read vfs_readv\n")
        self.assertEqual(ft.apply_name_map('FUNC=" .*vfs_read$"\n', pairs),
                         'FUNC=" .*pfs_read$"\n')

    def test_a_name_after_grep_word_boundary(self):
        text = "if grep '\\bkernel_clone\\b' /proc/kallsyms; then echo kernel_clone; fi\n"
        self.assertEqual(ft.apply_name_map(text, [("kernel_clone", "kthread_create")]),
                         "if grep '\\bkthread_create\\b' /proc/kallsyms; then echo "
                         "kthread_create; fi\n")

    def test_comment_lines_untouched(self):
        text = "# renamed from _do_fork\necho _do_fork\n"
        self.assertEqual(ft.apply_name_map(text, [("_do_fork", "kthread_create")]),
                         "# renamed from _do_fork\necho kthread_create\n")


class Outcome(unittest.TestCase):
    OUTPUT = ["=== Ftrace unit tests ===",
              "[1] Basic trace file check\t[PASS]",
              "[2] Basic test for tracers\t[FAIL]",
              "[3] Kprobe dynamic event - adding and removing\t[UNSUPPORTED]",
              "[4] (instance)  Basic test for tracers\t[PASS]",
              "", "# of passed:  2", "# of failed:  1"]

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.logdir = Path(self.tmp.name)
        test_dir = Path("/cache/mapped/test.d")
        for number, prefix, path in ((1, "execute: ", "00basic/basic1.tc"),
                                     (2, "execute: ", "00basic/basic2.tc"),
                                     (3, "execute: ", "kprobe/add_and_remove.tc"),
                                     (4, "execute (instance) : ", "00basic/basic2.tc")):
            log = self.logdir / f"{number}-{Path(path).name}-log.AbC123"
            log.write_text(f"{prefix}{test_dir / path}\n+ echo\n")
        self.names = ft.test_names(self.logdir, test_dir)

    def tearDown(self):
        self.tmp.cleanup()

    def test_results_named_by_file(self):
        outcome = ft.parse_outcome(self.OUTPUT, self.names)
        self.assertEqual(outcome.results, {
            "00basic/basic1.tc": "PASS", "00basic/basic2.tc": "FAIL",
            "kprobe/add_and_remove.tc": "UNSUPPORTED",
            "00basic/basic2.tc (instance)": "PASS"})
        self.assertEqual(outcome.summary, ["# of passed:  2", "# of failed:  1"])
        self.assertEqual(ft.counts(outcome), "2 PASS, 1 FAIL, 1 UNSUPPORTED of 4")

    def test_verdict(self):
        outcome = ft.parse_outcome(self.OUTPUT, self.names)
        verdict = ft.judge(outcome, ["00basic/basic2.tc", "00basic/basic1.tc",
                                     "00basic/basic4.tc"])
        self.assertEqual(verdict.lost, ["00basic/basic2.tc: FAIL"])
        self.assertEqual(verdict.missing, ["00basic/basic4.tc"])
        self.assertEqual(verdict.new, ["00basic/basic2.tc (instance)"])

    def test_expected_within_the_cases_run(self):
        expected = ["a/x.tc", "a/x.tc (instance)", "b/y.tc"]
        self.assertEqual(ft.within(expected, ["a/x.tc"]), ["a/x.tc", "a/x.tc (instance)"])
        self.assertEqual(ft.within(expected, []), expected)

    def test_sometimes_neither_required_nor_new(self):
        text = "00basic/basic1.tc\n? 00basic/basic2.tc (instance)  # flaky\n"
        self.assertEqual(ft.load_expected(text), ["00basic/basic1.tc"])
        self.assertEqual(ft.load_sometimes(text), ["00basic/basic2.tc (instance)"])
        outcome = ft.parse_outcome(self.OUTPUT, self.names)
        verdict = ft.judge(outcome, ft.load_expected(text), ft.load_sometimes(text))
        self.assertEqual(verdict.new, [])

    def test_expected_file_loads(self):
        self.assertEqual(ft.load_expected("# c\n00basic/basic1.tc  # why\n\nx.tc\n"),
                         ["00basic/basic1.tc", "x.tc"])
        for name in ft.load_expected(ft.EXPECTED_PASS.read_text()):
            self.assertTrue(name.endswith(".tc") or name.endswith(ft.INSTANCE_SUFFIX), name)


def _tracing_mounts():
    with open("/proc/self/mounts") as f:
        return [line for line in f if "tracefs" in line or "debugfs" in line]


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("unshare"), "needs root and unshare")
class NamespaceRefusals(unittest.TestCase):
    """in_namespace.sh refuses before ftracetest could write a tracing file anywhere but
    the FUSE mount. Each case runs inside a throwaway mount namespace of its own as well, so
    that a broken check could never reach this process's mounts; these must not change."""

    def run_script(self, script):
        before = _tracing_mounts()
        done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                               script, "sh", str(IN_NAMESPACE)],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(_tracing_mounts(), before)
        return done

    def test_refuses_in_the_namespace_it_was_started_from(self):
        done = self.run_script('sh "$1" --inside "$(readlink /proc/self/ns/mnt)" /x "" /x /x 5')
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("not in a mount namespace of its own", done.stderr)

    def test_refuses_an_unknown_namespace_id(self):
        done = self.run_script('sh "$1" --inside "" /x "" /x /x 5')
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("not in a mount namespace of its own", done.stderr)

    def test_refuses_a_tracefs_that_is_not_the_fuse_mount(self):
        with tempfile.TemporaryDirectory() as tmp:
            done = self.run_script(
                f'mount -t tmpfs tracefs {tmp} && touch {tmp}/current_tracer && '
                f'sh "$1" {tmp} "" /nonexistent /nonexistent 5')
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("not the FUSE mount", done.stderr)


if __name__ == "__main__":
    unittest.main()
