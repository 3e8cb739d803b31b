"""The shell tests that replay Linux's text, held against the Linux output they replay
(tests/reference/, each file captured by tools/linux-ref from the script beside it)."""

from __future__ import annotations

import re
import unittest
from pathlib import Path

import shelltest

TESTS_DIR = Path(__file__).resolve().parents[1]
REFERENCE_DIR = TESTS_DIR / "reference"
_SECTION = re.compile(r"^##### (.*)$")


def read_sections(path: Path) -> dict[str, list[str]]:
    """`##### NAME` sections of a capture: NAME -> its lines, trailing blank lines cut."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text(encoding="utf-8").split("\n"):
        match = _SECTION.match(line)
        if match:
            current = sections.setdefault(match.group(1), [])
        elif line.startswith("=== linux-ref:") or line.startswith("[ "):
            current = None
        elif current is not None:
            current.append(line)
    for lines in sections.values():
        while lines and lines[-1] == "":
            lines.pop()
    return sections


def find_shell_test(name: str) -> Path:
    found = sorted((TESTS_DIR / "shell").rglob(name))
    if len(found) != 1:
        raise AssertionError(f"expected one tests/shell/**/{name}, found {found}")
    return found[0]


class FormatFilesTests(unittest.TestCase):
    def test_every_format_file_is_linux_6_1s(self) -> None:
        """Each `cat` of a format file or buffer header in events-formats.t expects what
        Linux 6.1 printed for the same file; only the patterns (`~`) may differ."""
        sections = read_sections(REFERENCE_DIR / "linux-6.1-formats.txt")
        test = shelltest.parse_file(find_shell_test("events-formats.t"))
        compared = 0
        for step in test.steps:
            match = re.fullmatch(r"\$ cat (events/\S+)", step.source)
            if not match:
                continue
            path = match.group(1)
            self.assertIn(path, sections, f"{test.path}:{step.lineno}: {path} has no capture "
                          "in tests/reference/linux-6.1-formats.txt (add it to "
                          "linux-6.1-formats.sh and capture again)")
            where = shelltest.find_mismatch(step.expected, sections[path])
            self.assertIsNone(where, f"{test.path}:{step.lineno}: `{step.source}` differs "
                              f"from Linux's at (expected, captured) line {where}")
            compared += 1
        self.assertGreaterEqual(compared, 20)

    def test_sections_read_as_captured(self) -> None:
        sections = read_sections(REFERENCE_DIR / "linux-6.1-formats.txt")
        self.assertEqual(sections["events/ftrace/function/format"][:2],
                         ["name: function", "ID: 1"])
        self.assertEqual(sections["events/header_page"][-1],
                         "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;")


def read_eprobe_blocks(path: Path) -> dict[str, list[list[str]]]:
    """linux-6.1-eprobes.txt: the output after each `# LINE` its script wrote to
    dynamic_events (`rc=N` and the error_log, Linux's `sh: write error` as fentros's shell
    says it) and after each `=== format GROUP/EVENT`, by LINE or `format GROUP/EVENT`, in
    the order they came (a line written twice has two)."""
    blocks: dict[str, list[list[str]]] = {}
    current: list[str] | None = None
    answer = re.compile(r"sh: write error: .*|rc=\d+|\[\s*\d+\.\d+\] .*|  Command: .*|\s+\^")
    in_format = False
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("# ") or line.startswith("=== format "):
            in_format = line.startswith("=== format ")
            current = []
            blocks.setdefault(line[4:] if in_format else line[2:], []).append(current)
        elif line.startswith("===") or not (in_format or answer.fullmatch(line)):
            # A write's answer ends where the script's next command prints.
            current = None
        elif current is not None:
            current.append(line.replace("sh: write error:", "echo: write error:"))
    for answers in blocks.values():
        for lines in answers:
            while lines and lines[-1] == "":
                lines.pop()
    return blocks


class EventProbeTests(unittest.TestCase):
    def test_eprobe_lines_answer_as_linux_6_1(self) -> None:
        """Each line eprobe.t writes to dynamic_events as the capture's script did gets the
        status and error_log lines Linux 6.1 gave it, and each format file is Linux's."""
        blocks = read_eprobe_blocks(REFERENCE_DIR / "linux-6.1-eprobes.txt")
        test = shelltest.parse_file(find_shell_test("eprobe.t"))
        compared = 0
        for step in test.steps:
            write = re.fullmatch(r"\$ echo '(.*)' >> dynamic_events; echo rc=\$\?; cat error_log; "
                                 r"echo > error_log", step.source)
            fmt = re.fullmatch(r"\$ cat events/(\S+)/format", step.source)
            key = write.group(1) if write else f"format {fmt.group(1)}" if fmt else None
            if key is None or not blocks.get(key):
                continue
            where = shelltest.find_mismatch(step.expected, blocks[key].pop(0))
            self.assertIsNone(where, f"{test.path}:{step.lineno}: `{step.source}` differs "
                              f"from Linux's at (expected, captured) line {where}")
            compared += 1
        self.assertGreaterEqual(compared, 60)


if __name__ == "__main__":
    unittest.main()
