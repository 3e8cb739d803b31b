#!/usr/bin/env python3
"""fentros test harness: boots the kernel in QEMU and runs the in-kernel self-tests, the
shell scripts in tests/shell/ and the Python scripts in tests/trace/ at several CPU counts.
See tests/README.md.

Tests that can share a boot run in one QEMU per CPU count (boots under TCG take
seconds); a test that crashes, powers off, reboots or needs its own kernel command line
gets a QEMU of its own. The last line printed is always `N passed, N failed`.
"""

import argparse
import fnmatch
import os
import shlex
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from fentros_machine import qemu  # noqa: E402
from fentros_machine.console import Console, describe_exit  # noqa: E402
from harness import hostchecks, ktap, shelltest, tracefmt, tracetest  # noqa: E402
from harness.isos import IsoCache, IsoError  # noqa: E402
from harness.paths import (GRUB_TEMPLATE, ISO_DIR, MKISO, ROOT, SHELL_DIR,  # noqa: E402
                           TEST_CMDLINE, TRACE_DIR)
from harness.paths import KERNEL as DEFAULT_KERNEL  # noqa: E402
from harness.paths import TEST_LOG_DIR as LOG_DIR  # noqa: E402

# How many lines of serial output a failure report quotes.
TAIL_LINES = 15
# Lines of a failure's details that the summary at the end repeats.
SUMMARY_DETAILS = 12


class LineWriter:
    """stdout for threads that print at once: each thread's text goes out in whole lines,
    one thread's at a time (print() writes a line and its newline in two calls)."""

    def __init__(self, stream):
        self.stream = stream
        self._lock = threading.Lock()
        self._pending = threading.local()

    def write(self, text):
        pending = getattr(self._pending, "text", "") + text
        head, newline, rest = pending.rpartition("\n")
        self._pending.text = rest
        if newline:
            with self._lock:
                self.stream.write(head + newline)
        return len(text)

    def flush(self):
        with self._lock:
            self.stream.flush()

    def __getattr__(self, name):
        return getattr(self.stream, name)


def rel(path):
    """A path as short as it can be for the person reading the report."""
    path = Path(path).resolve()
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def tail(lines, count=TAIL_LINES):
    lines = list(lines)
    while lines and not lines[-1].strip():
        lines.pop()
    return [f"  | {line}" for line in lines[-count:]] or ["  (no output)"]


def name_matches(name, filters):
    """--filter: a substring of the result name, or a glob over its trailing parts
    (`smp1/shell/shell/echo`, `shell/shell/echo`, `shell/echo` or `echo`)."""
    if not filters:
        return True
    parts = name.split("/")
    tails = ["/".join(parts[i:]) for i in range(len(parts))]
    for pattern in filters:
        if any(c in pattern for c in "*?["):
            if any(fnmatch.fnmatchcase(t, pattern) for t in tails):
                return True
        elif pattern in name:
            return True
    return False


class Failure:
    def __init__(self, reason, details=(), fatal=False, log=None):
        self.reason = reason
        self.details = list(details)
        self.fatal = fatal  # the console cannot be trusted any more: boot a fresh QEMU
        self.log = log      # the serial log to read, when no console is left to name it


def with_crash_text(failure, crash):
    """Crash text outranks any other failure: it is what the reader must see first."""
    if not crash:
        return failure
    details = ["kernel crash text in the serial log:"] + [f"  | {line}" for line in crash[:10]]
    if failure:
        details += [f"and: {failure.reason}"] + failure.details
    return Failure(f"kernel crash text: {crash[0].strip()}", details, fatal=True)


# Self-tests that need a device the shared boots do not have, with the test that boots
# one and requires them to pass there.
SKIPPED_IN_SHARED_BOOTS = {
    "hostchan_device": "tests/export/test_channel.py boots with ivshmem-plain",
}


class Reporter:
    def __init__(self, keep_going):
        self.keep_going = keep_going
        self.interrupted = False
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures = []
        self.failure_details = []
        # Each self-test's outcome by CPU count: its SKIP reason, or None when it ran.
        self.selftest_skips = {}
        self._lock = threading.Lock()

    def stopped(self):
        return self.interrupted or (self.failed > 0 and not self.keep_going)

    @staticmethod
    def _timing(seconds):
        return f" ({seconds:.1f}s)" if seconds is not None else ""

    def ok(self, name, seconds=None):
        with self._lock:
            if self.interrupted:
                return
            self.passed += 1
            print(f"ok   {name}{self._timing(seconds)}", flush=True)

    def fail(self, name, failure, seconds=None, log=None):
        log = log or failure.log
        where = f" (log: {rel(log)})" if log else ""
        lines = [f"FAIL {name}{self._timing(seconds)}: {failure.reason}"]
        lines += [f"    {line}" for line in failure.details]
        if log:
            lines.append(f"    log: {rel(log)}")
        with self._lock:
            # After a Ctrl-C, tests fail because the harness killed their QEMU.
            if self.interrupted:
                return
            self.failed += 1
            self.failures.append(f"FAIL {name}: {failure.reason}{where}")
            # The summary repeats the first details: a CI report may keep only the end.
            self.failure_details.append([f"    {line}" for line in
                                         failure.details[:SUMMARY_DETAILS]])
            print("\n".join(lines), flush=True)

    def result(self, name, failure, seconds=None, log=None):
        if failure:
            self.fail(name, failure, seconds, log)
        else:
            self.ok(name, seconds)

    def skip(self, name, reason):
        with self._lock:
            self.skipped += 1
            print(f"skip {name}: {reason}", flush=True)

    def selftest_outcome(self, name, smp, skip_reason):
        with self._lock:
            self.selftest_skips.setdefault(name, {})[smp] = skip_reason

    def fail_always_skipped(self):
        """A self-test that skipped at every CPU count it ran at (two or more) checked
        nothing; one that skips when it loses a race must not do that unnoticed. The
        tests in SKIPPED_IN_SHARED_BOOTS are run, and must pass, elsewhere."""
        for name, by_smp in sorted(self.selftest_skips.items()):
            if name in SKIPPED_IN_SHARED_BOOTS:
                continue
            if len(by_smp) > 1 and None not in by_smp.values():
                self.fail(f"selftest/{name}", Failure(
                    "skipped at every CPU count",
                    [f"smp{smp}: {reason}" for smp, reason in sorted(by_smp.items())]))

    def summary(self):
        with self._lock:
            if self.failures:
                print()
                for line, details in zip(self.failures, self.failure_details):
                    print("\n".join([line] + details))
            skipped = f", {self.skipped} skipped" if self.skipped else ""
            print(f"{self.passed} passed, {self.failed} failed{skipped}", flush=True)
            if self.interrupted:
                return 130
            return 0 if self.failed == 0 and self.passed > 0 else 1


class SelftestUnit:
    """The kernel's `selftest` command: each KTAP result is one harness result."""

    def __init__(self, smp, filters):
        self.name = f"smp{smp}/selftest"
        self.smp = smp
        self.filters = [] if name_matches(self.name, filters) else filters

    def run(self, session, console, start):
        began = time.monotonic()
        reply = console.command(b"selftest\r", session.args.selftest_timeout)
        run = ktap.parse(reply.lines)
        problems = list(run.problems)
        if reply.timed_out:
            problems.insert(0, f"no prompt within {session.args.selftest_timeout:g}s "
                               "after `selftest`")
        elif reply.exit_status is not None:
            problems.insert(0, f"QEMU exited with {describe_exit(reply.exit_status)} "
                               "during `selftest`")
        crash = console.crash_lines(start)
        for result in run.results:
            name = f"{self.name}/{result.name}"
            if not name_matches(name, self.filters):
                continue
            session.reporter.selftest_outcome(result.name, self.smp,
                                              result.directive if result.skipped else None)
            if result.skipped:
                session.reporter.skip(name, result.directive)
            elif result.ok:
                session.reporter.ok(name)
            else:
                details = [f"  | {line}" for line in result.diagnostics[-20:]]
                session.reporter.fail(name, Failure(f"not ok {result.number}", details),
                                      log=console.log_path)
        failure = Failure(problems[0], problems[1:] + ["output:"] + tail(reply.lines),
                          fatal=True) if problems else None
        failure = with_crash_text(failure, crash)
        if failure:
            session.reporter.fail(self.name, failure, time.monotonic() - began,
                                  console.log_path)
        return not (failure and failure.fatal)


class ScriptUnit:
    """One tests/shell/AREA/*.t file run at one CPU count."""

    def __init__(self, smp, test):
        self.name = f"smp{smp}/shell/{test.name}"
        self.smp = smp
        self.test = test

    def run(self, session, console, start):
        began = time.monotonic()
        failure = None
        # Files share a boot; each starts in / whatever the one before did.
        if console.cwd != "/":
            reply = console.command(b"cd /\r", session.args.timeout)
            if reply.cwd != "/":
                failure = Failure("could not get back to / before the test",
                                  tail(reply.lines), fatal=True)
        # A script on the shared boot starts from tracing's boot state, so one that failed
        # halfway cannot make the next fail too. Scripts with a boot of their own keep what
        # their kernel command line set up.
        if failure is None and not self.test.own_boot:
            failure = reset_tracing(session, console, self.smp)
        if failure is None:
            failure = session.run_steps(console, self.test)
        failure = with_crash_text(failure, console.crash_lines(start))
        session.reporter.result(self.name, failure, time.monotonic() - began,
                                console.log_path)
        return not (failure and failure.fatal)


def reset_tracing(session, console, smp):
    """tracefmt.reset_tracing through the console, then back to /; a Failure if any step
    printed anything (a reset step that fails is a broken kernel, not a broken test)."""
    sh = tracetest.Shell(console, smp, session.args.timeout, session.boot_cache(console))
    try:
        tracefmt.reset_tracing(sh)
    except tracetest.TestFailure as err:
        return Failure(f"resetting tracing before the script failed: {err.message}",
                       err.details, fatal=True)
    reply = console.command(b"cd /\r", session.args.timeout)
    if reply.cwd != "/":
        return Failure("could not get back to / after resetting tracing", tail(reply.lines),
                       fatal=True)
    return None


class TraceUnit:
    """One test function of a tests/trace/*.py file run at one CPU count."""

    def __init__(self, smp, testfile, test_name, function):
        self.name = f"smp{smp}/trace/{testfile.name}/{test_name}"
        self.smp = smp
        self.testfile = testfile
        self.function = function

    def run(self, session, console, start):
        began = time.monotonic()
        failure = None
        # With --iso the kernel that runs is not known to match --kernel.
        kernel = None if session.args.iso else session.args.kernel
        result = tracetest.run_test(self.testfile, self.function, console, self.smp,
                                    session.args.timeout, session.boot_cache(console), kernel)
        if result:
            failure = Failure(result.message, result.details, fatal=result.fatal)
        failure = with_crash_text(failure, console.crash_lines(start))
        session.reporter.result(self.name, failure, time.monotonic() - began,
                                console.log_path)
        return not (failure and failure.fatal)


class Group:
    """Units that run in one boot: the shared boot of a CPU count, or one test's own."""

    def __init__(self, name, smp, cmdline, units, shared):
        self.name = name
        self.smp = smp
        self.cmdline = cmdline
        self.units = units
        self.shared = shared


class Session:
    def __init__(self, args, reporter):
        self.args = args
        self.reporter = reporter
        self.isos = IsoCache(ROOT, args.kernel, args.mkiso, ISO_DIR,
                             extra_inputs=[GRUB_TEMPLATE])
        self.stream = sys.stderr.buffer if args.verbose else None
        self._consoles = set()
        self._lock = threading.Lock()
        self._boot_caches = {}

    def boot_cache(self, console):
        """A dict that lives as long as one boot, for what Python tests read once per boot."""
        with self._lock:
            return self._boot_caches.setdefault(id(console), {})

    def qemu_argv(self, smp, cmdline):
        if self.args.qemu_cmd:
            template = shlex.split(self.args.qemu_cmd)
            iso = self.isos.get(cmdline) if any("{iso}" in a for a in template) else ""
            return [a.format(smp=smp, iso=iso, cmdline=cmdline) for a in template]
        if self.args.iso and cmdline == TEST_CMDLINE:
            iso = self.args.iso
        else:
            iso = self.isos.get(cmdline)
        return qemu.fentros_argv(iso, smp)

    def start(self, group, attempt):
        """Start QEMU for `group`: (console, None) or (None, failure)."""
        try:
            argv = self.qemu_argv(group.smp, group.cmdline)
        except IsoError as err:
            return None, Failure(f"ISO build failed: {err}", tail(err.output.splitlines()))
        suffix = "" if attempt == 1 else f".{attempt}"
        log = LOG_DIR / f"{group.name}-smp{group.smp}{suffix}.log"
        try:
            console = Console(argv, log, self.stream)
        except OSError as err:
            return None, Failure(f"cannot start {argv[0]}: {err}")
        with self._lock:
            # After a Ctrl-C no new QEMU may outlive the harness.
            if self.reporter.interrupted:
                console.kill()
                return None, Failure("interrupted")
            self._consoles.add(console)
        return console, None

    def stop(self, console):
        console.kill()
        with self._lock:
            self._consoles.discard(console)
            self._boot_caches.pop(id(console), None)

    def stop_all(self):
        self.reporter.interrupted = True
        with self._lock:
            consoles = list(self._consoles)
        for console in consoles:
            console.kill()

    def wait_prompt(self, console):
        reply = console.wait_boot(self.args.boot_timeout)
        if reply.timed_out:
            return Failure(f"no prompt within {self.args.boot_timeout:g}s of boot",
                           ["serial output:"] + tail(reply.lines), fatal=True)
        if reply.exit_status is not None:
            return Failure(f"QEMU exited with {describe_exit(reply.exit_status)} "
                           "before the prompt", ["serial output:"] + tail(reply.lines),
                           fatal=True)
        return None

    def boot(self, group, attempt):
        """Start QEMU and wait for the prompt: (console or None, failure or None)."""
        console, failure = self.start(group, attempt)
        if console is None:
            return None, failure
        failure = self.wait_prompt(console)
        if failure:
            self.stop(console)
            failure.log = console.log_path
            return None, failure
        return console, None

    def run_steps(self, console, test):
        """Type each command of `test` and check what comes back."""
        timeout = test.timeout or self.args.timeout
        for index, step in enumerate(test.steps):
            reply = console.command(step.keys, timeout)
            where = f"{test.path}:{step.lineno}"
            if reply.timed_out:
                return Failure(f"{where}: no prompt within {timeout:g}s after "
                               f"`{step.source}`", ["output so far:"] + tail(reply.lines),
                               fatal=True)
            report = shelltest.check_output(test, step, reply.lines)
            if reply.exit_status is not None:
                return self.check_exit(test, index, reply, report)
            if report:
                return Failure(f"{where}: output mismatch", report)
        if test.expect:
            status = console.wait_exit(timeout)
            if status is None:
                return Failure(f"QEMU still running {timeout:g}s after the last command, "
                               f"expected it to exit with {self.expected_exit(test)}",
                               fatal=True)
            return self.check_status(test, status)
        return None

    @staticmethod
    def expected_exit(test):
        return describe_exit(shelltest.EXPECT_EXIT[test.expect])

    def check_exit(self, test, index, reply, report):
        """QEMU exited during the command test.steps[index]."""
        step = test.steps[index]
        where = f"{test.path}:{step.lineno}"
        exited = f"QEMU exited with {describe_exit(reply.exit_status)}"
        if test.expect is None:
            return Failure(f"{where}: {exited} during `{step.source}`",
                           ["output:"] + tail(reply.lines), fatal=True)
        if report:
            return Failure(f"{where}: output mismatch ({exited})", report, fatal=True)
        if index + 1 < len(test.steps):
            following = test.steps[index + 1]
            return Failure(f"{where}: {exited} before `{following.source}` "
                           f"(line {following.lineno})", ["output:"] + tail(reply.lines),
                           fatal=True)
        return self.check_status(test, reply.exit_status)

    def check_status(self, test, status):
        if status == shelltest.EXPECT_EXIT[test.expect]:
            return None
        return Failure(f"QEMU exited with {describe_exit(status)}, "
                       f"expected {self.expected_exit(test)}", fatal=True)

    def run_group(self, group):
        if self.reporter.stopped():
            return
        if group.shared:
            self.run_shared(group)
        else:
            self.run_alone(group)

    def run_shared(self, group):
        began = time.monotonic()
        console, failure = self.boot(group, 1)
        if console:
            # A boot that warned still reached the prompt; its tests can run.
            failure = with_crash_text(None, console.crash_lines(0))
        self.reporter.result(f"smp{group.smp}/boot", failure, time.monotonic() - began,
                             console.log_path if console else None)
        if console is None:
            self.fail_not_run(group.units, failure)
            return
        start = console.mark()
        attempt = 1
        try:
            for index, unit in enumerate(group.units):
                if self.reporter.stopped():
                    return
                if console is None:
                    attempt += 1
                    console, failure = self.boot(group, attempt)
                    if console is None:
                        self.fail_not_run(group.units[index:], failure)
                        return
                    # The log of a fresh boot belongs to the unit that needed it.
                    start = 0
                if unit.run(self, console, start):
                    start = console.mark()
                else:
                    self.stop(console)
                    console = None
        finally:
            if console:
                self.stop(console)

    def fail_not_run(self, units, failure):
        for unit in units:
            if self.reporter.stopped():
                return
            self.reporter.fail(unit.name, Failure(f"not run: boot failed: {failure.reason}",
                                                  log=failure.log))

    def run_alone(self, group):
        """A test with a boot of its own: its whole serial log is its output."""
        unit = group.units[0]
        test = unit.test
        began = time.monotonic()
        console, failure = self.start(group, 1)
        if console:
            if test.steps:
                failure = self.wait_prompt(console) or self.run_steps(console, test)
            else:
                # Nothing to type: the test is about how the boot ends.
                status = console.wait_exit(self.args.boot_timeout)
                failure = (self.check_status(test, status) if status is not None else
                           Failure(f"QEMU still running {self.args.boot_timeout:g}s after "
                                   f"boot, expected it to exit with {self.expected_exit(test)}"))
            if test.expect != "crash":
                failure = with_crash_text(failure, console.crash_lines(0))
            self.stop(console)
        self.reporter.result(unit.name, failure, time.monotonic() - began,
                             console.log_path if console else None)


def load_tests(args, reporter):
    """Parse tests/shell/AREA/*.t; a file that does not parse, or is not in an area's
    folder, fails at every CPU count."""
    tests = []
    for name, path in shelltest.find_scripts(args.shell_dir):
        try:
            if name.count("/") != 1:
                raise shelltest.ParseError(f"{rel(path)}: not in an area's folder "
                                           "(tests/shell/AREA/NAME.t)")
            tests.append(shelltest.parse_file(rel(path), name))
        except (shelltest.ParseError, OSError, UnicodeDecodeError) as err:
            for smp in args.smp:
                unit_name = f"smp{smp}/shell/{name}"
                if name_matches(unit_name, args.filter):
                    reporter.fail(unit_name, Failure(f"bad test file: {err}"))
    return tests


def load_trace_tests(args, reporter):
    """Load tests/trace/*.py; a file that does not load fails at every CPU count."""
    files = []
    for path in sorted(args.trace_dir.glob("*.py")):
        testfile = tracetest.TraceTestFile(path)
        if testfile.error is None:
            files.append(testfile)
            continue
        for smp in args.smp:
            name = f"smp{smp}/trace/{testfile.name}"
            if name_matches(name, args.filter):
                reporter.fail(name, Failure(f"bad test file {rel(path)}: {testfile.error}"))
    return files


def plan(args, tests, reporter, trace_files=()):
    """Tests to run, in groups: each CPU count's shared boot first, then tests alone."""
    groups = []
    for smp in args.smp:
        shared, alone = [], []
        selftest = SelftestUnit(smp, args.filter)
        if name_matches(selftest.name, args.filter) or any(
                "selftest/" in pattern for pattern in args.filter):
            shared.append(selftest)
        for test in tests:
            unit = ScriptUnit(smp, test)
            if (test.smp and smp not in test.smp) or not name_matches(unit.name, args.filter):
                continue
            if not test.own_boot:
                shared.append(unit)
            elif args.iso and test.cmdline:
                reporter.skip(unit.name, "needs its own kernel command line, and --iso is set")
            else:
                cmdline = f"{TEST_CMDLINE} {test.cmdline}".strip()
                # Its log is named after the group: one file in the log folder.
                alone.append(Group(test.name.replace("/", "-"), smp, cmdline, [unit],
                                   shared=False))
        for testfile in trace_files:
            if testfile.smp and smp not in testfile.smp:
                continue
            for test_name, function in testfile.tests:
                unit = TraceUnit(smp, testfile, test_name, function)
                if name_matches(unit.name, args.filter):
                    shared.append(unit)
        if shared:
            groups.append(Group("main", smp, TEST_CMDLINE, shared, shared=True))
        groups += alone
    return groups


def parse_smp(text):
    try:
        counts = [int(word) for word in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of CPU counts: {text}")
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"not a list of CPU counts: {text}")
    return counts


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Boot fentros in QEMU and run its self-tests and shell tests.")
    parser.add_argument("--smp", type=parse_smp, default=[1, 2, 4],
                        help="CPU counts to test, comma-separated (default 1,2,4)")
    parser.add_argument("-f", "--filter", action="append", default=[],
                        help="run only tests whose name contains this text or matches this "
                             "glob; may be repeated")
    parser.add_argument("--iso", type=Path,
                        help="boot this ISO instead of building one from --kernel")
    parser.add_argument("--kernel", type=Path, default=DEFAULT_KERNEL,
                        help="kernel to build test ISOs from (default build/kernel.elf)")
    parser.add_argument("-k", "--keep-going", action="store_true",
                        help="run everything instead of stopping after the first failure")
    parser.add_argument("-j", "--jobs", type=int, default=1,
                        help="boots to run at once (default 1)")
    parser.add_argument("--timeout", type=float, default=60,
                        help="seconds a command may take before it counts as a hang "
                             "(default 60)")
    parser.add_argument("--boot-timeout", type=float, default=120,
                        help="seconds from QEMU start to the first prompt (default 120)")
    parser.add_argument("--host-checks-first", action="store_true",
                        help="run the checks without the shared boots (unit tests, host "
                             "stress, export, mount, ftracetest) before the boots, not "
                             "beside them")
    parser.add_argument("--selftest-timeout", type=float, default=300,
                        help="seconds the selftest command may take (default 300)")
    parser.add_argument("-l", "--list", action="store_true",
                        help="list the tests that would run, without running them")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="copy the serial output to stderr as it arrives")
    # For testing the harness itself: a command run instead of QEMU, with {smp}, {iso}
    # and {cmdline} replaced; and other places for the pieces it uses.
    parser.add_argument("--qemu-cmd", help=argparse.SUPPRESS)
    parser.add_argument("--mkiso", type=Path, default=MKISO, help=argparse.SUPPRESS)
    parser.add_argument("--shell-dir", type=Path, default=SHELL_DIR, help=argparse.SUPPRESS)
    parser.add_argument("--trace-dir", type=Path, default=TRACE_DIR, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.smp = sorted(set(args.smp))
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    return args


def clear_logs():
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    for old in LOG_DIR.glob("*.log"):
        old.unlink()


def run_host_checks(reporter, wanted, step=None):
    """hostchecks.run_all but ftracetest in a thread of its own (or `step`): an error
    that ends it is a failure of the run, as it would be if it ran first."""
    try:
        if step:
            step(reporter, wanted)
        else:
            hostchecks.run_all(reporter, wanted, ftracetest=False)
    except Exception as err:  # noqa: BLE001 - reported, not lost with the thread
        reporter.fail("host-checks", Failure(f"the host checks stopped: {type(err).__name__}: "
                                             f"{err}", traceback.format_exc().splitlines()[-15:]))


def main(argv=None):
    args = parse_args(argv)
    reporter = Reporter(args.keep_going)
    # The checks without QEMU, unless this run is the harness testing itself.
    with_host_checks = args.qemu_cmd is None
    if args.list:
        if with_host_checks:
            for name in hostchecks.names():
                if name_matches(name, args.filter):
                    print(name)
        quiet = Reporter(True)
        for group in plan(args, load_tests(args, quiet), reporter,
                          load_trace_tests(args, quiet)):
            for unit in group.units:
                print(unit.name)
        return 0
    clear_logs()
    host_thread = None
    if with_host_checks:
        def wanted(name):
            return name_matches(name, args.filter)
        if args.host_checks_first:
            hostchecks.run_all(reporter, wanted)
        else:
            # The host checks boot QEMUs of their own (or none) and share nothing with the
            # boots below, so they run beside them: their results interleave with the
            # boots' results, a line at a time. ftracetest runs after the boots.
            sys.stdout = LineWriter(sys.stdout)
            host_thread = threading.Thread(target=run_host_checks, args=(reporter, wanted),
                                           name="host-checks", daemon=True)
            host_thread.start()
    session = Session(args, reporter)
    groups = plan(args, load_tests(args, reporter), reporter, load_trace_tests(args, reporter))
    pool = ThreadPoolExecutor(max_workers=args.jobs) if args.jobs > 1 else None
    try:
        if pool is None:
            for group in groups:
                session.run_group(group)
        else:
            for future in [pool.submit(session.run_group, group) for group in groups]:
                future.result()
        if host_thread:
            host_thread.join()
            # ftracetest last, alone: see hostchecks.run_all.
            if not reporter.stopped():
                run_host_checks(reporter, wanted, hostchecks.run_ftracetest)
    except KeyboardInterrupt:
        session.stop_all()
        print("interrupted", flush=True)
    finally:
        if pool:
            # Groups not started yet are dropped; running ones end fast once interrupted.
            pool.shutdown(wait=True, cancel_futures=True)
        if host_thread and host_thread.is_alive():
            # Interrupted: the host checks stop after the test that is running (its
            # class's teardown stops its QEMU); a second Ctrl-C leaves without waiting.
            print("waiting for the running host check to end", flush=True)
            try:
                host_thread.join()
            except KeyboardInterrupt:
                pass
    reporter.fail_always_skipped()
    status = reporter.summary()
    if isinstance(sys.stdout, LineWriter):
        sys.stdout.flush()
        sys.stdout = sys.stdout.stream
    return status


if __name__ == "__main__":
    sys.exit(main())
