#!/usr/bin/env python3
"""make bench: the tracer's costs in one table.

Boots fentros in QEMU with the flags the tests use, types the `bench` shell command,
and prints what it measured: one table, the hot path first (nop, function, graph,
rb, patch, ipi, memory), the machine-readable `bench: name=...` lines, and the targets
that can be judged from fentros alone. Every figure is min and median over repeated runs,
in TSC cycles and ns. Under TCG the TSC runs on emulated time, and the header says so.

    python3 tests/bench.py --smp 2            # what `make bench` runs
    python3 tests/bench.py --short nop graph  # `bench -s nop graph`, fewer repetitions

The serial log is kept in build/bench-logs/. tests/bench_linux.py imports run_fentros()
to put these figures beside Linux's.
"""

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from fentros_machine import qemu  # noqa: E402
from fentros_machine.console import Console, describe_exit  # noqa: E402
from harness.isos import IsoCache, IsoError  # noqa: E402
from harness.paths import GRUB_TEMPLATE, ISO_DIR, KERNEL, MKISO, ROOT  # noqa: E402
from harness.paths import BENCH_LOG_DIR as LOG_DIR  # noqa: E402
from harness.paths import TEST_CMDLINE as CMDLINE  # noqa: E402

# The table's row order: the hot path, then what surrounds it; rows the kernel prints under
# other names come after.
ROW_ORDER = ("nop", "function", "graph", "rb", "patch", "ipi", "memory")

# `bench: name=graph.call min_cycles=1 median_cycles=2 min_ns=0.4 median_ns=0.8`
# `bench: name=patch.sites value=311 unit=sites`
MACHINE_RE = re.compile(r"^bench: name=(\S+) (.*)$")
FIELD_RE = re.compile(r"(\w+)=(\S+(?: \S+)*?)(?= \w+=|$)")


class BenchError(Exception):
    def __init__(self, message, details=()):
        super().__init__(message)
        self.details = list(details)


class Figure:
    """One `bench: name=...` line: a timing (min/median cycles and ns) or a plain value."""

    def __init__(self, name, fields, text):
        self.name = name
        self.fields = fields
        self.text = text  # the human table line printed just before it

    @property
    def row(self):
        return self.name.split(".")[0]

    @property
    def is_timing(self):
        return "median_ns" in self.fields

    def number(self, key):
        return float(self.fields[key])

    @property
    def value(self):
        return self.number("value")


class BenchRun:
    """What one `bench` command printed, parsed."""

    def __init__(self):
        self.header = ""         # fentros bench: QEMU TCG, 2 CPUs, TSC ... MHz ...
        self.columns = ""        # the column titles
        self.figures = {}        # name -> Figure, in the order printed
        self.notes = []          # rows that printed `skipped:` or `failed:` instead
        self.qemu = []           # the QEMU command line
        self.log = None
        self.seconds = 0.0

    def get(self, name):
        """The figure called `name`, or None if it was not printed."""
        return self.figures.get(name)

    def rows_printed(self):
        return {f.row for f in self.figures.values()} | {n.split()[0].split(".")[0]
                                                        for n in self.notes}


def parse_fields(text):
    """`min_cycles=1 median_cycles=2` -> dict; a value may hold spaces (`unit=per mille`)."""
    return {m.group(1): m.group(2) for m in FIELD_RE.finditer(text)}


def parse_bench_output(lines):
    """The lines of a `bench` command -> BenchRun (figures keyed by name)."""
    run = BenchRun()
    previous = ""
    for line in lines:
        if line.startswith("fentros bench:"):
            run.header = line
        elif line.startswith("row "):
            run.columns = line
        else:
            match = MACHINE_RE.match(line)
            if match:
                name = match.group(1)
                run.figures[name] = Figure(name, parse_fields(match.group(2)), previous)
            elif re.match(r"^\S+\s+(skipped|failed):", line):
                run.notes.append(line)
        previous = line
    return run


def qemu_version():
    try:
        out = subprocess.run([os.environ.get("QEMU", "qemu-system-x86_64"), "--version"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    match = re.search(r"version (\S+)", out)
    return match.group(1) if match else "unknown"


def describe_accel(accel):
    """`tcg` -> what QEMU really runs: x86 guests on x86 hosts get multi-threaded TCG."""
    if accel.startswith("tcg"):
        single = "thread=single" in accel
        return f"TCG ({'single-threaded' if single else 'multi-threaded'}, -accel {accel})"
    return f"-accel {accel}"


def fentros_argv(iso, smp, accel, mem):
    """The test harness's QEMU command line (tests/run.py), with the bench's CPU count."""
    return qemu.fentros_argv(iso, smp, mem, accel)


def run_fentros(smp=2, accel="tcg", mem="256M", rows=(), short=False, timeout=900,
                stream=None, kernel=KERNEL, log_tag=""):
    """Boot fentros, run `bench [-s] [ROW...]`, power off: a BenchRun. Raises BenchError.
    The serial log is build/bench-logs/fentros-smpN<log_tag>.log."""
    isos = IsoCache(ROOT, kernel, MKISO, ISO_DIR, extra_inputs=[GRUB_TEMPLATE])
    try:
        iso = isos.get(CMDLINE)
    except IsoError as err:
        raise BenchError(f"ISO build failed: {err}", err.output.splitlines()[-15:])
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    log = LOG_DIR / f"fentros-smp{smp}{log_tag}.log"
    argv = fentros_argv(iso, smp, accel, mem)
    console = Console(argv, log, stream)
    try:
        boot = console.wait_boot(180)
        if boot.timed_out or boot.exit_status is not None:
            why = "no prompt within 180s" if boot.timed_out else (
                f"QEMU exited with {describe_exit(boot.exit_status)}")
            raise BenchError(f"fentros did not boot: {why} (log: {rel(log)})",
                             boot.lines[-15:])
        command = "bench" + (" -s" if short else "") + "".join(f" {r}" for r in rows)
        began = time.monotonic()
        reply = console.command(command.encode() + b"\r", timeout)
        seconds = time.monotonic() - began
        if reply.timed_out:
            raise BenchError(f"`{command}` did not finish within {timeout:g}s (log: {rel(log)})",
                             reply.lines[-15:])
        if reply.exit_status is not None:
            raise BenchError(f"QEMU exited with {describe_exit(reply.exit_status)} during "
                             f"`{command}` (log: {rel(log)})", reply.lines[-15:])
        crash = console.crash_lines(0)
        if crash:
            raise BenchError(f"kernel crash text in the serial log (log: {rel(log)})", crash[:10])
        console.command(b"poweroff\r", 30)
    finally:
        console.kill()
    run = parse_bench_output(reply.lines)
    if not run.header:
        raise BenchError(f"`{command}` printed no bench table (log: {rel(log)})",
                         reply.lines[-15:])
    run.qemu, run.log, run.seconds = argv, log, seconds
    return run


def ordered_figures(run):
    """Figures grouped by row in ROW_ORDER, each row's figures in the order printed."""
    rank = {row: i for i, row in enumerate(ROW_ORDER)}
    figures = list(run.figures.values())
    return sorted(figures, key=lambda f: rank.get(f.row, len(ROW_ORDER)))


def table_lines(run):
    lines = [run.header, run.columns]
    lines += [f.text for f in ordered_figures(run)]
    lines += run.notes
    return lines


# ---- targets that fentros's own figures decide ----

class Verdict:
    def __init__(self, target, status, detail):
        self.target = target
        self.status = status  # "met", "mixed" (met by one statistic only), "missed", "n/a"
        self.detail = detail

    def line(self):
        return f"  {self.status:<6} {self.target}: {self.detail}"


def check_nop(run):
    """A traced site may cost at most 2 % more; below 100 % is noise in favour of it."""
    ratio, traced, untraced = run.get("nop.ratio"), run.get("nop.traced"), run.get("nop.untraced")
    if ratio is None:
        return None
    detail = f"traced / untraced = {ratio.value / 10:.1f} % (medians)"
    if traced and untraced:
        detail += (f"; minima {traced.number('min_cycles'):.0f} and "
                   f"{untraced.number('min_cycles'):.0f} cycles")
    return ratio.value <= 1020, detail


def check_rounds(run):
    """Every batch, of all sites or of one, takes three sync rounds."""
    found = [f for f in (run.get("patch.all.on_rounds"), run.get("patch.one.on_rounds")) if f]
    if not found:
        return None
    ok = all(f.value == 3 and "(1 batch)" in f.text for f in found)
    return ok, ", ".join(f"{f.name} = {f.value:.0f} for {batches_of(f)}" for f in found)


def check_size(name, limit):
    def check(run):
        figure = run.get(name)
        if figure is None:
            return None
        return figure.value <= limit, f"{figure.value:.0f} bytes"
    return check


def check_rb(run):
    """All CPUs at once against alone, per CPU, by medians (worst CPU too) and by minima.

    Both vCPUs must run at once on the host for this to mean anything: on a busy host
    the medians carry its scheduling, the minima much less.
    """
    total, one, every = run.get("rb.all_vs_one"), run.get("rb.one_cpu"), run.get("rb.all_cpus")
    if total is None or one is None or every is None:
        return None
    per_cpu = [f for f in run.figures.values() if f.name.startswith("rb.all_vs_one.cpu")]
    worst = max(per_cpu, key=lambda f: f.value, default=total)
    by_min = every.number("min_cycles") / one.number("min_cycles") * 1000
    return ([max(total.value, worst.value) <= 1200, by_min <= 1200],
            f"all / alone = {total.value / 10:.1f} % by medians (worst CPU "
            f"{worst.name.rsplit('.', 1)[-1]}: {worst.value / 10:.1f} %), "
            f"{by_min / 10:.1f} % by minima")


FENTROS_TARGETS = (
    ("idle NOP site within 2 % of the untraced twin", check_nop),
    ("exactly 3 sync rounds per batch", check_rounds),
    ("call-site record <= 16 bytes", check_size("memory.record", 16)),
    ("function event <= 16 bytes", check_size("memory.function", 16)),
    ("graph entry event <= 24 bytes", check_size("memory.graph_entry", 24)),
    ("graph return event <= 24 bytes", check_size("memory.graph_return", 24)),
    ("rb: every CPU at once within 20 % of one CPU, per CPU", check_rb),
)


def fentros_targets(run):
    """The targets that need no Linux figure: a list of Verdicts."""
    out = []
    for target, check in FENTROS_TARGETS:
        result = check(run)
        if result is None:
            out.append(Verdict(target, "n/a", "row not printed"))
            continue
        ok, detail = result
        ok = ok if isinstance(ok, list) else [ok]
        status = "met" if all(ok) else "mixed" if any(ok) else "missed"
        out.append(Verdict(target, status, detail))
    return out


def batches_of(figure):
    match = re.search(r"\((\d+) batch", figure.text)
    count = match.group(1) if match else "?"
    return f"{count} batch{'' if count == '1' else 'es'}"


def rel(path):
    """A path as short as it can be for the person reading the report."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def host_line():
    """The host's cores and load: under emulation other work on the host shows up as time."""
    cores, load = os.cpu_count() or 1, os.getloadavg()[0]
    busy = " (more than its cores: other work was running, expect noise)" if load > cores else ""
    return f"host: {cores} cores, load average {load:.1f} when the bench ended{busy}"


def print_report(run, smp, accel, out=sys.stdout):
    print(f"fentros bench, {smp} CPU{'s' if smp != 1 else ''}, QEMU {qemu_version()}, "
          f"{describe_accel(accel)}", file=out)
    if accel.startswith("tcg"):
        print("Under TCG every figure is emulated time: the guest's TSC follows the host's "
              "clock while it emulates.", file=out)
    print(host_line(), file=out)
    print(file=out)
    for line in table_lines(run):
        print(line, file=out)
    missing = [row for row in ROW_ORDER if row not in run.rows_printed()]
    if missing:
        print(f"rows not printed: {' '.join(missing)}", file=out)
    print(file=out)
    print("targets (fentros alone; `make bench-linux` judges the ones relative to Linux):",
          file=out)
    for v in fentros_targets(run):
        print(v.line(), file=out)
    print(file=out)
    print("machine-readable:", file=out)
    for figure in ordered_figures(run):
        fields = " ".join(f"{k}={v}" for k, v in figure.fields.items())
        print(f"bench: name={figure.name} {fields}", file=out)
    print(f"\n(`bench` took {run.seconds:.1f} s; serial log: {rel(run.log)})", file=out)


def parse_args(argv):
    parser = argparse.ArgumentParser(description="Boot fentros in QEMU and run `bench`.")
    parser.add_argument("rows", nargs="*", help="rows to run (globs, as `bench` takes them)")
    parser.add_argument("--smp", type=int, default=2, help="CPUs (default 2)")
    parser.add_argument("--accel", default=os.environ.get("QEMU_ACCEL", "tcg"),
                        help="QEMU accelerator (default $QEMU_ACCEL or tcg)")
    parser.add_argument("--mem", default="256M", help="guest memory (default 256M)")
    parser.add_argument("-s", "--short", action="store_true",
                        help="`bench -s`: fewer repetitions")
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds `bench` may take (default 900)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="copy the serial output to stderr as it arrives")
    args = parser.parse_args(argv)
    if args.smp < 1:
        parser.error("--smp must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    stream = sys.stderr.buffer if args.verbose else None
    try:
        run = run_fentros(args.smp, args.accel, args.mem, args.rows, args.short, args.timeout,
                          stream)
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        for line in err.details:
            print(f"  | {line}", file=sys.stderr)
        return 1
    print_report(run, args.smp, args.accel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
