"""`fentros-trace convert`: trace.dat -> Chrome trace-event JSON or folded stacks.

Chrome JSON (Perfetto, chrome://tracing, speedscope): each funcgraph_exit becomes one
complete slice ("ph": "X", from calltime to rettime) on its thread's track; function
events and trace events are instants on their thread; sched_switch also draws, on one
track per CPU of a "CPUs" process, a slice for each stretch a task ran. Threads are
tracks of process 1 ("fentros"); the idle task, which runs on every CPU as pid 0, gets
one track per CPU.

Folded stacks (flame graphs): one line per call path, `a;b;c <ns>`, the value being the
time spent in the last function itself (its duration less its children's), so the
values of a call tree add up to its top-level duration. A level with no entry record
shows as [unknown].
"""

import heapq
import json
import os
import struct
from typing import Any, Dict, Iterator, List, Tuple, Union

from . import formats, ringpage, tracedat

Path = Union[str, "os.PathLike[str]"]
# A Chrome trace-event object (its keys differ from one kind of event to the next).
ChromeEvent = Dict[str, Any]
# One record in time order: (ts, cpu, its event, the record's bytes).
TimedRecord = Tuple[int, int, formats.Event, bytes]

KERNEL_PID, CPUS_PID = 1, 2
IDLE_TID_BASE = 1 << 20  # above any 20-bit pid
# A level of the call stack with no entry record: the call began before the trace did, or
# it is the level an interrupt takes (the graph counts it; no traced function fills it).
UNKNOWN = "[unknown]"


class ConvertError(Exception):
    pass


class Trace:
    def __init__(self, path: Path) -> None:
        self.dat = tracedat.TraceDat(path)
        self.events: Dict[int, formats.Event] = {}
        for system, text in self.dat.all_formats():
            ev = formats.Event(system, text)
            if ev.id is not None:
                self.events[ev.id] = ev
        self.symbols = formats.Symbols(self.dat.kallsyms)
        self.comms = formats.parse_cmdlines(self.dat.cmdlines)

    def records(self) -> Iterator[TimedRecord]:
        """(ts, cpu, event, record bytes) in time order across CPUs."""
        def one_cpu(cpu: int, data: bytes) -> Iterator[Tuple[int, int, bytes]]:
            try:
                for ts, payload, _ in ringpage.decode_pages(data, cpu):
                    if payload is not None:
                        yield ts, cpu, payload
            except ringpage.PageError as e:
                raise ConvertError(f"CPU {cpu}: {e} (truncated or damaged file?)") from e
        streams = [one_cpu(cpu, data) for cpu, data in enumerate(self.dat.cpu_data)]
        for ts, cpu, payload in heapq.merge(*streams, key=lambda r: (r[0], r[1])):
            if len(payload) < 8:
                continue
            (event_id,) = struct.unpack_from("<H", payload)
            ev = self.events.get(event_id)
            if ev is None:
                raise ConvertError(f"CPU {cpu}: a record of unknown event id {event_id}")
            yield ts, cpu, ev, payload

    def comm(self, pid: int) -> str:
        return "<idle>" if pid == 0 else self.comms.get(pid, f"<{pid}>")


def thread_id(pid: int, cpu: int) -> int:
    return IDLE_TID_BASE + cpu if pid == 0 else pid


def to_chrome(trace: Trace) -> Dict[str, Any]:
    out: List[ChromeEvent] = []
    threads: Dict[int, str] = {}
    running: Dict[int, Tuple[int, str, int]] = {}  # cpu -> (since, comm, pid)
    last_ts = 0

    def us(ns: int) -> float:
        return ns / 1000.0

    for ts, cpu, ev, rec in trace.records():
        last_ts = ts
        pid = ev.number(rec, "common_pid")
        tid = thread_id(pid, cpu)
        threads.setdefault(tid, f"{trace.comm(pid)}-{pid}" + (f" cpu{cpu}" if pid == 0 else ""))
        key = (ev.system, ev.name)
        if key == ("ftrace", "funcgraph_exit"):
            call, ret = ev.number(rec, "calltime"), ev.number(rec, "rettime")
            out.append({"name": trace.symbols.name(ev.number(rec, "func")), "cat": "function_graph",
                        "ph": "X", "ts": us(call), "dur": us(ret - call), "pid": KERNEL_PID,
                        "tid": tid, "args": {"cpu": cpu, "depth": ev.number(rec, "depth")}})
        elif key == ("ftrace", "funcgraph_entry"):
            continue
        elif key == ("ftrace", "function"):
            out.append({"name": trace.symbols.name(ev.number(rec, "ip")), "cat": "function",
                        "ph": "i", "s": "t", "ts": us(ts), "pid": KERNEL_PID, "tid": tid,
                        "args": {"parent": trace.symbols.name(ev.number(rec, "parent_ip")),
                                 "cpu": cpu}})
        else:
            args: Dict[str, Union[int, str]] = {"cpu": cpu}
            for name in ev.fields:
                if not name.startswith("common_"):
                    try:
                        args[name] = ev.value(rec, name)
                    except (ValueError, struct.error):
                        continue
            out.append({"name": ev.name, "cat": ev.system, "ph": "i", "s": "t", "ts": us(ts),
                        "pid": KERNEL_PID, "tid": tid, "args": args})
            if key == ("sched", "sched_switch"):
                if cpu in running:
                    since, comm, was = running[cpu]
                    out.append({"name": f"{comm}-{was}", "cat": "sched", "ph": "X",
                                "ts": us(since), "dur": us(ts - since), "pid": CPUS_PID,
                                "tid": cpu})
                running[cpu] = (ts, ev.text(rec, "next_comm"), ev.number(rec, "next_pid"))
    for cpu, (since, comm, was) in running.items():
        out.append({"name": f"{comm}-{was}", "cat": "sched", "ph": "X", "ts": us(since),
                    "dur": us(last_ts - since), "pid": CPUS_PID, "tid": cpu})
    meta = [{"name": "process_name", "ph": "M", "pid": KERNEL_PID, "args": {"name": "fentros"}},
            {"name": "process_name", "ph": "M", "pid": CPUS_PID, "args": {"name": "CPUs"}}]
    for tid, name in sorted(threads.items()):
        meta.append({"name": "thread_name", "ph": "M", "pid": KERNEL_PID, "tid": tid,
                     "args": {"name": name}})
    for cpu in sorted(running):
        meta.append({"name": "thread_name", "ph": "M", "pid": CPUS_PID, "tid": cpu,
                     "args": {"name": f"CPU {cpu}"}})
    return {"traceEvents": meta + out, "displayTimeUnit": "ns"}


class Frame:
    """One level of a thread's call stack while folding."""

    def __init__(self, func: str) -> None:
        self.func = func
        self.children = 0  # ns spent in the calls it made, so far


def push_frame(stack: List[Frame], depth: int, func: str) -> None:
    """func at `depth`, in place of whatever was there and deeper."""
    del stack[depth:]
    while len(stack) < depth:
        stack.append(Frame(UNKNOWN))
    stack.append(Frame(func))


def to_folded(trace: Trace) -> Dict[str, int]:
    """{path: ns} from function_graph records."""
    stacks: Dict[int, List[Frame]] = {}  # thread -> its call stack, by depth
    totals: Dict[str, int] = {}
    for _, cpu, ev, rec in trace.records():
        if ev.system != "ftrace" or ev.name not in ("funcgraph_entry", "funcgraph_exit"):
            continue
        pid = ev.number(rec, "common_pid")
        stack = stacks.setdefault(thread_id(pid, cpu), [])
        func = trace.symbols.name(ev.number(rec, "func"))
        depth = max(ev.number(rec, "depth"), 0)
        if ev.name == "funcgraph_entry":
            push_frame(stack, depth, func)
            continue
        duration = ev.number(rec, "rettime") - ev.number(rec, "calltime")
        if len(stack) <= depth or stack[depth].func != func:
            push_frame(stack, depth, func)
        children = stack[depth].children
        path = ";".join([trace.comm(pid)] + [frame.func for frame in stack[:depth + 1]])
        totals[path] = totals.get(path, 0) + max(duration - children, 0)
        del stack[depth:]
        # The time belongs to the nearest caller the trace saw enter: an unknown frame
        # never returns, so time charged to it would be counted twice.
        parent = depth - 1
        while parent >= 0 and stack[parent].func == UNKNOWN:
            parent -= 1
        if parent >= 0:
            stack[parent].children += duration
    return totals


def convert(path: Path, to: str, output: Path) -> int:
    trace = Trace(path)
    if to == "chrome-json":
        with open(output, "w") as f:
            json.dump(to_chrome(trace), f)
    else:
        with open(output, "w") as f:
            for stack, value in sorted(to_folded(trace).items()):
                f.write(f"{stack} {value}\n")
    return 0
