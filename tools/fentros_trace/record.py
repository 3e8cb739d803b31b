"""`fentros-trace record`: boot, trace a shell command, pull the trace, write trace.dat."""

import os
import sys
import tempfile
import time

from . import channel, formats, ringpage, tracedat, widen
from .machine import Machine, MachineError

FTRACE_EVENTS = ("function", "funcgraph_entry", "funcgraph_exit", "kernel_stack", "print",
                 "bprint", "bputs")


class RecordError(Exception):
    pass


def apply_options(m, args):
    """Sets the tracing state as trace-cmd record does, tracing off meanwhile."""
    m.must("cd /sys/kernel/tracing")
    m.must("echo 0 > tracing_on")
    if args.buffer_kb:
        m.must(f"echo {args.buffer_kb} > buffer_size_kb")
    for path, funcs in (("set_ftrace_filter", args.filter), ("set_ftrace_notrace", args.notrace),
                        ("set_graph_function", args.graph_func)):
        for func in funcs:
            m.must(f"echo {func} >> {path}")
    for probe in args.kprobes:
        if "'" in probe:
            raise RecordError(f"a kprobe line cannot hold a single quote: {probe}")
        m.must(f"echo '{probe}' >> kprobe_events")
    for event in args.events:
        m.must(f"echo {event} >> set_event")
    if args.tracer:
        m.must(f"echo {args.tracer} > current_tracer")
    m.must("echo > trace")


def event_list(m):
    """(system, event) of every event whose format goes into the file."""
    events = [("ftrace", name) for name in FTRACE_EVENTS]
    for line in m.must("cat available_events"):
        system, _, name = line.strip().partition(":")
        if name:
            events.append((system, name))
    return events


def transfer(m, paths, progress):
    """Runs xfer on paths, showing the bytes as they arrive; returns bytes per second."""
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


def build(files, ncpus, output):
    """Writes trace.dat from the files xfer pulled. Returns per-CPU event counts."""
    def get(name):
        if name not in files:
            raise RecordError(f"{name} did not arrive")
        return files[name]

    symbols = formats.Symbols(get("/proc/kallsyms"))
    widener = widen.Widener(symbols.address("tracing_mark_write"))
    cpu_data, counts = [], []
    for cpu in range(ncpus):
        writer = ringpage.PageWriter()
        n = 0
        for ts, payload, lost in ringpage.decode_pages(get(f"per_cpu/cpu{cpu}/trace_pipe_raw"),
                                                       cpu):
            if payload is None:
                writer.mark_lost(lost)
                continue
            writer.add(ts, widener.widen(ts, payload), lost)
            n += 1
        cpu_data.append(writer.finish())
        counts.append(n)

    ftrace, systems = [], {}
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


def record(args):
    progress = sys.stderr.isatty() or args.progress
    workdir = args.workdir or tempfile.mkdtemp(prefix="fentros-trace-")
    m = Machine(workdir, smp=args.smp, iso=args.iso)
    try:
        apply_options(m, args)
        command = " ".join(args.command)
        code, lines = m.run(f"echo 1 > tracing_on; {command}; echo 0 > tracing_on",
                            timeout=args.timeout)
        for line in lines:
            print(line, file=sys.stderr)
        ncpus = len([n for n in m.must("ls per_cpu") if n.strip().startswith("cpu")])
        meta = ["events/header_page", "events/header_event", "/proc/kallsyms", "/proc/version",
                "printk_formats", "saved_cmdlines", "trace_clock"]
        meta += [f"per_cpu/cpu{c}/stats" for c in range(ncpus)]
        fmts = [f"events/{s}/{e}/format" for s, e in event_list(m)]
        if args.kernel_text:
            meta.append("trace")
        for i in range(0, len(fmts), 16):
            meta_part = meta if i == 0 else []
            transfer(m, meta_part + fmts[i:i + 16], False)
        if not fmts:
            transfer(m, meta, False)
        got, elapsed = transfer(m, [f"per_cpu/cpu{c}/trace_pipe_raw" for c in range(ncpus)],
                                progress)
    finally:
        m.close()
    files = channel.read_files(m.channel_path)
    if args.kernel_text:
        with open(args.kernel_text, "wb") as f:
            f.write(files["trace"])
    counts = build(files, ncpus, args.output)
    print(f"{args.output}: {sum(counts)} events from {ncpus} CPUs "
          f"({got} bytes of pages in {elapsed:.1f} s)", file=sys.stderr)
    return 0
