"""KTAP version 1, as printed by the kernel's `selftest` command.

Only top-level lines count: `KTAP version 1`, the plan `1..N`, and `ok N name` /
`not ok N name [# SKIP reason]`. Every other line (`#` diagnostics, indented subtests,
stray log lines) is context for the next result, since KTAP puts a test's diagnostics
before its result line.
"""

import re

VERSION_RE = re.compile(r"K?TAP version (\d+)\s*")
PLAN_RE = re.compile(r"1\.\.(\d+)(?:\s*#.*)?")
RESULT_RE = re.compile(r"(not ok|ok) (\d+)(?: (?:- )?([^#]*?))?\s*(?:#\s*(.*?))?\s*")


class Result:
    def __init__(self, number, name, ok, directive, diagnostics):
        self.number = number
        self.name = name
        self.ok = ok
        self.directive = directive
        self.diagnostics = diagnostics

    @property
    def skipped(self):
        return self.directive.upper().startswith("SKIP")


class Run:
    def __init__(self):
        self.version = None
        self.plan = None
        self.results = []
        self.problems = []    # what makes the run as a whole fail


def parse(lines):
    run = Run()
    pending = []
    names = set()
    for line in lines:
        match = VERSION_RE.fullmatch(line)
        if match and run.version is None:
            run.version = int(match.group(1))
            continue
        match = PLAN_RE.fullmatch(line)
        if match and run.plan is None:
            run.plan = int(match.group(1))
            continue
        match = RESULT_RE.fullmatch(line)
        if not match:
            pending.append(line)
            continue
        number = int(match.group(2))
        name = (match.group(3) or "").strip() or f"test{number}"
        # Two tests of one name would share a harness result name.
        if name in names:
            name = f"{name}.{number}"
        names.add(name)
        run.results.append(Result(number, name, match.group(1) == "ok",
                                  match.group(4) or "", pending))
        pending = []
    check(run)
    return run


def check(run):
    if run.version is None:
        run.problems.append("no `KTAP version 1` line")
    elif run.version != 1:
        run.problems.append(f"KTAP version {run.version}, expected 1")
    if run.plan is None:
        run.problems.append("no plan line `1..N`")
    elif run.plan != len(run.results):
        run.problems.append(f"plan says {run.plan} tests, {len(run.results)} results")
    for index, result in enumerate(run.results, 1):
        if result.number != index:
            run.problems.append(f"result {index} is numbered {result.number}")
            break
