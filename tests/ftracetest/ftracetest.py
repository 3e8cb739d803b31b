#!/usr/bin/env python3
"""make ftracetest: Linux 6.1's own ftrace selftests (tools/testing/selftests/ftrace) run on
the host against a live fentros through `tools/fentros-trace mount`.

The suite comes from Debian's linux-source-6.1 package (`apt-get download`, cached in
~/.cache/fentros/ftracetest, never copied into the repository). The only change to it is
name_map.txt beside this file: the Linux function names the scripts hard-code become the
fentros functions with the same role, in a copy of the scripts in the cache. ftracetest runs
in a private mount namespace (in_namespace.sh) where the mount is /sys/kernel/tracing and the
host's own tracefs is gone. ftracetest's lines are printed as they come; its logs are kept in
build/ftracetest/logs. The run fails when a test listed in expected_pass.txt does not pass;
a test that passes and is not listed is reported so the list can grow.

    python3 tests/ftracetest/ftracetest.py                 # boot, mount, run, unmount
    python3 tests/ftracetest/ftracetest.py --tracing DIR   # against a mount that exists
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from fentros_trace.mount import fuse_usable  # noqa: E402
NAME_MAP = HERE / "name_map.txt"
EXPECTED_PASS = HERE / "expected_pass.txt"
IN_NAMESPACE = HERE / "in_namespace.sh"
STAND_INS = HERE / "bin"
FENTROS_TRACE = ROOT / "tools" / "fentros-trace"
BUILD = ROOT / "build" / "ftracetest"

PACKAGE = "linux-source-6.1"
SUITE_IN_SOURCE = "tools/testing/selftests/ftrace"
# The scripts that name kernel functions: the tests and the helpers every test sources.
MAPPED_GLOBS = ("test.d/**/*.tc", "test.d/functions")

RESULTS = ("PASS", "FAIL", "UNRESOLVED", "UNTESTED", "UNSUPPORTED", "XFAIL", "UNDEFINED")
RESULT_LINE = re.compile(r"^\[(\d+)\](.*)\t\[(" + "|".join(RESULTS) + r")\]\s*$")
# The first line of each test's log: "execute: PATH", or "execute (instance) : PATH".
EXECUTE_LINE = re.compile(r"^execute(.*?):\s*(\S+)\s*$")
INSTANCE_SUFFIX = " (instance)"
# Seconds the whole ftracetest run may take before it is stopped.
DEFAULT_TIMEOUT = 900


class FtracetestError(Exception):
    pass


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "fentros" / "ftracetest"


def run_quiet(argv: Sequence[str], cwd: Optional[Path] = None) -> str:
    done = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise FtracetestError(f"{' '.join(argv)} failed ({done.returncode}): "
                              f"{(done.stderr or done.stdout).strip()[-500:]}")
    return done.stdout


def fetch_suite(cache: Path) -> Path:
    """The pristine ftrace selftests of Debian's linux-source-6.1, fetched once."""
    suite = cache / "linux-source-6.1" / SUITE_IN_SOURCE
    if (suite / "ftracetest").is_file():
        return suite
    cache.mkdir(parents=True, exist_ok=True)
    policy = run_quiet(["apt-cache", "policy", PACKAGE])
    if not re.search(r"Candidate: (?!\(none\))\S+", policy):
        run_quiet(["apt-get", "update", "-qq"])
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        run_quiet(["apt-get", "download", "-qq", "-o", "APT::Sandbox::User=root", PACKAGE],
                  cwd=Path(tmp))
        debs = sorted(Path(tmp).glob(f"{PACKAGE}_*.deb"))
        if not debs:
            raise FtracetestError(f"apt-get download {PACKAGE} left no .deb")
        # Only the ftrace selftests leave the 140 MB source tarball.
        script = ("dpkg-deb --fsys-tarfile \"$1\" | tar -xO ./usr/src/linux-source-6.1.tar.xz"
                  " | tar -xJ -C \"$2\" --wildcards 'linux-source-6.1/" + SUITE_IN_SOURCE
                  + "/*'")
        run_quiet(["sh", "-c", script, "sh", str(debs[0]), tmp])
        extracted = Path(tmp) / "linux-source-6.1"
        if not (extracted / SUITE_IN_SOURCE / "ftracetest").is_file():
            raise FtracetestError(f"{debs[0].name} holds no {SUITE_IN_SOURCE}/ftracetest")
        # Renamed into place last: an interrupted fetch must not look cached. A run in
        # another tree may have put its copy there meanwhile: the two are the same.
        if not (suite / "ftracetest").is_file():
            shutil.rmtree(cache / "linux-source-6.1", ignore_errors=True)
            os.replace(extracted, cache / "linux-source-6.1")
    return suite


def mapped_copy(cache: Path) -> Path:
    """Where this tree's mapped copy goes: one per tree, so that runs in two trees (each
    with its own name map) do not overwrite each other's scripts."""
    return cache / "mapped" / hashlib.sha1(str(ROOT).encode()).hexdigest()[:12]


def load_name_map(text: str) -> List[Tuple[str, str]]:
    """`LINUX FENTROS` pairs; blank lines and # comments skipped."""
    pairs: List[Tuple[str, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if len(words) != 2 or not all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", w)
                                      for w in words):
            raise FtracetestError(f"name_map.txt:{number}: want `LINUX_NAME FENTROS_NAME`")
        pairs.append((words[0], words[1]))
    return pairs


def apply_name_map(text: str, pairs: Sequence[Tuple[str, str]]) -> str:
    """Every whole-word LINUX name replaced, outside comment lines. A name right after a
    grep's `\\b` is a whole word too (functions greps /proc/kallsyms for
    '\\bkernel_clone\\b')."""
    words = [(re.compile(r"(?:(?<=\\b)|(?<![A-Za-z0-9_]))" + re.escape(linux)
                         + r"(?![A-Za-z0-9_])"), fentros) for linux, fentros in pairs]
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.lstrip().startswith("#"):
            continue
        for word, fentros in words:
            line = word.sub(fentros, line)
        lines[index] = line
    return "".join(lines)


def prepare_suite(pristine: Path, pairs: Sequence[Tuple[str, str]], dest: Path) -> Path:
    """A fresh copy of the suite in dest with the name map applied to its scripts."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(pristine, dest, symlinks=True)
    for pattern in MAPPED_GLOBS:
        for script in dest.glob(pattern):
            text = script.read_text()
            mapped = apply_name_map(text, pairs)
            if mapped != text:
                script.write_text(mapped)
    return dest


def _expected_lines(text: str) -> List[str]:
    return [line.split("#", 1)[0].strip() for line in text.splitlines()
            if line.split("#", 1)[0].strip()]


def load_expected(text: str) -> List[str]:
    """Test names (paths under test.d, `(instance)` appended for the instance pass)."""
    return [line for line in _expected_lines(text) if not line.startswith("?")]


def load_sometimes(text: str) -> List[str]:
    """The names listed as `? NAME`: tests that pass in some runs only, for a reason the
    file gives; neither required nor reported as new when they pass."""
    return [line[1:].strip() for line in _expected_lines(text) if line.startswith("?")]


@dataclass
class Outcome:
    results: Dict[str, str] = field(default_factory=dict)  # test name -> PASS, FAIL, ...
    logs: Dict[str, Path] = field(default_factory=dict)     # test name -> its log
    summary: List[str] = field(default_factory=list)        # ftracetest's "# of ..." lines
    stopped: str = ""                                       # why the run ended early


def test_names(logdir: Path, test_dir: Path) -> Dict[int, Tuple[str, Path]]:
    """Case number -> (test name, log): each kept log starts with the path it ran."""
    names: Dict[int, Tuple[str, Path]] = {}
    for log in logdir.glob("*-log.*"):
        number = log.name.split("-", 1)[0]
        if not number.isdigit():
            continue
        with open(log, errors="replace") as f:
            match = EXECUTE_LINE.match(f.readline())
        if not match:
            continue
        path = Path(match.group(2))
        try:
            name = str(path.relative_to(test_dir))
        except ValueError:
            name = path.name
        if "instance" in match.group(1):
            name += INSTANCE_SUFFIX
        names[int(number)] = (name, log)
    return names


def parse_outcome(output: Sequence[str], names: Dict[int, Tuple[str, Path]]) -> Outcome:
    outcome = Outcome()
    for line in output:
        match = RESULT_LINE.match(line)
        if match:
            number = int(match.group(1))
            name, log = names.get(number, (f"#{number}{match.group(2)}", Path()))
            outcome.results[name] = match.group(3)
            if log != Path():
                outcome.logs[name] = log
        elif line.startswith("# of "):
            outcome.summary.append(line)
    return outcome


@dataclass
class Verdict:
    lost: List[str]         # expected to pass, did not (with the result they got)
    new: List[str]          # passed, not expected
    missing: List[str]      # expected, never ran


def within(expected: Sequence[str], cases: Sequence[str]) -> List[str]:
    """The expected names a run of only these cases can give (all when cases is empty)."""
    if not cases:
        return list(expected)
    return [name for name in expected if name.removesuffix(INSTANCE_SUFFIX) in cases]


def judge(outcome: Outcome, expected: Sequence[str], sometimes: Sequence[str] = ()) -> Verdict:
    lost = [f"{name}: {outcome.results[name]}" for name in expected
            if name in outcome.results and outcome.results[name] != "PASS"]
    missing = [name for name in expected if name not in outcome.results]
    new = sorted(name for name, result in outcome.results.items()
                 if result == "PASS" and name not in expected and name not in sometimes)
    return Verdict(lost, new, missing)


def counts(outcome: Outcome) -> str:
    tally = {result: 0 for result in RESULTS}
    for result in outcome.results.values():
        tally[result] += 1
    shown = ", ".join(f"{tally[r]} {r}" for r in RESULTS if tally[r] or r in ("PASS", "FAIL"))
    return f"{shown} of {len(outcome.results)}"


def cannot_run() -> Optional[str]:
    """Why this host cannot run the suite, or None."""
    if os.geteuid() != 0:
        return "ftracetest and mount namespaces need root"
    why = fuse_usable()
    if why:
        return why
    for tool in ("unshare", "dpkg-deb", "apt-get"):
        if shutil.which(tool) is None:
            return f"no {tool} on PATH"
    return None


class GuestMount:
    """`tools/fentros-trace mount` around the run: boots fentros, mounts, and unmounts (the
    daemon then powers the guest off) on the way out."""

    def __init__(self, where: Path, smp: int, iso: Optional[str]) -> None:
        self.where = where
        self.smp = smp
        self.iso = iso

    def __enter__(self) -> "GuestMount":
        self.where.mkdir(parents=True, exist_ok=True)
        # A run that was killed leaves its mount behind; umount takes any mount away.
        subprocess.run([sys.executable, str(FENTROS_TRACE), "umount", str(self.where)],
                       capture_output=True, timeout=120)
        # The whole guest tree: the tests need its /proc beside /sys/kernel/tracing.
        argv = [sys.executable, str(FENTROS_TRACE), "mount", str(self.where), "--root", "/",
                "--smp", str(self.smp), "--workdir", str(BUILD / "mount-work")]
        if self.iso:
            argv += ["--iso", self.iso]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise FtracetestError(f"fentros-trace mount failed ({done.returncode}): "
                                  f"{(done.stderr or done.stdout).strip()[-800:]}")
        return self

    def __exit__(self, *exc: object) -> None:
        subprocess.run([sys.executable, str(FENTROS_TRACE), "umount", str(self.where)],
                       capture_output=True, timeout=120)

    def tracing(self) -> Path:
        return self.where / "sys" / "kernel" / "tracing"

    def proc(self) -> Optional[Path]:
        return self.where / "proc"


def run_in_namespace(tracing: Path, proc: Optional[Path], suite: Path, logdir: Path,
                     seconds: int, cases: Sequence[str], echo: bool) -> Tuple[int, List[str]]:
    argv = ["sh", str(IN_NAMESPACE), str(tracing), str(proc) if proc else "", str(suite),
            str(logdir), str(seconds)] + [str(suite / "test.d" / case) for case in cases]
    output: List[str] = []
    # tests/ftracetest/bin first: its ping stands in for the host's (the file says why).
    env = dict(os.environ, PATH=f"{STAND_INS}{os.pathsep}{os.environ.get('PATH', '')}")
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace", stdin=subprocess.DEVNULL, env=env) as child:
        assert child.stdout is not None
        for line in child.stdout:
            line = line.rstrip("\n")
            output.append(line)
            if echo:
                print(line, flush=True)
        status = child.wait()
    return status, output


def run_suite(tracing: Optional[Path], proc: Optional[Path], smp: int, iso: Optional[str],
              seconds: int, cache: Path, cases: Sequence[str] = (),
              echo: bool = True) -> Outcome:
    """Fetch, map, mount (unless tracing names a mount already there), run the cases (paths
    under test.d; all when empty), parse."""
    pristine = fetch_suite(cache)
    suite = prepare_suite(pristine, load_name_map(NAME_MAP.read_text()), mapped_copy(cache))
    for case in cases:
        if not (suite / "test.d" / case).is_file():
            raise FtracetestError(f"no test {case} in {suite / 'test.d'}")
    logdir = BUILD / "logs"
    shutil.rmtree(logdir, ignore_errors=True)
    logdir.mkdir(parents=True)
    if tracing is None:
        with GuestMount(BUILD / "mnt", smp, iso) as mount:
            status, output = run_in_namespace(mount.tracing(), mount.proc(), suite, logdir,
                                              seconds, cases, echo)
    else:
        status, output = run_in_namespace(tracing, proc, suite, logdir, seconds, cases, echo)
    outcome = parse_outcome(output, test_names(logdir, suite / "test.d"))
    if not outcome.results:
        raise FtracetestError(f"ftracetest ran no test (exit status {status}): "
                              + " | ".join(output[-5:]))
    if status == 124 or status == 137:
        outcome.stopped = f"stopped after {seconds} s: the tests after the last result did not run"
    return outcome


def report(outcome: Outcome, verdict: Verdict, seconds: float) -> None:
    print(f"ftracetest: {counts(outcome)} tests in {seconds:.0f} s; logs in {BUILD / 'logs'}")
    if outcome.stopped:
        print(f"ftracetest: {outcome.stopped}")
    for line in verdict.lost:
        name = line.split(":", 1)[0]
        log = outcome.logs.get(name)
        print(f"ftracetest: expected to pass: {line}" + (f" (log: {log})" if log else ""))
    for name in verdict.missing:
        print(f"ftracetest: expected to pass, did not run: {name}")
    for name in verdict.new:
        print(f"ftracetest: passes now, add it to tests/ftracetest/expected_pass.txt: {name}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smp", type=int, default=2,
                        help="guest CPUs (func_cpumask wants at least 2)")
    parser.add_argument("--iso", help="boot this ISO (default build/fentros.iso)")
    parser.add_argument("--tracing", type=Path,
                        help="run against this mounted guest /sys/kernel/tracing; no boot")
    parser.add_argument("--proc", type=Path, help="with --tracing: the guest's /proc")
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT,
                        help="seconds the whole ftracetest run may take")
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("cases", nargs="*", metavar="TEST.tc",
                        help="tests to run, as paths under test.d (default: all)")
    args = parser.parse_args(argv)
    why = cannot_run()
    if why:
        print(f"ftracetest: cannot run: {why}")
        return 1
    began = time.monotonic()
    try:
        outcome = run_suite(args.tracing, args.proc, args.smp, args.iso, args.timeout,
                            args.cache, args.cases)
    except (FtracetestError, subprocess.TimeoutExpired) as e:
        print(f"ftracetest: {e}")
        return 1
    listed = EXPECTED_PASS.read_text()
    verdict = judge(outcome, within(load_expected(listed), args.cases), load_sometimes(listed))
    report(outcome, verdict, time.monotonic() - began)
    return 1 if verdict.lost or verdict.missing else 0


if __name__ == "__main__":
    sys.exit(main())
