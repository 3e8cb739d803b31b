"""Command line of tools/fentros-trace."""

import argparse
import sys
from typing import List, Optional

from . import channel, convert, extract, hostfs, mount, record, ringpage, tracedat, widen
from .machine import MachineError

USAGE_EXAMPLES = """examples:
  fentros-trace record -p function_graph -g do_work -o graph.dat -- work 0.1
  fentros-trace record -e sched:sched_switch -e 'irq:*' -- work 0.2
  fentros-trace record -B mine -p function -l 'work_*' -e sched:sched_switch -- work 0.1
  trace-cmd report -i trace.dat
  fentros-trace extract -B boot_map -o crash.dat \
      --cmdline 'reserve_mem=2M:4096:trace trace_instance=boot_map@trace panic=reboot' \
      --before 'echo function > instances/boot_map/current_tracer' --reset 'crash panic'
  fentros-trace convert trace.dat --to chrome-json -o trace.json
  fentros-trace convert graph.dat --to folded -o graph.folded
  fentros-trace mount /mnt/fentros && cat /mnt/fentros/available_tracers
  fentros-trace run /mnt/fentros -- work 0.1
  fentros-trace umount /mnt/fentros
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fentros-trace", epilog=USAGE_EXAMPLES,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="Record fentros traces as trace.dat, convert them.")
    sub = p.add_subparsers(dest="verb", required=True)

    r = sub.add_parser("record", help="boot fentros in QEMU, trace a shell command, write "
                       "trace.dat")
    r.add_argument("-p", dest="tracer", metavar="TRACER", help="tracer (current_tracer)")
    r.add_argument("-k", dest="kprobes", metavar="PROBE", action="append", default=[],
                   help="a kprobe_events line to add before the events are set (e.g. "
                   "'p:myprobe pfs_open path=+0(%%si):string'); then -e kprobes:myprobe")
    r.add_argument("-e", dest="events", metavar="SYSTEM:EVENT", action="append", default=[],
                   help="an event or glob (set_event); repeat for more")
    r.add_argument("-l", dest="filter", metavar="FUNC", action="append", default=[],
                   help="trace only this function or glob (set_ftrace_filter)")
    r.add_argument("-n", dest="notrace", metavar="FUNC", action="append", default=[],
                   help="do not trace this function or glob (set_ftrace_notrace)")
    r.add_argument("-g", dest="graph_func", metavar="FUNC", action="append", default=[],
                   help="graph only calls from this function (set_graph_function)")
    r.add_argument("-b", dest="buffer_kb", metavar="KB", type=int,
                   help="per-CPU buffer size in KB (buffer_size_kb)")
    r.add_argument("-B", dest="instance", metavar="NAME",
                   help="record in the trace instance instances/NAME (made if missing), as "
                   "trace-cmd record -B: its own buffer, tracer, filters and events")
    r.add_argument("--smp", type=int, default=2, help="CPUs of the machine (default 2)")
    r.add_argument("-o", dest="output", default="trace.dat", help="output (default trace.dat)")
    r.add_argument("--kernel-text", metavar="FILE",
                   help="also save the kernel's own `cat trace` of the same buffer")
    r.add_argument("--iso", help="boot this image (default build/fentros.iso)")
    r.add_argument("--workdir", help="keep the serial log and channel capture here")
    r.add_argument("--timeout", type=float, default=600, help="seconds COMMAND may run")
    r.add_argument("--channel", choices=("debugcon", "shm"), default="shm",
                   help="how files come out of the kernel: shm, the host channel (an "
                   "ivshmem-plain device over a /dev/shm file; the default), which streams "
                   "every CPU's pages while COMMAND runs, or the debug console, about a "
                   "hundred times slower, which takes one buffer after COMMAND")
    r.add_argument("--snapshot", action="store_true",
                   help="with shm: take one buffer after COMMAND instead of streaming "
                   "(--kernel-text implies it)")
    r.add_argument("--progress", action="store_true",
                   help="show transfer progress even when stderr is not a terminal")
    r.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND",
                   help="the shell line to trace")

    x = sub.add_parser("extract", help="boot fentros in QEMU and write a trace array's buffer "
                       "as it is into trace.dat (trace-cmd extract); with --reset, what the "
                       "previous boot left in an instance laid on reserved memory")
    x.add_argument("-B", dest="instance", metavar="NAME",
                   help="the trace instance instances/NAME (default: the top level)")
    x.add_argument("-o", dest="output", default="trace.dat", help="output (default trace.dat)")
    x.add_argument("--cmdline", metavar="CMDLINE",
                   help="boot build/kernel.elf with this kernel command line (e.g. "
                   "'reserve_mem=2M:4096:trace trace_instance=boot_map@trace panic=reboot')")
    x.add_argument("--before", metavar="LINE", action="append", default=[],
                   help="a shell line to run first, in /sys/kernel/tracing (repeat for more)")
    x.add_argument("--reset", metavar="LINE",
                   help="a shell line that resets the machine (`reboot`, `crash panic` with "
                   "panic=reboot, `crash triple`): QEMU boots it again, RAM kept, and the "
                   "buffer is taken in the new boot")
    x.add_argument("--kernel-text", metavar="FILE",
                   help="also save the kernel's own `cat trace` of the same buffer")
    x.add_argument("--smp", type=int, default=2, help="CPUs of the machine (default 2)")
    x.add_argument("--iso", help="boot this image (default build/fentros.iso)")
    x.add_argument("--workdir", help="keep the serial log and channel capture here")
    x.add_argument("--timeout", type=float, default=600, help="seconds a line may run")
    x.add_argument("--progress", action="store_true",
                   help="show transfer progress even when stderr is not a terminal")

    c = sub.add_parser("convert", help="trace.dat -> Chrome trace JSON or folded stacks")
    c.add_argument("input", metavar="FILE.dat")
    c.add_argument("--to", required=True, choices=("chrome-json", "folded"))
    c.add_argument("-o", dest="output", required=True)

    m = sub.add_parser("mount", help="boot fentros in QEMU and mount its tracefs on DIR "
                       "(FUSE, fsname tracefs) until `umount DIR`")
    m.add_argument("mountpoint", metavar="DIR")
    m.add_argument("--smp", type=int, default=2, help="CPUs of the machine (default 2)")
    m.add_argument("--iso", help="boot this image (default build/fentros.iso)")
    m.add_argument("--workdir", help="the daemon's log and the guest's serial log (default "
                   "build/mount/<DIR as a name>)")
    m.add_argument("--root", default=hostfs.TRACING, metavar="GUEST_DIR",
                   help="the guest directory DIR shows (default /sys/kernel/tracing; / "
                   "for the whole tree: DIR/sys/kernel/debug, DIR/proc ...)")
    m.add_argument("--foreground", action="store_true",
                   help="serve in this process, logging to stderr, until unmounted")
    m.add_argument("--ready-fd", type=int, help=argparse.SUPPRESS)

    u = sub.add_parser("umount", help="unmount DIR; the guest is powered off")
    u.add_argument("mountpoint", metavar="DIR")

    g = sub.add_parser("run", help="type a line at the shell of the guest mounted on DIR "
                       "(its output, its exit status)")
    g.add_argument("mountpoint", metavar="DIR")
    g.add_argument("--timeout", type=float, default=600, help="seconds COMMAND may run")
    g.add_argument("command", nargs="+", metavar="COMMAND",
                   help="the shell line, after --, e.g. `-- work 0.1`")
    return p


def record_options(args: argparse.Namespace) -> record.RecordOptions:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    return record.RecordOptions(
        command=command, output=args.output, tracer=args.tracer, kprobes=args.kprobes,
        events=args.events, filter=args.filter, notrace=args.notrace,
        graph_func=args.graph_func, buffer_kb=args.buffer_kb, smp=args.smp,
        kernel_text=args.kernel_text, iso=args.iso, workdir=args.workdir,
        timeout=args.timeout, progress=args.progress, channel=args.channel,
        snapshot=args.snapshot, instance=args.instance)


def main(argv: Optional[List[str]] = None) -> int:
    """The exit status: 0; 1 for an error of the tool's own (a message says which); 2 for
    a usage error; from `record`, the traced command's status when it failed."""
    args = parser().parse_args(argv)
    verb: str = args.verb
    try:
        if verb == "record":
            opts = record_options(args)
            if not opts.command:
                print("fentros-trace record: no COMMAND to trace (… -- COMMAND)",
                      file=sys.stderr)
                return 2
            return record.record(opts)
        if verb == "extract":
            return extract.extract(extract.ExtractOptions(
                output=args.output, instance=args.instance, cmdline=args.cmdline,
                before=args.before, reset=args.reset, smp=args.smp, iso=args.iso,
                workdir=args.workdir, kernel_text=args.kernel_text, timeout=args.timeout,
                progress=args.progress))
        if verb == "mount":
            return mount.mount(mount.MountOptions(
                mountpoint=args.mountpoint, smp=args.smp, iso=args.iso, workdir=args.workdir,
                root=args.root, foreground=args.foreground, ready_fd=args.ready_fd))
        if verb == "umount":
            return mount.umount(args.mountpoint)
        if verb == "run":
            return mount.run_in_guest(args.mountpoint, " ".join(args.command), args.timeout)
        return convert.convert(args.input, args.to, args.output)
    except (MachineError, record.RecordError, channel.ChannelError, ringpage.PageError,
            widen.WidenError, tracedat.TraceDatError, convert.ConvertError, mount.MountError,
            OSError) as e:
        print(f"fentros-trace {verb}: {e}", file=sys.stderr)
        return 1
