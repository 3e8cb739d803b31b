"""`fentros-trace extract`: write a trace array's buffer as it stands into trace.dat, as
`trace-cmd extract` does, nothing traced or cleared first. With a command line that lays
an instance on memory a reset keeps (reserve_mem= and trace_instance=NAME@RANGE) and a
line that resets the machine, it exports what the previous boot left in that instance:
the trace up to a crash."""

import sys
import tempfile
from dataclasses import dataclass, field
from typing import List, Optional

from . import channel
from .machine import TRACEFS, Machine
from .record import RecordError, array_files, build, check_instance_name, pull, transfer


@dataclass
class ExtractOptions:
    """What `extract` was asked for (cli.py has each option's help)."""
    output: str = "trace.dat"
    instance: Optional[str] = None
    cmdline: Optional[str] = None
    before: List[str] = field(default_factory=list)
    reset: Optional[str] = None
    smp: int = 2
    iso: Optional[str] = None
    workdir: Optional[str] = None
    kernel_text: Optional[str] = None
    timeout: float = 600
    progress: bool = False


def extract(opts: ExtractOptions) -> int:
    """Writes opts.output; 0, or RecordError/MachineError (the CLI prints them)."""
    if opts.instance is not None:
        check_instance_name(opts.instance)
    progress = sys.stderr.isatty() or opts.progress
    if opts.workdir:
        return extract_in(opts.workdir, opts, progress)
    with tempfile.TemporaryDirectory(prefix="fentros-trace-") as workdir:
        return extract_in(workdir, opts, progress)


def extract_in(workdir: str, opts: ExtractOptions, progress: bool) -> int:
    # The debug console, not the host channel: a file QEMU appends to goes on across a
    # reset, where the channel's ring would start again.
    m = Machine(workdir, smp=opts.smp, iso=opts.iso, cmdline=opts.cmdline,
                reboot=opts.reset is not None)
    prefix = f"instances/{opts.instance}/" if opts.instance else ""

    def at(path: str) -> str:
        return prefix + path

    try:
        m.must(f"cd {TRACEFS}")
        for line in opts.before:
            m.must(line, opts.timeout)
        if opts.reset:
            for line in m.reset(opts.reset, opts.timeout):
                if "trace_instance" in line or "Kernel panic" in line:
                    print(line, file=sys.stderr)
            m.must(f"cd {TRACEFS}")
        status, lines = m.run(f"ls {at('per_cpu')}")
        if status:
            raise RecordError(f"{at('per_cpu')}: " + " ".join(lines))
        ncpus = len([n for n in lines if n.strip().startswith("cpu")])
        pull(m, at, ncpus, bool(opts.kernel_text))
        got, elapsed = transfer(m, [at(f"per_cpu/cpu{c}/trace_pipe_raw") for c in range(ncpus)],
                                progress)
    finally:
        m.close()
    files = array_files(channel.read_files(m.capture_path), prefix)
    if opts.kernel_text:
        with open(opts.kernel_text, "wb") as f:
            f.write(files["trace"])
    counts = build(files, ncpus, opts.output)
    print(f"{opts.output}: {sum(counts)} events from {ncpus} CPUs ({got} bytes of pages in "
          f"{elapsed:.1f} s)", file=sys.stderr)
    return 0


