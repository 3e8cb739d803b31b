"""The host channel's reader without QEMU: a ring written here the way kernel/hostchan/ring.c
writes it, read by tools/fentros_trace/shmchan.py; then every kind of damage a host can
meet (a bad checksum, a missing frame, a length past the ring, an impossible head) must be
refused with ChannelError, never followed.

    python3 -m unittest discover -s tests/tools -p test_shmchan.py
"""

import os
import struct
import sys
import tempfile
import unittest
import zlib
from pathlib import Path
from typing import List

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from fentros_trace import channel, shmchan  # noqa: E402

RING = 3 * 4096
SIZE = shmchan.HEADER_SIZE + RING


class KernelSide:
    """The producer, as ring.c: frames at head % ring, PAD where one would pass the end."""

    def __init__(self, path: str, boot_id: int = 1) -> None:
        self.path = path
        self.head = 0
        self.seq = 0
        with open(path, "r+b") as f:
            f.write(struct.pack("<IIIIQQ", shmchan.MAGIC, shmchan.VERSION, shmchan.HEADER_SIZE,
                                shmchan.FRAME_ALIGN, RING, boot_id))
            f.seek(shmchan.HEAD_OFFSET)
            f.write(bytes(8))
            f.seek(shmchan.TAIL_OFFSET)
            f.write(bytes(8))

    def tail(self) -> int:
        with open(self.path, "rb") as f:
            f.seek(shmchan.TAIL_OFFSET)
            value: int = struct.unpack("<Q", f.read(8))[0]
            return value

    def _write(self, at: int, data: bytes) -> None:
        with open(self.path, "r+b") as f:
            f.seek(shmchan.HEADER_SIZE + at % RING)
            f.write(data)

    def publish(self) -> None:
        with open(self.path, "r+b") as f:
            f.seek(shmchan.HEAD_OFFSET)
            f.write(struct.pack("<Q", self.head))

    def frame(self, ftype: int, payload: bytes, crc_delta: int = 0, seq_delta: int = 0) -> None:
        size = -(-(16 + len(payload)) // 16) * 16
        to_end = RING - self.head % RING
        if size > to_end:
            pad = struct.pack("<HHII", shmchan.PAD, 0, to_end - 16, self.seq)
            self._write(self.head, pad + struct.pack("<I", zlib.crc32(pad)))
            self.seq += 1
            self.head += to_end
        header = struct.pack("<HHII", ftype, 0, len(payload), self.seq + seq_delta)
        crc = zlib.crc32(payload, zlib.crc32(header)) ^ crc_delta
        self._write(self.head, header + struct.pack("<I", crc) + payload)
        self.seq += 1
        self.head += size
        self.publish()


class ShmChannelTest(unittest.TestCase):
    def setUp(self) -> None:
        fd, self.path = tempfile.mkstemp(prefix="shmchan-")
        os.close(fd)
        shmchan.create_backing(self.path, SIZE)
        self.chan = shmchan.ShmChannel(self.path)

    def tearDown(self) -> None:
        self.chan.close()
        os.unlink(self.path)

    def test_not_ready_before_magic(self) -> None:
        self.assertFalse(self.chan.ready())
        self.assertEqual(self.chan.poll(), [])

    def test_frames_through_many_wraps(self) -> None:
        kernel = KernelSide(self.path)
        sent: List[bytes] = []
        got: List[bytes] = []
        for i in range(100):
            payload = bytes((i + b) & 0xff for b in range((i * 397) % 4097))
            kernel.frame(shmchan.XFER_DATA, payload)
            sent.append(payload)
            got += [f.payload for f in self.chan.poll()]
            self.assertEqual(kernel.tail(), kernel.head)
        self.assertEqual(got, sent)
        self.assertGreater(kernel.head, 10 * RING)

    def test_files_reassembled_into_a_capture(self) -> None:
        kernel = KernelSide(self.path)
        data = bytes(range(256)) * 40
        kernel.frame(shmchan.XFER_FILE, b"per_cpu/cpu0/trace_pipe_raw")
        for at in range(0, len(data), 3000):
            kernel.frame(shmchan.XFER_DATA, data[at:at + 3000])
        kernel.frame(shmchan.XFER_END, struct.pack("<iIQ", 0, 0, len(data)))
        kernel.frame(shmchan.XFER_FILE, b"/nope")
        kernel.frame(shmchan.XFER_END, struct.pack("<iIQ", -2, 0, 0))
        with tempfile.TemporaryDirectory() as d:
            capture = Path(d) / "capture.bin"
            with open(capture, "wb") as f:
                receiver = shmchan.XferReceiver(f)
                for frame in self.chan.poll():
                    receiver.feed(frame)
            self.assertIsNone(receiver.current)
            self.assertEqual(receiver.files["per_cpu/cpu0/trace_pipe_raw"], (data, 0))
            self.assertEqual(receiver.files["/nope"], (b"", -2))
            stream = channel.Stream(capture.read_bytes())
            self.assertEqual(stream.next_file(), ("per_cpu/cpu0/trace_pipe_raw", data, 0))
            self.assertEqual(stream.next_file(), ("/nope", b"", -2))

    def test_bad_checksum_refused(self) -> None:
        kernel = KernelSide(self.path)
        kernel.frame(shmchan.XFER_DATA, b"good")
        kernel.frame(shmchan.XFER_DATA, b"flipped", crc_delta=1)
        with self.assertRaisesRegex(channel.ChannelError, "frame 1 .* fails its checksum"):
            self.chan.poll()

    def test_missing_frame_refused(self) -> None:
        kernel = KernelSide(self.path)
        kernel.frame(shmchan.XFER_DATA, b"zero")
        kernel.frame(shmchan.XFER_DATA, b"two", seq_delta=1)
        with self.assertRaisesRegex(channel.ChannelError, "frame 2 arrived where frame 1"):
            self.chan.poll()

    def test_length_past_the_ring_refused(self) -> None:
        kernel = KernelSide(self.path)
        header = struct.pack("<HHII", shmchan.XFER_DATA, 0, RING, 0)
        kernel._write(0, header + struct.pack("<I", zlib.crc32(header)))
        kernel.head = 32
        kernel.publish()
        with self.assertRaisesRegex(channel.ChannelError, "claims"):
            self.chan.poll()

    def test_impossible_head_refused(self) -> None:
        kernel = KernelSide(self.path)
        kernel.head = RING + 16
        kernel.publish()
        with self.assertRaisesRegex(channel.ChannelError, "impossible"):
            self.chan.poll()

    def test_reboot_starts_over(self) -> None:
        kernel = KernelSide(self.path, boot_id=1)
        kernel.frame(shmchan.XFER_DATA, b"first boot")
        self.assertEqual([f.seq for f in self.chan.poll()], [0])
        kernel = KernelSide(self.path, boot_id=2)
        kernel.frame(shmchan.XFER_DATA, b"second boot")
        self.assertEqual([f.payload for f in self.chan.poll()], [b"second boot"])

    def test_receiver_refuses_out_of_order_frames(self) -> None:
        with tempfile.TemporaryFile() as f:
            receiver = shmchan.XferReceiver(f)
            with self.assertRaises(channel.ChannelError):
                receiver.feed(shmchan.Frame(shmchan.XFER_DATA, 0, b"x"))
            receiver.feed(shmchan.Frame(shmchan.XFER_FILE, 0, b"a"))
            with self.assertRaises(channel.ChannelError):
                receiver.feed(shmchan.Frame(shmchan.XFER_FILE, 1, b"b"))
            with self.assertRaisesRegex(channel.ChannelError, "kernel sent 5"):
                receiver.feed(shmchan.Frame(shmchan.XFER_END, 2, struct.pack("<iIQ", 0, 0, 5)))
            with self.assertRaisesRegex(channel.ChannelError, "unknown type"):
                receiver.feed(shmchan.Frame(9, 3, b""))


if __name__ == "__main__":
    unittest.main()
