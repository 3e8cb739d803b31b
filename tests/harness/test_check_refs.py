"""Unit tests of tools/check_refs.py, the check that every file the tree names exists."""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import unittest
from pathlib import Path

_TOOL = Path(__file__).resolve().parents[2] / "tools" / "check_refs.py"
_spec = importlib.util.spec_from_file_location("check_refs", _TOOL)
assert _spec is not None and _spec.loader is not None
check_refs = importlib.util.module_from_spec(_spec)
sys.modules["check_refs"] = check_refs
_spec.loader.exec_module(check_refs)

FILES = [
    "Makefile",
    "README.md",
    "include/kernel/ftrace.h",
    "kernel/trace/ftrace.c",
    "kernel/trace/trace_internal.h",
    "kernel/trace/events/event_core.h",
    "tests/shell/ftrace/basic.t",
    "tests/run.py",
]


def missing(where: str, text: str, files: list[str] | None = None) -> list[str]:
    tree = check_refs.Tree(Path("/nonexistent"), FILES if files is None else files)
    return [m.name for m in check_refs.check_text(tree, where, text)]


class ResolveTests(unittest.TestCase):
    def test_rooted_paths(self) -> None:
        self.assertEqual(missing("kernel/x.c", "/* kernel/trace/ftrace.c and tests/shell/ */"), [])
        self.assertEqual(missing("kernel/x.c", "/* see kernel/trace/trace.h */"),
                         ["kernel/trace/trace.h"])
        self.assertEqual(missing("kernel/x.c", "/* tests/shell/basic.t */"),
                         ["tests/shell/basic.t"])

    def test_include_dirs_and_relative_to_the_file(self) -> None:
        self.assertEqual(missing("kernel/x.c", "/* <kernel/ftrace.h> */"), [])
        self.assertEqual(missing("kernel/trace/x.c", "/* events/event_core.h */"), [])
        self.assertEqual(missing("kernel/trace/x.c", "/* events/nosuch.h */"),
                         ["events/nosuch.h"])

    def test_bare_names_by_basename(self) -> None:
        self.assertEqual(missing("lib/x.c", "/* trace_internal.h, basic.t, run.py */"), [])
        self.assertEqual(missing("lib/x.c", "/* (see bench_tracer.h). */"), ["bench_tracer.h"])
        # Not file names: no known extension, or no extension at all.
        self.assertEqual(missing("lib/x.c", "/* 6.1 e.g. x86_64 on/off a.out */"), [])

    def test_nothing_may_point_outside_the_tree(self) -> None:
        self.assertEqual(missing("tests/shell/x.t", "# ../outside/reference/formats.txt"),
                         ["../outside/reference/formats.txt"])
        self.assertEqual(missing("tests/shell/x.t", "# ../run.py"), [])
        self.assertEqual(missing("tests/shell/x.t", "# ../../run.py"), ["../../run.py"])
        self.assertEqual(missing("tests/x.py", "# see ../../../etc"), ["../../../etc"])
        self.assertEqual(missing("tests/x.py", "# see ./run.py"), [])

    def test_names_that_are_not_checked(self) -> None:
        text = ("/* build/kernel.elf build/gen/asm-offsets.inc /proc/self/maps "
                "/sys/kernel/tracing ~/.cache/linux-ref https://example.org/a/b.c "
                "kernel/trace/bench_*.c $(BUILD)/obj/%.o stdint.h sys/cdefs.h "
                "tests/shell/NAME.t lib/fault-inject.c */")
        self.assertEqual(missing("kernel/x.c", text), [])

    def test_sentence_punctuation_is_not_part_of_a_name(self) -> None:
        self.assertEqual(missing("kernel/x.c", "/* In kernel/trace/ftrace.c. Or (run.py), */"),
                         [])
        self.assertEqual(missing("kernel/x.c", "/* ftrace.c's guard */"), [])


class ProseTests(unittest.TestCase):
    def test_c_code_is_not_prose(self) -> None:
        text = ('#include "nosuch.h"\n'
                'static const char *p = "../../a/b.c"; // but gone.c is named here\n'
                '/* and\n * here: gone.h */\n')
        tree = check_refs.Tree(Path("/nonexistent"), FILES)
        found = [(m.line, m.name) for m in check_refs.check_text(tree, "kernel/x.c", text)]
        self.assertEqual(found, [(2, "gone.c"), (4, "gone.h")])

    def test_shell_scripts_only_in_comments(self) -> None:
        text = "# the list in gone.t\n$ cat ../fail/x.c\nx.c\n"
        self.assertEqual(missing("tests/shell/a.t", text), ["gone.t"])

    def test_python_comments_and_docstrings_only(self) -> None:
        text = ('"""Module doc naming gone.py."""\n'
                'path = "temp.c"  # a comment naming lost.h\n'
                'def f():\n'
                '    """Docstring: tests/nosuch/."""\n'
                '    return "x.t"\n')
        self.assertEqual(missing("tests/a.py", text), ["gone.py", "lost.h", "tests/nosuch/"])

    def test_markdown_code_blocks_check_only_rooted_names(self) -> None:
        text = ("Prose names gone.md.\n```\n$ make -o graph.txt tests/nosuch.py\n```\n"
                "`tests/run.py`\n")
        self.assertEqual(missing("docs/a.md", text), ["gone.md", "tests/nosuch.py"])

    def test_makefile_comments(self) -> None:
        text = "# tools/gone.py writes it\nall: tools/x.py\n\t@echo kernel/none.c\n"
        self.assertEqual(missing("Makefile", text), ["tools/gone.py"])


class TreeTests(unittest.TestCase):
    def test_scan_reports_file_line_and_name(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "kernel").mkdir()
            (root / "kernel" / "a.c").write_text("int x;\n/* b.h and kernel/c.c */\n")
            (root / "kernel" / "b.h").write_text("/* fine: kernel/a.c */\n")
            (root / "tools").mkdir()
            (root / "tools" / "run-it").write_text("#!/bin/sh\n# runs tools/gone.sh\n")
            (root / "tools" / "data.bin").write_text("/* gone.c */\n")
            (root / "build").mkdir()
            (root / "build" / "junk.c").write_text("/* nosuch.c */\n")
            tree = check_refs.Tree(root, check_refs.list_files(root))
            self.assertNotIn("build/junk.c", tree.files)
            found = [str(m) for m in check_refs.check_tree(tree)]
            self.assertEqual(found, ["kernel/a.c:2: kernel/c.c: no such file in the tree",
                                     "tools/run-it:2: tools/gone.sh: no such file in the tree"])
            (root / "tools" / "run-it").write_text("#!/bin/sh\n")
            self.assertEqual(check_refs.main(["check_refs", str(root)]), 1)
            (root / "kernel" / "c.c").write_text("\n")
            self.assertEqual(check_refs.main(["check_refs", str(root)]), 0)


if __name__ == "__main__":
    unittest.main()
