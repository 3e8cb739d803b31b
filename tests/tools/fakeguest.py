"""An in-process stand-in for fileclient.FileClient: a small tracefs with the behaviours the
mount must carry through (a refused write's errno, O_TRUNC and O_APPEND on a filter file
whose commit is its release, a blocking trace_pipe, read-only files, a release that
fails), so that tools/fentros_trace/hostfs.py and the FUSE mount are tested without QEMU.
"""

import errno
import os
import threading
import time
from dataclasses import dataclass
from typing import Dict, List

TRACING = "/sys/kernel/tracing"


@dataclass(frozen=True)
class FileStat:
    is_dir: bool
    mode: int
    size: int


def _error(code: int) -> OSError:
    return OSError(code, os.strerror(code))


@dataclass
class _Handle:
    path: str
    flags: int
    snapshot: bytes
    pending: List[str]
    cancelled: bool = False


class FakeGuest:
    TRACERS = ("function_graph", "function", "nop")

    def __init__(self, release_delay: float = 0.0) -> None:
        self.release_delay = release_delay
        self.lock = threading.Condition()
        self.current_tracer = "nop"
        self.trace = b"# tracer: nop\n#\n"
        self.pipe = bytearray()
        self.filter: List[str] = []
        self.kprobes: List[str] = []
        self.enables: Dict[str, str] = {}
        for event in ("sched/sched_switch", "sched/sched_wakeup", "irq/irq_handler_entry"):
            self.enables[event] = "0"
        self.dirs = {"/", "/sys", "/sys/kernel", TRACING, TRACING + "/events",
                     TRACING + "/instances", "/proc"}
        for event in self.enables:
            system = event.split("/")[0]
            self.dirs.add(f"{TRACING}/events/{system}")
            self.dirs.add(f"{TRACING}/events/{event}")
        self.handles: Dict[int, _Handle] = {}
        self.next_handle = 100
        self.writes: List[bytes] = []
        self.closed = False

    # --- the files ---

    def _files(self) -> Dict[str, int]:
        files = {"current_tracer": 0o644, "available_tracers": 0o444, "trace": 0o644,
                 "trace_pipe": 0o444, "set_ftrace_filter": 0o644, "kprobe_events": 0o644,
                 "release_fails": 0o200, "big": 0o444}
        names = {f"{TRACING}/{name}": mode for name, mode in files.items()}
        for event in self.enables:
            names[f"{TRACING}/events/{event}/enable"] = 0o644
            names[f"{TRACING}/events/{event}/id"] = 0o444
        names["/proc/version"] = 0o444
        return names

    def _content(self, path: str) -> bytes:
        name = path[len(TRACING) + 1:] if path.startswith(TRACING + "/") else path
        if name == "current_tracer":
            return (self.current_tracer + "\n").encode()
        if name == "available_tracers":
            return (" ".join(self.TRACERS) + "\n").encode()
        if name == "trace":
            return self.trace
        if name == "set_ftrace_filter":
            return ("".join(f + "\n" for f in self.filter)
                    or "#### all functions enabled ####\n").encode()
        if name == "kprobe_events":
            return "".join(k + "\n" for k in self.kprobes).encode()
        if name == "big":
            return b"".join(b"line %06d\n" % i for i in range(50000))
        if name.startswith("events/") and name.endswith("/enable"):
            return (self.enables[name[len("events/"):-len("/enable")]] + "\n").encode()
        if name.startswith("events/") and name.endswith("/id"):
            return b"%d\n" % (sorted(self.enables).index(name[7:-3]) + 30)
        if path == "/proc/version":
            return b"fentros fake\n"
        return b""

    # --- the FileClient interface ---

    def stat(self, path: str) -> FileStat:
        if path in self.dirs:
            return FileStat(True, 0o755, 0)
        mode = self._files().get(path)
        if mode is None:
            raise _error(errno.ENOENT)
        return FileStat(False, mode, 0)

    def listdir(self, path: str) -> List[str]:
        if path not in self.dirs:
            raise _error(errno.ENOTDIR if path in self._files() else errno.ENOENT)
        prefix = path.rstrip("/") + "/"
        names = {p[len(prefix):].split("/")[0] for p in list(self.dirs) + list(self._files())
                 if p.startswith(prefix) and p != prefix}
        return sorted(names)

    def open(self, path: str, flags: int) -> int:
        st = self.stat(path)
        if st.is_dir:
            raise _error(errno.EISDIR)
        writing = flags & os.O_ACCMODE != os.O_RDONLY
        if writing and not st.mode & 0o222:
            raise _error(errno.EACCES)
        if not writing and not st.mode & 0o444:
            raise _error(errno.EACCES)
        with self.lock:
            if writing and flags & os.O_TRUNC:
                if path.endswith("/trace"):
                    self.trace = b""
                elif path.endswith("/kprobe_events"):
                    self.kprobes = []
            pending = list(self.filter)
            if path.endswith("/set_ftrace_filter") and flags & os.O_TRUNC:
                pending = []
            self.next_handle += 1
            self.handles[self.next_handle] = _Handle(path, flags, self._content(path), pending)
            return self.next_handle

    def _handle(self, handle: int) -> _Handle:
        h = self.handles.get(handle)
        if h is None:
            raise _error(errno.EBADF)
        return h

    def read(self, handle: int, size: int, offset: int) -> bytes:
        h = self._handle(handle)
        if h.flags & os.O_ACCMODE == os.O_WRONLY:
            raise _error(errno.EBADF)
        if not h.path.endswith("/trace_pipe"):
            return h.snapshot[offset:offset + size]
        with self.lock:
            while not self.pipe:
                if h.flags & os.O_NONBLOCK:
                    raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
                if h.cancelled:
                    h.cancelled = False
                    raise InterruptedError(errno.EINTR, os.strerror(errno.EINTR))
                self.lock.wait(0.05)
            data = bytes(self.pipe[:size])
            del self.pipe[:size]
            return data

    def write(self, handle: int, data: bytes) -> int:
        h = self._handle(handle)
        if h.flags & os.O_ACCMODE == os.O_RDONLY:
            raise _error(errno.EBADF)
        self.writes.append(data)
        text = data.decode()
        name = h.path.rsplit("/", 1)[1]
        with self.lock:
            if name == "current_tracer":
                if text.strip() not in self.TRACERS:
                    raise _error(errno.EINVAL)
                self.current_tracer = text.strip()
            elif name == "set_ftrace_filter":
                for word in text.split():
                    if word == "nosuch":
                        raise _error(errno.EINVAL)
                    h.pending.append(word)
            elif name == "kprobe_events":
                for line in text.splitlines():
                    if not line.strip():
                        continue
                    if not line.startswith("p:"):
                        raise _error(errno.EINVAL)
                    self.kprobes.append(line.strip())
            elif name == "enable":
                event = h.path[len(TRACING) + len("/events/"):-len("/enable")]
                if text.strip() not in ("0", "1"):
                    raise _error(errno.EINVAL)
                self.enables[event] = text.strip()
            elif name == "trace":
                pass
            elif name == "release_fails":
                pass
            else:
                raise _error(errno.EINVAL)
        return len(data)

    def release(self, handle: int) -> None:
        h = self.handles.pop(handle, None)
        if h is None:
            raise _error(errno.EBADF)
        if self.release_delay:
            time.sleep(self.release_delay)
        if h.flags & os.O_ACCMODE == os.O_RDONLY:
            return
        if h.path.endswith("/set_ftrace_filter"):
            with self.lock:
                self.filter = h.pending
        if h.path.endswith("/release_fails"):
            raise _error(errno.EBUSY)

    def cancel(self, handle: int) -> None:
        with self.lock:
            h = self.handles.get(handle)
            if h:
                h.cancelled = True
            self.lock.notify_all()

    def mkdir(self, path: str) -> None:
        if path in self.dirs or path in self._files():
            raise _error(errno.EEXIST)
        if os.path.dirname(path) != TRACING + "/instances":
            raise _error(errno.EPERM)
        self.dirs.add(path)

    def rmdir(self, path: str) -> None:
        if path not in self.dirs:
            raise _error(errno.ENOENT)
        if os.path.dirname(path) != TRACING + "/instances":
            raise _error(errno.EPERM)
        self.dirs.remove(path)

    def close(self) -> None:
        self.closed = True

    # --- for the tests ---

    def push_pipe(self, data: bytes) -> None:
        with self.lock:
            self.pipe += data
            self.lock.notify_all()

