#!/usr/bin/env python3
"""make bench-linux: fentros's tracer costs side by side with Linux's, in the same QEMU.

Boots Debian's stock Linux kernel (fetched with `apt-get download`, cached outside the
repository) with a busybox initramfs and tools/linux-bench/syscall_loop, and measures in
/sys/kernel/tracing:

  function, function_graph   a tight loop of getppid() system calls, with tracing off and
                             with the tracer on and set_ftrace_filter holding only the
                             syscall's function, timed in short chunks; overhead per
                             event = (chunk time with tracer - without) / events written
                             per chunk, events from entries-written (the whole-loop
                             version of the same formula is printed too)
  enable all                 `echo function > current_tracer` with no filter, timed inside
                             the guest, divided by the lines of available_filter_functions
  bytes per event            per_cpu/cpu0/stats: bytes / entries
  events and triggers        raw_syscalls:sys_enter on, alone and with a `traceoff:0`
                             trigger; a two-key hist trigger on it with the event off and
                             on: per sys_enter, against the same loop with tracing off
  snapshot swap              the snapshot allocated (`echo 1 > snapshot`), then writes of
                             `1` to snapshot from user space on one open file, each timed:
                             a swap of every CPU's buffer, syscall included (fentros's
                             snapshot.write: the same write through its file, which has no
                             system call to make); also less a getppid() round trip
  wakeup-latency pair        histogram.rst's example: the synthetic event wakeup_latency, a
                             hist trigger saving ts0 on sched_waking, one on sched_switch
                             whose onmatch() generates wakeup_latency, and a hist on that,
                             all filtered on comm bench_pingpong; a ping-pong between two
                             such threads of one process over pipes (SCHED_FIFO, pinned to
                             CPU 0: two wakeups and two switches a round trip, four system
                             calls), `syscall_loop -p`, timed without and with
                             the triggers: ns per round trip and the triggers' cost per
                             round trip (fentros's wakeup_latency row: two kernel threads
                             over wait queues, the same triggers through the same files)

then boots fentros with the same accelerator, CPU count and memory, runs `bench`, and
prints both with the ratio fentros/Linux and the targets relative to Linux.

    python3 tests/bench_linux.py --smp 2

Multi-threaded TCG is tried first; if Linux stops making progress under it (this QEMU has
soft-locked Debian's kernel while it patched code), both kernels are measured again with
`-accel tcg,thread=single`, and the table says so.
"""

import argparse
import gzip
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import bench  # noqa: E402
import bench_results  # noqa: E402
from fentros_machine import qemu  # noqa: E402

ROOT = bench.ROOT
LOG_DIR = bench.LOG_DIR
TOOL_SRC = ROOT / "tools" / "linux-bench" / "syscall_loop.c"
TOOL_BIN = ROOT / "build" / "linux-bench" / "syscall_loop"
# Shared with tools/linux-ref's cache when both are used: same files, same layout.
DEFAULT_CACHE = Path(os.environ.get("LINUX_REF_CACHE",
                                    Path.home() / ".cache" / "linux-ref"))

# Where Linux's getppid lands, by kernel version: the first one listed in
# available_filter_functions is traced.
SYSCALL_FUNCS = ("__x64_sys_getppid", "__do_sys_getppid", "sys_getppid")

# The mitigations that change the cost of Linux's entry, returns and indirect calls.
MITIGATIONS_SHOWN = ("spectre_v2", "retbleed", "spec_rstack_overflow")

# Linux is declared stuck after this long without a line of output, or at once when its
# watchdogs report a lockup.
STALL_SECONDS = 180
LOCKUP_RE = re.compile(r"soft lockup|hard LOCKUP|rcu_\w+ (self-)?detected stall")


class LinuxError(Exception):
    def __init__(self, message, stuck=False, tail=()):
        super().__init__(message)
        self.stuck = stuck
        self.tail = list(tail)


# ---- the kernel, busybox and the guest program ----

def run_quiet(argv, cwd=None):
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if proc.returncode != 0:
        raise LinuxError(f"`{' '.join(argv)}` failed with status {proc.returncode}",
                         tail=proc.stdout.splitlines()[-10:])
    return proc.stdout


def fetch_linux(cache):
    """vmlinuz and a static busybox from Debian's archive, unpacked into `cache` once."""
    if (cache / "vmlinuz").is_file() and (cache / "busybox").is_file():
        return
    cache.mkdir(parents=True, exist_ok=True)
    policy = run_quiet(["apt-cache", "policy", "linux-image-cloud-amd64"])
    if not re.search(r"Candidate: (?!\(none\))\S+", policy):
        run_quiet(["apt-get", "update", "-qq"])
    depends = run_quiet(["apt-cache", "depends", "linux-image-cloud-amd64"])
    match = re.search(r"Depends: (linux-image-[0-9]\S*)", depends)
    if not match:
        raise LinuxError("cannot find the kernel package linux-image-cloud-amd64 depends on")
    with tempfile.TemporaryDirectory() as tmp:
        run_quiet(["apt-get", "download", "-qq", "-o", "APT::Sandbox::User=root",
                   match.group(1), "busybox-static"], cwd=tmp)
        unpacked = Path(tmp) / "x"
        for deb in Path(tmp).glob("*.deb"):
            run_quiet(["dpkg", "-x", str(deb), str(unpacked)])
        kernels = sorted((unpacked / "boot").glob("vmlinuz-*"))
        configs = sorted((unpacked / "boot").glob("config-*"))
        if not kernels or not (unpacked / "bin" / "busybox").is_file():
            raise LinuxError("the downloaded packages hold no vmlinuz or busybox")
        # Copied under temporary names first: an interrupted fetch must not look cached.
        for src, name in ((kernels[0], "vmlinuz"), (unpacked / "bin" / "busybox", "busybox"),
                          *(((configs[0], "config"),) if configs else ())):
            shutil.copy(src, cache / f"{name}.tmp")
            os.replace(cache / f"{name}.tmp", cache / name)


def build_tool():
    """tools/linux-bench/syscall_loop.c, static, for the guest (no C library there)."""
    if TOOL_BIN.is_file() and TOOL_BIN.stat().st_mtime >= TOOL_SRC.stat().st_mtime:
        return TOOL_BIN
    TOOL_BIN.parent.mkdir(parents=True, exist_ok=True)
    run_quiet(["gcc", "-static", "-O2", "-pthread", "-Wall", "-Wextra", "-o", str(TOOL_BIN),
               str(TOOL_SRC)])
    return TOOL_BIN


# ---- the initramfs, written directly as newc cpio ----

def cpio_entry(ino, name, mode, data=b"", rdev=(0, 0)):
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name) + 1, 0]
    header = b"070701" + b"".join(b"%08x" % f for f in fields)
    out = header + name.encode() + b"\0"
    out += b"\0" * (-len(out) % 4)
    return out + data + b"\0" * (-len(data) % 4)


def make_initrd(busybox, tool, script):
    init = (
        "#!/bin/busybox sh\n"
        "/bin/busybox --install -s /bin\n"
        "mount -t proc proc /proc\n"
        "mount -t sysfs sys /sys\n"
        "mount -t tracefs nodev /sys/kernel/tracing\n"
        "cd /sys/kernel/tracing\n"
        "echo \"=== bench-linux: $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs\"\n"
        "sh /bench.sh\n"
        "echo '=== bench-linux: done'\n"
        "poweroff -f\n")
    entries = [(d, 0o040755, b"", (0, 0)) for d in ("bin", "dev", "proc", "sys", "tmp")]
    entries += [("dev/console", 0o020600, b"", (5, 1)),
                ("bin/busybox", 0o100755, busybox.read_bytes(), (0, 0)),
                ("bin/syscall_loop", 0o100755, tool.read_bytes(), (0, 0)),
                ("init", 0o100755, init.encode(), (0, 0)),
                ("bench.sh", 0o100644, script.encode(), (0, 0))]
    parts = [cpio_entry(ino, *entry) for ino, entry in enumerate(entries, start=1)]
    parts.append(cpio_entry(0, "TRAILER!!!", 0))
    raw = b"".join(parts)
    raw += b"\0" * (-len(raw) % 512)
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
        gz.write(raw)
    return buf.getvalue()


# ---- the guest script ----

def guest_script(calls, chunk, reps, enable_reps, swaps=1000, trips=10000):
    """A busybox sh script run in /sys/kernel/tracing; every result is a `BENCH` line."""
    funcs = " ".join(SYSCALL_FUNCS)
    return f"""\
say() {{ echo "BENCH $*"; }}
# entries-written as the function tracer's trace header counts it (function_graph's header
# has no such line): entries + overrun summed over the CPUs. Bytes and entries of cpu0,
# where the loop runs, give the bytes per event.
written() {{ cat per_cpu/cpu*/stats | awk '/^(entries|overrun):/ {{s += $2}} END {{print s}}'; }}
stats() {{
    awk '/^entries:/ {{e = $2}} /^bytes:/ {{b = $2}} END {{print "entries=" e, "bytes=" b}}' \
        per_cpu/cpu0/stats
}}
# Function-call IPIs on every CPU: Linux's text_poke_sync rounds show up here.
cal_ipis() {{
    awk '$1 == "CAL:" {{s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s}}' \
        /proc/interrupts
}}

fn=""
for f in {funcs}; do
    if grep -qx "$f" available_filter_functions; then fn=$f; break; fi
done
say kernel release=$(uname -r)
say sites count=$(wc -l < available_filter_functions)
say buffer_size_kb value=$(cat buffer_size_kb)
say clocksource name=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
# Speculation mitigations change every kernel entry, return and indirect call: name them.
for f in /sys/devices/system/cpu/vulnerabilities/*; do
    say mitigation $(basename $f)=$(tr ' ' _ < $f)
done
if [ -z "$fn" ]; then say error no getppid function in available_filter_functions; exit 0; fi
say syscall_function name=$fn
# "ftrace: allocating 35051 entries in 137 pages": Linux's call-site records at boot.
allocating='s/.*ftrace: allocating \\([0-9]*\\) entries in \\([0-9]*\\) pages.*/\\1 \\2/p'
set -- $(dmesg | sed -n "$allocating")
say records entries=${{1:-0}} pages=${{2:-0}}
echo "$fn" > set_ftrace_filter || say error cannot filter on $fn

for i in $(seq {reps}); do
    echo nop > current_tracer
    say off $(/bin/syscall_loop {calls} {chunk})
    echo function > current_tracer
    echo > trace
    say function $(/bin/syscall_loop {calls} {chunk}) written=$(written) $(stats)
    echo function_graph > current_tracer
    echo > trace
    say function_graph $(/bin/syscall_loop {calls} {chunk}) written=$(written) $(stats)
done
echo nop > current_tracer
echo > set_ftrace_filter
echo > trace

# One trace event per getppid(): raw_syscalls:sys_enter, a 64-byte record like
# sched_switch's. Turned off before `written` runs, so its own syscalls add no events.
for i in $(seq {reps}); do
    echo > trace
    echo 1 > events/raw_syscalls/sys_enter/enable
    line=$(/bin/syscall_loop {calls} {chunk})
    echo 0 > events/raw_syscalls/sys_enter/enable
    say event $line written=$(written) $(stats)
done
echo > trace

# Triggers on the same event (fentros's `bench event_trigger` and `bench hist_trigger`):
# sys_enter on with `traceoff:0`, which never fires; a two-key hist trigger with the event
# off (soft mode: the record is built for the trigger alone) and with it on.
ev=events/raw_syscalls/sys_enter
hist='hist:keys=common_pid,id:vals=id'
for i in $(seq {reps}); do
    echo > trace
    echo 'traceoff:0' > $ev/trigger || say error cannot add a traceoff trigger
    echo 1 > $ev/enable
    line=$(/bin/syscall_loop {calls} {chunk})
    echo 0 > $ev/enable
    echo '!traceoff:0' > $ev/trigger
    say trigger $line written=$(written) $(stats)
    echo "$hist" > $ev/trigger || say error cannot add a hist trigger
    say hist_off $(/bin/syscall_loop {calls} {chunk})
    echo > trace
    echo 1 > $ev/enable
    line=$(/bin/syscall_loop {calls} {chunk})
    echo 0 > $ev/enable
    say hist_on $line written=$(written) $(stats)
    echo "!$hist" > $ev/trigger
done
echo > trace

# kprobe events on the same function: an entry probe with two fetch args, a return
# probe with $retval, and an int3 probe at +5 (the instruction after the ftrace site; jump
# optimization off, so it stays an int3 as fentros's) with the same two args, one record
# per getppid() each (fentros's `bench kprobe` rows).
echo 0 > /proc/sys/debug/kprobes-optimization 2>/dev/null
echo "p:kprobes/bench_kp $fn a=%di b=%si" > kprobe_events || say error cannot add a kprobe
echo "r:kprobes/bench_kr $fn ret=\$retval" >> kprobe_events || say error cannot add a kretprobe
echo "p:kprobes/bench_ki $fn+5 a=%di b=%si" >> kprobe_events || say error cannot add an int3 kprobe
for i in $(seq {reps}); do
    for k in kp kr ki; do
        echo > trace
        echo 1 > events/kprobes/bench_$k/enable
        line=$(/bin/syscall_loop {calls} {chunk})
        echo 0 > events/kprobes/bench_$k/enable
        say kprobe_$k $line written=$(written) $(stats)
    done
done
echo > kprobe_events
echo > trace

# A snapshot swap (fentros's snapshot.write): allocated once with a first swap, then
# writes of 1 on one open file, each swapping every CPU's buffer; freed after.
for i in $(seq {reps}); do
    echo 1 > snapshot || say error cannot allocate the snapshot
    say snapshot $(/bin/syscall_loop -n {swaps} snapshot 1)
    echo 0 > snapshot
done

# histogram.rst's wakeup-latency pair (fentros's wakeup_latency row) around a ping-pong of
# two threads named bench_pingpong: without the triggers, then with them; the synthetic
# event's hits count the wakeup+switch pairs that matched.
synth='wakeup_latency u64 lat; pid_t pid; int prio'
waking='hist:keys=pid:ts0=common_timestamp.usecs if comm=="bench_pingpong"'
switch='hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,next_prio) if next_comm=="bench_pingpong"'
lathist='hist:keys=pid,prio,lat:sort=pid,lat'
for i in $(seq {reps}); do
    say pingpong_off $(/bin/syscall_loop -p {trips} {chunk})
    echo "$synth" >> synthetic_events || say error cannot define wakeup_latency
    echo "$waking" >> events/sched/sched_waking/trigger || say error cannot add the waking trigger
    echo "$switch" >> events/sched/sched_switch/trigger || say error cannot add the switch trigger
    echo "$lathist" >> events/synthetic/wakeup_latency/trigger || say error cannot add the hist
    line=$(/bin/syscall_loop -p {trips} {chunk})
    say pingpong_on $line hits=$(sed -n 's/^ *Hits: //p' events/synthetic/wakeup_latency/hist)
    echo "!$lathist" >> events/synthetic/wakeup_latency/trigger
    echo "!$switch" >> events/sched/sched_switch/trigger
    echo "!$waking" >> events/sched/sched_waking/trigger
    echo '!wakeup_latency' >> synthetic_events
done

for i in $(seq {enable_reps}); do
    before=$(cal_ipis)
    line=$(/bin/syscall_loop -w current_tracer function)
    after=$(cal_ipis)
    say enable $line enabled=$(wc -l < enabled_functions) cal_ipis=$((after - before))
    say disable $(/bin/syscall_loop -w current_tracer nop)
done
"""


def parse_guest(lines):
    """`BENCH kind k=v ...` lines -> {kind: [dict, ...]}."""
    out = {}
    for line in lines:
        if not line.startswith("BENCH "):
            continue
        words = line.split()
        fields = dict(w.split("=", 1) for w in words[2:] if "=" in w)
        if words[1] == "error":
            fields["text"] = " ".join(words[2:])
        out.setdefault(words[1], []).append(fields)
    return out


# ---- booting Linux ----

def boot_linux(cache, tool, script, smp, accel, mem, log, stream=None, timeout=1800):
    """Run the script in Linux under QEMU: the guest's output lines. Raises LinuxError."""
    initrd_bytes = make_initrd(cache / "busybox", tool, script)
    with tempfile.TemporaryDirectory() as tmp:
        initrd = Path(tmp) / "initrd.gz"
        initrd.write_bytes(initrd_bytes)
        argv = qemu.machine_argv(smp, mem, accel) + [
            "-kernel", str(cache / "vmlinuz"), "-initrd", str(initrd),
            "-append", "console=ttyS0 quiet panic=-1"]
        return run_guest(argv, log, stream, timeout)


def run_guest(argv, log, stream, timeout):
    """Run QEMU until the guest powers off; kill it when it stalls, locks up or overruns."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    lines = []
    last_output = [time.monotonic()]
    why = []

    def watchdog():
        began = time.monotonic()
        while proc.poll() is None:
            now = time.monotonic()
            if now - last_output[0] > STALL_SECONDS:
                why.append(f"no output for {STALL_SECONDS}s")
            elif now - began > timeout:
                why.append(f"not done after {timeout}s")
            if why:
                proc.kill()
                return
            time.sleep(1)

    threading.Thread(target=watchdog, daemon=True).start()
    with open(log, "w") as logf:
        for raw in proc.stdout:
            line = raw.decode("utf-8", errors="replace").replace("\r", "").rstrip("\n")
            last_output[0] = time.monotonic()
            lines.append(line)
            logf.write(line + "\n")
            logf.flush()
            if stream:
                print(line, file=stream, flush=True)
            # Figures from a kernel whose watchdog fires are worthless, and a real lockup
            # keeps printing, so the stall timer alone would not end it.
            if LOCKUP_RE.search(line) and not why:
                why.append(f"the guest reported: {line.strip()}")
                proc.kill()
    proc.wait()
    if not any(line.startswith("=== bench-linux: done") for line in lines):
        stuck = bool(why)
        reason = why[0] if why else f"QEMU exited with status {proc.returncode}"
        raise LinuxError(f"Linux did not finish the bench script: {reason} "
                         f"(log: {bench.rel(log)})",
                         stuck=stuck, tail=lines[-15:])
    return lines


# ---- figures ----

class Stat:
    """A min and a median, in ns and, where known, TSC cycles."""

    def __init__(self, min_ns, median_ns, min_cycles=None, median_cycles=None):
        self.min, self.median = min_ns, median_ns
        self.cycles_min, self.cycles_median = min_cycles, median_cycles

    @classmethod
    def of(cls, ns, cycles=None):
        return cls(min(ns), statistics.median(ns), min(cycles) if cycles else None,
                   statistics.median(cycles) if cycles else None)

    def scaled(self, k):
        def mul(v):
            return None if v is None else v * k
        return Stat(self.min * k, self.median * k, mul(self.cycles_min), mul(self.cycles_median))


def overhead(on, off, events):
    """(with tracer - without) / events: min against min, median against median, as
    fentros's rows compute it."""
    return ((min(on) - min(off)) / events, (statistics.median(on) - statistics.median(off)) /
            events)


class LoopRuns:
    """The loops of one tracer setting: whole-loop times and the chunk minima and medians."""

    def __init__(self, guest, kind):
        def ints(key):
            return [int(d[key]) for d in guest.get(kind, []) if d.get(key, "").isdigit()]
        self.calls, self.chunk = ints("calls"), ints("chunk")
        self.ns, self.cycles = ints("ns"), ints("cycles")
        self.chunk_min, self.chunk_median = ints("chunk_min"), ints("chunk_median")
        self.written, self.entries, self.bytes = ints("written"), ints("entries"), ints("bytes")
        if not self.calls or not self.chunk_min or not self.chunk_median:
            raise LinuxError(f"the Linux bench script printed no {kind} loop")

    def chunk_stat(self):
        """Cycles per chunk: the smallest chunk minimum, the median of chunk medians."""
        return min(self.chunk_min), statistics.median(self.chunk_median)


def linux_figures(guest):
    """The guest's BENCH lines -> {name: (Stat or number, unit)}."""
    errors = [d["text"] for d in guest.get("error", [])]
    if errors:
        raise LinuxError("the Linux bench script failed: " + "; ".join(errors))
    off = LoopRuns(guest, "off")
    calls, chunk = off.calls[0], off.chunk[0]
    # The guest TSC against CLOCK_MONOTONIC over whole loops: cycles -> ns for chunk times.
    per_ns = statistics.median(c / n for c, n in zip(off.cycles, off.ns))

    def cycles_stat(lo, mid):
        return Stat(lo / per_ns, mid / per_ns, lo, mid)

    fig = {"tsc_mhz": (per_ns * 1000, "MHz")}
    lo, mid = off.chunk_stat()
    fig["loop"] = (cycles_stat(lo / chunk, mid / chunk), "per getppid()")
    for tracer in ("function", "function_graph"):
        on = LoopRuns(guest, tracer)
        if not on.written or min(on.written) == 0:
            raise LinuxError(f"Linux wrote no {tracer} events")
        # The loop's one warm-up call before its timed chunks wrote events too.
        per_call = statistics.median(on.written) / (calls + 1)
        (on_lo, on_mid), (off_lo, off_mid) = on.chunk_stat(), off.chunk_stat()
        events = chunk * per_call
        fig[f"{tracer}.event"] = (cycles_stat((on_lo - off_lo) / events,
                                              (on_mid - off_mid) / events), "ns")
        # The whole-loop formula, pauses of the vCPU thread included (BENCH_RESULTS:
        # function.event_loop).
        written = statistics.median(on.written)
        fig[f"{tracer}.event_loop"] = (Stat(*overhead(on.ns, off.ns, written),
                                            *overhead(on.cycles, off.cycles, written)), "ns")
        fig[f"{tracer}.events_per_call"] = (per_call, "events")
        if on.entries and on.bytes and on.entries[-1]:
            fig[f"{tracer}.bytes"] = (on.bytes[-1] / on.entries[-1], "bytes")
    per_call = fig["function_graph.events_per_call"][0]
    fig["function_graph.call"] = (fig["function_graph.event"][0].scaled(per_call), "ns")

    if guest.get("event"):
        ev = LoopRuns(guest, "event")
        if ev.written and min(ev.written) > 0:
            # At least one sys_enter per call; the shell's few syscalls around the loop
            # make the median a little more.
            per_call = max(1.0, statistics.median(ev.written) / (calls + 1))
            (on_lo, on_mid), (off_lo, off_mid) = ev.chunk_stat(), off.chunk_stat()
            events = chunk * per_call
            fig["event.sys_enter"] = (cycles_stat((on_lo - off_lo) / events,
                                                  (on_mid - off_mid) / events), "ns")
            fig["event.events_per_call"] = (per_call, "events")
            if ev.entries and ev.bytes and ev.entries[-1]:
                fig["event.bytes"] = (ev.bytes[-1] / ev.entries[-1], "bytes")

    if guest.get("event") and "event.events_per_call" in fig:
        # The trigger rows: per sys_enter, as many per getppid() as the plain event had
        # (the hist trigger with the event off writes none to count).
        events = chunk * fig["event.events_per_call"][0]
        off_lo, off_mid = off.chunk_stat()
        for kind in ("trigger", "hist_off", "hist_on"):
            if guest.get(kind):
                on_lo, on_mid = LoopRuns(guest, kind).chunk_stat()
                fig[f"{kind}.sys_enter"] = (cycles_stat((on_lo - off_lo) / events,
                                                        (on_mid - off_mid) / events), "ns")

    for kind in ("kprobe_kp", "kprobe_kr", "kprobe_ki"):
        if not guest.get(kind):
            continue
        kp = LoopRuns(guest, kind)
        if kp.written and min(kp.written) > 0:
            per_call = max(1.0, statistics.median(kp.written) / (calls + 1))
            (on_lo, on_mid), (off_lo, off_mid) = kp.chunk_stat(), off.chunk_stat()
            events = chunk * per_call
            fig[f"{kind}.event"] = (cycles_stat((on_lo - off_lo) / events,
                                                (on_mid - off_mid) / events), "ns")
            fig[f"{kind}.events_per_call"] = (per_call, "events")

    writes = LooplessRuns(guest, "snapshot")
    if writes.ints("min") and writes.ints("median"):
        lo, mid = min(writes.ints("min")), statistics.median(writes.ints("median"))
        fig["snapshot.write"] = (cycles_stat(lo, mid), "ns")
        # Less a system call's round trip: what the kernel spends past its entry and exit.
        loop_lo, loop_mid = off.chunk_stat()
        fig["snapshot.write_nosyscall"] = (cycles_stat(lo - loop_lo / chunk,
                                                       mid - loop_mid / chunk), "ns")

    pingpong = {kind: PingPongRuns(guest, kind) for kind in ("pingpong_off", "pingpong_on")}
    if all(p.chunk_min for p in pingpong.values()):
        trips = {}
        for kind, runs in pingpong.items():
            trips[kind] = runs.per_trip()
            fig[f"{kind}.trip"] = (cycles_stat(*trips[kind]), "ns")
        (on_lo, on_mid), (off_lo, off_mid) = trips["pingpong_on"], trips["pingpong_off"]
        fig["pingpong.cost"] = (cycles_stat(on_lo - off_lo, on_mid - off_mid), "ns")
        matches = pingpong["pingpong_on"].matches()
        if matches is not None:
            fig["pingpong.matches"] = (matches, "per mille")

    records = guest.get("records", [{}])[0]
    entries, pages = int(records.get("entries", "0")), int(records.get("pages", "0"))
    if entries and pages:
        fig["records.boot"] = (pages * 4096, "bytes")
        fig["records.per_site"] = (pages * 4096 / entries, "bytes")

    sites = int(guest.get("sites", [{}])[0].get("count", "0"))
    enable = LooplessRuns(guest, "enable")
    if not sites or not enable.ns:
        raise LinuxError("the Linux bench script never enabled the function tracer")
    fig["sites"] = (sites, "sites")
    fig["enable.all"] = (Stat.of(enable.ns, enable.cycles), "ns")
    fig["enable.site"] = (Stat.of([n / sites for n in enable.ns],
                                  [c / sites for c in enable.cycles]), "ns")
    fig["enable.enabled"] = (max(enable.ints("enabled") or [0]), "functions")
    fig["enable.ipis"] = (statistics.median(enable.ints("cal_ipis") or [0]), "IPIs")
    disable = LooplessRuns(guest, "disable")
    if disable.ns:
        fig["disable.all"] = (Stat.of(disable.ns, disable.cycles), "ns")
    return fig


class LooplessRuns:
    """Timed writes (`syscall_loop -w`, `-n`): ns and cycles of each line."""

    def __init__(self, guest, kind):
        self.items = guest.get(kind, [])
        self.ns, self.cycles = self.ints("ns"), self.ints("cycles")

    def ints(self, key):
        return [int(d[key]) for d in self.items if d.get(key, "").isdigit()]


class PingPongRuns(LooplessRuns):
    """The ping-pong loops of one setting (`syscall_loop -p`): cycles per round trip."""

    def __init__(self, guest, kind):
        super().__init__(guest, kind)
        self.trips, self.chunk = self.ints("trips"), self.ints("chunk")
        self.chunk_min, self.chunk_median = self.ints("chunk_min"), self.ints("chunk_median")
        self.hits = self.ints("hits")

    def per_trip(self):
        """Cycles per round trip: the smallest chunk minimum, the median of chunk medians."""
        chunk = self.chunk[0]
        return min(self.chunk_min) / chunk, statistics.median(self.chunk_median) / chunk

    def matches(self):
        """wakeup_latency events per 1000 round trips, the untimed first chunk counted."""
        if not self.hits or not self.trips:
            return None
        return statistics.median(1000 * h / (t + c) for h, t, c in
                                 zip(self.hits, self.trips, self.chunk))


def linux_table(fig):
    rows = [
        ("tsc_mhz", "guest TSC rate against CLOCK_MONOTONIC"),
        ("loop", "getppid() round trip, tracing off"),
        ("function.event", "function: overhead per event written"),
        ("function.event_loop", "  the same from whole loops"),
        ("function.events_per_call", "function: events written per getppid()"),
        ("function_graph.event", "function_graph: overhead per event written"),
        ("function_graph.event_loop", "  the same from whole loops"),
        ("function_graph.call", "function_graph: overhead per traced call"),
        ("function_graph.events_per_call", "function_graph: events per getppid()"),
        ("sites", "sites (lines of available_filter_functions)"),
        ("enable.all", "echo function > current_tracer (no filter)"),
        ("enable.site", "  the same, per site"),
        ("enable.enabled", "  functions it enabled (enabled_functions)"),
        ("enable.ipis", "  function-call IPIs it sent (CAL)"),
        ("disable.all", "echo nop > current_tracer after it"),
        ("records.boot", "call-site records at boot (dmesg: pages)"),
        ("records.per_site", "  bytes per record, page slack included"),
        ("function.bytes", "bytes per function event (cpu0 stats)"),
        ("function_graph.bytes", "bytes per graph event, entry/return average"),
        ("event.sys_enter", "raw_syscalls:sys_enter on: overhead per event"),
        ("event.events_per_call", "  sys_enter events per getppid()"),
        ("event.bytes", "bytes per sys_enter event (cpu0 stats)"),
        ("trigger.sys_enter", "sys_enter on with traceoff:0: per event"),
        ("hist_off.sys_enter", "two-key hist trigger, sys_enter off: per event"),
        ("hist_on.sys_enter", "two-key hist trigger, sys_enter on: per event"),
        ("kprobe_kp.event", "kprobe, two fetch args: overhead per event"),
        ("kprobe_kp.events_per_call", "  kprobe events per getppid()"),
        ("kprobe_kr.event", "kretprobe, $retval: overhead per event"),
        ("kprobe_kr.events_per_call", "  kretprobe events per getppid()"),
        ("kprobe_ki.event", "int3 kprobe at +5, two fetch args: overhead per event"),
        ("kprobe_ki.events_per_call", "  int3 kprobe events per getppid()"),
        ("snapshot.write", "a write of 1 to snapshot (every CPU swapped)"),
        ("snapshot.write_nosyscall", "  the same less a getppid() round trip"),
        ("pingpong_off.trip", "ping-pong round trip, no triggers"),
        ("pingpong_on.trip", "  with histogram.rst's wakeup_latency triggers"),
        ("pingpong.cost", "  the triggers' cost per round trip"),
        ("pingpong.matches", "  wakeup_latency events per 1000 round trips"),
    ]
    lines = [f"{'row':<32} {'what':<46} {'min cyc':>12} {'median cyc':>12} "
                     f"{'min ns':>12} {'median ns':>12}"]
    for name, what in rows:
        if name not in fig:
            continue
        value, unit = fig[name]
        if isinstance(value, Stat):
            cyc = (f"{value.cycles_min:12.0f} {value.cycles_median:12.0f}"
                   if value.cycles_min is not None else f"{'':12} {'':12}")
            lines.append(f"{name:<32} {what:<46} {cyc} {value.min:12.1f} {value.median:12.1f}")
        else:
            text = f"{value:.2f}" if isinstance(value, float) and value % 1 else f"{value:.0f}"
            lines.append(f"{name:<32} {what:<46} {text:>38} {unit}")
    return lines


# ---- side by side ----

def ours(run, name, field="median_ns"):
    """A fentros figure's timing field, or its value; None if the row was not printed."""
    figure = run.get(name)
    if figure is None:
        return None
    return figure.number(field if field in figure.fields else "value")


def ours_graph_bytes(run):
    """fentros's graph entry and return event sizes averaged, as Linux's stats average them."""
    entry, ret = ours(run, "memory.graph_entry"), ours(run, "memory.graph_return")
    return (entry + ret) / 2 if entry is not None and ret is not None else None


def comparison(run, fig):
    """Rows of (what, fentros, Linux, unit, target: at most this ratio, or None)."""
    def theirs(name, field="median"):
        value = fig.get(name, (None,))[0]
        return getattr(value, field) if isinstance(value, Stat) else value

    return [
        ("function: overhead per event, median", ours(run, "function.event"),
         theirs("function.event"), "ns", 0.5),
        ("function: overhead per event, min", ours(run, "function.event", "min_ns"),
         theirs("function.event", "min"), "ns", 0.5),
        ("graph: overhead per event, median", ours(run, "graph.event"),
         theirs("function_graph.event"), "ns", 0.5),
        ("graph: overhead per event, min", ours(run, "graph.event", "min_ns"),
         theirs("function_graph.event", "min"), "ns", 0.5),
        ("graph: overhead per traced call, median", ours(run, "graph.call"),
         theirs("function_graph.call"), "ns", None),
        ("enable all functions: per site, median", ours(run, "patch.all.on_site"),
         theirs("enable.site"), "ns", 0.5),
        ("enable all functions: per site, min", ours(run, "patch.all.on_site", "min_ns"),
         theirs("enable.site", "min"), "ns", 0.5),
        ("enable all functions: total, median", ours(run, "patch.all.on"),
         theirs("enable.all"), "ns", None),
        ("call sites", ours(run, "patch.sites"), theirs("sites"), "sites", None),
        ("sync rounds (fentros) / CAL IPIs (Linux), enable all",
         ours(run, "patch.all.on_rounds"), theirs("enable.ipis"), "", None),
        ("call-site records at boot", ours(run, "memory.ftrace_boot"), theirs("records.boot"),
         "bytes", None),
        ("bytes per call-site record (Linux: with page slack)", ours(run, "memory.record"),
         theirs("records.per_site"), "bytes", None),
        ("bytes per function event", ours(run, "memory.function"), theirs("function.bytes"),
         "bytes", None),
        ("bytes per graph event (entry/return average)", ours_graph_bytes(run),
         theirs("function_graph.bytes"), "bytes", None),
        ("64-byte event on (sched_switch / sys_enter), median",
         ours(run, "events.on.sched_switch"), theirs("event.sys_enter"), "ns", None),
        ("64-byte event on (sched_switch / sys_enter), min",
         ours(run, "events.on.sched_switch", "min_ns"), theirs("event.sys_enter", "min"), "ns",
         None),
        ("event with traceoff:0 (sched_wakeup / sys_enter), median",
         ours(run, "event_trigger.with"), theirs("trigger.sys_enter"), "ns", None),
        ("event with traceoff:0 (sched_wakeup / sys_enter), min",
         ours(run, "event_trigger.with", "min_ns"), theirs("trigger.sys_enter", "min"), "ns",
         None),
        ("two-key hist trigger, event off, median", ours(run, "hist_trigger.off"),
         theirs("hist_off.sys_enter"), "ns", None),
        ("two-key hist trigger, event off, min", ours(run, "hist_trigger.off", "min_ns"),
         theirs("hist_off.sys_enter", "min"), "ns", None),
        ("two-key hist trigger, event on, median", ours(run, "hist_trigger.on"),
         theirs("hist_on.sys_enter"), "ns", None),
        ("two-key hist trigger, event on, min", ours(run, "hist_trigger.on", "min_ns"),
         theirs("hist_on.sys_enter", "min"), "ns", None),
        ("kprobe, two fetch args: per event, median", ours(run, "kprobe.entry2"),
         theirs("kprobe_kp.event"), "ns", None),
        ("kprobe, two fetch args: per event, min", ours(run, "kprobe.entry2", "min_ns"),
         theirs("kprobe_kp.event", "min"), "ns", None),
        ("kretprobe, $retval: per event, median", ours(run, "kprobe.return"),
         theirs("kprobe_kr.event"), "ns", None),
        ("kretprobe, $retval: per event, min", ours(run, "kprobe.return", "min_ns"),
         theirs("kprobe_kr.event", "min"), "ns", None),
        ("int3 kprobe at an offset: per event, median", ours(run, "kprobe.int3"),
         theirs("kprobe_ki.event"), "ns", None),
        ("int3 kprobe at an offset: per event, min", ours(run, "kprobe.int3", "min_ns"),
         theirs("kprobe_ki.event", "min"), "ns", None),
        # Linux 6.1 has no fprobe events: its nearest is the kprobe on the same ftrace site,
        # which is what an fprobe event is on fentros.
        ("fprobe, two fetch args (Linux: kprobe on the site): per event, median",
         ours(run, "kprobe.fprobe2"), theirs("kprobe_kp.event"), "ns", None),
        ("fprobe, two fetch args (Linux: kprobe on the site): per event, min",
         ours(run, "kprobe.fprobe2", "min_ns"), theirs("kprobe_kp.event", "min"), "ns", None),
        ("fprobe exit, $retval (Linux: kretprobe): per event, median",
         ours(run, "kprobe.fexit"), theirs("kprobe_kr.event"), "ns", None),
        ("fprobe exit, $retval (Linux: kretprobe): per event, min",
         ours(run, "kprobe.fexit", "min_ns"), theirs("kprobe_kr.event", "min"), "ns", None),
        # The same write on both: fentros's through its file's write path, Linux's from user
        # space, so a system call's round trip is in Linux's figure and not in fentros's.
        ("snapshot swap, a write of 1 (every CPU), median", ours(run, "snapshot.write"),
         theirs("snapshot.write"), "ns", None),
        ("snapshot swap, a write of 1 (every CPU), min", ours(run, "snapshot.write", "min_ns"),
         theirs("snapshot.write", "min"), "ns", None),
        ("snapshot swap, Linux less a getppid() round trip, median", ours(run, "snapshot.write"),
         theirs("snapshot.write_nosyscall"), "ns", None),
        # Round trips of two kernel threads over wait queues (fentros) and of two user threads
        # over pipes (Linux, four system calls): not the same work, shown for scale; the
        # triggers' cost per round trip is.
        ("ping-pong round trip, no triggers (kernel threads / pipes), median",
         ours(run, "wakeup_latency.off"), theirs("pingpong_off.trip"), "ns", None),
        ("ping-pong round trip, wakeup_latency triggers, median",
         ours(run, "wakeup_latency.on"), theirs("pingpong_on.trip"), "ns", None),
        ("wakeup_latency triggers: cost per round trip (2 wakeups, 2 switches), median",
         ours(run, "wakeup_latency.cost"), theirs("pingpong.cost"), "ns", 0.5),
        ("wakeup_latency triggers: cost per round trip (2 wakeups, 2 switches), min",
         ours(run, "wakeup_latency.cost", "min_ns"), theirs("pingpong.cost", "min"), "ns", 0.5),
        ("wakeup_latency events per 1000 round trips", ours(run, "wakeup_latency.matches"),
         theirs("pingpong.matches"), "per mille", None),
    ]


# The rows of BENCH_RESULTS.md's current table this tool measures: the table's name, the
# comparison's median row and min row (None: the median only), the unit printed.
RESULTS_ROWS = (
    ("function: overhead per event", "function: overhead per event, median",
     "function: overhead per event, min", "ns"),
    ("function_graph: overhead per event", "graph: overhead per event, median",
     "graph: overhead per event, min", "ns"),
    ("function_graph: overhead per traced call", "graph: overhead per traced call, median",
     None, "ns"),
    ("kprobe, two fetch args, per event", "kprobe, two fetch args: per event, median",
     "kprobe, two fetch args: per event, min", "ns"),
    ("kretprobe with `$retval`, per event", "kretprobe, $retval: per event, median",
     "kretprobe, $retval: per event, min", "ns"),
    ("int3 kprobe at an offset, two fetch args, per event",
     "int3 kprobe at an offset: per event, median", "int3 kprobe at an offset: per event, min",
     "ns"),
    ("enabling every site, per site", "enable all functions: per site, median",
     "enable all functions: per site, min", "ns"),
    ("64-byte event on (sched_switch / sys_enter)",
     "64-byte event on (sched_switch / sys_enter), median",
     "64-byte event on (sched_switch / sys_enter), min", "ns"),
    ("bytes per function event", "bytes per function event", None, ""),
    ("event with a `traceoff:0` trigger (sched_wakeup / sys_enter), per event",
     "event with traceoff:0 (sched_wakeup / sys_enter), median",
     "event with traceoff:0 (sched_wakeup / sys_enter), min", "ns"),
    ("two-key hist trigger, event off (sched_wakeup / sys_enter), per event",
     "two-key hist trigger, event off, median", "two-key hist trigger, event off, min", "ns"),
    ("two-key hist trigger, event on (sched_wakeup / sys_enter), per event",
     "two-key hist trigger, event on, median", "two-key hist trigger, event on, min", "ns"),
    ("snapshot swap: a write of `1` to `snapshot`, every CPU's buffer (Linux: a system call "
     "included), per write",
     "snapshot swap, a write of 1 (every CPU), median",
     "snapshot swap, a write of 1 (every CPU), min", "ns"),
    ("wakeup-latency pair (histogram.rst's triggers on sched_waking, sched_switch and "
     "wakeup_latency): cost per ping-pong round trip of 2 wakeups and 2 switches",
     "wakeup_latency triggers: cost per round trip (2 wakeups, 2 switches), median",
     "wakeup_latency triggers: cost per round trip (2 wakeups, 2 switches), min", "ns"),
)


def results_rows(rows):
    """The current table's rows from this run's comparison: median (min) for each kernel
    and their ratio; a row with a figure missing is left out."""
    by_what = {what: (a, b) for what, a, b, _, _ in rows}
    lines = []
    for name, median, low, unit in RESULTS_ROWS:
        pairs = [by_what.get(median, (None, None))] + ([by_what.get(low, (None, None))]
                                                       if low else [])
        if any(a is None or not b for a, b in pairs):
            continue

        def both(values, suffix=""):
            text = " ".join([values[0]] + [f"({v})" for v in values[1:]])
            return f"{text} {suffix}".rstrip()

        lines.append(bench_results.cell_row(
            name, both([fmt(a) for a, _ in pairs], unit), both([fmt(b) for _, b in pairs], unit),
            both([f"{a / b:.2f}" for a, b in pairs]), "`make bench-linux`"))
    return lines


def fmt(value):
    if value is None:
        return "n/a"
    if abs(value) >= 100 or float(value).is_integer():
        return f"{value:.0f}"
    return f"{value:.1f}"


def side_by_side_lines(rows):
    lines = [f"{'row':<52} {'fentros':>12} {'Linux':>12} {'fentros/Linux':>14}  unit"]
    for what, a, b, unit, _ in rows:
        ratio = f"{a / b:.2f}" if a is not None and b else "n/a"
        lines.append(f"{what:<52} {fmt(a):>12} {fmt(b):>12} {ratio:>14}  {unit}")
    return lines


def target_lines(rows):
    """One line per target: met when both its median and its min ratio are within it.

    On a busy host the median carries the host's noise and the min is the cost without
    it; a target met by one and not the other says "mixed", with both ratios shown.
    """
    targets = {}
    for what, a, b, unit, limit in rows:
        if limit is not None:
            name, stat = what.rsplit(", ", 1)
            targets.setdefault((name, limit), []).append((stat, a, b))
    out = []
    for (name, limit), stats in targets.items():
        target = f"{name}: at most {limit:g} x Linux"
        if any(a is None or not b for _, a, b in stats):
            out.append(f"  n/a    {target}: a figure is missing")
            continue
        ok = [a / b <= limit for _, a, b in stats]
        status = "met" if all(ok) else "mixed" if any(ok) else "missed"
        detail = ", ".join(f"{stat} {fmt(a)} against {fmt(b)} ({a / b:.3f} x)"
                           for stat, a, b in stats)
        out.append(f"  {status:<6} {target}: {detail}")
    return out


# ---- main ----

def measure_linux(args, accel, tool, round_no):
    """One boot of Linux running the script: its BENCH lines parsed, and its log."""
    script = guest_script(args.calls, args.chunk, args.reps, args.enable_reps,
                          getattr(args, "swaps", 1000), getattr(args, "trips", 10000))
    log = LOG_DIR / f"linux-smp{args.smp}-{round_no}.log"
    stream = sys.stderr if args.verbose else None
    lines = boot_linux(args.cache, tool, script, args.smp, accel, args.mem, log, stream)
    guest = parse_guest(lines)
    linux_figures(guest)  # fails early on a script that printed nothing usable
    return guest, log


def merge_guests(guests):
    """The BENCH lines of several boots as if one boot had printed them all."""
    merged = {}
    for guest in guests:
        for kind, items in guest.items():
            merged.setdefault(kind, []).extend(items)
    return merged


def merge_runs(runs):
    """fentros's figures over several boots: the smallest min, the median of the medians."""
    merged = bench.BenchRun()
    first = runs[0]
    merged.header, merged.columns, merged.log = first.header, first.columns, first.log
    for name, figure in first.figures.items():
        same = [r.figures[name] for r in runs if name in r.figures]
        fields = dict(figure.fields)
        for key in fields:
            if key.startswith("min_"):
                fields[key] = str(min(float(f.fields[key]) for f in same))
            elif key.startswith("median_") or key == "value":
                fields[key] = str(statistics.median(float(f.fields[key]) for f in same))
        merged.figures[name] = bench.Figure(name, fields, figure.text)
    return merged


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="fentros's tracer costs beside Debian Linux's, in the same QEMU.")
    parser.add_argument("--smp", type=int, default=2, help="CPUs for both kernels (default 2)")
    parser.add_argument("--mem", default="256M", help="memory for both (default 256M)")
    parser.add_argument("--accel", default=os.environ.get("QEMU_ACCEL", "tcg"),
                        help="accelerator tried first (default tcg); a stuck Linux under "
                             "multi-threaded TCG retries both with tcg,thread=single")
    parser.add_argument("--rounds", type=int, default=2,
                        help="boots of each kernel, in turn (default 2)")
    parser.add_argument("--calls", type=int, default=100000,
                        help="getppid() calls per loop in Linux (default 100000)")
    parser.add_argument("--chunk", type=int, default=20,
                        help="calls per timed chunk of a loop (default 20)")
    parser.add_argument("--reps", type=int, default=5,
                        help="loops per tracer setting in Linux (default 5)")
    parser.add_argument("--swaps", type=int, default=1000,
                        help="writes of 1 to snapshot per loop in Linux (default 1000)")
    parser.add_argument("--trips", type=int, default=10000,
                        help="ping-pong round trips per loop in Linux (default 10000)")
    parser.add_argument("--enable-reps", type=int, default=3,
                        help="times Linux enables the function tracer on all functions "
                             "(default 3)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help=f"where Debian's kernel and busybox are kept (default "
                             f"{DEFAULT_CACHE}, or $LINUX_REF_CACHE)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="copy both kernels' serial output to stderr")
    parser.add_argument("--results", nargs="?", const=bench_results.RESULTS, type=Path,
                        help="rewrite the rows this run measured in the current table of "
                             "tests/BENCH_RESULTS.md (or of the file given)")
    args = parser.parse_args(argv)
    if min(args.smp, args.rounds, args.reps, args.enable_reps, args.chunk, args.swaps) < 1:
        parser.error("--smp, --rounds, --reps, --enable-reps, --chunk and --swaps must be at "
                     "least 1")
    if args.calls < args.chunk or args.trips < args.chunk:
        parser.error("--calls and --trips must be at least --chunk")
    return args


def measure(args):
    """Linux and fentros in turn, args.rounds times, fentros with the accelerator Linux ran
    under: (guest lines, Linux figures, logs, fentros runs, accelerator).

    Taking turns matters on a shared host: the speed of emulation drifts with what else
    runs, and a kernel measured only while the host is slow would look slow.
    Raises LinuxError or bench.BenchError.
    """
    fetch_linux(args.cache)
    tool = build_tool()
    accel = args.accel
    stream = sys.stderr.buffer if args.verbose else None
    guests, logs, runs = [], [], []
    for round_no in range(1, args.rounds + 1):
        try:
            guest, log = measure_linux(args, accel, tool, round_no)
        except LinuxError as err:
            if not (err.stuck and accel == "tcg"):
                raise
            print(f"bench-linux: {err}; measuring both kernels with -accel tcg,thread=single "
                  "from here on", file=sys.stderr)
            accel = "tcg,thread=single"
            guests, logs, runs = [], [], []
            guest, log = measure_linux(args, accel, tool, round_no)
        guests.append(guest)
        logs.append(log)
        runs.append(bench.run_fentros(args.smp, accel, args.mem, stream=stream,
                                      log_tag=f"-{round_no}"))
    guest = merge_guests(guests)
    return guest, linux_figures(guest), logs, runs, accel


def print_report(args, guest, fig, logs, runs, accel):
    def first(kind, key):
        return guest.get(kind, [{}])[0].get(key, "?")

    print(f"Linux {first('kernel', 'release')} and fentros, {args.smp} CPUs, {args.mem}, QEMU "
          f"{bench.qemu_version()}, {bench.describe_accel(accel)}")
    print(bench.host_line())
    if accel != args.accel:
        print(f"(multi-threaded TCG left Linux stuck, so both kernels ran with -accel {accel})")
    if accel.startswith("tcg"):
        print("Under TCG every figure is emulated time: compare the two kernels, not hosts.")
    print()
    if len(runs) > 1:
        print(f"Linux and fentros measured in turn, {len(runs)} boots each; side by side: the "
              "smallest min and the median of the medians over those boots.")
    print()
    print(f"Linux: {args.reps} getppid() loops of {args.calls} calls per setting and boot, "
          f"timed in chunks of {args.chunk}; set_ftrace_filter = "
          f"{first('syscall_function', 'name')}; clocksource {first('clocksource', 'name')}")
    print(f"  logs: {', '.join(bench.rel(log) for log in logs)}")
    mitigations = {k: v for d in guest.get("mitigation", []) for k, v in d.items()}
    shown = [f"{k}: {mitigations[k].replace('_', ' ')}" for k in MITIGATIONS_SHOWN
             if k in mitigations]
    if shown:
        print("Linux mitigations: " + "; ".join(shown))
    for line in linux_table(fig):
        print(line)
    print()
    for number, run in enumerate(runs, start=1):
        print(f"fentros, boot {number} of {len(runs)} (log: {bench.rel(run.log)}):")
        for line in bench.table_lines(run):
            print(line)
        print()
    run = merge_runs(runs)
    rows = comparison(run, fig)
    print("side by side (median unless the row says min):")
    for line in side_by_side_lines(rows):
        print(line)
    print()
    print("targets relative to Linux:")
    for line in target_lines(rows):
        print(line)
    for v in bench.fentros_targets(run):
        print(v.line())


def main(argv=None):
    args = parse_args(argv)
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    try:
        guest, fig, logs, runs, accel = measure(args)
    except (LinuxError, bench.BenchError) as err:
        print(f"bench-linux: {err}", file=sys.stderr)
        for line in getattr(err, "tail", []) or getattr(err, "details", []):
            print(f"  | {line}", file=sys.stderr)
        return 1
    print_report(args, guest, fig, logs, runs, accel)
    if args.results:
        rows = results_rows(comparison(merge_runs(runs), fig))
        try:
            replaced = bench_results.update(rows, args.results)
        except (OSError, bench_results.ResultsError) as err:
            print(f"bench-linux: {err}", file=sys.stderr)
            return 1
        print(f"\n{bench.rel(args.results)}: {len(replaced)} rows rewritten, "
              f"{len(rows) - len(replaced)} added")
    return 0


if __name__ == "__main__":
    sys.exit(main())
