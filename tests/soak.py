#!/usr/bin/env python3
"""make soak MINUTES=N: the kernel's `soak` command on 4 CPUs for N minutes.

Boots fentros (4 CPUs unless --smp says otherwise) and runs `soak SECONDS SEED`: the
function tracer on, a private ftrace op and function-graph client coming and going, the
profiler toggling, set_ftrace_filter, set_event, an event filter and buffer_size_kb
changing, trace_pipe_raw and trace_pipe consumed, all at once under the work load; then
the ring buffer's books per CPU (every event committed was read or reported lost). Prints
the kernel's summary and exits non-zero on a failure, a fault or a hang.

    make soak MINUTES=60
    python3 tests/soak.py --minutes 5 --smp 4 --seed 3
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from fentros_machine import qemu  # noqa: E402
from fentros_machine.console import Console  # noqa: E402
from harness.paths import ISO, TEST_LOG_DIR  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--minutes", type=float, default=10)
    p.add_argument("--smp", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    seconds = max(1, int(args.minutes * 60))
    TEST_LOG_DIR.mkdir(parents=True, exist_ok=True)
    log = TEST_LOG_DIR / f"soak-{seconds}s-seed{args.seed}.log"
    console = Console(qemu.fentros_argv(ISO, args.smp), log)
    began = time.monotonic()
    try:
        if console.wait_boot(120).cwd is None:
            print("soak: the kernel did not boot", file=sys.stderr)
            return 1
        reply = console.command(f"soak {seconds} {args.seed}\r".encode(), seconds + 600)
        for line in reply.lines:
            print(line)
        crash = console.crash_lines(0)
        if reply.cwd is None:
            print(f"soak: FAIL: no prompt after {seconds + 600} s, or QEMU exited (log: {log})")
            return 1
        if crash:
            print("soak: FAIL: fault text on the console:\n" + "\n".join(crash[:10]))
            return 1
        status = console.command(b"echo $?\r", 30).lines
        ok = status == ["0"]
        print(f"soak: {args.smp} CPUs, {time.monotonic() - began:.0f} s wall: "
              f"{'ok' if ok else 'FAILED'} (log: {log})")
        return 0 if ok else 1
    finally:
        console.kill()


if __name__ == "__main__":
    sys.exit(main())
