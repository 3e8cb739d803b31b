"""Streamed files without QEMU: STREAM_* frames as kernel/hostchan/stream.c sends them, fed
to tools/fentros_trace/stream.py's receiver, which must put each file's bytes in a file of
its own whatever the interleaving, pass xfer's frames on, and refuse anything that does
not add up; and record's per-CPU summary beside the kernel's stats.

    python3 -m unittest discover -s tests/tools -p test_stream.py
"""

import contextlib
import io
import os
import struct
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from fentros_trace import channel, record, shmchan, stream  # noqa: E402


class Frames:
    def __init__(self) -> None:
        self.seq = 0

    def __call__(self, ftype: int, payload: bytes) -> shmchan.Frame:
        self.seq += 1
        return shmchan.Frame(ftype, self.seq, payload)

    def begin(self, file_id: int, name: str) -> shmchan.Frame:
        return self(stream.STREAM_FILE, struct.pack("<II", file_id, 0) + name.encode())

    def data(self, file_id: int, data: bytes) -> shmchan.Frame:
        return self(stream.STREAM_DATA, struct.pack("<II", file_id, 0) + data)

    def end(self, file_id: int, status: int, total: int) -> shmchan.Frame:
        return self(stream.STREAM_END, struct.pack("<IiQ", file_id, status, total))


class StreamReceiverTest(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.capture = io.BytesIO()
        self.rx = stream.StreamReceiver(self.capture, os.path.join(self.dir.name, "streams"))
        self.f = Frames()

    def tearDown(self) -> None:
        self.rx.close()
        self.dir.cleanup()

    def test_interleaved_files(self) -> None:
        f = self.f
        frames = [f.begin(0, "per_cpu/cpu0/trace_pipe_raw"),
                  f.begin(1, "per_cpu/cpu1/trace_pipe_raw"),
                  f.data(1, b"B" * 4096), f.data(0, b"a" * 8192), f.data(1, b"b" * 4096),
                  f.end(0, 0, 8192), f.end(1, 0, 8192)]
        for frame in frames:
            self.rx.feed(frame)
        self.assertEqual(self.rx.streams, {})
        got = {sf.name: Path(sf.path).read_bytes() for sf in self.rx.ended}
        self.assertEqual(got, {"per_cpu/cpu0/trace_pipe_raw": b"a" * 8192,
                               "per_cpu/cpu1/trace_pipe_raw": b"B" * 4096 + b"b" * 4096})
        self.assertEqual([sf.status for sf in self.rx.ended], [0, 0])
        self.assertEqual(self.rx.streamed, 16384)

    def test_xfer_frames_between_streams(self) -> None:
        f = self.f
        self.rx.feed(f.begin(0, "x"))
        self.rx.feed(f(shmchan.XFER_FILE, b"/proc/version"))
        self.rx.feed(f(shmchan.XFER_DATA, b"fentros\n"))
        self.rx.feed(f(shmchan.XFER_END, shmchan.XFER_END_PAYLOAD.pack(0, 0, 8)))
        self.rx.feed(f.end(0, -11, 0))
        self.assertEqual(self.rx.files["/proc/version"], (b"fentros\n", 0))
        self.assertEqual(channel.Stream(self.capture.getvalue()).next_file(),
                         ("/proc/version", b"fentros\n", 0))
        self.assertEqual(self.rx.ended[0].status, -11)
        # A second stream reuses the ids.
        self.rx.feed(f.begin(0, "y"))
        self.rx.feed(f.data(0, b"yy"))
        self.rx.feed(f.end(0, 0, 2))
        self.assertEqual([sf.name for sf in self.rx.ended], ["x", "y"])
        self.assertEqual(Path(self.rx.ended[1].path).read_bytes(), b"yy")

    def test_refused(self) -> None:
        f = self.f
        cases: Dict[str, List[shmchan.Frame]] = {
            "data before its file": [f.data(3, b"x")],
            "end before its file": [f.end(3, 0, 0)],
            "a file begun twice": [f.begin(0, "a"), f.begin(0, "a")],
            "a short total": [f.begin(0, "a"), f.data(0, b"xyz"), f.end(0, 0, 4)],
            "a cut header": [f(stream.STREAM_DATA, b"\0\0\0")],
            "a cut end": [f.begin(0, "a"), f(stream.STREAM_END, struct.pack("<II", 0, 0))],
        }
        for what, frames in cases.items():
            with self.subTest(what):
                rx = stream.StreamReceiver(io.BytesIO(), os.path.join(self.dir.name, what))
                with self.assertRaises(channel.ChannelError):
                    for frame in frames:
                        rx.feed(frame)
                rx.close()


class ReportCountsTest(unittest.TestCase):
    STATS = ("entries: {e}\noverrun: {o}\ncommit overrun: 0\nbytes: 0\n"
             "oldest event ts:     0.000000\nnow ts:     1.000000\ndropped events: {d}\n"
             "read events: {r}\n")

    def summary(self, stats: List[str], counts: List[int], lost: List[int]) -> List[str]:
        files = {f"per_cpu/cpu{c}/stats": s.encode() for c, s in enumerate(stats)}
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            record.report_counts(files, counts, lost)
        return err.getvalue().splitlines()

    def test_agree(self) -> None:
        lines = self.summary([self.STATS.format(e=0, o=0, d=0, r=500),
                              self.STATS.format(e=0, o=7, d=0, r=20)], [500, 20], [0, 7])
        self.assertEqual(lines, ["CPU0: 500 events recorded, 0 lost (the kernel's stats agree)",
                                 "CPU1: 20 events recorded, 7 lost (the kernel's stats agree)"])

    def test_snapshot_agrees_by_entries(self) -> None:
        lines = self.summary([self.STATS.format(e=90, o=3, d=0, r=0)], [90], [3])
        self.assertEqual(lines, ["CPU0: 90 events recorded, 3 lost (the kernel's stats agree)"])

    def test_differ(self) -> None:
        lines = self.summary([self.STATS.format(e=1, o=0, d=2, r=499)], [499], [0])
        self.assertEqual(lines, ["CPU0: 499 events recorded, 0 lost, 2 refused by the full "
                                 "buffer (the kernel's stats differ: read events 499, overrun "
                                 "0, entries 1)"])


if __name__ == "__main__":
    unittest.main()
