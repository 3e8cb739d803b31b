#!/usr/bin/env python3
"""Counts the instructions of one traced call, by single-stepping it in QEMU's gdbstub.

    python3 tests/icount.py function        # the function tracer, filtered to the target
    python3 tests/icount.py function_graph  # function_graph, filtered to the target
    python3 tests/icount.py nop             # the site a NOP: the untraced baseline
    python3 tests/icount.py kprobe          # a kprobe event with two arguments on it
    python3 tests/icount.py kretprobe       # a return probe with $retval on it
    python3 tests/icount.py sched_switch    # one sched_switch event written (its tracepoint on)
    python3 tests/icount.py hist_off        # the same with a two-key hist trigger, event off
    python3 tests/icount.py hist_on         # ... and with the event on

Boots build/kernel.elf's ISO at -smp 1 under single-threaded TCG with -icount (the guest
clock counts instructions, so slow stepping adds no time between events) and a gdbstub, selects
the tracer, calls ftrace_test_target three times (`ftrace_test_call target 3`) and
single-steps the third call from its first instruction until it is back in its caller.
The event modes enable one event instead and step the third call of a test target whose
body is that event's tracepoint (`ftrace_test_call sched_switch 3`): the enabled test and
the whole record written.
Prints the instructions per function, and what costs most under TCG besides their
number: returns and indirect branches (each a translation-block lookup instead of a
chained jump), rdtsc (a helper call), and instructions that touch the interrupt flag.
Interrupts are masked while gdb steps (QEMU's default), so nothing else is counted.

It also lists the call's lookup targets that share a slot of TCG's per-CPU jump cache
(QEMU 7.2's tb_jmp_cache_hash_func: the code of one page has only 64 slots, picked by
the target's offset in the page): each such pair evicts the other on every call, and a
lookup that misses the cache goes to the global table. A lookup target is where a return,
an indirect call or jump, or a move to another page of code lands.

Needs gdb (`make deps` installs it). A development tool; `make test` does not run it.
"""

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import bench_results  # noqa: E402
from fentros_machine.console import Console  # noqa: E402
from harness.isos import IsoCache  # noqa: E402
from harness.paths import GRUB_TEMPLATE, ISO_DIR, KERNEL, MKISO, ROOT  # noqa: E402
from harness.paths import TEST_CMDLINE as CMDLINE  # noqa: E402

TARGET = "ftrace_test_target"
# Modes that step another target than TARGET: (target, its ftrace_test_call name).
TARGETS = {
    "sched_switch": ("ftrace_test_sched_switch", "sched_switch"),
    "hist_off": ("ftrace_test_sched_switch", "sched_switch"),
    "hist_on": ("ftrace_test_sched_switch", "sched_switch"),
}
HIST = ("echo 'hist:keys=prev_pid,next_pid:vals=prev_prio' > "
        "/sys/kernel/tracing/events/sched/sched_switch/trigger")
SETUP = {
    "nop": [],
    "function": [f"echo {TARGET} > /sys/kernel/tracing/set_ftrace_filter",
                 "echo function > /sys/kernel/tracing/current_tracer"],
    "function_graph": [f"echo {TARGET} > /sys/kernel/tracing/set_ftrace_filter",
                       "echo function_graph > /sys/kernel/tracing/current_tracer"],
    # A SAVE_REGS op through the regs-saving trampoline and the generic dispatcher.
    "kprobe": [f"echo 'p:icount {TARGET} a=%di b=%si' > /sys/kernel/tracing/kprobe_events",
               "echo 1 > /sys/kernel/tracing/events/kprobes/icount/enable"],
    # A return probe with $retval: the hook at the entry, the record at the return.
    "kretprobe": [f"echo 'r:icount {TARGET} ret=$retval' > /sys/kernel/tracing/kprobe_events",
                  "echo 1 > /sys/kernel/tracing/events/kprobes/icount/enable"],
    "sched_switch": ["echo 1 > /sys/kernel/tracing/events/sched/sched_switch/enable"],
    # A two-key hist trigger on it: the event off (soft mode, the record built for the
    # trigger alone), then on.
    "hist_off": [HIST],
    "hist_on": [HIST, "echo 1 > /sys/kernel/tracing/events/sched/sched_switch/enable"],
}

# Runs inside gdb: stops at the target's third call, steps it, writes one pc per line.
GDB_SCRIPT = r"""
import gdb
gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("target remote :%(port)d")
gdb.execute("hbreak *%(target)#x")
gdb.execute("maintenance packet Qqemu.sstep=0x7", to_string=True)
for _ in range(3):
    gdb.execute("continue", to_string=True)
gdb.execute("delete")
rsp = int(gdb.parse_and_eval("$rsp")) & (2**64 - 1)
ret = int(gdb.parse_and_eval("*(unsigned long *)$rsp")) & (2**64 - 1)
out = open(%(out)r, "w")
for _ in range(%(limit)d):
    pc = int(gdb.parse_and_eval("$pc")) & (2**64 - 1)
    sp = int(gdb.parse_and_eval("$rsp")) & (2**64 - 1)
    if pc == ret and sp == rsp + 8:
        break
    out.write("%%x\n" %% pc)
    gdb.execute("stepi", to_string=True)
out.close()
gdb.execute("kill")
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def symbols(elf):
    """Sorted (address, name) of the kernel's functions."""
    out = subprocess.run(["nm", "-n", str(elf)], capture_output=True, text=True, check=True)
    syms = []
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16), parts[2]))
    return syms


def disassembly(elf):
    """Address -> instruction text, from objdump."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-M", "intel", str(elf)],
                         capture_output=True, text=True, check=True)
    insns = {}
    for line in out.stdout.splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", line)
        if m:
            insns[int(m.group(1), 16)] = m.group(2).strip()
    return insns


def owner(syms, pc):
    lo, hi = 0, len(syms)
    while lo < hi:
        mid = (lo + hi) // 2
        if syms[mid][0] <= pc:
            lo = mid + 1
        else:
            hi = mid
    return syms[lo - 1][1] if lo else "?"


def kind(insn):
    op = insn.split()[0] if insn else ""
    if op.startswith("ret"):
        return "ret"
    if op in ("call", "jmp") and not re.match(r"^(call|jmp)\s+[0-9a-f]+ <", insn):
        return "indirect"
    if op == "rdtsc":
        return "rdtsc"
    if op in ("cli", "sti", "popf", "popfq", "pushf", "pushfq"):
        return "iflag"
    return None


# Linux 6.1's count for the same call by the same stepping (getppid() with
# set_ftrace_filter on __do_sys_getppid, less its untraced body; Debian's
# 6.1.0-56-cloud-amd64 booted with nokaslr) and the day it was taken, for --results.
LINUX_COUNTS = {"function": (667, "2026-11-21"), "function_graph": (1537, "2026-11-21")}


def jump_cache_slot(pc):
    """QEMU 7.2's tb_jmp_cache_hash_func for softmmu (12 bits, 6 of them from the page)."""
    tmp = pc ^ (pc >> 6)
    return ((tmp >> 6) & 0xFC0) | (tmp & 0x3F)


def jump_cache_collisions(pcs, insns):
    """Groups of two or more distinct lookup targets of the run that share a slot."""
    targets = set()
    for prev, pc in zip(pcs, pcs[1:]):
        insn = insns.get(prev, "")
        op = insn.split()[0] if insn.split() else ""
        indirect = op in ("call", "jmp") and "PTR" in insn
        if op == "ret" or indirect or prev >> 12 != pc >> 12:
            targets.add(pc)
    slots = {}
    for pc in sorted(targets):
        slots.setdefault(jump_cache_slot(pc), []).append(pc)
    return len(targets), [group for group in slots.values() if len(group) > 1]


def results_row(tracer, count):
    """The current table's row of BENCH_RESULTS.md for this tracer's count."""
    linux, day = LINUX_COUNTS[tracer]
    return bench_results.cell_row(f"instructions per traced call, {tracer}", str(count),
                                  str(linux), f"{count / linux:.2f}", "`make icount`",
                                  when=f"{bench_results.today()} (Linux: {day})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tracer", choices=sorted(SETUP))
    ap.add_argument("--limit", type=int, default=20000, help="most instructions to step")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every instruction")
    ap.add_argument("--results", nargs="?", const=bench_results.RESULTS, type=Path,
                    help="rewrite this tracer's row in the current table of "
                         "tests/BENCH_RESULTS.md (or of the file given): function and "
                         "function_graph, which have Linux's count beside them")
    args = ap.parse_args()
    if args.results and args.tracer not in LINUX_COUNTS:
        ap.error(f"--results: the table has no row for {args.tracer}")

    iso = IsoCache(ROOT, KERNEL, MKISO, ISO_DIR, extra_inputs=[GRUB_TEMPLATE]).get(CMDLINE)
    syms = symbols(KERNEL)
    target_name, call_name = TARGETS.get(args.tracer, (TARGET, "target"))
    target = next(a for a, n in syms if n == target_name)
    port = free_port()
    # -icount: the guest clock follows instructions, not the host, so the seconds that
    # stepping takes do not show up as time between events (time extends, page changes).
    qemu = [os.environ.get("QEMU", "qemu-system-x86_64"), "-accel", "tcg,thread=single",
            "-icount", "shift=0",
            "-smp", "1", "-m", "256M", "-cdrom", str(iso), "-display", "none",
            "-serial", "stdio", "-no-reboot", "-monitor", "none",
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", "-gdb", f"tcp::{port}"]
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "serial.log"
        pcs_file = Path(tmp) / "pcs"
        console = Console(qemu, log)
        try:
            if console.wait_boot(180).timed_out:
                sys.exit("icount: fentros did not boot")
            for cmd in SETUP[args.tracer]:
                reply = console.command(cmd.encode() + b"\r", 60)
                if any(line.strip() for line in reply.lines[1:]):
                    sys.exit(f"icount: `{cmd}` said: {reply.lines[1:]}")
            script = Path(tmp) / "step.py"
            script.write_text(GDB_SCRIPT % {"port": port, "target": target,
                                             "out": str(pcs_file), "limit": args.limit})
            gdb = subprocess.Popen(["gdb", "-nx", "-batch", "-x", str(script), str(KERNEL)],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            time.sleep(3)  # gdb connects, sets the breakpoint and lets the guest run on
            console.send(f"ftrace_test_call {call_name} 3\r".encode())
            out, _ = gdb.communicate(timeout=600)
            if not pcs_file.exists():
                sys.exit("icount: gdb stepped nothing:\n" + out)
            pcs = [int(x, 16) for x in pcs_file.read_text().split()]
        finally:
            console.kill()

    insns = disassembly(KERNEL)
    per_fn = OrderedDict()
    kinds = {"ret": 0, "indirect": 0, "rdtsc": 0, "iflag": 0}
    for pc in pcs:
        fn = owner(syms, pc)
        per_fn[fn] = per_fn.get(fn, 0) + 1
        insn = insns.get(pc, "?")
        k = kind(insn)
        if k:
            kinds[k] += 1
        if args.verbose:
            print(f"{pc:x}  {fn:32} {insn}")
    print(f"{args.tracer}: one call of {target_name}, {len(pcs)} instructions")
    for fn, n in per_fn.items():
        print(f"  {n:5}  {fn}")
    print("  returns %(ret)d, indirect calls/jumps %(indirect)d, rdtsc %(rdtsc)d, "
          "interrupt-flag instructions %(iflag)d" % kinds)
    ntargets, collisions = jump_cache_collisions(pcs, insns)
    print(f"  lookup targets {ntargets}, sharing a jump-cache slot: {len(collisions)} groups")
    for group in collisions:
        print("    " + ", ".join(f"{pc:x} ({owner(syms, pc)})" for pc in group))
    if args.results:
        try:
            bench_results.update([results_row(args.tracer, len(pcs))], args.results)
        except (OSError, bench_results.ResultsError) as err:
            sys.exit(f"icount: {err}")
        print(f"{bench_results.rel(args.results)}: the {args.tracer} row rewritten")


if __name__ == "__main__":
    main()
