"""`fentros-trace record`: boot, trace a shell command, pull the trace, write trace.dat."""

import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import channel, formats, ringpage, stream, tracedat, widen
from .machine import TRACEFS, Machine, MachineError

FTRACE_EVENTS = ("function", "funcgraph_entry", "funcgraph_exit", "kernel_stack", "print",
                 "bprint", "bputs", "raw_data", "context_switch", "wakeup", "hwlat", "osnoise",
                 "timerlat")

# Ends the traced line's output, followed by the traced command's status.
STATUS_TAG = "fentros-trace-status:"


class RecordError(Exception):
    pass


@dataclass
class RecordOptions:
    """What `record` was asked for (cli.py has each option's help)."""
    command: List[str]
    output: str = "trace.dat"
    tracer: Optional[str] = None
    kprobes: List[str] = field(default_factory=list)
    events: List[str] = field(default_factory=list)
    filter: List[str] = field(default_factory=list)
    notrace: List[str] = field(default_factory=list)
    graph_func: List[str] = field(default_factory=list)
    buffer_kb: Optional[int] = None
    smp: int = 2
    kernel_text: Optional[str] = None
    iso: Optional[str] = None
    workdir: Optional[str] = None
    timeout: float = 600
    progress: bool = False
    channel: str = "shm"
    snapshot: bool = False
    instance: Optional[str] = None

    def array_path(self, path: str) -> str:
        """path in the trace array recorded: the top level, or instances/NAME with -B."""
        return f"instances/{self.instance}/{path}" if self.instance else path


@dataclass
class Traced:
    """How the traced command ended: its output and its status ($?)."""
    lines: List[str]
    status: int


def check_instance_name(name: str) -> None:
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or name in (".", ".."):
        raise RecordError(f"-B {name}: an instance name is one word of letters, digits, "
                          "'_', '.' and '-'")


def make_instance(m: Machine, name: str) -> None:
    """-B NAME: the instance, made unless it is there, as trace-cmd record -B does."""
    status, lines = m.run(f"mkdir instances/{name}")
    if status and not any("File exists" in line for line in lines):
        raise RecordError(f"mkdir instances/{name}: " + " ".join(lines))


def apply_options(m: Machine, opts: RecordOptions) -> None:
    """Sets the tracing state as trace-cmd record does, tracing off meanwhile. With -B,
    in the instance: its buffer, function filters, events and tracer; kprobe events are
    made at the top level, where Linux makes them too, and enabled in the instance."""
    m.must(f"cd {TRACEFS}")
    if opts.instance:
        if opts.graph_func:
            raise RecordError("-g with -B: set_graph_function is the top level's only, as "
                              "on Linux")
        make_instance(m, opts.instance)
    at = opts.array_path
    m.must(f"echo 0 > {at('tracing_on')}")
    if opts.buffer_kb:
        m.must(f"echo {opts.buffer_kb} > {at('buffer_size_kb')}")
    for path, funcs in ((at("set_ftrace_filter"), opts.filter),
                        (at("set_ftrace_notrace"), opts.notrace),
                        ("set_graph_function", opts.graph_func)):
        for func in funcs:
            m.must(f"echo {func} >> {path}")
    for probe in opts.kprobes:
        if "'" in probe:
            raise RecordError(f"a kprobe line cannot hold a single quote: {probe}")
        m.must(f"echo '{probe}' >> kprobe_events")
    for event in opts.events:
        m.must(f"echo {event} >> {at('set_event')}")
    if opts.tracer:
        m.must(f"echo {opts.tracer} > {at('current_tracer')}")
    m.must(f"echo > {at('trace')}")


def run_traced(m: Machine, command: str, timeout: float,
               tracing_on: str = "tracing_on") -> Traced:
    """Runs `command` with tracing on; its output and status.

    `$?` in each stage of a pipeline is the status of what ran before the pipeline, and
    fentros runs the stages one after the other: the last pipeline turns tracing off first
    and then prints the command's status, so the status line is not in the trace.
    """
    _, lines = m.run(f"echo 1 > {tracing_on}; {command}; "
                     f"echo 0 > {tracing_on} | echo {STATUS_TAG}$?", timeout=timeout)
    # The command's output need not end its last line: the tag then follows on that line.
    before, tag, status = (lines[-1] if lines else "").rpartition(STATUS_TAG)
    if not tag or not status.strip().isdigit():
        raise MachineError(f"`{command}`: the shell did not print the command's status:\n"
                           + "\n".join(lines[-10:]))
    return Traced(lines[:-1] + ([before] if before else []), int(status))


def event_list(m: Machine) -> List[Tuple[str, str]]:
    """(system, event) of every event whose format goes into the file."""
    events = [("ftrace", name) for name in FTRACE_EVENTS]
    for line in m.must("cat available_events"):
        system, _, name = line.strip().partition(":")
        if name:
            events.append((system, name))
    return events


def transfer(m: Machine, paths: Sequence[str], progress: bool) -> Tuple[int, float]:
    """Runs xfer on paths, showing the bytes as they arrive; returns (bytes, seconds)."""
    if m.reader:
        return transfer_shm(m, paths, progress)
    before = m.channel_size()
    start = time.monotonic()
    running = m.console.begin(("xfer " + " ".join(paths) + "\n").encode())
    while not m.console.at_prompt(running):
        if not m.console.alive():
            raise MachineError("QEMU exited during the transfer")
        time.sleep(0.2)
        if progress:
            got = m.channel_size() - before
            rate = got / max(time.monotonic() - start, 1e-6)
            print(f"\rtransferred {got / 1e6:7.2f} MB ({rate / 1e6:.2f} MB/s)", end="",
                  file=sys.stderr, flush=True)
    reply = m.console.finish(running, 30)
    elapsed = time.monotonic() - start
    got = m.channel_size() - before
    if progress:
        print(f"\rtransferred {got / 1e6:7.2f} MB in {elapsed:.1f} s "
              f"({got / elapsed / 1e6:.2f} MB/s)", file=sys.stderr)
    errors = [line for line in reply.lines if line.startswith("xfer:") and "files," not in line]
    if errors:
        raise MachineError("\n".join(errors))
    return got, elapsed


def transfer_shm(m: Machine, paths: Sequence[str], progress: bool) -> Tuple[int, float]:
    """xfer -c over the host channel: the reader's thread consumes the frames while the
    shell runs; once the prompt is back every frame is in the ring, and drain() takes the
    rest. The seconds run from the typed line to the last frame consumed."""
    assert m.reader is not None
    before = m.channel_size()
    start = time.monotonic()
    reply = m.console.command(("xfer -c " + " ".join(paths) + "\n").encode(), 600)
    if reply.cwd is None:
        raise MachineError("QEMU exited during the transfer" if reply.exit_status is not None
                           else "xfer -c did not come back")
    m.reader.drain()
    elapsed = time.monotonic() - start
    got = m.channel_size() - before
    if progress:
        print(f"transferred {got / 1e6:7.2f} MB in {elapsed:.3f} s "
              f"({got / max(elapsed, 1e-6) / 1e6:.2f} MB/s) over the host channel",
              file=sys.stderr)
    errors = [line for line in reply.lines if line.startswith("xfer:") and "files," not in line]
    if errors:
        raise MachineError("\n".join(errors))
    if m.reader.receiver.current is not None:
        raise MachineError(f"{m.reader.receiver.current}: the file was cut short")
    return got, elapsed


def build(files: Dict[str, bytes], ncpus: int, output: str,
          raw: Optional[Dict[int, bytes]] = None, lost: Optional[List[int]] = None) -> List[int]:
    """Writes trace.dat from the files xfer pulled. Returns per-CPU event counts. raw: each
    CPU's trace_pipe_raw pages when they came another way (a stream); lost: filled with
    the events each CPU's pages say were lost."""
    def get(name: str) -> bytes:
        if name not in files:
            raise RecordError(f"{name} did not arrive")
        return files[name]

    symbols = formats.Symbols(get("/proc/kallsyms"))
    widener = widen.Widener(symbols.address("tracing_mark_write"))
    cpu_data, counts = [], []
    for cpu in range(ncpus):
        writer = ringpage.PageWriter()
        n = missed = 0
        pages = raw[cpu] if raw is not None else get(f"per_cpu/cpu{cpu}/trace_pipe_raw")
        for ts, payload, lost_before in ringpage.decode_pages(pages, cpu):
            if lost_before is not None:
                missed += max(lost_before, 0)
            if payload is None:
                writer.mark_lost(-1 if lost_before is None else lost_before)
                continue
            writer.add(ts, widener.widen(ts, payload), lost_before)
            n += 1
        cpu_data.append(writer.finish())
        counts.append(n)
        if lost is not None:
            lost.append(missed)

    ftrace: List[bytes] = []
    systems: Dict[str, List[bytes]] = {}
    for name, data in files.items():
        parts = name.split("/")
        if len(parts) == 4 and parts[0] == "events" and parts[3] == "format":
            if parts[1] == "ftrace":
                ftrace.append(data)
            else:
                systems.setdefault(parts[1], []).append(data)
    options = [(tracedat.OPTION_TRACECLOCK, get("trace_clock") + b"\0"),
               (tracedat.OPTION_UNAME, get("/proc/version").strip() + b"\0")]
    for cpu in range(ncpus):
        stats = get(f"per_cpu/cpu{cpu}/stats")
        options.append((tracedat.OPTION_CPUSTAT, f"CPU: {cpu}\n".encode() + stats + b"\0"))
    tracedat.write(output, header_page=get("events/header_page"),
                   header_event=get("events/header_event"), ftrace_formats=ftrace,
                   systems=sorted(systems.items()), kallsyms=get("/proc/kallsyms"),
                   printk_formats=get("printk_formats"), cmdlines=get("saved_cmdlines"),
                   cpu_data=cpu_data, options=options)
    return counts


def record(opts: RecordOptions) -> int:
    """Records opts.command into opts.output. The exit status: 0, or the traced command's
    own status when it failed (the trace is written all the same)."""
    progress = sys.stderr.isatty() or opts.progress
    if opts.instance is not None:
        check_instance_name(opts.instance)
    if opts.workdir:
        return record_in(opts.workdir, opts, progress)
    # The serial log and the channel capture are only a way to the trace: they go with it.
    with tempfile.TemporaryDirectory(prefix="fentros-trace-") as workdir:
        return record_in(workdir, opts, progress)


def record_in(workdir: str, opts: RecordOptions, progress: bool) -> int:
    shm = opts.channel == "shm"
    # The kernel's own text of the buffer needs the buffer whole after the command.
    streaming = shm and not opts.snapshot and not opts.kernel_text
    m = Machine(workdir, smp=opts.smp, iso=opts.iso, shm=shm)
    command = " ".join(opts.command)
    receiver: Optional[stream.StreamReceiver] = None
    try:
        apply_options(m, opts)
        at = opts.array_path
        ncpus = len([n for n in m.must(f"ls {at('per_cpu')}") if n.strip().startswith("cpu")])
        raw_paths = [at(f"per_cpu/cpu{c}/trace_pipe_raw") for c in range(ncpus)]
        if streaming:
            receiver = start_stream(m, workdir, raw_paths)
            began = time.monotonic()
        traced = run_traced(m, command, opts.timeout, at("tracing_on"))
        if receiver:
            got, elapsed = stop_stream(m, receiver, began, progress)
        for line in traced.lines:
            print(line, file=sys.stderr)
        pull(m, at, ncpus, bool(opts.kernel_text))
        if not receiver:
            got, elapsed = transfer(m, raw_paths, progress)
    finally:
        m.close()
        if receiver:
            receiver.close()
    files = array_files(channel.read_files(m.capture_path), opts.array_path(""))
    if opts.kernel_text:
        with open(opts.kernel_text, "wb") as f:
            f.write(files["trace"])
    raw: Optional[Dict[int, bytes]] = None
    if receiver:
        raw = {}
        for sf in receiver.ended:
            with open(sf.path, "rb") as f:
                raw[raw_paths.index(sf.name)] = f.read()
    lost: List[int] = []
    counts = build(files, ncpus, opts.output, raw=raw, lost=lost)
    how = "pages streamed" if receiver else "pages"
    print(f"{opts.output}: {sum(counts)} events from {ncpus} CPUs "
          f"({got} bytes of {how} in {elapsed:.1f} s); `{command}` exited with status "
          f"{traced.status}", file=sys.stderr)
    report_counts(files, counts, lost)
    return traced.status


def pull(m: Machine, at: Callable[[str], str], ncpus: int, kernel_text: bool) -> None:
    """Has the kernel send what trace.dat needs beside the pages: the headers, formats,
    symbols, clock and each CPU's stats of the array at(...) names (and its `trace`)."""
    meta = ["events/header_page", "events/header_event", "/proc/kallsyms", "/proc/version",
            "printk_formats", "saved_cmdlines", at("trace_clock")]
    meta += [at(f"per_cpu/cpu{c}/stats") for c in range(ncpus)]
    fmts = [f"events/{s}/{e}/format" for s, e in event_list(m)]
    if kernel_text:
        meta.append(at("trace"))
    for i in range(0, len(fmts), 16):
        meta_part = meta if i == 0 else []
        transfer(m, meta_part + fmts[i:i + 16], False)
    if not fmts:
        transfer(m, meta, False)


def array_files(files: Dict[str, bytes], prefix: str) -> Dict[str, bytes]:
    """An instance's files (under prefix, instances/NAME/) under the names of the top
    level's, as build() reads them."""
    if not prefix:
        return files
    return {name[len(prefix):] if name.startswith(prefix) else name: data
            for name, data in files.items()}


def start_stream(m: Machine, workdir: str, raw_paths: List[str]) -> stream.StreamReceiver:
    """Has the kernel follow every CPU's trace_pipe_raw over the host channel; the pages
    go to files in workdir as they arrive."""
    assert m.reader is not None
    with m.reader.lock:
        old = m.reader.receiver
        receiver = stream.StreamReceiver(old.capture, workdir)
        m.reader.receiver = receiver
    m.must("xfer -c --follow " + " ".join(raw_paths))
    return receiver


def stop_stream(m: Machine, receiver: stream.StreamReceiver, began: float,
                progress: bool) -> Tuple[int, float]:
    """Ends the stream once tracing is off: the kernel reads what is left and ends each
    file. (bytes of pages, seconds since the stream began)."""
    assert m.reader is not None
    m.must("xfer -c --stop")
    m.reader.drain()
    elapsed = time.monotonic() - began
    if receiver.streams:
        raise RecordError(", ".join(sf.name for sf in receiver.streams.values())
                          + ": the stream was cut short")
    for sf in receiver.ended:
        if sf.status:
            raise RecordError(f"{sf.name}: {os.strerror(-sf.status)}")
    got = receiver.streamed
    if progress:
        print(f"streamed {got / 1e6:7.2f} MB of pages in {elapsed:.3f} s "
              f"({got / max(elapsed, 1e-6) / 1e6:.2f} MB/s) over the host channel",
              file=sys.stderr)
    return got, elapsed


STAT_LINE = re.compile(r"^(entries|overrun|commit overrun|dropped events|read events): (\d+)$",
                       re.M)


def kernel_stats(text: bytes) -> Dict[str, int]:
    return {k: int(v) for k, v in STAT_LINE.findall(text.decode(errors="replace"))}


def report_counts(files: Dict[str, bytes], counts: List[int], lost: List[int]) -> None:
    """Per CPU, what the file holds beside what the kernel counted (per_cpu/cpuN/stats):
    events recorded against "read events" and "entries", events lost against "overrun",
    the pages the writer overwrote before they were read. Events the buffer refused
    ("commit overrun", "dropped events") never reach a page; they are shown when there
    are any."""
    for cpu, (n, missed) in enumerate(zip(counts, lost)):
        st = kernel_stats(files.get(f"per_cpu/cpu{cpu}/stats", b""))
        line = f"CPU{cpu}: {n} events recorded, {missed} lost"
        refused = st.get("commit overrun", 0) + st.get("dropped events", 0)
        if refused:
            line += f", {refused} refused by the full buffer"
        # Streamed, the stats come after the last page was read: every event was read.
        # A snapshot's stats come before its pages are: every event is still an entry.
        agree = (st.get("read events", -1) + st.get("entries", -1) == n
                 and st.get("overrun") == missed)
        line += (" (the kernel's stats agree)" if agree else
                 f" (the kernel's stats differ: read events {st.get('read events')}, overrun "
                 f"{st.get('overrun')}, entries {st.get('entries')})")
        print(line, file=sys.stderr)
