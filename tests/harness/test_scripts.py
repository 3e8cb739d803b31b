"""How the harness finds tests/shell's scripts: one folder per area, named AREA/FILE."""

import argparse
import contextlib
import io
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import run  # noqa: E402
import shelltest  # noqa: E402


class ScriptTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        root = Path(self.dir.name)
        for name in ("shell/echo.t", "events/files.t", "events/formats.t", "stray.t"):
            (root / name).parent.mkdir(exist_ok=True)
            (root / name).write_text("$ echo a\na\n")
        self.root = root

    def tearDown(self):
        self.dir.cleanup()

    def test_names_are_area_and_file(self):
        names = [name for name, _ in shelltest.find_scripts(self.root)]
        self.assertEqual(names, ["events/files", "events/formats", "shell/echo", "stray"])
        self.assertEqual([t.name for t in shelltest.parse_scripts(self.root)], names)

    def test_a_script_outside_an_area_fails(self):
        args = argparse.Namespace(shell_dir=self.root, smp=[2], filter=[])
        reporter = run.Reporter(keep_going=True)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            tests = run.load_tests(args, reporter)
        self.assertEqual([t.name for t in tests], ["events/files", "events/formats", "shell/echo"])
        self.assertEqual(reporter.failed, 1)
        self.assertIn("smp2/shell/stray", out.getvalue())
        self.assertIn("not in an area's folder", out.getvalue())

    def test_filters_by_area_and_file(self):
        name = "smp2/shell/events/files"
        for pattern in ("events/*", "shell/events/", "files", "events/files", "smp2/shell/*"):
            self.assertTrue(run.name_matches(name, [pattern]), pattern)
        self.assertFalse(run.name_matches(name, ["shell/echo"]))


if __name__ == "__main__":
    unittest.main()
