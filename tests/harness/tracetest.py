"""Python test scripts, tests/trace/*.py: tests that drive the shell and check what it
prints in Python, for output too large or too variable for a .t script (a `cat trace`
of thousands of lines taken while `work` runs on every CPU).

A script is a module. Each function named test_NAME is one test, run in the order
defined, with a Shell as its argument; it fails by calling sh.check or sh.fail (or by
any exception). Optional module globals:

    SMP = [2, 4]          CPU counts to run at (default: all of --smp)
    TIMEOUT = 120         per-command timeout in seconds (default: --timeout)
    setup(sh), teardown(sh)
                          run before and after each test; teardown runs after a failure
                          too, unless the console can no longer be trusted

The result of test_NAME in file FILE.py is `smpN/trace/FILE/NAME`.
"""

import importlib.util
import inspect
import time
import traceback
from pathlib import Path


class TestFailure(Exception):
    """A failed check. fatal: the console cannot be trusted any more (a hang, QEMU gone)."""

    def __init__(self, message, details=(), fatal=False):
        super().__init__(message)
        self.message = message
        self.details = list(details)
        self.fatal = fatal


def _line_count(buf, start):
    """Output lines received after typing a command at `start` (the echo line excluded)."""
    newline = buf.find(b"\n", start)
    return 0 if newline < 0 else buf.count(b"\n", newline + 1)


class Running:
    """A command typed without waiting for its prompt (`cat trace_pipe`)."""

    def __init__(self, sh, command, start):
        self.sh = sh
        self.command = command
        self.start = start

    def wait_lines(self, count, timeout):
        """True once the command printed at least `count` lines, False after `timeout`."""
        return self.sh.console.wait_output(
            self.start, lambda buf, start: _line_count(buf, start) >= count, timeout)

    def wait_quiet(self, quiet, timeout):
        """Waits until nothing arrived for `quiet` seconds, or the prompt came back, or
        `timeout` passed: returns "prompt", "quiet" or "timeout"."""
        console = self.sh.console
        deadline = time.monotonic() + timeout
        while True:
            if console.at_prompt(self.start):
                return "prompt"
            if not console.alive():
                raise TestFailure(f"QEMU exited during `{self.command}`", fatal=True)
            seen = console.mark()
            wait = min(quiet, deadline - time.monotonic())
            if wait <= 0:
                return "timeout"
            if not console.wait_output(self.start, lambda buf, _: len(buf) > seen, wait):
                if console.at_prompt(self.start):
                    return "prompt"
                if wait >= quiet:
                    return "quiet"

    def interrupt(self, timeout=None):
        """Types Ctrl-C and waits for the prompt: the command's output lines."""
        self.sh.console.send(b"\x03")
        return self.finish(timeout)

    def finish(self, timeout=None):
        """Waits for the prompt: the command's output lines (a hang fails the test)."""
        reply = self.sh.console.finish(self.start, timeout or self.sh.timeout)
        return self.sh.reply_lines(self.command, reply)


class Shell:
    """The console of the boot a test runs in, as a test sees it."""

    def __init__(self, console, smp, timeout, cache, kernel=None):
        self.console = console
        self.smp = smp          # CPUs the kernel runs on
        self.timeout = timeout  # default per-command timeout, seconds
        self.cache = cache      # per-boot memo for helpers (e.g. available functions)
        self.kernel = kernel    # the ELF this boot runs, when known (not with --iso)

    def reply_lines(self, command, reply):
        if reply.timed_out:
            raise TestFailure(f"no prompt within the timeout after `{command}`",
                              ["output so far:"] + [f"  | {l}" for l in reply.lines[-15:]],
                              fatal=True)
        if reply.exit_status is not None:
            raise TestFailure(f"QEMU exited (status {reply.exit_status}) during `{command}`",
                              [f"  | {l}" for l in reply.lines[-15:]], fatal=True)
        return reply.lines

    def run(self, command, timeout=None):
        """Types command and Enter, waits for the prompt, returns the output lines."""
        reply = self.console.command(command.encode("utf-8") + b"\r", timeout or self.timeout)
        return self.reply_lines(command, reply)

    def do(self, *commands, timeout=None):
        """Runs commands that must print nothing (setup steps); fails on any output."""
        for command in commands:
            lines = self.run(command, timeout)
            self.check(not lines, f"`{command}` printed something", lines[:10])

    def status(self):
        """The exit status of the last command ($?)."""
        lines = self.run("echo $?")
        self.check(len(lines) == 1 and lines[0].isdigit(), "`echo $?` is not a number", lines)
        return int(lines[0])

    def begin(self, command):
        """Types command and Enter without waiting: a Running to wait on or interrupt."""
        start = self.console.begin(command.encode("utf-8") + b"\r")
        return Running(self, command, start)

    def check(self, condition, message, details=()):
        if not condition:
            raise TestFailure(message, details)

    def fail(self, message, details=()):
        raise TestFailure(message, details)


class TraceTestFile:
    """One tests/trace/*.py file: its tests, or the error that kept it from loading."""

    def __init__(self, path):
        self.path = Path(path)
        self.name = self.path.stem
        self.smp = None
        self.timeout = None
        self.tests = []  # (name, function)
        self.setup = None
        self.teardown = None
        self.error = None
        try:
            self._load()
        except Exception as err:  # noqa: BLE001 - any error in a script is its failure
            self.error = f"{type(err).__name__}: {err}"

    def _load(self):
        spec = importlib.util.spec_from_file_location(f"trace_test_{self.name}", self.path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        smp = getattr(module, "SMP", None)
        self.smp = [int(n) for n in smp] if smp is not None else None
        timeout = getattr(module, "TIMEOUT", None)
        self.timeout = float(timeout) if timeout is not None else None
        self.setup = getattr(module, "setup", None)
        self.teardown = getattr(module, "teardown", None)
        for name, value in vars(module).items():
            if name.startswith("test_") and inspect.isfunction(value):
                self.tests.append((name[len("test_"):], value))
        if not self.tests:
            raise ValueError("no test_* functions")


def run_test(testfile, function, console, smp, timeout, cache, kernel=None):
    """Runs one test function: None, or a TestFailure."""
    sh = Shell(console, smp, testfile.timeout or timeout, cache, kernel)
    failure = None
    try:
        if testfile.setup:
            testfile.setup(sh)
        function(sh)
    except TestFailure as err:
        failure = err
    except Exception as err:  # noqa: BLE001 - a broken test is a failed test
        failure = TestFailure(f"{type(err).__name__}: {err}",
                              traceback.format_exc().rstrip().split("\n")[-8:])
    if testfile.teardown and not (failure and failure.fatal):
        try:
            testfile.teardown(sh)
        except TestFailure as err:
            if failure is None:
                failure = TestFailure(f"teardown: {err.message}", err.details, err.fatal)
            else:
                failure.fatal = failure.fatal or err.fatal
                failure.details.append(f"and teardown failed: {err.message}")
        except Exception as err:  # noqa: BLE001
            failure = failure or TestFailure(f"teardown: {type(err).__name__}: {err}")
    return failure
