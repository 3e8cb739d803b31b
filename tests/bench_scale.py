#!/usr/bin/env python3
"""make bench-scale: the tracer's costs in a kernel with Linux's number of call sites.

Boots the scale kernel (build/scale/fentros.iso: this kernel plus SCALE_N functions that
tools/genscale.py generated) and prints `bench:` rows: the kernel's own `bench` rows for
patching (patch.sites, boot NOP conversion, enabling and disabling every site, sync
rounds), memory and the function tracer, then rows timed from the host around one shell
command each (the serial round trip of an empty command subtracted): reading
available_filter_functions, a glob that selects about 1 % of the sites, and enabling
the function tracer on those and on every site.

    make bench-scale SCALE_N=35000
    python3 tests/bench_scale.py --iso build/scale/fentros.iso --funcs 35000
    python3 tests/bench_scale.py --series 1000,5000,20000,35000,70000   # builds each size,
        # prints a Markdown table of how the rows grow and writes build/bench-scale.svg
    make bench-scale SCALE_N=35000 SCALE_LINUX=1  # and Debian's Linux 6.1 in the same run

With --linux the same run also boots Linux (tests/bench_linux.py's guest script) and
compares enabling every site, per site, with fentros's at this scale: both kernels with
the same accelerator (single-threaded TCG when multi-threaded TCG leaves Linux stuck,
which it does here), Linux first, then fentros.
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from fentros_machine import qemu  # noqa: E402
from fentros_machine.console import Console  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TRACEFS = "/sys/kernel/tracing"
GLOB_1PCT = "scale_fn_*77?"  # the tens and hundreds digits both 7: 1 in 100


def parse_row(line):
    """`bench: name=X k=v ...` or `bench: scale.X k=v ...` -> (name, {k: v})."""
    words = line.split()[1:]
    name = words[0][5:] if words[0].startswith("name=") else words[0]
    fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
    return name, fields


def measure(iso, smp, funcs, repeat, accel=None):
    """Boots one scale kernel; returns its rows as printed."""
    log_dir = ROOT / "build" / "bench-logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    console = Console(qemu.fentros_argv(iso, smp, accel=accel),
                      log_dir / f"bench-scale-{funcs}.log")
    rows = []

    def run(line, timeout=600):
        reply = console.command(line.encode() + b"\r", timeout)
        if reply.cwd is None:
            raise SystemExit(f"bench-scale: `{line}` did not come back")
        return reply.lines

    def timed(line):
        """Median seconds of `line` over --repeat runs, less an empty command's."""
        def one(cmd):
            t = time.monotonic()
            run(cmd)
            return time.monotonic() - t
        base = statistics.median(one("echo") for _ in range(repeat))
        return max(0.0, statistics.median(one(line) for _ in range(repeat)) - base)

    try:
        if console.wait_boot(180).cwd is None:
            raise SystemExit("bench-scale: the kernel did not boot")
        for line in run("bench -s patch memory function function_all nop", timeout=1800):
            if line.startswith("bench: "):
                rows.append(line)
        run(f"cd {TRACEFS}")
        lines = run("cat available_filter_functions | wc -l")
        nbytes = sum(len(l) + 1 for l in run("cat available_filter_functions"))
        secs = timed("cat available_filter_functions | wc -l")
        rows.append(f"bench: scale.available_filter_functions lines={lines[0]} bytes={nbytes} "
                    f"seconds={secs:.3f}")
        secs = timed(f"echo '{GLOB_1PCT}' > set_ftrace_filter")
        chosen = int(run("cat set_ftrace_filter | wc -l")[0])
        sites = int(run("cat dyn_ftrace_total_info")[0].split()[0])
        rows.append(f"bench: scale.glob_1pct glob={GLOB_1PCT} selected={chosen} of={sites} "
                    f"seconds={secs:.4f}")
        for what, filt in (("filtered_1pct", GLOB_1PCT), ("all", "")):
            run(f"echo '{filt}' > set_ftrace_filter" if filt else "echo > set_ftrace_filter")
            on, off = [], []
            for _ in range(repeat):
                t = time.monotonic()
                run("echo function > current_tracer")
                on.append(time.monotonic() - t)
                t = time.monotonic()
                run("echo nop > current_tracer")
                off.append(time.monotonic() - t)
            rows.append(f"bench: scale.function_{what} on_seconds={statistics.median(on):.3f} "
                        f"off_seconds={statistics.median(off):.3f}")
        run("echo > set_ftrace_filter")
        return rows
    finally:
        console.kill()


# The series table and chart: (row, field, heading, scale to show)
SERIES = (("patch.all.on", "median_ns", "enable all, ms", 1e-6),
          ("patch.all.on_site", "median_ns", "enable all, ns/site", 1),
          ("patch.all.off", "median_ns", "disable all, ms", 1e-6),
          ("patch.all.on_rounds", "value", "sync rounds", 1),
          ("patch.boot_per_site", "value", "boot NOP, ns/site", 1),
          ("scale.available_filter_functions", "seconds", "available_filter_functions, ms", 1e3),
          ("scale.glob_1pct", "seconds", "1 % glob, ms", 1e3),
          ("memory.ftrace_boot", "value", "ftrace memory at boot, bytes/site", None),
          ("function.event", "median_ns", "function event, ns", 1),
          ("function_all.event", "median_ns", "function event, every site on, ns", 1))


def linux_enable_site(smp, accel):
    """Linux's enable-all figures in this QEMU: (figures, accelerator it ran under)."""
    import argparse as ap
    import bench_linux
    bench_linux.fetch_linux(bench_linux.DEFAULT_CACHE)
    tool = bench_linux.build_tool()
    bench_linux.LOG_DIR.mkdir(parents=True, exist_ok=True)  # after `make clean` too
    args = ap.Namespace(calls=2000, chunk=20, reps=1, enable_reps=3, smp=smp, mem="256M",
                        cache=bench_linux.DEFAULT_CACHE, verbose=False)
    try:
        guest, _ = bench_linux.measure_linux(args, accel, tool, 1)
    except bench_linux.LinuxError as err:
        if not (err.stuck and accel == "tcg"):
            raise
        accel = "tcg,thread=single"
        guest, _ = bench_linux.measure_linux(args, accel, tool, 1)
    return bench_linux.linux_figures(guest), accel


def compare_with_linux(rows, fig, accel, smp):
    ours_site = float(rows["patch.all.on_site"]["median_ns"])
    ours_min = float(rows["patch.all.on_site"]["min_ns"])
    theirs = fig["enable.site"][0]
    sites, rounds = int(rows["patch.sites"]["value"]), rows["patch.all.on_rounds"]["value"]
    print(f"same run, -accel {accel}, SMP={smp}: enabling every site, per site")
    print(f"  fentros: {sites} sites, median {ours_site:.1f} ns, min {ours_min:.1f} ns, "
          f"{rounds} sync rounds")
    print(f"  Linux:   {fig['sites'][0]} sites, median {theirs.median:.1f} ns, "
          f"min {theirs.min:.1f} ns, {fig['enable.ipis'][0]:.0f} function-call IPIs")
    ratio, ratio_min = ours_site / theirs.median, ours_min / theirs.min
    verdict = "met" if ratio <= 0.25 and ratio_min <= 0.25 and rounds == "3" else "NOT met"
    print(f"  {verdict}: at most 0.25 x Linux with 3 sync rounds: {ratio:.4f} x (median), "
          f"{ratio_min:.4f} x (min)")


def series(sizes, smp, repeat):
    results = {}
    for n in sizes:
        build = subprocess.run(["make", "--no-print-directory", "BUILD=build/scale",
                                f"SCALE_FUNCS={n}", "CMDLINE=", "all"], cwd=ROOT,
                               capture_output=True, text=True)
        if build.returncode:
            raise SystemExit(f"bench-scale: build of {n} failed:\n{build.stdout[-2000:]}"
                             f"{build.stderr[-2000:]}")
        rows = dict(parse_row(r) for r in measure(ROOT / "build/scale/fentros.iso", smp, n,
                                                  repeat))
        results[n] = rows
        print(f"bench-scale: {n} generated functions measured", file=sys.stderr)
    head = ["generated", "sites"] + [h for _, _, h, _ in SERIES]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    points = {h: [] for _, _, h, _ in SERIES}
    for n, rows in results.items():
        sites = int(rows["patch.sites"]["value"])
        cells = [str(n), str(sites)]
        for row, field, heading, scale in SERIES:
            v = float(rows[row][field])
            v = v / sites if scale is None else v * scale
            points[heading].append((sites, v))
            cells.append(f"{v:.1f}" if v < 1000 else f"{v:.0f}")
        print("| " + " | ".join(cells) + " |")
    svg = ROOT / "build" / "bench-scale.svg"
    svg.write_text(chart(points))
    print(f"chart: {svg}", file=sys.stderr)


def chart(points):
    """One small panel per row: value against call sites, both axes linear."""
    w, h, pad, cols = 260, 170, 36, 3
    panels = list(points.items())
    rows = -(-len(panels) // cols)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * w}" height="{rows * h}" '
           'font-family="sans-serif" font-size="10">']
    for k, (title, pts) in enumerate(panels):
        x0, y0 = (k % cols) * w, (k // cols) * h
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        xmax, ymax = max(xs) or 1, max(ys) or 1
        def px(x):
            return x0 + pad + (w - 2 * pad) * x / xmax
        def py(y):
            return y0 + h - pad + -(h - 2 * pad) * y / ymax
        out.append(f'<text x="{x0 + pad}" y="{y0 + 14}">{title}</text>')
        out.append(f'<line x1="{px(0)}" y1="{py(0)}" x2="{px(xmax)}" y2="{py(0)}" stroke="#888"/>')
        out.append(f'<line x1="{px(0)}" y1="{py(0)}" x2="{px(0)}" y2="{py(ymax)}" stroke="#888"/>')
        out.append(f'<text x="{px(xmax) - 40}" y="{py(0) + 14}">{xmax} sites</text>')
        out.append(f'<text x="{x0 + 2}" y="{py(ymax) + 4}">{ymax:.4g}</text>')
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
        for x, y in pts:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="#1f77b4"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--iso", default=str(ROOT / "build" / "scale" / "fentros.iso"))
    p.add_argument("--smp", type=int, default=2)
    p.add_argument("--funcs", type=int, default=35000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--series", help="comma-separated sizes: build and measure each")
    p.add_argument("--linux", action="store_true",
                   help="boot Linux in the same run and compare enabling every site")
    p.add_argument("--accel", default=qemu.default_accel())
    args = p.parse_args()
    if args.series:
        series([int(n) for n in args.series.split(",")], args.smp, args.repeat)
        return 0
    accel, fig = args.accel, None
    if args.linux:
        fig, accel = linux_enable_site(args.smp, accel)
    print(f"bench-scale: {args.funcs} generated functions, SMP={args.smp}, -accel {accel}")
    lines = measure(args.iso, args.smp, args.funcs, args.repeat, accel)
    for line in lines:
        print(line)
    if fig:
        compare_with_linux(dict(parse_row(r) for r in lines), fig, accel, args.smp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
