"""The host end of the kernel's file service: file operations on the live kernel's pseudo
file system (/sys/kernel/tracing, /sys/kernel/debug, /sys/kernel/livepatch, /proc) over the
host channel's shared memory.

The layout is in <kernel/hostchan_fileserv.h> and docs/hostchan.md. The host channel's
header (shmchan.py) says where the service's area is; in it, one request at a time: this
side writes a request frame (the same frame as the ring's: type, flags, len, seq, CRC-32)
and posts its number; a kernel thread takes it, runs it and posts the same number when its
response frame is in place. Nothing signals either side: both poll.

Calls from several threads take turns at the channel; a read that would block does not
hold it: the kernel answers EAGAIN and this side sleeps and asks again, so other threads'
calls go through meanwhile, and cancel() ends the wait.

Every error the kernel reports raises OSError with the kernel's errno. A kernel that stops
answering (it crashed, hung or rebooted: the header's boot_id changes) raises OSError(EIO)
within a bounded time; after a reboot the next call starts a new session, and handles of the
old one raise EIO.
"""

import errno
import fcntl
import mmap
import os
import struct
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from . import shmchan

# pfs open flags (<kernel/pseudofs.h>).
PFS_READ = 0x1
PFS_WRITE = 0x2
PFS_TRUNC = 0x4
PFS_APPEND = 0x8
PFS_NONBLOCK = 0x10

# The host channel's header: where the file service's area is (u64 offset, u64 size).
FILESERV_FIELDS = struct.Struct("<QQ")
FILESERV_FIELDS_OFFSET = 32

# The area's header, struct fileserv_shared.
FS_MAGIC = 0x53465446  # "FTFS"
FS_VERSION = 1
FS_FIXED = struct.Struct("<IIIIQQ")  # magic, version, buffer_size, max_handles, req, resp
TAKEN_OFFSET = 64
ANSWERED_OFFSET = 72
FS_COUNTERS = struct.Struct("<QQQQQQQ")  # at 80: served, dropped, by reason, open handles
FS_COUNTERS_OFFSET = 80
POSTED_OFFSET = 192

FRAME = struct.Struct("<HHII")  # type, flags, len, seq: what the CRC covers with the payload
CRC = struct.Struct("<I")
ARGS = struct.Struct("<IIQII")  # handle, flags, offset, size, zero
RESULT = struct.Struct("<q")
STAT = struct.Struct("<IIQ")
U64 = struct.Struct("<Q")

RESET = 1
STAT_OP = 2
LISTDIR = 3
OPEN = 4
READ = 5
WRITE = 6
RELEASE = 7
MKDIR = 8
RMDIR = 9
REJECTED = 0x8000


@dataclass(frozen=True)
class FileStat:
    is_dir: bool
    mode: int  # permission bits only, e.g. 0o644
    size: int


@dataclass(frozen=True)
class ServiceCounters:
    """What the kernel counts of the service: requests run, and dropped, by reason."""
    served: int
    dropped: int
    dropped_length: int
    dropped_checksum: int
    dropped_sequence: int
    dropped_format: int
    open_handles: int


@dataclass
class _Handle:
    remote: int  # the kernel's handle
    session: int
    nonblock: bool
    cancelled: threading.Event = field(default_factory=threading.Event)


def _error(code: int, what: str = "") -> OSError:
    message = os.strerror(code)
    return OSError(code, f"{message}: {what}" if what else message)


def pfs_flags(flags: int) -> int:
    """os.open flags as the kernel's PFS_* flags; the rest (O_CREAT...) mean nothing here."""
    access = flags & os.O_ACCMODE
    out = {os.O_RDONLY: PFS_READ, os.O_WRONLY: PFS_WRITE,
           os.O_RDWR: PFS_READ | PFS_WRITE}.get(access)
    if out is None:
        raise _error(errno.EINVAL, "access mode")
    if flags & os.O_TRUNC:
        out |= PFS_TRUNC
    if flags & os.O_APPEND:
        out |= PFS_APPEND
    if flags & os.O_NONBLOCK:
        out |= PFS_NONBLOCK
    return out


class FileClient:
    """Thread-safe: several threads may call it at once (the FUSE layer is multi-threaded);
    a blocked read in one thread must not block calls in others."""

    # How long the kernel may take to pick a request up, and then to answer it.
    TAKE_TIMEOUT = 3.0
    ANSWER_TIMEOUT = 10.0
    # How often a blocked read asks again: as often as the kernel's own blocked reader
    # looks at its buffer.
    BLOCKED_POLL = 0.01

    def __init__(self, shm_path: str, take_timeout: float = TAKE_TIMEOUT,
                 answer_timeout: float = ANSWER_TIMEOUT) -> None:
        """shm_path: the file backing the ivshmem BAR (e.g. /dev/shm/NAME). One client at a
        time uses a channel (EBUSY otherwise); a new one releases what an old one left."""
        self.take_timeout = take_timeout
        self.answer_timeout = answer_timeout
        self.lock = threading.Lock()
        self.fd = os.open(shm_path, os.O_RDWR)
        try:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise _error(errno.EBUSY, f"{shm_path}: another client uses the file service")
            self.map = mmap.mmap(self.fd, 0)
        except BaseException:
            os.close(self.fd)
            raise
        self.closed = False
        self.boot_id: Optional[int] = None
        self.area = 0
        self.buffer_size = 0
        self.request_at = 0
        self.response_at = 0
        self.session = 0
        self.handles: Dict[int, _Handle] = {}
        self.stale: Set[int] = set()
        self.next_handle = 1
        self.round_trips = 0
        try:
            with self.lock:
                self._attach()
        except BaseException:
            self.map.close()
            os.close(self.fd)
            raise

    # ---- the channel ----

    def _u64(self, offset: int) -> int:
        return shmchan.load_u64(self.map, offset)

    def _live_boot_id(self) -> Optional[int]:
        """The kernel's boot_id while its channel and service are set up, else None."""
        magic, version, header_size, _, _, boot_id = shmchan.SHARED_FIXED.unpack_from(self.map)
        if magic != shmchan.MAGIC or version != shmchan.VERSION:
            return None
        offset, size = FILESERV_FIELDS.unpack_from(self.map, FILESERV_FIELDS_OFFSET)
        if not size or offset + size > len(self.map) or offset < header_size:
            return None
        fs_magic, fs_version = struct.unpack_from("<II", self.map, offset)
        if fs_magic != FS_MAGIC or fs_version != FS_VERSION:
            return None
        live: int = boot_id
        return live

    def _attach(self, wait: bool = True) -> None:
        """Starts a session with the kernel that is up now: finds the area, checks it and
        releases whatever an earlier client left open; wait: give a booting kernel up to
        take_timeout to set its service up. With the lock held."""
        deadline = time.monotonic() + (self.take_timeout if wait else 0)
        while True:
            boot_id = self._live_boot_id()
            if boot_id is not None:
                break
            if time.monotonic() >= deadline:
                raise _error(errno.EIO, "the kernel's file service is not up (a kernel "
                             "that crashed or is booting, no ivshmem device, or a kernel "
                             "without the service)")
            time.sleep(0.01)
        offset, size = FILESERV_FIELDS.unpack_from(self.map, FILESERV_FIELDS_OFFSET)
        _, _, buffer_size, _, request_at, response_at = FS_FIXED.unpack_from(self.map, offset)
        if (buffer_size < FRAME.size + CRC.size + ARGS.size
                or request_at + buffer_size > size or response_at + buffer_size > size):
            raise _error(errno.EIO, f"file service: buffers of {buffer_size} bytes at "
                         f"{request_at} and {response_at} do not fit its {size}")
        self.area = offset
        self.buffer_size = buffer_size
        self.request_at = offset + request_at
        self.response_at = offset + response_at
        self.boot_id = boot_id
        self.session += 1
        self._exchange(RESET, ARGS.pack(0, 0, 0, 0, 0))

    def _lose_session(self) -> None:
        """The kernel went away: its handles are gone with it."""
        self.boot_id = None
        self.stale.update(self.handles)
        self.handles.clear()

    def _check_live(self) -> None:
        if self._live_boot_id() != self.boot_id:
            self._lose_session()
            raise _error(errno.EIO, "the kernel crashed or rebooted")

    def _exchange(self, op: int, payload: bytes) -> Tuple[int, bytes]:
        """One request and its response: (result, data). With the lock held."""
        max_payload = self.buffer_size - FRAME.size - CRC.size
        if len(payload) > max_payload:
            raise _error(errno.E2BIG, f"a request of {len(payload)} bytes")
        number = (max(self._u64(self.area + POSTED_OFFSET), self._u64(
            self.area + ANSWERED_OFFSET)) + 1) & 0xffffffffffffffff
        header = FRAME.pack(op, 0, len(payload), number & 0xffffffff)
        crc = zlib.crc32(payload, zlib.crc32(header))
        self.map[self.request_at:self.request_at + 16 + len(payload)] = \
            header + CRC.pack(crc) + payload
        # x86 keeps stores in order (see shmchan.py): the frame is whole before the number.
        shmchan.store_u64(self.map, self.area + POSTED_OFFSET, number)
        self.round_trips += 1
        self._wait_answer(number)
        return self._take_response(op, number)

    def _wait_answer(self, number: int) -> None:
        began = time.monotonic()
        taken_at: Optional[float] = None
        checks = 0
        sleep = 0.00005
        while self._u64(self.area + ANSWERED_OFFSET) != number:
            checks += 1
            if checks < 100:
                continue
            self._check_live()
            now = time.monotonic()
            if taken_at is None:
                if self._u64(self.area + TAKEN_OFFSET) == number:
                    taken_at = now
                elif now - began > self.take_timeout:
                    raise _error(errno.EIO, f"the kernel took no request for "
                                 f"{self.take_timeout:g} s (hung, or gone)")
            elif now - taken_at > self.answer_timeout:
                raise _error(errno.EIO, f"the kernel did not answer a request in "
                             f"{self.answer_timeout:g} s")
            time.sleep(sleep)
            sleep = min(sleep * 2, 0.001)

    def _take_response(self, op: int, number: int) -> Tuple[int, bytes]:
        at = self.response_at
        header = bytes(self.map[at:at + FRAME.size])
        rtype, flags, length, seq = FRAME.unpack(header)
        (crc,) = CRC.unpack_from(self.map, at + FRAME.size)
        if length < RESULT.size or length > self.buffer_size - FRAME.size - CRC.size:
            raise _error(errno.EIO, f"file service: a response of {length} bytes")
        payload = bytes(self.map[at + 16:at + 16 + length])
        if zlib.crc32(payload, zlib.crc32(header)) != crc:
            raise _error(errno.EIO, "file service: a response fails its checksum")
        if seq != number & 0xffffffff or flags:
            raise _error(errno.EIO, f"file service: response {seq} to request {number}")
        (result,) = RESULT.unpack_from(payload)
        if rtype == REJECTED:
            raise _error(errno.EIO, "file service: the kernel refused a damaged request")
        if rtype != op:
            raise _error(errno.EIO, f"file service: a response of type {rtype} to {op}")
        return result, payload[RESULT.size:]

    def _call(self, op: int, handle: Optional[_Handle] = None, flags: int = 0,
              offset: int = 0, size: int = 0, data: bytes = b"",
              what: str = "") -> Tuple[int, bytes]:
        """Runs one operation; OSError with the kernel's errno when it fails."""
        with self.lock:
            if self.closed:
                raise _error(errno.EBADF, "the file client is closed")
            if self.boot_id is None or self._live_boot_id() != self.boot_id:
                # A kernel that is not there now gives EIO at once, not after a wait.
                self._lose_session()
                self._attach(wait=False)
            if handle is not None and handle.session != self.session:
                raise _error(errno.EIO, "the kernel rebooted since this file was opened")
            remote = handle.remote if handle else 0
            result, out = self._exchange(op, ARGS.pack(remote, flags, offset, size, 0) + data)
        if result < 0:
            raise _error(-result, what)
        return result, out


    def _handle(self, handle: int) -> _Handle:
        with self.lock:
            if handle in self.stale:
                raise _error(errno.EIO, "the kernel rebooted since this file was opened")
            h = self.handles.get(handle)
        if h is None:
            raise _error(errno.EBADF)
        return h

    @staticmethod
    def _path(path: str) -> bytes:
        if not path.startswith("/"):
            raise _error(errno.EINVAL, f"{path}: not an absolute path")
        return path.encode("utf-8", "surrogateescape")

    @property
    def max_transfer(self) -> int:
        """The most bytes one read or write request moves."""
        return self.buffer_size - FRAME.size - CRC.size - ARGS.size

    # ---- the file operations ----

    def stat(self, path: str) -> FileStat:
        _, data = self._call(STAT_OP, data=self._path(path), what=path)
        if len(data) != STAT.size:
            raise _error(errno.EIO, "file service: a stat of the wrong size")
        is_dir, mode, size = STAT.unpack(data)
        return FileStat(bool(is_dir), mode & 0o7777, size)

    def listdir(self, path: str) -> List[str]:
        names: List[str] = []
        encoded = self._path(path)
        while True:
            count, data = self._call(LISTDIR, offset=len(names), data=encoded, what=path)
            if count == 0:
                return names
            parts = data.split(b"\0")
            if len(parts) < count + 1:
                raise _error(errno.EIO, "file service: a listing cut short")
            names += [p.decode("utf-8", "surrogateescape") for p in parts[:count]]

    def open(self, path: str, flags: int) -> int:
        pflags = pfs_flags(flags)
        remote, _ = self._call(OPEN, flags=pflags, data=self._path(path), what=path)
        with self.lock:
            handle = self.next_handle
            self.next_handle += 1
            self.handles[handle] = _Handle(remote, self.session, bool(pflags & PFS_NONBLOCK))
        return handle

    def read(self, handle: int, size: int, offset: int) -> bytes:
        """b"" at end of file; BlockingIOError (EAGAIN) for an O_NONBLOCK handle with nothing
        to read; blocks otherwise, until data, end of file or cancel()."""
        h = self._handle(handle)
        if size <= 0:
            return b""
        chunk = min(size, self.max_transfer)
        while True:
            try:
                got, data = self._call(READ, handle=h, offset=offset, size=chunk)
                break
            except BlockingIOError:
                if h.nonblock:
                    raise
            if h.cancelled.wait(self.BLOCKED_POLL):
                h.cancelled.clear()
                raise InterruptedError(errno.EINTR, os.strerror(errno.EINTR))
        h.cancelled.clear()
        parts = [data[:got]]
        total = got
        # Past one request's worth: more while the file has it at once, never waiting.
        while total < size and got == chunk:
            chunk = min(size - total, self.max_transfer)
            try:
                got, data = self._call(READ, handle=h, offset=offset + total,
                                       size=chunk)
            except BlockingIOError:
                break
            parts.append(data[:got])
            total += got
        return b"".join(parts)

    def write(self, handle: int, data: bytes) -> int:
        """Bytes the kernel took. Up to max_transfer bytes reach the kernel as one write;
        more go as several, as a pipe's writer would see them."""
        h = self._handle(handle)
        total = 0
        for at in range(0, max(len(data), 1), self.max_transfer):
            piece = data[at:at + self.max_transfer]
            try:
                took, _ = self._call(WRITE, handle=h, data=piece)
            except OSError:
                if total:
                    return total
                raise
            total += took
            if took < len(piece):
                break
        return total

    def release(self, handle: int) -> None:
        """Releases the handle; raises the release's errno (a filter's commit)."""
        h = self._handle(handle)
        with self.lock:
            self.handles.pop(handle, None)
        self._call(RELEASE, handle=h)

    def cancel(self, handle: int) -> None:
        """Ends a read blocked on handle: it raises InterruptedError. A cancel with no read
        waiting ends the next read that would wait."""
        with self.lock:
            h = self.handles.get(handle)
        if h is not None:
            h.cancelled.set()

    def mkdir(self, path: str) -> None:
        self._call(MKDIR, data=self._path(path), what=path)

    def rmdir(self, path: str) -> None:
        self._call(RMDIR, data=self._path(path), what=path)

    def counters(self) -> ServiceCounters:
        """The kernel's counts of requests served and dropped."""
        with self.lock:
            if self.boot_id is None:
                self._attach(wait=False)
            return ServiceCounters(*FS_COUNTERS.unpack_from(self.map,
                                                            self.area + FS_COUNTERS_OFFSET))

    def close(self) -> None:
        """Ends the session: the kernel releases every handle still open (best effort: a
        kernel that is gone is not waited for long)."""
        with self.lock:
            if self.closed:
                return
            self.closed = True
            if self.boot_id is not None and self._live_boot_id() == self.boot_id:
                self.take_timeout = min(self.take_timeout, 1.0)
                try:
                    self._exchange(RESET, ARGS.pack(0, 0, 0, 0, 0))
                except OSError:
                    pass
            self.handles.clear()
            self.map.close()
            os.close(self.fd)

    def __enter__(self) -> "FileClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
