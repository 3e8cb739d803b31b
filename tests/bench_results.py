"""The current table at the top of tests/BENCH_RESULTS.md, rewritten by the bench tools.

The table lies between two marker comments. Each row starts with its name; a tool that
measured a row replaces that row's cells (fentros, Linux, ratio, date, commit, command)
and leaves every other row as it was. A row the table does not have yet is added at its
end. `tests/bench_linux.py --results` and `tests/icount.py --results` write
theirs (`make bench-linux RESULTS=1`, `make icount RESULTS=1`).
"""

import subprocess
import time
from pathlib import Path
from typing import List, Optional, Sequence

from harness.paths import ROOT

RESULTS = ROOT / "tests" / "BENCH_RESULTS.md"
BEGIN = "<!-- current table:"
END = "<!-- end of the current table -->"


class ResultsError(Exception):
    pass


def commit() -> str:
    """The short hash of HEAD, with "+changes" when tracked files differ from it (the
    results file itself aside: a run that rewrites two rows must name one commit)."""
    def git(*argv: str) -> str:
        return subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True,
                              check=False).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                  f":(exclude){RESULTS.relative_to(ROOT)}")
    return head + ("+changes" if changed else "")


def rel(path: Path) -> str:
    """path from the tree's root when it is inside it, for messages."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def cell_row(name: str, fentros: str, linux: str, ratio: str, command: str,
             when: Optional[str] = None, at: Optional[str] = None) -> str:
    """One table row: | name | fentros | Linux | ratio | date | commit | command |."""
    cells = [name, fentros, linux, ratio, when or today(), at or commit(), command]
    return "| " + " | ".join(cells) + " |"


def update(rows: Sequence[str], path: Path = RESULTS) -> List[str]:
    """Writes `rows` (lines made by cell_row) into the table at `path`: each replaces the
    row of its name, or is added at the end. Returns the names that were replaced."""
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    try:
        begin = next(i for i, line in enumerate(lines) if line.startswith(BEGIN))
        end = next(i for i in range(begin, len(lines)) if lines[i].startswith(END))
    except StopIteration:
        raise ResultsError(f"{path}: no current table between '{BEGIN}' and '{END}'")

    def name_of(line: str) -> Optional[str]:
        parts = line.split("|")
        return parts[1].strip() if line.startswith("|") and len(parts) > 2 else None

    replaced: List[str] = []
    for row in rows:
        name = name_of(row)
        if name is None:
            raise ResultsError(f"not a table row: {row}")
        where = next((i for i in range(begin + 3, end) if name_of(lines[i]) == name), None)
        if where is None:
            lines.insert(end, row)
            end += 1
        else:
            lines[where] = row
            replaced.append(name)
    Path(path).write_text("\n".join(lines), encoding="utf-8")
    return replaced
