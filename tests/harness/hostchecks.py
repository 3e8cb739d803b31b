"""The checks of `make test` outside the shared QEMU boots: the harness's own unit tests,
the unit tests of tools/fentros_trace (tests/tools: pages, widening and trace.dat from
fixtures), the ring buffer's host stress test (the kernel's ring_buffer.c built for the host,
hammered by threads and signals), briefly, with AddressSanitizer + UBSan and without a
sanitizer, the trace export tests (tests/export: tools/fentros-trace boots its own
QEMU, trace-cmd judges the files), the tracefs mount's (tests/mount: `fentros-trace
mount` boots its own QEMU; bash, cat and trace-cmd use the mount), and Linux's ftracetest
against a mounted guest (tests/ftracetest: one result per test expected to pass). Each
reports as named results through the run's reporter."""

import importlib.util
import subprocess
import time
import unittest
from pathlib import Path

HARNESS_DIR = Path(__file__).resolve().parent
HOST_DIR = HARNESS_DIR.parent / "host"
EXPORT_DIR = HARNESS_DIR.parent / "export"
MOUNT_DIR = HARNESS_DIR.parent / "mount"
TOOLS_DIR = HARNESS_DIR.parent / "tools"
FTRACETEST = HARNESS_DIR.parent / "ftracetest" / "ftracetest.py"
# unittest suites: (directory, top level for imports, result name prefix)
SUITES = ((HARNESS_DIR, HARNESS_DIR, "harness"), (TOOLS_DIR, TOOLS_DIR, "tools"),
          (EXPORT_DIR, HARNESS_DIR.parent.parent, "export"),
          (MOUNT_DIR, HARNESS_DIR.parent.parent, "mount"))
# Seconds each stress binary runs in `make test`; `make -C tests/host check` runs longer.
STRESS_SECONDS = 3
# (test, build, binary): the ring buffer's, and the histograms' lock-free map's.
STRESS_BUILDS = (("rb_stress", "asan", "rb_stress"), ("rb_stress", "plain", "rb_stress_fast"),
                 ("map_stress", "asan", "map_stress"))


class _Failure:
    """What run.py's reporter expects of a failure: a reason and detail lines."""

    def __init__(self, reason, details=()):
        self.reason = reason
        self.details = list(details)
        self.log = None
        self.fatal = False


def _discover(directory, top):
    loader = unittest.TestLoader()
    return loader.discover(str(directory), pattern="test_*.py", top_level_dir=str(top))


def _unit_name(prefix, test):
    # Names are the prefix, then the class and method ("harness/Shell.test_echo"): the
    # module path stays out of the name.
    return f"{prefix}/{'.'.join(test.id().split('.')[-2:])}"


def names():
    """The result names these checks report, in order (for --list and filtering)."""
    unit = [_unit_name(prefix, t) for directory, top, prefix in SUITES
            for t in _flatten(_discover(directory, top))]
    return (unit + [f"host/{test}/{kind}" for test, kind, _ in STRESS_BUILDS]
            + [f"ftracetest/{name}" for name in _ftracetest_expected()])


def _ftracetest_module():
    spec = importlib.util.spec_from_file_location("ftracetest", FTRACETEST)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ftracetest_expected():
    ft = _ftracetest_module()
    return ft.load_expected(ft.EXPECTED_PASS.read_text())


def _flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _flatten(item)
        else:
            yield item


class _Result(unittest.TestResult):
    def __init__(self, reporter, prefix):
        super().__init__()
        self.reporter = reporter
        self.prefix = prefix
        self.began = 0.0

    def _name(self, test):
        return _unit_name(self.prefix, test)

    def startTest(self, test):
        super().startTest(test)
        self.began = time.monotonic()

    def addSuccess(self, test):
        self.reporter.ok(self._name(test), time.monotonic() - self.began)

    def _fail(self, test, err):
        text = self._exc_info_to_string(err, test).splitlines()
        self.reporter.fail(self._name(test), _Failure(text[-1] if text else "failed", text[-15:]),
                           time.monotonic() - self.began)

    addFailure = _fail
    addError = _fail

    def addSkip(self, test, reason):
        self.reporter.skip(self._name(test), reason)

    def stopTest(self, test):
        super().stopTest(test)
        # The boots beside these checks failed (without -k) or the run was interrupted.
        if self.reporter.stopped():
            self.stop()


def run_unit_tests(reporter, wanted, suite_index):
    directory, top, prefix = SUITES[suite_index]
    chosen = unittest.TestSuite(t for t in _flatten(_discover(directory, top))
                                if wanted(_unit_name(prefix, t)))
    if chosen.countTestCases():
        chosen.run(_Result(reporter, prefix))


def run_host_stress(reporter, wanted):
    chosen = [(f"host/{test}/{kind}", binary) for test, kind, binary in STRESS_BUILDS
              if wanted(f"host/{test}/{kind}")]
    if not chosen:
        return
    build = subprocess.run(["make", "-s", "-C", str(HOST_DIR)] + [b for _, b in chosen],
                           capture_output=True, text=True)
    for name, binary in chosen:
        if build.returncode != 0:
            reporter.fail(name, _Failure("build failed", (build.stdout + build.stderr)
                                         .splitlines()[-15:]))
            continue
        began = time.monotonic()
        try:
            run = subprocess.run([str(HOST_DIR / binary), "-t", str(STRESS_SECONDS)],
                                 capture_output=True, text=True, timeout=STRESS_SECONDS * 20 + 60)
        except subprocess.TimeoutExpired:
            reporter.fail(name, _Failure("hung"), time.monotonic() - began)
            continue
        output = (run.stdout + run.stderr).splitlines()
        if run.returncode == 0:
            reporter.ok(name, time.monotonic() - began)
        else:
            reporter.fail(name, _Failure(f"exit status {run.returncode}", output[-20:]),
                          time.monotonic() - began)


def run_ftracetest(reporter, wanted):
    """ftracetest once (2 CPUs), judged by tests/ftracetest/expected_pass.txt: each test
    listed there is a result; one that passes and is not listed is noted, never failed."""
    ft = _ftracetest_module()
    expected = ft.load_expected(ft.EXPECTED_PASS.read_text())
    chosen = [name for name in expected if wanted(f"ftracetest/{name}")]
    if not chosen:
        return
    why = ft.cannot_run()
    if why:
        for name in chosen:
            reporter.skip(f"ftracetest/{name}", why)
        return
    # A filter that picks some of the tests runs only those; else the whole suite runs,
    # so that new passes show.
    cases = () if len(chosen) == len(expected) else sorted(
        {name.removesuffix(ft.INSTANCE_SUFFIX) for name in chosen})
    began = time.monotonic()
    try:
        outcome = ft.run_suite(None, None, 2, None, ft.DEFAULT_TIMEOUT, ft.default_cache(),
                               cases, echo=True)
    except (ft.FtracetestError, subprocess.TimeoutExpired) as e:
        for name in chosen:
            reporter.fail(f"ftracetest/{name}", _Failure(f"ftracetest did not run: {e}"))
        return
    print(f"ftracetest: {ft.counts(outcome)} tests in {time.monotonic() - began:.0f} s",
          flush=True)
    if outcome.stopped:
        print(f"ftracetest: {outcome.stopped}", flush=True)
    for name in chosen:
        result = outcome.results.get(name)
        if result == "PASS":
            reporter.ok(f"ftracetest/{name}")
            continue
        log = outcome.logs.get(name)
        details = log.read_text(errors="replace").splitlines()[-15:] if log else []
        failure = _Failure(f"{result or 'did not run'}, expected PASS", details)
        reporter.fail(f"ftracetest/{name}", failure, log=str(log) if log else None)
    for name in ft.judge(outcome, chosen, ft.load_sometimes(ft.EXPECTED_PASS.read_text())).new:
        print(f"note: ftracetest/{name} passes now: add it to "
              "tests/ftracetest/expected_pass.txt", flush=True)


def run_all(reporter, wanted, ftracetest=True):
    """Every check, in order; none starts once the run has stopped (a failure without
    -k, or Ctrl-C), which matters when they run beside the boots. ftracetest=False leaves
    ftracetest out: run.py runs it after the boots, since Linux's scripts time what the
    guest does in windows of a millisecond (event-enable.tc: `sleep .001`, then a
    sched_switch must be in the trace), which failed with the boots' QEMU beside it."""
    steps = [lambda: run_unit_tests(reporter, wanted, 0),
             lambda: run_unit_tests(reporter, wanted, 1),
             lambda: run_host_stress(reporter, wanted),
             lambda: run_unit_tests(reporter, wanted, 2),
             lambda: run_unit_tests(reporter, wanted, 3)]
    if ftracetest:
        steps.append(lambda: run_ftracetest(reporter, wanted))
    for step in steps:
        if reporter.stopped():
            return
        step()
