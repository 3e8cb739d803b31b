"""tools/fentros_trace without QEMU: ring-buffer pages built by hand go through the page
reader, compact records through the widening, and both through the page writer and the
trace.dat writer; Debian's trace-cmd reads a small written file.

    python3 -m unittest discover -s tests/tools
"""

import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from fentros_trace import convert, formats, record, ringpage, tracedat, widen  # noqa: E402
from fentros_trace.machine import Machine, MachineError  # noqa: E402

PAGE = 4096
BASE = 0xffffffff80000000  # where the kernel lives: compact addresses are offsets from it

# The compact record types (the top nibble of the context word).
FULL, FN, STACK, PRINT, GRAPH_ENT, GRAPH_RET = range(6)


# ---- fixtures: pages and records as the kernel writes them ----

def header(type_len: int, delta: int) -> bytes:
    return struct.pack("<I", type_len | delta << 5)


def small(delta: int, payload: bytes) -> bytes:
    """An event of up to 112 bytes: the length is in type_len."""
    assert len(payload) % 4 == 0 and 0 < len(payload) <= 112
    return header(len(payload) // 4, delta) + payload


def large(delta: int, payload: bytes) -> bytes:
    """type_len 0: the length (+ 4) is in array[0]."""
    return header(0, delta) + struct.pack("<I", len(payload) + 4) + payload


def time_extend(delta: int) -> bytes:
    return header(30, delta & ((1 << 27) - 1)) + struct.pack("<I", delta >> 27)


def time_stamp(ts: int) -> bytes:
    return header(31, ts & ((1 << 27) - 1)) + struct.pack("<I", ts >> 27)


def padding(delta: int, length: int) -> bytes:
    return header(29, delta) + struct.pack("<I", length - 4) + bytes(length - 8)


def page(ts: int, body: bytes, lost: Optional[int] = None) -> bytes:
    """A page: time, commit, events; lost: events lost before it (-1: not counted)."""
    commit = len(body)
    tail = b""
    if lost is not None:
        commit |= 1 << 31
        if lost >= 0:
            commit |= 1 << 30
            tail = struct.pack("<Q", lost)
    data = struct.pack("<QQ", ts, commit) + body + tail
    return data + bytes(PAGE - len(data))


def ctx(kind: int, pid: int, flags: int = 0, preempt: int = 0) -> int:
    """The compact context word: type, flags (irqs off, need resched, hardirq, NMI),
    preempt depth, pid."""
    return kind << 28 | flags << 24 | preempt << 20 | pid


def fn_record(pid: int, ip: int, parent: int, flags: int = 0, preempt: int = 0) -> bytes:
    return struct.pack("<III", ctx(FN, pid, flags, preempt), ip, parent)


def graph_entry(pid: int, func: int, depth: int, irq: bool = False) -> bytes:
    return struct.pack("<III", ctx(GRAPH_ENT, pid), func, depth | (1 << 16 if irq else 0))


def graph_return(pid: int, func: int, depth: int, duration: int, overrun: int = 0) -> bytes:
    return struct.pack("<IIIII", ctx(GRAPH_RET, pid), func, depth | overrun << 12,
                       duration & 0xffffffff, duration >> 32)


def print_record(pid: int, text: bytes) -> bytes:
    body = struct.pack("<II", ctx(PRINT, pid), len(text)) + text
    return body + bytes(-len(body) % 4)


def stack_record(pid: int, calls: List[int]) -> bytes:
    return struct.pack(f"<II{len(calls)}I", ctx(STACK, pid), len(calls), *calls)


COMMON = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")


def linux_format(name: str, event_id: int, fields: str, print_fmt: str) -> bytes:
    """An events/ftrace/NAME/format file as Linux 6.1 writes it."""
    return (f"name: {name}\nID: {event_id}\nformat:\n{COMMON}{fields}\n"
            f"print fmt: {print_fmt}\n").encode()


FUNCTION_FORMAT = linux_format(
    "function", 1, "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n",
    '" %ps <-- %ps", (void *)REC->ip, (void *)REC->parent_ip')
ENTRY_FORMAT = linux_format(
    "funcgraph_entry", 11, "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n",
    '"--> %ps (%d)", (void *)REC->func, REC->depth')
EXIT_FORMAT = linux_format(
    "funcgraph_exit", 10, "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n",
    '"<-- %ps (%d) (start: %llx  end: %llx) over: %d", (void *)REC->func, REC->depth, '
    'REC->calltime, REC->rettime, REC->depth')
PRINT_FORMAT = linux_format(
    "print", 5, "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n",
    '"%ps: %s", (void *)REC->ip, REC->buf')
STACK_FORMAT = linux_format(
    "kernel_stack", 4, "\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n",
    '"\\t=> %ps\\n", (void *)REC->caller[0]')
HEADER_PAGE = (b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
               b"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
               b"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
               b"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n")
HEADER_EVENT = (b"# compressed entry header\n\ttype_len    :    5 bits\n"
                b"\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
                b"\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                b"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")

# Symbols of the fixture kernel: offsets from BASE.
DO_WORK, WORK_STEP, SHELL_RUN, MARK_WRITE = 0x1000, 0x1100, 0x2000, 0x3000
KALLSYMS = "".join(f"{BASE + off:016x} T {name}\n" for off, name in (
    (DO_WORK, "do_work"), (WORK_STEP, "work_step"), (SHELL_RUN, "shell_run"),
    (MARK_WRITE, "tracing_mark_write"))).encode()


def event(fmt: bytes) -> formats.Event:
    return formats.Event("ftrace", fmt)


REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "linux-6.1-formats.txt"


def captured_format(name: str) -> formats.Event:
    """events/ftrace/NAME/format as Debian's Linux 6.1 printed it (tests/reference/)."""
    text = REFERENCE.read_text(encoding="utf-8").split(f"##### events/ftrace/{name}/format\n", 1)
    if len(text) != 2:
        raise AssertionError(f"{REFERENCE} has no events/ftrace/{name}/format")
    return event(text[1].split("\n#####", 1)[0].encode())


# ---- the page reader ----

class PageReader(unittest.TestCase):
    def test_small_events_and_deltas(self) -> None:
        a, b = fn_record(7, 1, 2), fn_record(7, 3, 4)
        lost, page_ts, events = ringpage.decode_page(page(1000, small(5, a) + small(7, b)))
        self.assertEqual((lost, page_ts), (None, 1000))
        self.assertEqual(events, [(1005, a), (1012, b)])

    def test_time_extend_and_absolute_stamp(self) -> None:
        a, b, c = fn_record(1, 1, 0), fn_record(1, 2, 0), fn_record(1, 3, 0)
        gap = (5 << 27) + 3  # more than a 27-bit delta holds
        stamp = (1 << 40) + 12345
        body = time_extend(gap) + small(1, a) + small(2, b) + time_stamp(stamp) + small(0, c)
        _, _, events = ringpage.decode_page(page(100, body))
        self.assertEqual(events, [(100 + gap + 1, a), (100 + gap + 3, b), (stamp, c)])

    def test_absolute_stamp_keeps_the_page_time_high_bits(self) -> None:
        # A stamp holds the low 59 bits; one below the page's time has wrapped past them.
        page_ts = (3 << 59) | 1000
        rec = fn_record(1, 1, 0)
        _, _, events = ringpage.decode_page(page(page_ts, time_stamp(2000) + small(0, rec)))
        self.assertEqual(events, [((3 << 59) | 2000, rec)])
        _, _, events = ringpage.decode_page(page(page_ts, time_stamp(10) + small(0, rec)))
        self.assertEqual(events, [((4 << 59) | 10, rec)])

    def test_large_event(self) -> None:
        text = print_record(3, b"x" * 150)
        self.assertGreater(len(text), 112)
        _, _, events = ringpage.decode_page(page(50, large(4, text)))
        self.assertEqual(events, [(54, text)])

    def test_padding_is_skipped_and_its_delta_kept(self) -> None:
        a, b = fn_record(1, 1, 0), fn_record(1, 2, 0)
        # A discarded event leaves padding with its delta; a 4-byte tail is padding too.
        body = small(1, a) + padding(10, 24) + small(2, b) + header(29, 0)
        _, _, events = ringpage.decode_page(page(0, body))
        self.assertEqual(events, [(1, a), (13, b)])

    def test_lost_events(self) -> None:
        rec = fn_record(1, 1, 0)
        lost, _, _ = ringpage.decode_page(page(0, small(0, rec), lost=42))
        self.assertEqual(lost, 42)
        lost, _, _ = ringpage.decode_page(page(0, small(0, rec), lost=-1))
        self.assertEqual(lost, -1, "lost but not counted")

    def test_capture_entries(self) -> None:
        a, b, c = fn_record(1, 1, 0), fn_record(1, 2, 0), fn_record(1, 3, 0)
        raw = (page(10, small(1, a) + small(1, b)) + page(500, small(2, c), lost=9)
               + page(900, b"", lost=3))
        self.assertEqual(ringpage.decode_pages(raw, 0), [
            ringpage.Entry(11, a, None), ringpage.Entry(12, b, None),
            ringpage.Entry(502, c, 9),  # the count goes with the page's first event
            ringpage.Entry(900, None, 3)])  # a page that lost events and holds none

    def test_damaged_pages(self) -> None:
        rec = fn_record(1, 1, 0)
        damaged = {
            "commit past the page": struct.pack("<QQ", 0, PAGE) + bytes(PAGE - 16),
            "padding not a multiple of 4": page(0, header(29, 0) + struct.pack("<I", 6)
                                                + bytes(8)),
            "time extend cut": page(0, header(30, 0)),
        }
        # The commit holds the header of a 16-byte event and half of its payload.
        damaged["event past the commit"] = (struct.pack("<QQ", 0, 12) + header(4, 0)
                                            + bytes(PAGE - 20))
        for what, data in damaged.items():
            with self.subTest(what), self.assertRaises(ringpage.PageError):
                ringpage.decode_page(data)
        with self.assertRaises(ringpage.PageError):
            ringpage.decode_pages(page(0, small(0, rec))[:-1], 0)


# ---- the widening ----

class Widening(unittest.TestCase):
    def setUp(self) -> None:
        self.w = widen.Widener(BASE + MARK_WRITE)

    def test_function(self) -> None:
        # irqs off + hardirq, preempt depth 2, a 20-bit pid.
        rec = self.w.widen(0, fn_record(0xabcde, DO_WORK, SHELL_RUN, flags=0x1 | 0x4,
                                        preempt=2))
        ev = event(FUNCTION_FORMAT)
        self.assertEqual(len(rec), 24)
        self.assertEqual(ev.number(rec, "common_type"), 1)
        self.assertEqual(ev.number(rec, "common_flags"), 0x01 | 0x08)  # Linux's bits
        self.assertEqual(ev.number(rec, "common_preempt_count"), 2)
        self.assertEqual(ev.number(rec, "common_pid"), 0xabcde)
        self.assertEqual(ev.number(rec, "ip"), BASE + DO_WORK)
        self.assertEqual(ev.number(rec, "parent_ip"), BASE + SHELL_RUN)

    def test_flags(self) -> None:
        ev = event(FUNCTION_FORMAT)
        for ours, linux in ((0x1, 0x01), (0x2, 0x04), (0x4, 0x08), (0x8, 0x40), (0xf, 0x4d)):
            rec = self.w.widen(0, fn_record(1, 1, 1, flags=ours))
            self.assertEqual(ev.number(rec, "common_flags"), linux, hex(ours))

    def test_zero_address_stays_zero(self) -> None:
        rec = self.w.widen(0, fn_record(1, DO_WORK, 0))
        self.assertEqual(event(FUNCTION_FORMAT).number(rec, "parent_ip"), 0)

    def test_graph_entry_drops_the_interrupt_flag(self) -> None:
        rec = self.w.widen(0, graph_entry(5, WORK_STEP, 3, irq=True))
        ev = event(ENTRY_FORMAT)
        self.assertEqual(len(rec), 24)
        self.assertEqual((ev.number(rec, "common_type"), ev.number(rec, "func"),
                          ev.number(rec, "depth")), (11, BASE + WORK_STEP, 3))

    def test_graph_return_times(self) -> None:
        duration = (1 << 33) + 77  # needs both halves
        rec = self.w.widen(10 ** 13, graph_return(5, WORK_STEP, 2, duration, overrun=6))
        ev = event(EXIT_FORMAT)
        self.assertEqual(len(rec), 40)
        self.assertEqual(ev.number(rec, "common_type"), 10)
        self.assertEqual(ev.number(rec, "func"), BASE + WORK_STEP)
        self.assertEqual((ev.number(rec, "depth"), ev.number(rec, "overrun")), (2, 6))
        # The compact record is written at the return: its time is rettime.
        self.assertEqual(ev.number(rec, "rettime"), 10 ** 13)
        self.assertEqual(ev.number(rec, "calltime"), 10 ** 13 - duration)

    def test_print(self) -> None:
        ev = event(PRINT_FORMAT)
        for text in (b"hello", b"hello\n"):
            rec = self.w.widen(0, print_record(4, text))
            self.assertEqual(ev.number(rec, "common_type"), 5)
            self.assertEqual(ev.number(rec, "ip"), BASE + MARK_WRITE)
            # Linux's marker text ends with a newline and a NUL.
            self.assertEqual(rec[16:], b"hello\n\0")

    def test_kernel_stack(self) -> None:
        ev = event(STACK_FORMAT)
        rec = self.w.widen(0, stack_record(2, [DO_WORK, SHELL_RUN, 0]))
        self.assertEqual((ev.number(rec, "common_type"), ev.number(rec, "size")), (4, 3))
        callers = struct.unpack_from("<8Q", rec, 16)
        self.assertEqual(callers, (BASE + DO_WORK, BASE + SHELL_RUN) + (0,) * 6)
        self.assertEqual(len(rec), 16 + 64)
        # More than the format's eight: all of them, as Linux writes them.
        rec = self.w.widen(0, stack_record(2, list(range(1, 11))))
        self.assertEqual(ev.number(rec, "size"), 10)
        self.assertEqual(len(rec), 16 + 80)

    def test_wakeup_and_switch(self) -> None:
        for wakeup, name, event_id in ((1, "wakeup", 3), (0, "context_switch", 2)):
            ev = captured_format(name)
            payload = struct.pack("<IiiBBccBBH", ctx(widen.CTXWAKE, 7), 7, 42, 120, 98, b"S",
                                  b"R", 1, wakeup, 0)
            rec = self.w.widen(0, payload)
            self.assertEqual(len(rec), 24)
            got = {f: ev.number(rec, f) for f in ("common_type", "prev_pid", "next_pid",
                                                   "next_cpu", "prev_prio", "prev_state",
                                                   "next_prio", "next_state")}
            # States as Linux's task_state_index: S is 1, R is 0.
            self.assertEqual(got, {"common_type": event_id, "prev_pid": 7, "next_pid": 42,
                                   "next_cpu": 1, "prev_prio": 120, "prev_state": 1,
                                   "next_prio": 98, "next_state": 0})

    def test_latency_samples(self) -> None:
        start = 12 * 10 ** 9 + 345
        hwlat = self.w.widen(0, struct.pack("<7I", ctx(widen.HWLAT, 3), 9, 12, 11, 2,
                                            start & 0xffffffff, start >> 32))
        ev = captured_format("hwlat")
        self.assertEqual(len(hwlat), 64)
        self.assertEqual({f: ev.number(hwlat, f) for f in (
            "common_type", "seqnum", "duration", "outer_duration", "count", "tv_sec",
            "tv_nsec", "nmi_count", "nmi_total_ts")}, {
            "common_type": 15, "seqnum": 9, "duration": 12, "outer_duration": 11, "count": 2,
            "tv_sec": 12, "tv_nsec": 345, "nmi_count": 0, "nmi_total_ts": 0})
        osnoise = self.w.widen(0, struct.pack("<IQQQ5I", ctx(widen.OSNOISE, 3), 1000, 15, 7,
                                              1, 0, 30, 2, 5))
        ev = captured_format("osnoise")
        self.assertEqual(len(osnoise), 56)
        self.assertEqual({f: ev.number(osnoise, f) for f in (
            "common_type", "runtime", "noise", "max_sample", "hw_count", "nmi_count",
            "irq_count", "softirq_count", "thread_count")}, {
            "common_type": 16, "runtime": 1000, "noise": 15, "max_sample": 7, "hw_count": 1,
            "nmi_count": 0, "irq_count": 30, "softirq_count": 2, "thread_count": 5})
        timerlat = self.w.widen(0, struct.pack("<IIIQ", ctx(widen.TIMERLAT, 3), 4, 1,
                                               (1 << 32) + 1045))
        ev = captured_format("timerlat")
        self.assertEqual(len(timerlat), 24)
        self.assertEqual({f: ev.number(timerlat, f) for f in (
            "common_type", "seqnum", "context", "timer_latency")}, {
            "common_type": 17, "seqnum": 4, "context": 1, "timer_latency": (1 << 32) + 1045})

    def test_linux_layout_passes_unchanged(self) -> None:
        rec = struct.pack("<HBBi", 300, 0, 0, 9) + b"payload!"
        self.assertEqual(self.w.widen(0, rec), rec)

    def test_bad_records(self) -> None:
        for what, payload in (("too short", b"\0\0"),
                              ("unknown type", struct.pack("<I", 9 << 28)),
                              ("cut short", struct.pack("<II", ctx(FN, 1), 5)),
                              ("more calls than bytes", struct.pack("<II", ctx(STACK, 1), 4))):
            with self.subTest(what), self.assertRaises(widen.WidenError):
                self.w.widen(0, payload)


# ---- the page writer ----

class PageWriter(unittest.TestCase):
    def test_one_event_page(self) -> None:
        w = ringpage.PageWriter()
        rec = b"abcdefghij"  # padded to 12
        w.add(777, rec)
        data = w.finish()
        self.assertEqual(len(data), PAGE)
        self.assertEqual(data[:16], struct.pack("<QQ", 777, 16))
        self.assertEqual(data[16:32], header(3, 0) + rec + b"\0\0")
        self.assertEqual(data[32:], bytes(PAGE - 32))

    def test_round_trip(self) -> None:
        """Gaps wider than a delta, time going back, large events, full pages and lost
        events: what the reader gets back is what went in."""
        entries: List[Tuple[int, bytes, Optional[int]]] = []
        t = 1000
        for i in range(600):
            t += (1 << 28) if i % 97 == 5 else 3 + i % 5
            size = 200 if i % 50 == 0 else 4 * (1 + i % 9)
            entries.append((t, bytes([i % 251]) * size, None))
        entries[300] = (entries[300][0], entries[300][1], 17)  # 17 lost just before it
        entries[400] = (entries[400][0], entries[400][1], -1)  # lost, not counted
        entries.insert(450, (entries[449][0] - 500, b"back" * 3, None))  # time goes back
        w = ringpage.PageWriter()
        for ts, payload, lost in entries:
            w.add(ts, payload, lost)
        w.mark_lost(5)
        raw = w.finish()
        self.assertGreater(len(raw) // PAGE, 3)
        got = ringpage.decode_pages(raw, 0)
        self.assertEqual(got[:-1], [ringpage.Entry(*e) for e in entries])
        self.assertEqual((got[-1].payload, got[-1].lost_before), (None, 5))
        # Each page's header time is the time of its first event or of the page before.
        self.assertTrue(all(struct.unpack_from("<Q", raw, off)[0] <= entries[-1][0]
                            for off in range(0, len(raw), PAGE)))

    def test_event_too_large(self) -> None:
        with self.assertRaises(ringpage.PageError):
            ringpage.PageWriter().add(0, bytes(ringpage.PAGE_DATA - 7))

    def test_whole_page_events(self) -> None:
        """Events of Linux's largest size (4072 bytes) each fill a page, after a gap that
        needs a time extend and after lost events, whose count gets a page of its own."""
        big = bytes(range(256)) * 15 + bytes(range(232))
        self.assertEqual(len(big), ringpage.PAGE_DATA - 8)
        entries = [(100, b"small", None), (200, big, None), (300, b"after", None),
                   (300 + (1 << 30), big, None), (300 + (1 << 30) + 1, big, 9),
                   (300 + (1 << 30) + 2, b"last", None)]
        w = ringpage.PageWriter()
        for ts, payload, lost in entries:
            w.add(ts, payload, lost)
        raw = w.finish()
        self.assertEqual(len(raw) // PAGE, 7)
        got = ringpage.decode_pages(raw, 0)
        want = [ringpage.Entry(ts, p + bytes(-len(p) % 4), lost) for ts, p, lost in entries]
        want.insert(4, ringpage.Entry(300 + (1 << 30), None, 9))
        want[5] = ringpage.Entry(want[5].ts, want[5].payload, None)
        self.assertEqual(got, want)


# ---- trace.dat ----

def fixture_trace(path: Path) -> None:
    """A two-CPU trace.dat: functions, a graph call and a marker on CPU 0, functions after
    lost events on CPU 1, written as `record` writes one."""
    wd = widen.Widener(BASE + MARK_WRITE)
    cpu0 = [(1_000, fn_record(42, DO_WORK, SHELL_RUN)),
            (1_200, graph_entry(42, WORK_STEP, 0)),
            (4_000, graph_return(42, WORK_STEP, 0, 2_800)),
            (5_000, print_record(42, b"step done"))]
    cpu1 = [(2_000, fn_record(0, SHELL_RUN, 0)), (3_000, fn_record(0, DO_WORK, SHELL_RUN))]
    cpu_data = []
    for cpu, records in ((0, cpu0), (1, cpu1)):
        raw = page(records[0][0], b"".join(small(ts - records[0][0] if i == 0 else
                                                 ts - records[i - 1][0], payload)
                                           for i, (ts, payload) in enumerate(records)),
                   lost=3 if cpu == 1 else None)
        w = ringpage.PageWriter()
        for ts, payload, lost in ringpage.decode_pages(raw, cpu):
            assert payload is not None
            w.add(ts, wd.widen(ts, payload), lost)
        cpu_data.append(w.finish())
    tracedat.write(path, header_page=HEADER_PAGE, header_event=HEADER_EVENT,
                   ftrace_formats=[FUNCTION_FORMAT, STACK_FORMAT, PRINT_FORMAT, EXIT_FORMAT,
                                   ENTRY_FORMAT],
                   systems=[], kallsyms=KALLSYMS, printk_formats=b"",
                   cmdlines=b"42 work\n", cpu_data=cpu_data,
                   options=[(tracedat.OPTION_TRACECLOCK, b"[local] global counter\0")])


class TraceDatWriter(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.path = Path(self.dir.name) / "trace.dat"

    def tearDown(self) -> None:
        self.dir.cleanup()

    def test_read_back(self) -> None:
        cpu_data = [b"\x01" * PAGE, b"", b"\x02" * (2 * PAGE)]
        tracedat.write(self.path, header_page=b"hp", header_event=b"he",
                       ftrace_formats=[b"f1", b"f2"], systems=[("sched", [b"s1"])],
                       kallsyms=b"k", printk_formats=b"p", cmdlines=b"c", cpu_data=cpu_data,
                       options=[(tracedat.OPTION_UNAME, b"fentros\0")])
        data = self.path.read_bytes()
        self.assertEqual(data[:10], b"\x17\x08\x44tracing")
        self.assertEqual(data[10:14], b"6\0\0\x08")
        self.assertEqual(struct.unpack_from("<I", data, 14)[0], PAGE)
        dat = tracedat.TraceDat(self.path)
        self.assertEqual((dat.header_page, dat.header_event, dat.ftrace_formats, dat.systems),
                         (b"hp", b"he", [b"f1", b"f2"], [("sched", [b"s1"])]))
        self.assertEqual((dat.kallsyms, dat.printk_formats, dat.cmdlines),
                         (b"k", b"p", b"c"))
        self.assertEqual(dat.options, [(tracedat.OPTION_UNAME, b"fentros\0")])
        self.assertEqual(dat.cpu_data, cpu_data)
        # Each CPU's pages start on a page boundary, as trace-cmd maps them.
        table = data.index(b"flyrecord\0") + 10
        offsets = [struct.unpack_from("<QQ", data, table + 16 * cpu) for cpu in range(3)]
        self.assertEqual([off % PAGE for off, _ in offsets], [0, 0, 0])
        self.assertEqual([size for _, size in offsets], [PAGE, 0, 2 * PAGE])

    def test_truncated_file(self) -> None:
        fixture_trace(self.path)
        data = self.path.read_bytes()
        for cut in (20, len(data) - 1):
            self.path.write_bytes(data[:cut])
            with self.subTest(cut=cut), self.assertRaisesRegex(tracedat.TraceDatError,
                                                               "truncated"):
                tracedat.TraceDat(self.path)

    def test_convert_reads_the_fixture(self) -> None:
        fixture_trace(self.path)
        trace = convert.Trace(self.path)
        rows = [(ts, cpu, ev.name) for ts, cpu, ev, _ in trace.records()]
        self.assertEqual(rows, [(1_000, 0, "function"), (1_200, 0, "funcgraph_entry"),
                                (2_000, 1, "function"), (3_000, 1, "function"),
                                (4_000, 0, "funcgraph_exit"), (5_000, 0, "print")])
        self.assertEqual(convert.to_folded(trace), {"work;work_step": 2_800})

    @unittest.skipUnless(shutil.which("trace-cmd"), "trace-cmd is not installed")
    def test_trace_cmd_report(self) -> None:
        fixture_trace(self.path)
        r = subprocess.run(["trace-cmd", "report", "-N", "-i", str(self.path)],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        line = re.compile(r"^\s*(\S+)-(\d+)\s+\[(\d+)\]\s+(\d+\.\d{6}): (\w+):\s+(.*)$")
        rows = [m.groups() for m in map(line.match, r.stdout.splitlines()) if m]
        self.assertEqual([row[:5] for row in rows], [
            ("work", "42", "000", "0.000001", "function"),
            ("work", "42", "000", "0.000001", "funcgraph_entry"),
            ("<idle>", "0", "001", "0.000002", "function"),
            ("<idle>", "0", "001", "0.000003", "function"),
            ("work", "42", "000", "0.000004", "funcgraph_exit"),
            ("work", "42", "000", "0.000005", "print")])
        bodies = [" ".join(row[5].split()) for row in rows]
        self.assertEqual(bodies[0], "do_work <-- shell_run")
        self.assertEqual(bodies[1], "--> work_step (0)")
        self.assertEqual(bodies[4], "<-- work_step (0) (start: 4b0 end: fa0) over: 0")
        self.assertEqual(bodies[5], "tracing_mark_write: step done")
        self.assertIn("CPU:1 [3 EVENTS DROPPED]", " ".join(r.stdout.split()))


# ---- the traced command's status ----

class FakeMachine(Machine):
    """A Machine that boots nothing: run() answers with canned output."""

    def __init__(self, lines: List[str]) -> None:
        self.lines = lines
        self.sent: List[str] = []

    def run(self, line: str, timeout: float = 600) -> Tuple[int, List[str]]:
        self.sent.append(line)
        return 0, self.lines


class TracedStatus(unittest.TestCase):
    def traced(self, lines: List[str]) -> record.Traced:
        m = FakeMachine(lines)
        result = record.run_traced(m, "work 0.1", 60)
        self.assertEqual(m.sent, ["echo 1 > tracing_on; work 0.1; echo 0 > tracing_on | "
                                  f"echo {record.STATUS_TAG}$?"])
        return result

    def test_status_and_output(self) -> None:
        got = self.traced(["done", f"{record.STATUS_TAG}3"])
        self.assertEqual((got.lines, got.status), (["done"], 3))

    def test_output_without_a_last_newline(self) -> None:
        got = self.traced(["a", f"partial{record.STATUS_TAG}0"])
        self.assertEqual((got.lines, got.status), (["a", "partial"], 0))

    def test_no_status(self) -> None:
        with self.assertRaises(MachineError):
            self.traced(["the shell said something else"])


if __name__ == "__main__":
    unittest.main()
