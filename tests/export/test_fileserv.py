"""The host channel's file service (kernel/hostchan/fileserv.c) driven from the host by
tools/fentros_trace/fileclient.py on a booted fentros with QEMU's ivshmem-plain: what the
client reads and writes must be what the shell reads and writes, with Linux's semantics at
the system-call level (O_TRUNC, O_APPEND, one write is one write, a refused write's errno, a
release that commits, blocking reads that data or a cancel ends); damaged requests are
dropped and counted, never run; a kernel that goes away gives EIO in a bounded time.

    python3 -m unittest discover -s tests/export -p test_fileserv.py -t .
"""

import errno
import os
import random
import re
import struct
import sys
import threading
import time
import unittest
import zlib
from pathlib import Path
from typing import List, Optional

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

from fentros_trace import fileclient, shmchan  # noqa: E402
from fentros_trace.fileclient import FileClient  # noqa: E402
from fentros_machine.console import CRASH_RE  # noqa: E402
from fentros_trace.machine import Machine  # noqa: E402

TRACING = "/sys/kernel/tracing"
STATUS = re.compile(r"^file service: (\d+) requests, (\d+) dropped \((\d+) length, "
                    r"(\d+) checksum, (\d+) sequence, (\d+) format\), (\d+) open$")


def boot(name: str) -> Machine:
    workdir = REPO / "build" / "test-logs" / "export" / name
    return Machine(str(workdir), smp=2, shm=True)


def service_status(m: Machine) -> List[int]:
    for line in m.must("hostchan"):
        match = STATUS.match(line)
        if match:
            return [int(g) for g in match.groups()]
    raise AssertionError("`hostchan` has no file service line")


def shell_errno(message: str) -> int:
    """The errno whose text the shell printed after `write error: `."""
    text = message.rsplit(": ", 1)[-1]
    for code in range(1, 134):
        if os.strerror(code) == text:
            return code
    raise AssertionError(f"{message!r}: no errno reads so")


class FileService(unittest.TestCase):
    m: Machine
    c: FileClient

    @classmethod
    def setUpClass(cls) -> None:
        cls.m = boot(cls.__name__)
        cls.c = FileClient(cls.m.shm_file)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.c.close()
        cls.m.close()

    def tearDown(self) -> None:
        self.m.must(f"cd {TRACING}; echo nop > current_tracer; echo > set_ftrace_filter; "
                    "echo 1 > tracing_on; cd /")

    def read_all(self, path: str, flags: int = os.O_RDONLY, chunk: int = 4096) -> bytes:
        h = self.c.open(path, flags)
        try:
            parts = []
            while True:
                data = self.c.read(h, chunk, sum(map(len, parts)))
                if not data:
                    return b"".join(parts)
                parts.append(data)
        finally:
            self.c.release(h)

    def write_file(self, path: str, data: bytes, flags: int = os.O_WRONLY | os.O_TRUNC) -> None:
        h = self.c.open(path, flags)
        try:
            self.assertEqual(self.c.write(h, data), len(data))
        finally:
            self.c.release(h)

    def cat(self, path: str) -> List[str]:
        return self.m.must(f"cat {path}", timeout=120)

    def fill_trace(self) -> None:
        """Function events of a short work run, then tracing off: a trace that stays."""
        self.m.must(f"cd {TRACING}; echo 'work_*' > set_ftrace_filter; "
                    "echo function > current_tracer; work 0.05 1; echo 0 > tracing_on; cd /",
                    timeout=120)

    def test_stat_and_listdir(self) -> None:
        st = self.c.stat(f"{TRACING}/trace")
        self.assertEqual(st, fileclient.FileStat(False, 0o644, 0))
        self.assertEqual(self.c.stat(f"{TRACING}/trace_pipe").mode, 0o444)
        self.assertTrue(self.c.stat(f"{TRACING}/events").is_dir)
        self.assertEqual(self.c.stat("/proc/version"), fileclient.FileStat(False, 0o444, 0))
        with self.assertRaises(FileNotFoundError):
            self.c.stat(f"{TRACING}/nope")
        with self.assertRaises(NotADirectoryError):
            self.c.listdir("/proc/version")
        names = self.c.listdir(TRACING)
        self.assertEqual(names, sorted(names))
        for name in ("trace", "trace_pipe", "events", "per_cpu", "current_tracer"):
            self.assertIn(name, names)
        self.assertNotIn(".", names)
        shell = " ".join(self.m.must(f"ls {TRACING}")).split()
        self.assertEqual(sorted(names), sorted(shell))
        # Listings longer than one response come in pieces.
        functions = self.c.listdir(f"{TRACING}/events/sched")
        self.assertIn("sched_switch", functions)

    def test_reads_match_the_shell(self) -> None:
        self.fill_trace()
        for name in ("trace", "available_events", "available_tracers"):
            with self.subTest(name=name):
                data = self.read_all(f"{TRACING}/{name}", chunk=1000)
                self.assertEqual(data.decode().splitlines(), self.cat(f"{TRACING}/{name}"))
        # The trace has events, in one read as in many.
        whole = self.read_all(f"{TRACING}/trace", chunk=1 << 20)
        self.assertRegex(whole.decode(), r"work_\w+ <-")
        self.assertEqual(whole, self.read_all(f"{TRACING}/trace", chunk=333))

    def test_offsets(self) -> None:
        self.fill_trace()
        h = self.c.open(f"{TRACING}/trace", os.O_RDONLY)
        try:
            first = self.c.read(h, 5000, 0)
            self.assertEqual(len(first), 5000)
            ahead = self.c.read(h, 100, 7000)
            # Back to the start, then the middle: the same bytes as read the first time.
            self.assertEqual(self.c.read(h, 5000, 0), first)
            self.assertEqual(self.c.read(h, 100, 2000), first[2000:2100])
            whole = self.read_all(f"{TRACING}/trace")
            self.assertEqual(ahead, whole[7000:7100])
        finally:
            self.c.release(h)
        # A file open for writing is not reopened behind its writer's back.
        h = self.c.open(f"{TRACING}/set_ftrace_filter", os.O_RDWR)
        try:
            self.c.read(h, 10, 0)
            self.c.read(h, 10, 10)
            with self.assertRaises(OSError) as cm:
                self.c.read(h, 10, 0)
            self.assertEqual(cm.exception.errno, errno.ESPIPE)
        finally:
            self.c.release(h)

    def test_write_current_tracer(self) -> None:
        self.write_file(f"{TRACING}/current_tracer", b"function\n")
        self.assertEqual(self.cat(f"{TRACING}/current_tracer"), ["function"])
        self.assertEqual(self.read_all(f"{TRACING}/current_tracer"), b"function\n")
        self.write_file(f"{TRACING}/current_tracer", b"nop\n")
        self.assertEqual(self.cat(f"{TRACING}/current_tracer"), ["nop"])

    def test_refused_write_gives_the_shells_errno(self) -> None:
        code, lines = self.m.run(f"echo bad > {TRACING}/kprobe_events")
        self.assertEqual(code, 1)
        want = shell_errno(lines[-1])
        h = self.c.open(f"{TRACING}/kprobe_events", os.O_WRONLY | os.O_TRUNC)
        try:
            with self.assertRaises(OSError) as cm:
                self.c.write(h, b"bad\n")
            self.assertEqual(cm.exception.errno, want)
        finally:
            self.c.release(h)
        with self.assertRaises(OSError) as cm:
            self.write_file(f"{TRACING}/current_tracer", b"no_such_tracer\n")
        self.assertEqual(cm.exception.errno, errno.EINVAL)

    def test_read_only_files_refuse_writers(self) -> None:
        for path in (f"{TRACING}/available_events", f"{TRACING}/trace_pipe", "/proc/version"):
            with self.subTest(path=path):
                with self.assertRaises(PermissionError):
                    self.c.open(path, os.O_WRONLY)
        with self.assertRaises(IsADirectoryError):
            self.c.open(TRACING, os.O_RDONLY)
        with self.assertRaises(PermissionError):
            self.c.open(f"{TRACING}/new_file", os.O_WRONLY)
        # A handle open for reading only does not write.
        h = self.c.open(f"{TRACING}/current_tracer", os.O_RDONLY)
        try:
            with self.assertRaises(OSError) as cm:
                self.c.write(h, b"function\n")
            self.assertEqual(cm.exception.errno, errno.EBADF)
        finally:
            self.c.release(h)

    def test_truncate_clears_the_trace(self) -> None:
        self.fill_trace()
        events = [line for line in self.cat(f"{TRACING}/trace") if not line.startswith("#")]
        self.assertGreater(len(events), 0)
        self.c.release(self.c.open(f"{TRACING}/trace", os.O_WRONLY | os.O_TRUNC))
        self.assertEqual(self.m.must(f"cat {TRACING}/trace | grep -v '^#' | wc -l"), ["0"])

    def test_append_and_release_commit_the_filter(self) -> None:
        path = f"{TRACING}/set_ftrace_filter"
        self.write_file(path, b"work_compute\n")
        self.assertEqual(self.cat(path), ["work_compute"])
        h = self.c.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            self.assertEqual(self.c.write(h, b"work_rotate_mix\n"), 16)
            # Written, not yet committed: the filter is installed at release, as on Linux.
            self.assertEqual(self.cat(path), ["work_compute"])
        finally:
            self.c.release(h)
        self.assertEqual(sorted(self.cat(path)), ["work_compute", "work_rotate_mix"])
        # One write is one write: the filter's parser takes a token a call and says so.
        h = self.c.open(path, os.O_WRONLY | os.O_TRUNC)
        try:
            self.assertEqual(self.c.write(h, b"work_compute work_rotate_mix\n"), 13)
            with self.assertRaises(OSError) as cm:
                self.c.write(h, b"no_such_function_anywhere\n")
            self.assertEqual(cm.exception.errno, errno.EINVAL)
        finally:
            self.c.release(h)
        self.assertEqual(self.cat(path), ["work_compute"])

    def drain_pipe(self) -> None:
        """Reads trace_pipe empty; a non-blocking handle says EAGAIN when it is."""
        nb = self.c.open(f"{TRACING}/trace_pipe", os.O_RDONLY | os.O_NONBLOCK)
        try:
            offset = 0
            with self.assertRaises(BlockingIOError):
                while True:
                    offset += len(self.c.read(nb, 65536, offset))
        finally:
            self.c.release(nb)

    def blocked_reader(self, h: int, out: List[object]) -> threading.Thread:
        def read() -> None:
            try:
                out.append(self.c.read(h, 4096, 0))
            except OSError as e:
                out.append(e)
        t = threading.Thread(target=read, daemon=True)
        t.start()
        return t

    def test_blocked_read_ended_by_cancel(self) -> None:
        h = self.c.open(f"{TRACING}/trace_pipe", os.O_RDONLY)
        try:
            self.drain_pipe()
            out: List[object] = []
            t = self.blocked_reader(h, out)
            time.sleep(0.5)
            self.assertTrue(t.is_alive(), f"the read did not block: {out}")
            # Other calls go on while it waits.
            began = time.monotonic()
            for _ in range(20):
                self.c.stat("/proc/version")
            self.assertLess(time.monotonic() - began, 5)
            self.c.cancel(h)
            t.join(10)
            self.assertFalse(t.is_alive(), "cancel did not end the read")
            self.assertIsInstance(out[0], InterruptedError)
        finally:
            self.c.release(h)

    def test_blocked_read_ended_by_data(self) -> None:
        h = self.c.open(f"{TRACING}/trace_pipe", os.O_RDONLY)
        try:
            self.drain_pipe()
            out: List[object] = []
            t = self.blocked_reader(h, out)
            time.sleep(0.5)
            self.assertTrue(t.is_alive(), f"the read did not block: {out}")
            self.m.must(f"echo hello from the shell > {TRACING}/trace_marker")
            t.join(10)
            self.assertFalse(t.is_alive(), "data did not end the read")
            self.assertIsInstance(out[0], bytes)
            self.assertIn(b"hello from the shell", out[0])  # type: ignore[operator]
        finally:
            self.c.release(h)

    def test_blocked_read_ends_at_eof_with_tracing_off(self) -> None:
        # As Linux's tracing_wait_pipe: once something was read and tracing is off, a
        # blocking read of an empty trace_pipe is the end of the file, not a wait.
        h = self.c.open(f"{TRACING}/trace_pipe", os.O_RDONLY)
        try:
            self.m.must(f"echo marked > {TRACING}/trace_marker; echo 0 > {TRACING}/tracing_on")
            got = b""
            while True:
                data = self.c.read(h, 65536, len(got))
                if not data:
                    break
                got += data
            self.assertIn(b"marked", got)
        finally:
            self.c.release(h)

    def test_trace_pipe_raw_blocks_for_a_page(self) -> None:
        path = f"{TRACING}/per_cpu/cpu0/trace_pipe_raw"
        nb = self.c.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            offset = 0
            with self.assertRaises(BlockingIOError):
                while True:
                    offset += len(self.c.read(nb, 4096, offset))
        finally:
            self.c.release(nb)
        h = self.c.open(path, os.O_RDONLY)
        try:
            out: List[object] = []
            t = self.blocked_reader(h, out)
            time.sleep(0.3)
            self.assertTrue(t.is_alive(), f"the read did not block: {out}")
            # The shell runs on CPU 0: its marker lands in CPU 0's buffer.
            self.m.must(f"echo raw page > {TRACING}/trace_marker")
            t.join(10)
            self.assertFalse(t.is_alive(), "data did not end the read")
            page = out[0]
            assert isinstance(page, bytes)
            self.assertEqual(len(page), 4096)
            self.assertIn(b"raw page", page)
        finally:
            self.c.release(h)

    def test_threads_share_the_client(self) -> None:
        files = ["/proc/version", f"{TRACING}/available_tracers", f"{TRACING}/README",
                 f"{TRACING}/available_events"]
        want = {path: self.read_all(path) for path in files}
        h = self.c.open(f"{TRACING}/trace_pipe", os.O_RDONLY)
        blocked: List[object] = []
        errors: List[BaseException] = []
        try:
            self.drain_pipe()
            waiter = self.blocked_reader(h, blocked)

            def worker(path: str) -> None:
                try:
                    for _ in range(25):
                        if self.read_all(path, chunk=700) != want[path]:
                            raise AssertionError(f"{path}: other bytes")
                        self.c.stat(path)
                except BaseException as e:
                    errors.append(e)
            threads = [threading.Thread(target=worker, args=(p,)) for p in files]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
            self.assertEqual(errors, [])
            self.assertTrue(waiter.is_alive(), f"the blocked read ended: {blocked}")
            self.c.cancel(h)
            waiter.join(10)
            self.assertIsInstance(blocked[0], InterruptedError)
        finally:
            self.c.release(h)
        self.assertEqual(service_status(self.m)[6], 0)

    def test_beside_the_ring(self) -> None:
        # xfer -c fills the ring while the service runs: each keeps to its own memory.
        symbols = self.read_all("/proc/kallsyms", chunk=1 << 20)
        want = self.read_all(f"{TRACING}/available_events")
        stop = threading.Event()
        errors: List[BaseException] = []

        def reader() -> None:
            try:
                while not stop.is_set():
                    if self.read_all(f"{TRACING}/available_events") != want:
                        raise AssertionError("available_events: other bytes")
            except BaseException as e:
                errors.append(e)
        t = threading.Thread(target=reader)
        t.start()
        try:
            for _ in range(3):
                self.assertEqual(self.m.must("xfer -c /proc/kallsyms", timeout=120)[-1],
                                 f"xfer: 1 files, {len(symbols)} bytes")
        finally:
            stop.set()
            t.join(60)
        self.assertEqual(errors, [])
        assert self.m.reader is not None
        self.m.reader.drain()
        self.assertEqual(self.m.reader.receiver.files["/proc/kallsyms"], (symbols, 0))

    def test_mkdir_rmdir(self) -> None:
        with self.assertRaises(PermissionError):
            self.c.mkdir(f"{TRACING}/foo")
        with self.assertRaises(FileExistsError):
            self.c.mkdir(f"{TRACING}/events")
        with self.assertRaises(FileNotFoundError):
            self.c.mkdir(f"{TRACING}/nope/foo")
        with self.assertRaises(PermissionError):
            self.c.rmdir(f"{TRACING}/events/sched")
        with self.assertRaises(NotADirectoryError):
            self.c.rmdir(f"{TRACING}/trace")
        with self.assertRaises(FileNotFoundError):
            self.c.rmdir(f"{TRACING}/nope")

    def test_instance_mkdir_rmdir(self) -> None:
        inst = f"{TRACING}/instances/fs"
        self.c.mkdir(inst)
        with self.assertRaises(FileExistsError):
            self.c.mkdir(inst)
        h = self.c.open(f"{inst}/trace_pipe", os.O_RDONLY)
        try:
            # Linux: EBUSY while a file of the instance is open.
            with self.assertRaises(OSError) as caught:
                self.c.rmdir(inst)
            self.assertEqual(caught.exception.errno, errno.EBUSY)
        finally:
            self.c.release(h)
        self.c.rmdir(inst)
        with self.assertRaises(FileNotFoundError):
            self.c.rmdir(inst)

    def test_many_small_requests(self) -> None:
        want = self.read_all("/proc/version")
        h = self.c.open("/proc/version", os.O_RDONLY)
        try:
            began = time.monotonic()
            for _ in range(1000):
                self.assertEqual(self.c.read(h, 64, 0), want[:64])
            elapsed = time.monotonic() - began
        finally:
            self.c.release(h)
        print(f"\nfile service: 1000 reads of 64 bytes at offset 0 (a reopen each), "
              f"{elapsed * 1000:.0f} us a round trip", file=sys.stderr)
        began = time.monotonic()
        for _ in range(1000):
            self.c.stat("/proc/version")
        elapsed = time.monotonic() - began
        print(f"file service: 1000 stats, {elapsed * 1000:.0f} us a round trip",
              file=sys.stderr)
        # After an idle spell the kernel's thread polls every 10 ms.
        time.sleep(0.5)
        began = time.monotonic()
        self.c.stat("/proc/version")
        print(f"file service: a stat after 0.5 s idle, "
              f"{(time.monotonic() - began) * 1e6:.0f} us", file=sys.stderr)

    def test_fault_injection_gives_clean_errnos(self) -> None:
        failslab = "/sys/kernel/debug/failslab"
        before = service_status(self.m)[6]
        self.write_file(f"{failslab}/times", b"-1\n")
        # A filter written before injection starts: its commit at release allocates, and
        # the release's ENOMEM reaches the host.
        pending = self.c.open(f"{TRACING}/set_ftrace_filter", os.O_WRONLY)
        self.assertEqual(self.c.write(pending, b"work_compute\n"), 13)
        self.write_file(f"{failslab}/probability", b"100\n")
        failures = 0
        try:
            with self.assertRaises(OSError) as cm:
                self.c.release(pending)
            self.assertEqual(cm.exception.errno, errno.ENOMEM)
            for path in (f"{TRACING}/available_tracers", f"{TRACING}/trace",
                         f"{TRACING}/set_ftrace_filter", "/proc/version"):
                for _ in range(3):
                    try:
                        self.read_all(path)
                    except OSError as e:
                        self.assertEqual(e.errno, errno.ENOMEM, path)
                        failures += 1
        finally:
            # The fault-injection files are served with injection paused, as the shell
            # runs them: turning it off works at the first try.
            self.write_file(f"{failslab}/probability", b"0\n")
        self.assertGreater(failures, 0)
        self.assertEqual(self.read_all(f"{failslab}/probability"), b"0\n")
        self.assertEqual(service_status(self.m)[6], before)
        self.assertEqual(self.read_all("/proc/version").decode().splitlines(),
                         self.cat("/proc/version"))


class Fuzzed(unittest.TestCase):
    """Requests written straight into the shared memory, damaged every way a host can
    damage them, and one written while the kernel copies it: each is refused and counted,
    or run if it is whole; the kernel never faults and the service goes on."""

    def test_damaged_requests(self) -> None:
        m = boot(type(self).__name__)
        try:
            c = FileClient(m.shm_file)
            area = c.area
            posted_at = area + fileclient.POSTED_OFFSET
            answered_at = area + fileclient.ANSWERED_OFFSET
            request_at, buffer_size = c.request_at, c.buffer_size
            shm = c.map
            rng = random.Random(28)
            dropped = [0, 0, 0, 0]  # length, checksum, sequence, format
            rejected = 0

            def post(frame: bytes, number: Optional[int] = None) -> int:
                shm[request_at:request_at + len(frame)] = frame
                n = number if number is not None else shmchan.load_u64(shm, answered_at) + 1
                shmchan.store_u64(shm, posted_at, n)
                deadline = time.monotonic() + 10
                while shmchan.load_u64(shm, answered_at) != n:
                    self.assertLess(time.monotonic(), deadline, "the kernel stopped answering")
                    time.sleep(0.0005)
                rtype = struct.unpack_from("<H", shm, c.response_at)[0]
                return rtype

            def frame(op: int, payload: bytes, seq: int, flags: int = 0,
                      length: Optional[int] = None, crc_xor: int = 0) -> bytes:
                head = struct.pack("<HHII", op, flags, len(payload) if length is None else length,
                                   seq & 0xffffffff)
                crc = zlib.crc32(payload, zlib.crc32(head))
                return head + struct.pack("<I", crc ^ crc_xor) + payload

            for i in range(600):
                n = shmchan.load_u64(shm, answered_at) + 1
                args = fileclient.ARGS.pack(rng.getrandbits(32), rng.getrandbits(5), 0, 64, 0)
                path = rng.choice([b"/proc/version", b"/sys/kernel/tracing/trace",
                                   bytes(rng.getrandbits(8) for _ in range(rng.randrange(40)))])
                kind = i % 8
                if kind == 0:    # random bytes
                    raw = bytes(rng.getrandbits(8) for _ in range(rng.randrange(16, 200)))
                    reason = None
                    rtype = post(raw, n)
                elif kind == 1:  # a checksum off by a bit
                    rtype = post(frame(fileclient.STAT_OP, args + path, n,
                                       crc_xor=1 << rng.randrange(32)), n)
                    reason = 1
                elif kind == 2:  # a length past the buffer, or short of the arguments
                    bad = rng.choice([buffer_size, 0xffffffff, rng.randrange(24)])
                    rtype = post(frame(fileclient.STAT_OP, args + path, n, length=bad), n)
                    reason = 0
                elif kind == 3:  # the frame of another request
                    rtype = post(frame(fileclient.STAT_OP, args + path, n + rng.randrange(1, 9)), n)
                    reason = 2
                elif kind == 4:  # flags, or an operation nobody knows
                    if rng.random() < 0.5:
                        rtype = post(frame(fileclient.STAT_OP, args + path, n, flags=1), n)
                    else:
                        rtype = post(frame(rng.choice([0, 10, 0x7fff, 0x8000, 0xffff]),
                                           args + path, n), n)
                    reason = 3
                elif kind == 5:  # whole, with a random handle: refused by the operation
                    op = rng.choice([fileclient.READ, fileclient.WRITE, fileclient.RELEASE])
                    rtype = post(frame(op, args + b"data", n), n)
                    reason = None
                    self.assertEqual(rtype, op)
                elif kind == 6:  # whole, a random path
                    op = rng.choice([fileclient.STAT_OP, fileclient.LISTDIR, fileclient.MKDIR,
                                     fileclient.RMDIR])
                    rtype = post(frame(op, fileclient.ARGS.pack(0, 0, 0, 0, 0) + path, n), n)
                    reason = None
                    self.assertEqual(rtype, op)
                else:            # the same number posted twice: run once
                    rtype = post(frame(fileclient.STAT_OP, args[:4] + bytes(20) + path, n), n)
                    shmchan.store_u64(shm, posted_at, n)
                    time.sleep(0.002)
                    reason = None
                if rtype == fileclient.REJECTED:
                    rejected += 1
                    if reason is not None:
                        dropped[reason] += 1
                else:
                    self.assertIsNone(reason, f"request {i} (kind {kind}) was run")

            # Scribbled on while the kernel takes it: refused or run, never trusted.
            stop = threading.Event()

            def scribble() -> None:
                while not stop.is_set():
                    at = request_at + rng.randrange(64)
                    shm[at:at + 4] = rng.getrandbits(32).to_bytes(4, "little")
            t = threading.Thread(target=scribble, daemon=True)
            t.start()
            try:
                for _ in range(100):
                    n = shmchan.load_u64(shm, answered_at) + 1
                    if post(frame(fileclient.STAT_OP, fileclient.ARGS.pack(0, 0, 0, 0, 0)
                                  + b"/proc/version", n), n) == fileclient.REJECTED:
                        rejected += 1
            finally:
                stop.set()
                t.join()

            status = service_status(m)
            self.assertEqual(status[1], rejected)
            for got, want in zip(status[2:6], dropped):
                self.assertGreaterEqual(got, want)
            self.assertEqual(sum(status[2:6]), status[1])
            # Still serving, still whole.
            self.assertEqual(c.stat("/proc/version"), fileclient.FileStat(False, 0o444, 0))
            self.assertEqual(c.counters().dropped, rejected)
            self.assertEqual(m.must("echo still here"), ["still here"])
            log = Path(m.console.log_path).read_text(errors="replace")
            self.assertIsNone(CRASH_RE.search(log))
            print(f"\nfile service fuzz: {rejected} requests dropped: length {status[2]}, "
                  f"checksum {status[3]}, sequence {status[4]}, format {status[5]}",
                  file=sys.stderr)
            c.close()
        finally:
            m.close()


class GoneAway(unittest.TestCase):
    """A client whose predecessor vanished, a kernel that rebooted under its handles, one
    that stopped and one that crashed: handles are released, old handles give EIO, calls
    end in EIO within a bounded time, at once after a panic."""

    def test_sessions_and_a_kernel_that_goes(self) -> None:
        m = boot(type(self).__name__)
        try:
            c = FileClient(m.shm_file)
            for _ in range(5):
                c.open(f"{TRACING}/trace", os.O_RDONLY)
            self.assertEqual(service_status(m)[6], 5)
            # The client disappears without a word: its lock goes with its file.
            c.map.close()
            os.close(c.fd)
            c = FileClient(m.shm_file)
            self.assertEqual(service_status(m)[6], 0)
            with self.assertRaises(OSError) as cm:
                FileClient(m.shm_file)
            self.assertEqual(cm.exception.errno, errno.EBUSY)

            # A new boot_id: the kernel set its channel up again; handles from before are
            # gone, new calls work.
            h = c.open("/proc/version", os.O_RDONLY)
            boot_id_at = 24
            boot_id = struct.unpack_from("<Q", c.map, boot_id_at)[0]
            struct.pack_into("<Q", c.map, boot_id_at, boot_id ^ 1)
            self.assertFalse(c.stat("/proc/version").is_dir)
            with self.assertRaises(OSError) as cm:
                c.read(h, 10, 0)
            self.assertEqual(cm.exception.errno, errno.EIO)
            with self.assertRaises(OSError) as cm:
                c.release(h)
            self.assertEqual(cm.exception.errno, errno.EIO)

            # The kernel stops: EIO, soon.
            m.console.send(b"poweroff\n")
            m.console.wait_exit(30)
            began = time.monotonic()
            with self.assertRaises(OSError) as cm:
                c.stat("/proc/version")
            self.assertEqual(cm.exception.errno, errno.EIO)
            self.assertLess(time.monotonic() - began, c.take_timeout + 2)
            c.close()
        finally:
            m.close()

    def test_a_crash_under_a_blocked_read(self) -> None:
        m = boot(type(self).__name__ + "Crash")
        try:
            c = FileClient(m.shm_file)
            h = c.open(f"{TRACING}/trace_pipe", os.O_RDONLY)
            out: List[object] = []

            def read() -> None:
                try:
                    offset = 0
                    while True:
                        offset += len(c.read(h, 65536, offset))
                except OSError as e:
                    out.append(e)
            t = threading.Thread(target=read, daemon=True)
            t.start()
            time.sleep(0.3)
            self.assertTrue(t.is_alive(), f"the read did not block: {out}")
            start = m.console.begin(b"crash panic\n")
            self.assertTrue(m.console.wait_output(
                start, lambda buf, at: b"Kernel panic" in buf[at:], 60))
            crashed = time.monotonic()
            # The panic takes the service down: the blocked read and new calls fail at
            # once, without the timeouts a silent kernel needs.
            t.join(c.take_timeout)
            self.assertFalse(t.is_alive(), "the blocked read outlived the kernel")
            self.assertIsInstance(out[0], OSError)
            self.assertEqual(out[0].errno, errno.EIO)  # type: ignore[attr-defined]
            with self.assertRaises(OSError) as cm:
                c.stat("/proc/version")
            self.assertEqual(cm.exception.errno, errno.EIO)
            self.assertLess(time.monotonic() - crashed, 2)
            c.close()
        finally:
            m.close()

