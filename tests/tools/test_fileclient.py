"""tools/fentros_trace/fileclient.py without QEMU: a kernel side played here, on a thread,
over a file laid out as <kernel/hostchan_fileserv.h> says, answers (or fails to answer)
the client's requests: errnos become OSError, EAGAIN a wait that cancel() ends, a damaged
or missing answer EIO in a bounded time, a new boot_id a new session.

    python3 -m unittest discover -s tests/tools -p test_fileclient.py
"""

import errno
import mmap
import os
import struct
import sys
import tempfile
import threading
import time
import unittest
import zlib
from pathlib import Path
from typing import Callable, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from fentros_trace import fileclient, shmchan  # noqa: E402

RING = 4096
AREA = shmchan.HEADER_SIZE + RING
BUFFER = 8192
SIZE = AREA + 4096 + 2 * BUFFER

# What the fake kernel does with a request: (result, data), or None to stay silent.
Handler = Callable[[int, Tuple[int, int, int, int, int], bytes], Optional[Tuple[int, bytes]]]


class FakeKernel:
    """The service's side: polls posted, answers with handler's result."""

    def __init__(self, path: str, handler: Handler, boot_id: int = 7) -> None:
        self.handler = handler
        with open(path, "r+b") as f:
            f.write(struct.pack("<IIIIQQQQ", shmchan.MAGIC, shmchan.VERSION,
                                shmchan.HEADER_SIZE, shmchan.FRAME_ALIGN, RING, boot_id,
                                AREA, SIZE - AREA))
            f.seek(AREA)
            f.write(struct.pack("<IIIIQQ", fileclient.FS_MAGIC, fileclient.FS_VERSION, BUFFER,
                                256, 4096, 4096 + BUFFER))
        fd = os.open(path, os.O_RDWR)
        self.map = mmap.mmap(fd, 0)
        os.close(fd)
        self.stop = threading.Event()
        self.taken = 0
        self.corrupt_next = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        last = 0
        while not self.stop.is_set():
            posted = shmchan.load_u64(self.map, AREA + fileclient.POSTED_OFFSET)
            if posted == last:
                time.sleep(0.0002)
                continue
            last = posted
            shmchan.store_u64(self.map, AREA + fileclient.TAKEN_OFFSET, posted)
            at = AREA + 4096
            op, _, length, seq = fileclient.FRAME.unpack_from(self.map, at)
            payload = bytes(self.map[at + 16:at + 16 + length])
            handle, flags, offset, size, zero = fileclient.ARGS.unpack_from(payload)
            answer = self.handler(op, (handle, flags, offset, size, zero),
                                  payload[fileclient.ARGS.size:])
            if answer is None:
                continue
            result, data = answer
            body = fileclient.RESULT.pack(result) + data
            header = fileclient.FRAME.pack(op, 0, len(body), posted & 0xffffffff)
            crc = zlib.crc32(body, zlib.crc32(header)) ^ (1 if self.corrupt_next else 0)
            self.corrupt_next = False
            out = AREA + 4096 + BUFFER
            self.map[out:out + 16 + len(body)] = header + struct.pack("<I", crc) + body
            shmchan.store_u64(self.map, AREA + fileclient.ANSWERED_OFFSET, posted)

    def set_boot_id(self, boot_id: int) -> None:
        struct.pack_into("<Q", self.map, 24, boot_id)

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.map.close()


class FileClientTest(unittest.TestCase):
    def setUp(self) -> None:
        fd, self.path = tempfile.mkstemp(prefix="fileclient-")
        os.close(fd)
        shmchan.create_backing(self.path, SIZE)
        self.kernel: Optional[FakeKernel] = None
        self.pipe_data = b""
        self.released = 0

    def tearDown(self) -> None:
        if self.kernel:
            self.kernel.close()
        os.unlink(self.path)

    def handler(self, op: int, args: Tuple[int, int, int, int, int],
                data: bytes) -> Optional[Tuple[int, bytes]]:
        handle, flags, offset, size, _ = args
        if op == fileclient.RESET:
            return 0, b""
        if op == fileclient.STAT_OP:
            if data == b"/silent":
                return None
            if data != b"/f":
                return -errno.ENOENT, b""
            return 0, fileclient.STAT.pack(0, 0o644, 0)
        if op == fileclient.LISTDIR:
            names = [b"a", b"b", b"c"][offset:offset + 2]
            return len(names), b"".join(n + b"\0" for n in names)
        if op == fileclient.OPEN:
            return 0x105, b""
        if op == fileclient.READ:
            if not self.pipe_data:
                return -errno.EAGAIN, b""
            out, self.pipe_data = self.pipe_data[:size], self.pipe_data[size:]
            return len(out), out
        if op == fileclient.WRITE:
            return (-errno.EINVAL, b"") if data == b"bad" else (len(data), b"")
        if op == fileclient.RELEASE:
            self.released += 1
            return 0, b""
        return -errno.ENOSYS, b""

    def client(self, **kw: float) -> fileclient.FileClient:
        self.kernel = FakeKernel(self.path, self.handler)
        return fileclient.FileClient(self.path, **kw)

    def test_operations_and_errnos(self) -> None:
        c = self.client()
        try:
            self.assertEqual(c.stat("/f"), fileclient.FileStat(False, 0o644, 0))
            with self.assertRaises(FileNotFoundError):
                c.stat("/g")
            with self.assertRaises(OSError) as cm:
                c.stat("relative")
            self.assertEqual(cm.exception.errno, errno.EINVAL)
            self.assertEqual(c.listdir("/"), ["a", "b", "c"])
            h = c.open("/f", os.O_WRONLY | os.O_TRUNC)
            self.assertEqual(c.write(h, b"ok"), 2)
            with self.assertRaises(OSError) as cm:
                c.write(h, b"bad")
            self.assertEqual(cm.exception.errno, errno.EINVAL)
            c.release(h)
            with self.assertRaises(OSError) as cm:
                c.release(h)
            self.assertEqual(cm.exception.errno, errno.EBADF)
        finally:
            c.close()
        with self.assertRaises(OSError) as cm:
            c.stat("/f")
        self.assertEqual(cm.exception.errno, errno.EBADF)

    def test_flags(self) -> None:
        P = fileclient
        self.assertEqual(P.pfs_flags(os.O_RDONLY), P.PFS_READ)
        self.assertEqual(P.pfs_flags(os.O_RDWR | os.O_APPEND), P.PFS_READ | P.PFS_WRITE
                         | P.PFS_APPEND)
        self.assertEqual(P.pfs_flags(os.O_WRONLY | os.O_TRUNC | os.O_CREAT | os.O_NONBLOCK),
                         P.PFS_WRITE | P.PFS_TRUNC | P.PFS_NONBLOCK)

    def test_blocking_read_waits_for_data_or_cancel(self) -> None:
        c = self.client()
        try:
            nb = c.open("/pipe", os.O_RDONLY | os.O_NONBLOCK)
            with self.assertRaises(BlockingIOError):
                c.read(nb, 10, 0)
            h = c.open("/pipe", os.O_RDONLY)
            got: List[object] = []
            t = threading.Thread(target=lambda: got.append(c.read(h, 100, 0)))
            t.start()
            time.sleep(0.1)
            self.assertTrue(t.is_alive())
            self.assertEqual(c.stat("/f").mode, 0o644)  # the channel is free meanwhile
            self.pipe_data = b"events"
            t.join(5)
            self.assertEqual(got, [b"events"])

            def interrupted() -> None:
                try:
                    c.read(h, 100, 6)
                except InterruptedError as e:
                    got.append(e)
            t = threading.Thread(target=interrupted)
            t.start()
            time.sleep(0.1)
            c.cancel(h)
            t.join(5)
            self.assertIsInstance(got[-1], InterruptedError)
        finally:
            c.close()

    def test_a_kernel_that_does_not_answer(self) -> None:
        c = self.client(take_timeout=0.3, answer_timeout=0.5)
        try:
            began = time.monotonic()
            with self.assertRaises(OSError) as cm:
                c.stat("/silent")
            self.assertEqual(cm.exception.errno, errno.EIO)
            self.assertLess(time.monotonic() - began, 2)
            # A damaged answer is EIO too, and the next request goes through.
            assert self.kernel is not None
            self.kernel.corrupt_next = True
            with self.assertRaises(OSError) as cm:
                c.stat("/f")
            self.assertEqual(cm.exception.errno, errno.EIO)
            self.assertFalse(c.stat("/f").is_dir)
            # A kernel that is gone: nobody takes the request.
            self.kernel.stop.set()
            self.kernel.thread.join()
            with self.assertRaises(OSError) as cm:
                c.stat("/f")
            self.assertEqual(cm.exception.errno, errno.EIO)
        finally:
            c.close()

    def test_a_new_boot_starts_a_new_session(self) -> None:
        c = self.client()
        try:
            h = c.open("/f", os.O_RDONLY)
            assert self.kernel is not None
            self.kernel.set_boot_id(8)
            self.assertFalse(c.stat("/f").is_dir)
            with self.assertRaises(OSError) as cm:
                c.read(h, 1, 0)
            self.assertEqual(cm.exception.errno, errno.EIO)
            with self.assertRaises(OSError) as cm:
                c.release(h)
            self.assertEqual(cm.exception.errno, errno.EIO)
            # Its magic gone (a panic): EIO at once.
            struct.pack_into("<I", self.kernel.map, AREA, 0)
            began = time.monotonic()
            with self.assertRaises(OSError) as cm:
                c.stat("/f")
            self.assertEqual(cm.exception.errno, errno.EIO)
            self.assertLess(time.monotonic() - began, 0.5)
        finally:
            c.close()

    def test_one_client_at_a_time(self) -> None:
        c = self.client()
        try:
            with self.assertRaises(OSError) as cm:
                fileclient.FileClient(self.path)
            self.assertEqual(cm.exception.errno, errno.EBUSY)
        finally:
            c.close()
        fileclient.FileClient(self.path).close()


if __name__ == "__main__":
    unittest.main()
