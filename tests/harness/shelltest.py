"""Shell-level test scripts, tests/shell/*.t: parsing and output matching.

The format is described in tests/README.md. In short: `# key: value` directives before
the first command, `$ command` or `$< keystrokes` lines, each followed by its expected
output, which a blank line or the next command ends.
"""

import re
from pathlib import Path
from typing import List, Tuple

# QEMU's exit status for each way a test may expect the kernel to stop.
EXPECT_EXIT = {"reboot": 0, "poweroff": 1, "crash": 3}

DIRECTIVE_RE = re.compile(r"#\s*(smp|cmdline|timeout|expect|boot)\s*:\s*(.*?)\s*")

KEY_ESCAPES = {"r": 0x0d, "n": 0x0a, "t": 0x09, "b": 0x08, "a": 0x07, "e": 0x1b,
               "0": 0x00, "\\": 0x5c}

# Keys that end a line of input: Enter submits it, Ctrl-C abandons it. Either way the
# shell prints a new prompt, which is what the harness waits for.
LINE_ENDS = (0x0d, 0x0a, 0x03)

# How many output lines a mismatch report shows around the point of failure.
REPORT_CONTEXT = 12


class ParseError(Exception):
    pass


class Expected:
    """One line of expected output: exact text, a regex, or `...` (any number of lines)."""

    def __init__(self, kind, text, lineno):
        self.kind = kind
        self.text = text
        self.lineno = lineno
        self.regex = re.compile(text) if kind == "regex" else None

    def matches(self, line):
        if self.kind == "line":
            return line == self.text
        return self.regex.fullmatch(line) is not None

    def __str__(self):
        if self.kind == "regex":
            return "~ " + self.text
        return show(self.text)


class Step:
    """One command typed at the prompt and what its output must look like."""

    def __init__(self, lineno, source, keys):
        self.lineno = lineno
        self.source = source      # the line as written, for reports
        self.keys = keys          # the bytes typed
        self.expected = []
        self.forbidden = []       # (text, lineno): no output line may contain text
        self.after_comment = False  # the line above the command is a comment

    def accepts_empty_output(self):
        """Only `...` expected: any output passes, none included."""
        return bool(self.expected) and all(e.kind == "any" for e in self.expected)


class ShellTest:
    def __init__(self, path):
        self.path = Path(path)
        self.name = self.path.stem
        self.smp = None           # CPU counts to run at; None means all
        self.cmdline = ""         # extra kernel command line
        self.timeout = None       # per-command timeout in seconds
        self.expect = None        # "crash", "poweroff" or "reboot": how QEMU must end
        self.fresh = False        # boot on its own even without expect or cmdline
        self.steps = []

    @property
    def own_boot(self):
        """A test that ends QEMU or needs its own command line cannot share a boot."""
        return bool(self.expect or self.cmdline or self.fresh)


def show(text):
    """Text for a report: as is when readable, else quoted so invisible bytes show."""
    if text != text.rstrip() or any(ord(c) < 0x20 or c == "\x7f" for c in text):
        return repr(text)
    return text


def decode_keys(text, where):
    """`$<` text -> bytes, with C escapes: \\r \\n \\t \\b \\a \\e \\0 \\\\ \\xHH."""
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        esc = text[i + 1:i + 2]
        if esc == "x":
            digits = text[i + 2:i + 4]
            if not re.fullmatch(r"[0-9a-fA-F]{2}", digits):
                raise ParseError(f"{where}: \\x needs two hex digits")
            out.append(int(digits, 16))
            i += 4
        elif esc in KEY_ESCAPES:
            out.append(KEY_ESCAPES[esc])
            i += 2
        else:
            raise ParseError(f"{where}: unknown escape \\{esc}")
    return bytes(out)


def raw_step(line, lineno, where):
    keys = decode_keys(line[3:], where)
    # One `$<` line is one line of input: exactly one line end, at the end, so that the
    # harness knows which prompt answers it.
    ends = [i for i, b in enumerate(keys) if b in LINE_ENDS]
    if ends != [len(keys) - 1]:
        raise ParseError(f"{where}: `$<` keys must end with \\r or \\x03, "
                         "and contain no other line end")
    return Step(lineno, line, keys)


def set_directive(test, key, value, where):
    if key == "smp":
        try:
            test.smp = [int(word) for word in value.replace(",", " ").split()]
        except ValueError:
            raise ParseError(f"{where}: smp wants CPU counts, like `# smp: 1 2 4`")
    elif key == "cmdline":
        test.cmdline = value
    elif key == "timeout":
        try:
            test.timeout = float(value)
        except ValueError:
            raise ParseError(f"{where}: timeout wants seconds, like `# timeout: 120`")
    elif key == "expect":
        if value not in EXPECT_EXIT:
            raise ParseError(f"{where}: expect is one of {', '.join(EXPECT_EXIT)}")
        test.expect = value
    elif key == "boot":
        if value != "fresh":
            raise ParseError(f"{where}: the only boot option is `# boot: fresh`")
        test.fresh = True


def parse_text(text, path):
    test = ShellTest(path)
    step = None  # the command whose expected output is being read
    previous = ""
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        where = f"{path}:{lineno}"
        if line.startswith("$< "):
            step = raw_step(line, lineno, where)
            step.after_comment = previous.startswith("#")
            test.steps.append(step)
        elif line == "$" or line.startswith("$ "):
            step = Step(lineno, line, line[2:].encode("utf-8") + b"\r")
            step.after_comment = previous.startswith("#")
            test.steps.append(step)
        elif line.startswith("$"):
            raise ParseError(f"{where}: a command line starts with `$ ` or `$< `; "
                             "write an output line starting with $ as `~ \\$...`")
        elif step is None:
            parse_between(test, line, where)
        elif line == "":
            step = None
        elif line == "...":
            step.expected.append(Expected("any", line, lineno))
        elif line == "~" or line.startswith("~ "):
            try:
                step.expected.append(Expected("regex", line[2:], lineno))
            except re.error as err:
                raise ParseError(f"{where}: bad regex: {err}")
        elif line.startswith("! "):
            step.forbidden.append((line[2:], lineno))
        else:
            step.expected.append(Expected("line", line, lineno))
        previous = line
    if test.expect is None and not test.steps:
        raise ParseError(f"{path}: no commands")
    for step in test.steps:
        # Such a block passes whatever happens, nothing included: the reader must be told
        # why nothing more can be checked there.
        if step.accepts_empty_output() and not step.after_comment:
            raise ParseError(f"{path}:{step.lineno}: a command whose expected output is only "
                             "`...` accepts any output, none included: say why in a "
                             "comment on the line above it")
    return test


def parse_between(test, line, where):
    """A line outside expected output: blank, a comment, or a header directive."""
    if not line.strip():
        return
    if not line.startswith("#"):
        raise ParseError(f"{where}: expected `$ command`, `# comment` or a blank line "
                         "(a blank line ends a command's expected output)")
    match = DIRECTIVE_RE.fullmatch(line)
    if match:
        if test.steps:
            raise ParseError(f"{where}: directives go before the first command")
        set_directive(test, match.group(1), match.group(2), where)


def parse_file(path, name=None):
    test = parse_text(Path(path).read_text(encoding="utf-8"), path)
    if name is not None:
        test.name = name
    return test


def script_name(path: Path, shell_dir: Path) -> str:
    """A script's name: its folder under shell_dir (its area) and its file, `AREA/FILE`."""
    return Path(path).relative_to(shell_dir).with_suffix("").as_posix()


def find_scripts(shell_dir: Path) -> List[Tuple[str, Path]]:
    """Every .t script under shell_dir, in name order: (name, path). Scripts live one folder
    deep, a folder per area; one elsewhere has a name without exactly one `/`, which
    load_tests reports as a bad test file."""
    paths = Path(shell_dir).rglob("*.t")
    return sorted((script_name(p, shell_dir), p) for p in paths)


def parse_scripts(shell_dir: Path) -> List["ShellTest"]:
    """find_scripts, parsed (for tools that rerun the scripts; errors raise)."""
    return [parse_file(path, name) for name, path in find_scripts(shell_dir)]


def find_mismatch(expected, lines):
    """None if `lines` match `expected`, else (expected index, line index) of the failure.

    `...` makes this a search; it walks every reachable (expectation, line) pair, which is
    at most len(expected) * len(lines). The failure reported is the one that got furthest
    through the expectations, then through the output.
    """
    m, n = len(expected), len(lines)
    seen = set()
    todo = [(0, 0)]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        i, j = state
        if i == m:
            continue
        if expected[i].kind == "any":
            todo.append((i + 1, j))
            if j < n:
                todo.append((i, j + 1))
        elif j < n and expected[i].matches(lines[j]):
            todo.append((i + 1, j + 1))
    if (m, n) in seen:
        return None
    return max(seen)


def output_excerpt(lines, center):
    low = max(0, center - REPORT_CONTEXT // 2)
    high = min(len(lines), low + REPORT_CONTEXT)
    excerpt = [f"      | {line}" for line in lines[low:high]]
    if low > 0:
        excerpt.insert(0, f"      ({low} lines before)")
    if high < len(lines):
        excerpt.append(f"      ({len(lines) - high} more lines)")
    return excerpt or ["      (no output)"]


def check_output(test, step, lines):
    """None if the output of `step` is right, else the lines of a failure report."""
    where = f"{test.path}:{step.lineno}: `{step.source}`"
    failure = find_mismatch(step.expected, lines)
    if failure is not None:
        i, j = failure
        if i == len(step.expected):
            report = [where, f"    unexpected output line {j + 1}: {show(lines[j])}"]
        else:
            e = step.expected[i]
            got = f"line {j + 1}: {show(lines[j])}" if j < len(lines) else "end of output"
            report = [where, f"    expected (line {e.lineno}): {e}", f"    got {got}"]
        return report + ["    output:"] + output_excerpt(lines, j)
    for text, lineno in step.forbidden:
        for j, line in enumerate(lines):
            if text in line:
                return [where, f"    line {lineno} forbids {show(text)}, "
                        f"but output line {j + 1} has it: {show(line)}",
                        "    output:"] + output_excerpt(lines, j)
    return None
