"""The host end of the kernel's host channel: a ring of frames in shared memory.

The kernel (kernel/hostchan/, <kernel/hostchan.h> has the layout) finds QEMU's
ivshmem-plain device, whose memory is a host file (here in /dev/shm), and writes frames
into a ring there; this side maps the same file, consumes the frames and gives their space
back by advancing the tail. Nothing signals either side: this one polls the head.

Frames: u16 type, u16 flags, u32 len, u32 seq, u32 crc, then len payload bytes, padded to
16 bytes. crc is zlib's CRC-32 of the header's first 12 bytes followed by the payload (a
PAD frame's payload is not covered); seq counts every frame from 0. A damaged frame, a
missing one or a header this side does not know raises ChannelError: nothing is guessed.

Ordering: the kernel writes a frame before it advances the head, and this side reads the
head before the frame and stores the tail only after it has copied the frame out. Both
sides run on x86, whose stores become visible in program order (TSO), and Python's mmap
slicing copies with plain loads, so no fence is needed on either side.

`xfer -c` sends files as XFER_FILE (name), XFER_DATA (bytes) and XFER_END (status, total)
frames; XferReceiver turns them back into files and writes them, as they complete, to a
capture in the debug console's format (channel.py), so a capture reads the same whichever
way the files came.
"""

import ctypes
import mmap
import os
import struct
import threading
import time
import zlib
from dataclasses import dataclass
from typing import IO, Dict, List, Optional, Tuple

from .channel import ChannelError

MAGIC = 0x48435446  # "FTCH"
VERSION = 2
HEADER_SIZE = 4096
FRAME_ALIGN = 16
FRAME_HEADER = 16
DEFAULT_SIZE = 16 << 20

# struct hostchan_shared: the offsets of its fields.
SHARED_FIXED = struct.Struct("<IIIIQQ")  # magic, version, header_size, frame_align, ring, boot
HEAD_OFFSET = 64
COUNTERS = struct.Struct("<QQQ")  # frames, dropped_frames, dropped_bytes, after head
TAIL_OFFSET = 128
U64 = struct.Struct("<Q")
FRAME = struct.Struct("<HHIII")

PAD = 0
XFER_FILE = 1
XFER_DATA = 2
XFER_END = 3
XFER_END_PAYLOAD = struct.Struct("<iIQ")


@dataclass
class Frame:
    type: int
    seq: int
    payload: bytes


@dataclass
class Counters:
    """What the kernel says of its side: frames published, and given up on a stalled host."""
    frames: int
    dropped_frames: int
    dropped_bytes: int


def store_u64(buf: mmap.mmap, offset: int, value: int) -> None:
    """One aligned 8-byte store, which the other side sees whole (x86). struct.pack_into
    stores byte by byte: a kernel polling the field could see a number half written."""
    view = ctypes.c_uint64.from_buffer(buf, offset)
    view.value = value
    del view  # an exported view would keep the map from closing


def load_u64(buf: mmap.mmap, offset: int) -> int:
    """One aligned 8-byte load: a number the other side stores is never seen half stored."""
    view = ctypes.c_uint64.from_buffer(buf, offset)
    value: int = view.value
    del view
    return value


def create_backing(path: str, size: int = DEFAULT_SIZE) -> None:
    """The file QEMU's memory-backend-file maps: made here, zeroed, at its full size, so
    that this side can map it before QEMU starts and QEMU never sees a short file."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.ftruncate(fd, size)
    finally:
        os.close(fd)


class ShmChannel:
    """The consumer of one ring. poll() returns the frames published since the last call."""

    def __init__(self, path: str) -> None:
        self.path = path
        with open(path, "r+b") as f:
            self.map = mmap.mmap(f.fileno(), 0)
        # head and tail go through load_u64/store_u64: struct's packers load and store a
        # byte at a time, so the kernel could see a tail half moved (and refuse it, or
        # overwrite a frame not yet read), and this side a head half moved (and read past
        # the frames published).
        self.ring_size = 0
        self.boot_id: Optional[int] = None
        self.expected_seq = 0

    def close(self) -> None:
        self.map.close()

    def _u64(self, offset: int) -> int:
        return load_u64(self.map, offset)

    def ready(self) -> bool:
        """True once the kernel has set the ring up (its magic is written last)."""
        magic, version, header_size, frame_align, ring_size, boot_id = \
            SHARED_FIXED.unpack_from(self.map, 0)
        if magic != MAGIC:
            return False
        if (version, header_size, frame_align) != (VERSION, HEADER_SIZE, FRAME_ALIGN):
            raise ChannelError(f"host channel: version {version}, header {header_size}, "
                               f"alignment {frame_align}: this reader knows version {VERSION}")
        if ring_size == 0 or ring_size % FRAME_ALIGN or HEADER_SIZE + ring_size > len(self.map):
            raise ChannelError(f"host channel: a ring of {ring_size} bytes does not fit in "
                               f"{len(self.map)}")
        if boot_id != self.boot_id:
            # The kernel set the ring up (again): it starts from head 0, tail 0, seq 0.
            self.boot_id = boot_id
            self.ring_size = ring_size
            self.expected_seq = 0
        return True

    def counters(self) -> Counters:
        return Counters(*COUNTERS.unpack_from(self.map, HEAD_OFFSET + 8))

    def pending(self) -> int:
        """Bytes published and not yet consumed."""
        if not self.ready():
            return 0
        return self._u64(HEAD_OFFSET) - self._u64(TAIL_OFFSET)

    def poll(self, max_frames: int = 1 << 30) -> List[Frame]:
        if not self.ready():
            return []
        head = self._u64(HEAD_OFFSET)
        tail = self._u64(TAIL_OFFSET)
        if tail > head or head - tail > self.ring_size:
            raise ChannelError(f"host channel: head {head} and tail {tail} are impossible")
        frames: List[Frame] = []
        while tail < head and len(frames) < max_frames:
            pos = tail % self.ring_size
            base = HEADER_SIZE + pos
            room = self.ring_size - pos
            if room < FRAME_HEADER or head - tail < FRAME_HEADER:
                raise ChannelError(f"host channel: a frame header at {tail} is cut short")
            header = bytes(self.map[base:base + FRAME_HEADER])
            ftype, flags, length, seq, crc = FRAME.unpack(header)
            size = (FRAME_HEADER + length + FRAME_ALIGN - 1) // FRAME_ALIGN * FRAME_ALIGN
            if size > room or size > head - tail:
                raise ChannelError(f"host channel: frame {seq} at {tail} claims {length} bytes, "
                                   f"more than the ring holds there")
            if ftype == PAD:
                payload = b""
                want = zlib.crc32(header[:12])
            else:
                payload = bytes(self.map[base + FRAME_HEADER:base + FRAME_HEADER + length])
                want = zlib.crc32(payload, zlib.crc32(header[:12]))
            if crc != want:
                raise ChannelError(f"host channel: frame {seq} at {tail} (type {ftype}, "
                                   f"{length} bytes) fails its checksum")
            if seq != self.expected_seq & 0xffffffff:
                raise ChannelError(f"host channel: frame {seq} arrived where frame "
                                   f"{self.expected_seq} was due")
            if flags:
                raise ChannelError(f"host channel: frame {seq} has unknown flags {flags:#x}")
            self.expected_seq += 1
            tail += size
            # The frame is copied out: its space goes back to the kernel.
            store_u64(self.map, TAIL_OFFSET, tail)
            if ftype != PAD:
                frames.append(Frame(ftype, seq, payload))
        return frames


class XferReceiver:
    """Files out of XFER_* frames, written to a capture as each completes."""

    def __init__(self, capture: IO[bytes]) -> None:
        self.capture = capture
        self.files: Dict[str, Tuple[bytes, int]] = {}
        self.current: Optional[str] = None
        self.parts: List[bytes] = []
        self.received = 0  # data bytes, all files

    def feed(self, frame: Frame) -> None:
        if frame.type == XFER_FILE:
            if self.current is not None:
                raise ChannelError(f"{self.current}: a new file began before this one ended")
            self.current = frame.payload.decode("utf-8", errors="replace")
            self.parts = []
        elif frame.type == XFER_DATA:
            if self.current is None:
                raise ChannelError(f"frame {frame.seq}: data outside a file")
            self.parts.append(frame.payload)
            self.received += len(frame.payload)
        elif frame.type == XFER_END:
            if self.current is None or len(frame.payload) != XFER_END_PAYLOAD.size:
                raise ChannelError(f"frame {frame.seq}: a file's end outside a file, or "
                                   f"{len(frame.payload)} bytes long")
            status, _, total = XFER_END_PAYLOAD.unpack(frame.payload)
            data = b"".join(self.parts)
            if total != len(data):
                raise ChannelError(f"{self.current}: {len(data)} bytes arrived, the kernel "
                                   f"sent {total}")
            self._write_capture(self.current, data, status)
            self.files[self.current] = (data, status)
            self.current = None
            self.parts = []
        else:
            raise ChannelError(f"frame {frame.seq}: unknown type {frame.type}")

    def _write_capture(self, name: str, data: bytes, status: int) -> None:
        encoded = name.encode()
        out = [b"FTXF", struct.pack("<H", len(encoded)), encoded]
        for at in range(0, len(data), 1 << 16):
            chunk = data[at:at + (1 << 16)]
            out += [b"FTXD", struct.pack("<I", len(chunk)), chunk,
                    struct.pack("<I", zlib.crc32(chunk))]
        out += [b"FTXE", struct.pack("<iQI", status, len(data), zlib.crc32(data))]
        self.capture.write(b"".join(out))
        self.capture.flush()


class Reader:
    """Consumes a channel on a thread of its own, so the kernel never waits for the host
    while the host waits for the shell. drain() consumes what is left on the caller's
    thread; an error on the reader's thread is raised there."""

    IDLE_SLEEP = 0.005
    BUSY_SLEEP = 0.0002

    def __init__(self, chan: ShmChannel, receiver: XferReceiver) -> None:
        self.chan = chan
        self.receiver = receiver
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.error: Optional[ChannelError] = None
        self.thread = threading.Thread(target=self._run, name="shmchan-reader", daemon=True)
        self.thread.start()

    def _consume(self) -> int:
        with self.lock:
            if self.error:
                return 0
            try:
                frames = self.chan.poll()
                for frame in frames:
                    self.receiver.feed(frame)
            except ChannelError as e:
                self.error = e
                return 0
            return len(frames)

    def _run(self) -> None:
        sleep = self.IDLE_SLEEP
        while not self.stopping.is_set():
            if self._consume():
                sleep = self.BUSY_SLEEP
            else:
                sleep = min(sleep * 2, self.IDLE_SLEEP)
            time.sleep(sleep)

    def drain(self) -> None:
        while self._consume():
            pass
        if self.error:
            raise self.error

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()
        self.drain()
