#!/usr/bin/env python3
"""Fails when a comment, a document or a script names a file that is not in the tree.

    tools/check_refs.py [ROOT]

Scans the C, header, assembly, Python, shell, Makefile, Markdown and test-script (.t)
files and the scripts without an extension (#!) under ROOT (default: the repository this script is in) for path-like names and
prints `FILE:LINE: NAME: no such file in the tree` for each that does not resolve. A name
is checked when it
  - starts with a top-level directory of the tree (`kernel/trace/ftrace.c`,
    `tests/shell/`): it must exist relative to ROOT, or to an include directory;
  - starts with `./` or `../`: it must exist relative to the naming file and stay inside
    ROOT (so nothing may point outside the repository);
  - has a source extension (`events/event_core.h`, `trace_internal.h`): it must exist
    relative to ROOT, to the naming file or to an include directory, or be the end of a
    path in the tree (a bare name: any file of that name).
Names under build/ (build outputs), absolute paths (/proc, /sys, host files), URLs, glob
and make patterns, and `#include` lines (the compiler checks those) are not checked.
Linux's own files, named as Linux's, are listed in LINUX_FILES.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

# Files whose text is scanned: by extension, or by exact name.
SCANNED_EXTENSIONS = frozenset({".c", ".h", ".asm", ".inc", ".S", ".py", ".sh", ".md", ".t",
                                ".ld", ".in"})
SCANNED_NAMES = frozenset({"Makefile"})

# A name with one of these extensions is a file name even without a directory.
SOURCE_EXTENSIONS = frozenset({".c", ".h", ".asm", ".inc", ".S", ".py", ".sh", ".md", ".t",
                               ".ld", ".txt", ".svg"})

# Where `#include <kernel/ftrace.h>` names are found, besides the root (the Makefile's -I flags).
INCLUDE_DIRS = ("include", "arch/x86_64/include")

# Generated files and build products: named in the tree, never in it.
BUILD_PREFIXES = ("build/",)
GENERATED = frozenset({
    "tests/host/rb_stress",
    "tests/host/rb_stress_fast",
    "tests/host/rb_stress_tsan",
    "tests/host/map_stress",
    "tests/host/map_stress_tsan",
    "tools/linux-bench/syscall_loop",
})

# The C library's and the compiler's headers, which host code and comments name.
SYSTEM_HEADERS = frozenset({"stdint.h", "stddef.h", "stdbool.h", "stdarg.h", "limits.h",
                            "stdio.h", "stdlib.h", "string.h", "errno.h", "elf.h",
                            "signal.h", "pthread.h", "unistd.h", "sys/cdefs.h"})

# Upper-case words that stand for any name in a usage line (`tests/shell/AREA/NAME.t`).
PLACEHOLDERS = frozenset({"NAME", "FILE", "DIR", "AREA", "K", "N", "X"})

# Linux's files, where the tree names them as Linux's (to say what fentros follows).
LINUX_FILES = frozenset({
    "lib/fault-inject.c",
    "include/trace/events/sched.h",
    "include/linux/ftrace.h",
    "kernel/trace/trace_events_filter.c",
    "kernel/trace/trace_fprobe.c",
    "kernel/trace/trace_kprobe.c",
    "kernel/trace/trace_probe.c",
    "arch/x86/kernel/ftrace.c",
    "arch/x86/kernel/ftrace_64.S",
    "tools/testing/selftests/ftrace",
})

# A run of path characters; what precedes it must not be one (or a scheme's "//").
_TOKEN = re.compile(r"(?<![\w./\-~$%@*{])(\.{0,2}/?[\w.\-]+(?:/[\w.\-*%$(){}]*)*)")
_URL = re.compile(r"\b[a-z][a-z0-9+.\-]*://\S+")
_PATTERN_CHARS = frozenset("*%$(){}")


@dataclass(frozen=True)
class Missing:
    """A name that resolves to nothing: where it was found and what it was."""

    file: str
    line: int
    name: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.name}: no such file in the tree"


class Tree:
    """The files and directories of one checkout, as paths relative to its root."""

    def __init__(self, root: Path, files: Iterable[str]) -> None:
        self.root = root
        self.files = frozenset(files)
        dirs: set[str] = set()
        basenames: set[str] = set()
        suffixes: set[str] = set()
        for f in self.files:
            parts = f.split("/")
            basenames.add(parts[-1])
            for i in range(1, len(parts)):
                dirs.add("/".join(parts[:i]))
                suffixes.add("/".join(parts[i:]))
        self.dirs = frozenset(dirs)
        self.basenames = frozenset(basenames)
        self.suffixes = frozenset(suffixes)
        self.top = frozenset(f.split("/")[0] for f in self.files if "/" in f)

    @classmethod
    def scan(cls, root: Path) -> Tree:
        return cls(root, list_files(root))

    def exists(self, rel: str) -> bool:
        rel = rel.rstrip("/")
        return rel in self.files or rel in self.dirs or rel == ""


def list_files(root: Path) -> list[str]:
    """The tree's files: git's view (tracked and new, not ignored) or, without git, a walk."""
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True, capture_output=True).stdout
        return [p for p in out.decode().split("\0") if p and (root / p).exists()]
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    skip = {".git", "build", "__pycache__", ".mypy_cache"}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip]
        rel = Path(dirpath).relative_to(root)
        found += [(rel / f).as_posix() for f in filenames]
    return found


def is_scanned(path: str, text: str) -> bool:
    """By name or extension; a file without an extension when it is a script (#!)."""
    name = path.rsplit("/", 1)[-1]
    ext = os.path.splitext(name)[1]
    return (name in SCANNED_NAMES or ext in SCANNED_EXTENSIONS
            or (ext == "" and text.startswith("#!")))


def _normalise(path: str) -> str | None:
    """path with `.` and `..` folded, or None when it climbs out of the root."""
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


def candidates(text: str) -> Iterator[str]:
    """The path-like names of one line, trimmed of sentence punctuation."""
    text = _URL.sub(" ", text)
    for m in _TOKEN.finditer(text):
        name = m.group(1).rstrip(".-")
        if "/" in name or "." in name:
            yield name


def resolves(tree: Tree, name: str, where: str) -> bool | None:
    """True or False for a name that is checked, None for a name that is not a file name."""
    if any(c in _PATTERN_CHARS for c in name) or name.startswith(BUILD_PREFIXES):
        return None
    if name in SYSTEM_HEADERS or name.rstrip("/") in GENERATED:
        return None
    if any(word in PLACEHOLDERS for word in re.split(r"[/._\-]", name)):
        return None
    here = where.rsplit("/", 1)[0] if "/" in where else ""
    if name.startswith(("./", "../")):
        rel = _normalise(f"{here}/{name}")
        return rel is not None and tree.exists(rel)
    if name.startswith("/") or name.startswith("~"):
        return None
    first = name.split("/", 1)[0]
    ext = os.path.splitext(name.rstrip("/"))[1]
    if "/" in name and first in tree.top:
        if name.rstrip("/") in LINUX_FILES:
            return True
        return tree.exists(name) or any(tree.exists(f"{d}/{name}") for d in INCLUDE_DIRS)
    if ext not in SOURCE_EXTENSIONS or name.startswith("."):
        return None
    if "/" not in name:
        return name in tree.basenames
    if name in LINUX_FILES:
        return True
    local = _normalise(f"{here}/{name}")
    return (tree.exists(name) or (local is not None and tree.exists(local))
            or any(tree.exists(f"{d}/{name}") for d in INCLUDE_DIRS) or name in tree.suffixes)


def _c_comments(text: str) -> Iterator[tuple[int, str]]:
    """The comments of C (and of the linker script cpp reads), line by line."""
    line, i, n = 1, 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c in "\"'":
            i += 1
            while i < n and text[i] != c and text[i] != "\n":
                i += 2 if text[i] == "\\" else 1
            if i < n and text[i] == c:
                i += 1
            continue
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            yield line, text[i + 2:end]
            i = end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end
            for k, part in enumerate(text[i + 2:end].split("\n")):
                yield line + k, part
            line += text.count("\n", i, end)
            i = end + 2
            continue
        i += 1


def _hash_comments(text: str) -> Iterator[tuple[int, str]]:
    """Shell, make and .t comments: from a # at the start of a line or after a blank."""
    for number, line in enumerate(text.splitlines(), 1):
        m = re.search(r"(?:^|\s)#(.*)", line)
        if m:
            yield number, m.group(1)


def _asm_comments(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.splitlines(), 1):
        if ";" in line:
            yield number, line.split(";", 1)[1]


def _python_comments(text: str) -> Iterator[tuple[int, str]]:
    """Comments and docstrings (a string that is a statement of its own)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        yield from _hash_comments(text)
        return
    starts = {tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT,
              tokenize.ENCODING, tokenize.COMMENT}
    prev = tokenize.NEWLINE
    for k, tok in enumerate(tokens):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string[1:]
        elif tok.type == tokenize.STRING and prev in starts:
            after = tokens[k + 1].type if k + 1 < len(tokens) else tokenize.NEWLINE
            if after in (tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.COMMENT):
                for i, part in enumerate(tok.string.split("\n")):
                    yield tok.start[0] + i, part
        if tok.type not in (tokenize.NL, tokenize.COMMENT) or prev in starts:
            prev = tok.type


def _markdown(text: str) -> Iterator[tuple[int, str, bool]]:
    """Every line; inside ``` blocks (commands, output) only rooted names count."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        yield number, line, fenced


def prose(path: str, text: str) -> Iterator[tuple[int, str, bool]]:
    """(line, text, rooted_only) for the parts of a file that are written for readers:
    comments of code, all of a document. rooted_only: check only names that start at the
    root or at the file (`kernel/...`, `../README.md`), as in command examples."""
    name = path.rsplit("/", 1)[-1]
    ext = os.path.splitext(name)[1]
    if ext == ".md":
        yield from _markdown(text)
        return
    if ext in (".c", ".h", ".S", ".ld"):
        comments: Iterable[tuple[int, str]] = _c_comments(text)
    elif ext in (".asm", ".inc"):
        comments = _asm_comments(text)
    elif ext == ".py" or text.startswith("#!/usr/bin/env python"):
        comments = _python_comments(text)
    else:
        comments = _hash_comments(text)
    for number, line in comments:
        yield number, line, False


def check_text(tree: Tree, where: str, text: str) -> list[Missing]:
    missing: list[Missing] = []
    for number, line, rooted_only in prose(where, text):
        for name in dict.fromkeys(candidates(line)):
            if rooted_only and not (name.startswith(("./", "../"))
                                    or name.split("/", 1)[0] in tree.top and "/" in name):
                continue
            if resolves(tree, name, where) is False:
                missing.append(Missing(where, number, name))
    return missing


def check_tree(tree: Tree) -> list[Missing]:
    missing = []
    for path in sorted(tree.files):
        name = path.rsplit("/", 1)[-1]
        if os.path.splitext(name)[1] not in SCANNED_EXTENSIONS and name not in SCANNED_NAMES:
            if "." in name:
                continue  # data, images, build inputs: not written for readers
        try:
            text = (tree.root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if is_scanned(path, text):
            missing += check_text(tree, path, text)
    return missing


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    missing = check_tree(Tree.scan(root.resolve()))
    for m in missing:
        print(m)
    if missing:
        print(f"check-refs: {len(missing)} name(s) of files not in the tree", file=sys.stderr)
        return 1
    print("check-refs: every file named in the tree exists")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
