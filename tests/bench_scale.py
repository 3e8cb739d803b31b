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
"""

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import qemu  # noqa: E402
from harness.console import Console  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TRACEFS = "/sys/kernel/tracing"
GLOB_1PCT = "scale_fn_*77?"  # the tens and hundreds digits both 7: 1 in 100


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--iso", default=str(ROOT / "build" / "scale" / "fentros.iso"))
    p.add_argument("--smp", type=int, default=2)
    p.add_argument("--funcs", type=int, default=35000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    log_dir = ROOT / "build" / "bench-logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    console = Console(qemu.fentros_argv(args.iso, args.smp), log_dir / "bench-scale.log")

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
        base = statistics.median(one("echo") for _ in range(args.repeat))
        return max(0.0, statistics.median(one(line) for _ in range(args.repeat)) - base)

    try:
        if console.wait_boot(180).cwd is None:
            print("bench-scale: the kernel did not boot", file=sys.stderr)
            return 1
        print(f"bench-scale: {args.funcs} generated functions, SMP={args.smp}")
        for line in run("bench -s patch memory function nop", timeout=1800):
            if line.startswith("bench: "):
                print(line)
        run(f"cd {TRACEFS}")
        lines = run("cat available_filter_functions | wc -l")
        nbytes = sum(len(l) + 1 for l in run("cat available_filter_functions"))
        secs = timed("cat available_filter_functions | wc -l")
        print(f"bench: scale.available_filter_functions lines={lines[0]} bytes={nbytes} "
              f"seconds={secs:.3f} (generated and counted in the kernel)")
        secs = timed(f"echo '{GLOB_1PCT}' > set_ftrace_filter")
        chosen = int(run("cat set_ftrace_filter | wc -l")[0])
        sites = int(run("cat dyn_ftrace_total_info")[0].split()[0])
        print(f"bench: scale.glob_1pct glob={GLOB_1PCT} selected={chosen} of={sites} "
              f"seconds={secs:.4f}")
        for what, filt in (("filtered_1pct", GLOB_1PCT), ("all", "")):
            run(f"echo '{filt}' > set_ftrace_filter" if filt else "echo > set_ftrace_filter")
            on, off = [], []
            for _ in range(args.repeat):
                t = time.monotonic()
                run("echo function > current_tracer")
                on.append(time.monotonic() - t)
                t = time.monotonic()
                run("echo nop > current_tracer")
                off.append(time.monotonic() - t)
            print(f"bench: scale.function_{what} on_seconds={statistics.median(on):.3f} "
                  f"off_seconds={statistics.median(off):.3f} (current_tracer, host-timed)")
        run("echo > set_ftrace_filter")
        return 0
    finally:
        console.kill()


if __name__ == "__main__":
    sys.exit(main())
