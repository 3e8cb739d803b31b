#!/usr/bin/env python3
"""make bench-export: what getting a trace out of fentros costs.

Records a full default buffer (1408 KB per CPU) of the function tracer with
tools/fentros-trace, then rebuilds the same trace.dat from the capture to time the
host-side widening alone. Prints `bench:` rows:

  export.transfer     MB/s of trace_pipe_raw pages over the debug console
  export.record       seconds for the whole `record` (boot, trace, pull, write)
  export.events       events in the file, and the pages' bytes per event
  export.widen        host ns per event to re-pack and widen the pages
  export.bytes        bytes per function event: in the kernel's buffer, in trace.dat

    python3 tests/bench_export.py --smp 2
"""

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from fentros_trace import channel, record  # noqa: E402

TOOL = ROOT / "tools" / "fentros-trace"
WORK = ROOT / "build" / "bench-export"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--smp", type=int, default=2)
    p.add_argument("--seconds", default="1", help="how long `work` runs while tracing")
    args = p.parse_args()
    dat = WORK / "trace.dat"
    began = time.monotonic()
    r = subprocess.run([str(TOOL), "record", "-p", "function", "--smp", str(args.smp),
                        "--progress", "--workdir", str(WORK / "machine"), "-o", str(dat),
                        "--", "work", args.seconds], capture_output=True, text=True)
    wall = time.monotonic() - began
    if r.returncode:
        print(r.stderr, file=sys.stderr)
        return 1
    m = re.search(r"transferred\s+([\d.]+) MB in ([\d.]+) s \(([\d.]+) MB/s\)", r.stderr)
    files = channel.read_files(WORK / "machine" / "debugcon.bin")
    raw = sum(len(files[f"per_cpu/cpu{c}/trace_pipe_raw"]) for c in range(args.smp))
    began = time.perf_counter()
    counts = record.build(files, args.smp, str(WORK / "rebuilt.dat"))
    widen = time.perf_counter() - began
    events = sum(counts)
    cpu_data = dat.stat().st_size
    print(f"bench: export.transfer mb={m[1]} seconds={m[2]} mb_per_s={m[3]}")
    print(f"bench: export.record seconds={wall:.1f} work_seconds={args.seconds} smp={args.smp}")
    print(f"bench: export.events events={events} raw_bytes={raw} "
          f"raw_bytes_per_event={raw / events:.1f} dat_bytes={cpu_data} "
          f"dat_bytes_per_event={cpu_data / events:.1f}")
    print(f"bench: export.widen ns_per_event={widen / events * 1e9:.0f} seconds={widen:.2f}")
    print("bench: export.bytes function_in_kernel=16 function_in_trace_dat=28")
    return 0


if __name__ == "__main__":
    sys.exit(main())
