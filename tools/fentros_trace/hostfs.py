"""tracefs on the host: the FUSE operations that turn a host process's system calls on the
mount into the guest's own file operations, through a FileClient over the host channel.

The rules that tools depend on, and how each is kept:

- One write() is one guest write: files are opened direct_io (no page cache between the
  writer and the guest) and the mount asks for big writes, so a write of up to
  MAX_WRITE bytes arrives here whole and goes to the guest as one request; the guest's
  errno comes back to the writer.
- `>` and `>>`: the open flags go to the guest as they are (the mount asks for atomic
  O_TRUNC, so O_TRUNC comes with the open instead of as a separate truncate). A truncate
  of an existing file is accepted and does nothing, as on tracefs, whose files have no
  size to cut.
- The commit of filter files (the guest's release) must happen before close() returns,
  or the next command may read the old filter. FUSE sends RELEASE after close() has
  returned, but FLUSH on every close(); bash closes its own copy of a redirected file
  (dup2 then close) before it writes, so a flush commits only a handle that was written
  since its last commit. A later write through another copy of the file opens the guest
  file again, without O_TRUNC. The commit's errno is the errno of that close().
- A read of trace_pipe blocks in the guest. A reader killed by a signal (Ctrl-C) still
  waits in the host kernel until the request is answered, so ReadWatch looks at every
  read that waits and cancels the guest read when its caller has a signal pending: the
  reader gets EINTR (and dies of its signal, or runs its handler).
- A guest that is gone (QEMU exited) answers every operation with EIO at once, and its
  blocked reads end with EIO.
- The host kernel caches nothing (entries and attributes expire at once), because
  events/kprobes/NAME comes and goes with a write to kprobe_events. A lookup walks the
  path one name at a time, each a round trip to the guest, so StatCache keeps the
  guest's answers here instead, and drops them all at anything done through the mount
  that can change the tree (an open for writing, a write, a commit, mkdir, rmdir), and
  after STAT_TTL in any case.
"""

import errno
import logging
import os
import stat
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Protocol, Tuple

log = logging.getLogger("fentros-trace.mount")

TRACING = "/sys/kernel/tracing"
MAX_WRITE = 128 << 10
# The flags the guest's open understands; the rest (O_LARGEFILE, O_CLOEXEC...) are the
# host's business.
GUEST_OPEN_FLAGS = os.O_ACCMODE | os.O_TRUNC | os.O_APPEND | os.O_NONBLOCK
# How long a read may wait before ReadWatch starts to look at its caller, and how often.
WATCH_PERIOD = 0.05
# How long a stat answer is kept when nothing done through the mount changed the tree.
STAT_TTL = 1.0


class GuestStat(Protocol):
    @property
    def is_dir(self) -> bool: ...

    @property
    def mode(self) -> int: ...

    @property
    def size(self) -> int: ...


class GuestFiles(Protocol):
    """What fileclient.FileClient offers (and the unit tests' fake)."""

    def stat(self, path: str) -> GuestStat: ...

    def listdir(self, path: str) -> List[str]: ...

    def open(self, path: str, flags: int) -> int: ...

    def read(self, handle: int, size: int, offset: int) -> bytes: ...

    def write(self, handle: int, data: bytes) -> int: ...

    def release(self, handle: int) -> None: ...

    def cancel(self, handle: int) -> None: ...

    def mkdir(self, path: str) -> None: ...

    def rmdir(self, path: str) -> None: ...


def _status_mask(fields: Dict[str, str], name: str) -> int:
    try:
        return int(fields.get(name, "0"), 16)
    except ValueError:
        return 0


def signal_pending(pid: int) -> bool:
    """Whether thread pid has a signal on its way that would end a wait of its own: one
    pending and not blocked (a fatal one shows as SIGKILL pending), or the thread is gone.
    Ignored signals are never pending: the kernel drops them when they are sent."""
    try:
        with open(f"/proc/{pid}/status") as f:
            text = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return True
    except OSError:
        return False
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    if fields.get("State", "")[:1] in ("Z", "X"):
        return True
    pending = _status_mask(fields, "SigPnd") | _status_mask(fields, "ShdPnd")
    return (pending & ~_status_mask(fields, "SigBlk")) != 0


@dataclass
class _Wait:
    pid: int
    handle: int
    since: float
    cancelled: bool = False


class ReadWatch:
    """Reads that may block in the guest, and the thread that ends the ones whose caller
    was signalled (or all of them, when the guest is gone)."""

    def __init__(self, cancel: Callable[[int], None],
                 pending: Callable[[int], bool] = signal_pending,
                 period: float = WATCH_PERIOD) -> None:
        self._cancel = cancel
        self._pending = pending
        self._period = period
        self._lock = threading.Lock()
        self._waits: Dict[int, _Wait] = {}
        self._next = 0
        self._all_cancelled = False
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="read-watch", daemon=True)
        self._thread.start()

    @contextmanager
    def reading(self, pid: int, handle: int) -> Iterator[_Wait]:
        wait = _Wait(pid, handle, time.monotonic())
        with self._lock:
            key = self._next
            self._next += 1
            self._waits[key] = wait
            if self._all_cancelled:
                # A cancel before the read ends the read once it would wait.
                self._cancel_locked(wait)
        try:
            yield wait
        finally:
            # Under the lock: once the read is over its handle is never cancelled, so a
            # cancel cannot end a later, unrelated read.
            with self._lock:
                del self._waits[key]

    def _cancel_locked(self, wait: _Wait) -> None:
        wait.cancelled = True
        try:
            self._cancel(wait.handle)
        except OSError as e:
            log.info("cancel of handle %d: %s", wait.handle, e)

    def cancel_all(self) -> None:
        """Ends the reads that wait, and every read to come."""
        with self._lock:
            self._all_cancelled = True
            for wait in self._waits.values():
                if not wait.cancelled:
                    self._cancel_locked(wait)

    def _loop(self) -> None:
        while not self._stopping.wait(self._period):
            now = time.monotonic()
            with self._lock:
                waits = [w for w in self._waits.values()
                         if not w.cancelled and w.pid > 0 and now - w.since >= self._period]
            for wait in waits:
                if not self._pending(wait.pid):
                    continue
                with self._lock:
                    if not wait.cancelled and wait in self._waits.values():
                        log.info("pid %d was signalled while its read of handle %d waited: "
                                 "cancelled", wait.pid, wait.handle)
                        self._cancel_locked(wait)

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join()


class StatCache:
    """The guest's stat answers (or their errno), per path, for STAT_TTL or until the next
    change. A generation number keeps an answer that was asked for before a change from
    being stored after it."""

    def __init__(self, stat: Callable[[str], GuestStat], ttl: float = STAT_TTL) -> None:
        self._stat = stat
        self._ttl = ttl
        self._lock = threading.Lock()
        self._entries: Dict[str, Tuple[float, Optional[GuestStat], int]] = {}
        self._generation = 0

    def stat(self, path: str) -> GuestStat:
        now = time.monotonic()
        with self._lock:
            entry = self._entries.get(path)
            generation = self._generation
        if entry and now - entry[0] < self._ttl:
            if entry[1] is None:
                raise _error(entry[2])
            return entry[1]
        try:
            st = self._stat(path)
        except OSError as e:
            # Only a definite answer is kept: EIO and the like must be asked again.
            if e.errno in (errno.ENOENT, errno.ENOTDIR):
                self._store(generation, path, (now, None, e.errno))
            raise
        self._store(generation, path, (now, st, 0))
        return st

    def _store(self, generation: int, path: str,
               entry: Tuple[float, Optional[GuestStat], int]) -> None:
        with self._lock:
            if generation == self._generation:
                self._entries[path] = entry

    def changed(self) -> None:
        with self._lock:
            self._generation += 1
            self._entries.clear()


@dataclass
class OpenFile:
    path: str                 # the guest's path
    flags: int                # the guest open flags
    guest: Optional[int]      # the guest's handle; None once a flush committed it
    written: bool = False     # a write went to the guest since the last commit
    lock: threading.Lock = field(default_factory=threading.Lock)


def _error(code: int) -> OSError:
    return OSError(code, os.strerror(code))


class TracefsOps:
    """fusepy's Operations protocol (raw_fi: the fuse_file_info itself is passed, so that
    open can set direct_io), over a GuestFiles. Host path "/" is the guest's root_path."""

    use_ns = True  # fusepy: times in nanoseconds

    def __init__(self, files: GuestFiles, root_path: str = TRACING,
                 caller_pid: Callable[[], int] = lambda: 0,
                 on_init: Optional[Callable[[], None]] = None) -> None:
        self.files = files
        self.root_path = "/" + root_path.strip("/")
        self.caller_pid = caller_pid
        self.on_init = on_init
        self.started_ns = time.time_ns()
        self.gone: Optional[str] = None
        self._handles: Dict[int, OpenFile] = {}
        self._next_fh = 1
        self._table_lock = threading.Lock()
        # Held over a commit in release: an open waits for it, so that a command run after
        # a close() sees what the close committed, though FUSE sends RELEASE after it.
        self._commit_lock = threading.Lock()
        self._watch = ReadWatch(files.cancel)
        self._stats = StatCache(files.stat)

    # --- plumbing ---

    def __call__(self, op: str, *args: Any) -> Any:
        method = getattr(self, "op_" + op, None)
        if method is None:
            raise _error(errno.ENOSYS)
        # A close() after the guest went is not an error of its own unless it had
        # something to commit (op_flush says).
        if self.gone and op not in ("flush", "release", "releasedir", "destroy"):
            raise _error(errno.EIO)
        try:
            return method(*args)
        except InterruptedError:
            raise _error(errno.EIO if self.gone else errno.EINTR)
        except OSError as e:
            if self.gone:
                raise _error(errno.EIO)
            if not e.errno or e.errno <= 0:
                log.exception("%s%r: an error without an errno", op, args)
                raise _error(errno.EIO)
            raise
        except Exception:
            log.exception("%s%r failed", op, args)
            raise _error(errno.EIO)

    def guest_gone(self, why: str) -> None:
        """From now on every operation fails with EIO, and the reads waiting end."""
        if self.gone is None:
            log.warning("the guest is gone (%s): every operation now fails with EIO", why)
        self.gone = why
        self._watch.cancel_all()

    def stop(self) -> None:
        """Unmounted: what still waits ends, nothing new reaches the guest."""
        self.gone = self.gone or "unmounted"
        self._watch.cancel_all()
        self._watch.stop()

    def guest_path(self, path: str) -> str:
        path = path.strip("/")
        if not path:
            return self.root_path
        return (self.root_path.rstrip("/") + "/" + path) if self.root_path != "/" else "/" + path

    def _file(self, fi: Any) -> OpenFile:
        with self._table_lock:
            of = self._handles.get(int(fi.fh))
        if of is None:
            raise _error(errno.EBADF)
        return of

    def _guest_handle(self, of: OpenFile) -> int:
        """The open guest handle, opened again (without O_TRUNC, the truncation was done)
        when a flush committed the last one and the file is still used."""
        if of.guest is None:
            of.guest = self.files.open(of.path, of.flags & ~os.O_TRUNC)
        return of.guest

    # --- the operations fusepy calls ---
    # Each is registered with FUSE by the name after "op_"; FUSE's own names would
    # otherwise clash with this object's attributes (lock, flush...).

    def op_init(self, path: str) -> None:
        if self.on_init:
            self.on_init()

    def op_getattr(self, path: str, fi: Any = None) -> Dict[str, int]:
        st = self._stats.stat(self.guest_path(path))
        kind = stat.S_IFDIR if st.is_dir else stat.S_IFREG
        t = self.started_ns
        return {"st_mode": kind | (st.mode & 0o7777), "st_nlink": 2 if st.is_dir else 1,
                "st_size": st.size, "st_uid": 0, "st_gid": 0, "st_blksize": 4096,
                "st_atime": t, "st_mtime": t, "st_ctime": t}

    def op_readdir(self, path: str, fh: int) -> List[str]:
        return [".", ".."] + self.files.listdir(self.guest_path(path))

    def op_access(self, path: str, amode: int) -> None:
        # As for root on Linux: read and write are always granted (the open decides),
        # execute needs an x bit or a directory.
        st = self._stats.stat(self.guest_path(path))
        if amode & os.X_OK and not st.is_dir and not st.mode & 0o111:
            raise _error(errno.EACCES)

    def op_open(self, path: str, fi: Any) -> int:
        gpath = self.guest_path(path)
        flags = int(fi.flags) & GUEST_OPEN_FLAGS
        if flags & (os.O_ACCMODE | os.O_TRUNC) != os.O_RDONLY:
            self._stats.changed()
        with self._commit_lock:
            pass
        handle = self.files.open(gpath, flags)
        with self._table_lock:
            fh = self._next_fh
            self._next_fh += 1
            self._handles[fh] = OpenFile(gpath, flags, handle)
        fi.fh = fh
        fi.direct_io = 1
        return 0

    def op_read(self, path: Optional[str], size: int, offset: int, fi: Any) -> bytes:
        of = self._file(fi)
        with of.lock:
            handle = self._guest_handle(of)
        with self._watch.reading(self.caller_pid(), handle):
            return self.files.read(handle, size, offset)

    def op_write(self, path: Optional[str], data: bytes, offset: int, fi: Any) -> int:
        of = self._file(fi)
        with of.lock:
            handle = self._guest_handle(of)
            of.written = True
            try:
                return self.files.write(handle, data)
            finally:
                self._stats.changed()

    def op_flush(self, path: Optional[str], fi: Any) -> None:
        of = self._file(fi)
        with of.lock:
            if not of.written or of.guest is None:
                return
            if self.gone:
                raise _error(errno.EIO)
            handle, of.guest, of.written = of.guest, None, False
            try:
                self.files.release(handle)
            finally:
                self._stats.changed()

    def op_release(self, path: Optional[str], fi: Any) -> None:
        with self._table_lock:
            of = self._handles.pop(int(fi.fh), None)
        if of is None or of.guest is None or self.gone:
            return
        try:
            if of.flags & os.O_ACCMODE != os.O_RDONLY:
                with self._commit_lock:
                    self.files.release(of.guest)
            else:
                self.files.release(of.guest)
        except OSError as e:
            # Nobody is left to hear it: close() has returned.
            log.info("release of %s: %s", of.path, e)
        finally:
            if of.flags & os.O_ACCMODE != os.O_RDONLY:
                self._stats.changed()

    def op_truncate(self, path: str, length: int, fi: Any = None) -> None:
        if fi is None and self._stats.stat(self.guest_path(path)).is_dir:
            raise _error(errno.EISDIR)

    def op_utimens(self, path: str, times: Any = None) -> None:
        self._stats.stat(self.guest_path(path))

    def op_mkdir(self, path: str, mode: int) -> None:
        try:
            self.files.mkdir(self.guest_path(path))
        finally:
            self._stats.changed()

    def op_rmdir(self, path: str) -> None:
        try:
            self.files.rmdir(self.guest_path(path))
        finally:
            self._stats.changed()

    def op_create(self, path: str, mode: int, fi: Any) -> int:
        # The guest's directories make no files: Linux's answer for a directory without
        # a create operation.
        raise _error(errno.EACCES)

    def _not_permitted(self, *args: Any) -> None:
        raise _error(errno.EPERM)

    op_unlink = op_rename = op_link = op_symlink = op_mknod = _not_permitted
    op_chmod = op_chown = _not_permitted

    def op_statfs(self, path: str) -> Dict[str, int]:
        return {"f_bsize": 4096, "f_frsize": 4096, "f_namemax": 255}

    def op_destroy(self, path: str) -> None:
        pass


# The FUSE operations TracefsOps implements: fusepy registers an operation when the object
# has an attribute of its name.
OPERATIONS = tuple(name[3:] for name in dir(TracefsOps) if name.startswith("op_"))


class FuseFacade:
    """What fusepy.FUSE is given: an attribute per implemented operation (fusepy looks
    them up to decide which to register) and __call__, through which it calls them."""

    use_ns = True

    def __init__(self, ops: TracefsOps) -> None:
        self._ops = ops
        for name in OPERATIONS:
            setattr(self, name, getattr(ops, "op_" + name))

    def __call__(self, op: str, *args: Any) -> Any:
        return self._ops(op, *args)
