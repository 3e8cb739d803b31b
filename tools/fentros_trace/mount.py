"""`fentros-trace mount DIR` and `umount DIR`: a booted fentros's tracefs on the host, as a
FUSE file system whose fsname is `tracefs`.

mount boots fentros with the host channel, then starts a daemon that mounts DIR and
serves it (hostfs.TracefsOps over the guest's file service) until DIR is unmounted; then it
powers the guest off. The FUSE binding is Debian's python3-fusepy, which only Debian's own
Python sees, so the daemon runs under /usr/bin/python3 whatever Python runs this.

The workdir (default build/mount/<DIR as a name>) holds the daemon's log (mount.log) and
the guest's serial log. The daemon's pid and QEMU's, which umount needs when the daemon
died, are always in build/mount/<DIR as a name>, so that umount finds them from DIR alone.
"""

import importlib
import logging
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, List, Optional

from . import hostfs
from .fileclient import FileClient
from .machine import REPO, Machine, MachineError

# Debian's Python: the one that sees python3-fusepy (a pyenv or venv Python does not).
FUSE_PYTHON = "/usr/bin/python3"
SCRIPT = os.path.join(REPO, "tools", "fentros-trace")
# A boot under TCG on a loaded machine can take minutes.
READY_TIMEOUT = 600
# umount: how long the daemon may take to power the guest off and exit.
EXIT_TIMEOUT = 30


class MountError(Exception):
    pass


@dataclass
class MountOptions:
    mountpoint: str
    smp: int = 2
    iso: Optional[str] = None
    workdir: Optional[str] = None
    root: str = hostfs.TRACING
    foreground: bool = False
    ready_fd: Optional[int] = None


def pid_path(mountpoint: str, name: str) -> str:
    return os.path.join(default_workdir(mountpoint), name)


def default_workdir(mountpoint: str) -> str:
    name = os.path.realpath(mountpoint).strip("/").replace("/", "_") or "root"
    return os.path.join(REPO, "build", "mount", name)


def import_fusepy() -> Any:
    """fusepy, untyped (it has no stubs); MountError when this Python cannot see it."""
    try:
        return importlib.import_module("fusepy")
    except ImportError:
        raise MountError(f"python3-fusepy is not installed for {sys.executable} (run "
                         "`make deps`; it is Debian's package, seen by /usr/bin/python3)")


def fuse_usable() -> Optional[str]:
    """Why a FUSE mount cannot be made here, or None."""
    if not os.path.exists("/dev/fuse"):
        return "/dev/fuse is missing (no FUSE in this kernel or container)"
    if not os.path.exists(FUSE_PYTHON):
        return f"{FUSE_PYTHON} is missing"
    check = subprocess.run([FUSE_PYTHON, "-c", "import fusepy"], capture_output=True)
    if check.returncode != 0:
        return "python3-fusepy is not installed (run `make deps`)"
    if not (shutil.which("fusermount3") or shutil.which("fusermount")):
        return "fusermount is missing (run `make deps`: package fuse3)"
    return None


def is_mounted(mountpoint: str) -> bool:
    target = os.path.realpath(mountpoint)
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                fields = line.split()
                if len(fields) > 1 and fields[1].replace("\\040", " ") == target:
                    return True
    except OSError:
        pass
    return False


def serve(files: hostfs.GuestFiles, mountpoint: str, root_path: str = hostfs.TRACING,
          on_ready: Optional[Callable[[], None]] = None,
          gone: Optional[Callable[[], Optional[str]]] = None) -> None:
    """Mounts files' root_path on mountpoint and serves it until it is unmounted (or this
    process gets SIGINT/SIGTERM). gone, polled, says why the guest is gone, once it is."""
    fusepy = import_fusepy()

    def caller_pid() -> int:
        return int(fusepy.fuse_get_context()[2])

    live = threading.Event()

    def ready() -> None:
        live.set()
        if on_ready:
            on_ready()

    ops = hostfs.TracefsOps(files, root_path, caller_pid=caller_pid, on_init=ready)
    stopping = threading.Event()

    def watch() -> None:
        while not stopping.wait(0.2):
            why = gone() if gone else None
            if why and not ops.gone:
                ops.guest_gone(why)
            # Detached lazily while a file was open: FUSE serves until the last one closes,
            # so the reads that wait must end now, or the daemon (and umount) waits for them.
            if live.is_set() and not is_mounted(mountpoint):
                logging.info("%s: detached; the files still open get EIO", mountpoint)
                ops.stop()
                return

    watcher = threading.Thread(target=watch, name="mount-watch", daemon=True)
    watcher.start()
    try:
        fusepy.FUSE(hostfs.FuseFacade(ops), mountpoint, foreground=True, raw_fi=True,
                    fsname="tracefs", subtype="fentros",
                    # O_TRUNC comes with the open, not as a truncate after it.
                    atomic_o_trunc=True,
                    # One write() of up to MAX_WRITE bytes is one request (4 KiB otherwise).
                    big_writes=True, max_write=hostfs.MAX_WRITE,
                    # Nothing cached: events/kprobes/NAME comes and goes with kprobe_events.
                    entry_timeout=0, attr_timeout=0, negative_timeout=0)
    finally:
        stopping.set()
        ops.stop()


class _Readiness:
    """The pipe to `mount`, which waits for one line: "ready" or "error: WHY". Closed after
    it, so that a later message cannot land in whatever file reuses the number."""

    def __init__(self, fd: Optional[int]) -> None:
        self.fd = fd

    def say(self, message: str) -> None:
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        try:
            os.write(fd, message.encode() + b"\n")
        except OSError:
            pass
        os.close(fd)


def run_daemon(opts: MountOptions) -> int:
    """The daemon: boots the guest, serves the mount until it is unmounted, powers the guest
    off. Reports readiness (or the error) on opts.ready_fd."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(message)s")
    workdir = opts.workdir or default_workdir(opts.mountpoint)
    readiness = _Readiness(opts.ready_fd)
    machine: Optional[Machine] = None
    files: Optional[FileClient] = None
    try:
        import_fusepy()
        os.makedirs(workdir, exist_ok=True)
        os.makedirs(default_workdir(opts.mountpoint), exist_ok=True)
        with open(pid_path(opts.mountpoint, "daemon.pid"), "w") as f:
            f.write(f"{os.getpid()}\n")
        machine = Machine(os.path.join(workdir, "machine"), smp=opts.smp, iso=opts.iso,
                          shm=True)
        with open(pid_path(opts.mountpoint, "qemu.pid"), "w") as f:
            f.write(f"{machine.console.proc.pid}\n")
        files = open_guest_files(machine)
    except (MachineError, MountError, OSError) as e:
        if machine:
            machine.close()
        readiness.say(f"error: {e}")
        print(f"fentros-trace mount: {e}", file=sys.stderr)
        return 1

    def on_ready() -> None:
        logging.info("%s: mounted (guest %s)", opts.mountpoint, opts.root)
        readiness.say("ready")

    def gone() -> Optional[str]:
        assert machine is not None
        if machine.console.alive():
            return None
        return "QEMU exited"

    try:
        serve(files, opts.mountpoint, opts.root, on_ready=on_ready, gone=gone)
    except (RuntimeError, MountError, OSError) as e:
        readiness.say(f"error: cannot mount {opts.mountpoint}: {e} (see the log)")
        logging.error("%s: %s", opts.mountpoint, e)
        return 1
    finally:
        readiness.say("error: the mount ended before it was live")
        logging.info("%s: unmounted; powering the guest off", opts.mountpoint)
        try:
            files.close()
        finally:
            machine.close()
            for name in ("daemon.pid", "qemu.pid"):
                try:
                    os.unlink(pid_path(opts.mountpoint, name))
                except OSError:
                    pass
    return 0


def open_guest_files(machine: Machine) -> FileClient:
    """The guest's file service over machine's host channel."""
    return FileClient(machine.shm_file)


def _daemon_argv(opts: MountOptions, ready_fd: int) -> List[str]:
    argv = [FUSE_PYTHON, SCRIPT, "mount", "--foreground", "--ready-fd", str(ready_fd),
            "--smp", str(opts.smp), "--root", opts.root]
    if opts.iso:
        argv += ["--iso", os.path.abspath(opts.iso)]
    if opts.workdir:
        argv += ["--workdir", os.path.abspath(opts.workdir)]
    return argv + [os.path.abspath(opts.mountpoint)]


def mount(opts: MountOptions) -> int:
    if not os.path.isdir(opts.mountpoint):
        raise MountError(f"{opts.mountpoint}: not a directory")
    if is_mounted(opts.mountpoint):
        raise MountError(f"{opts.mountpoint}: something is mounted there already")
    if opts.foreground:
        try:
            import_fusepy()
        except MountError:
            if os.path.realpath(sys.executable) != os.path.realpath(FUSE_PYTHON):
                os.execv(FUSE_PYTHON, [FUSE_PYTHON, SCRIPT] + sys.argv[1:])
            raise
        return run_daemon(opts)
    why = fuse_usable()
    if why:
        raise MountError(why)
    workdir = opts.workdir or default_workdir(opts.mountpoint)
    os.makedirs(workdir, exist_ok=True)
    log_path = os.path.join(workdir, "mount.log")
    read_end, write_end = os.pipe()
    with open(log_path, "wb") as log_file:
        daemon = subprocess.Popen(_daemon_argv(opts, write_end), stdin=subprocess.DEVNULL,
                                  stdout=log_file, stderr=subprocess.STDOUT,
                                  pass_fds=(write_end,), start_new_session=True)
    os.close(write_end)
    message = _read_message(read_end, READY_TIMEOUT)
    os.close(read_end)
    if message == "ready":
        print(f"fentros-trace mount: {opts.mountpoint}: the guest's {opts.root} "
              f"(log: {log_path})", file=sys.stderr)
        return 0
    if daemon.poll() is None:
        daemon.terminate()
    raise MountError((message[len("error: "):] if message.startswith("error: ") else
                      "the daemon ended before the mount was live")
                     + f" (log: {log_path})")


def _read_message(fd: int, timeout: float) -> str:
    data = b""
    deadline = time.monotonic() + timeout
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            return "error: timed out waiting for the guest to boot"
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    return data.decode(errors="replace").split("\n")[0]


def _read_pid(path: str) -> Optional[int]:
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def _ours(pid: int, word: bytes) -> bool:
    """Whether pid still runs a command line with word in it: a pid file can outlive its
    process, and the number can be reused."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return word in f.read()
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie has no more to do: the daemon's parent (`mount`) may be gone.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def umount(mountpoint: str) -> int:
    """Unmounts (lazily when busy or when the daemon is gone) and waits for the daemon to
    power the guest off; a daemon that does not, and its QEMU, are killed."""
    fusermount = shutil.which("fusermount3") or shutil.which("fusermount")
    if fusermount is None:
        raise MountError("fusermount is missing (run `make deps`: package fuse3)")
    status = 0
    if is_mounted(mountpoint):
        plain = subprocess.run([fusermount, "-u", mountpoint], capture_output=True, text=True)
        if plain.returncode != 0:
            lazy = subprocess.run([fusermount, "-u", "-z", mountpoint], capture_output=True,
                                  text=True)
            if lazy.returncode != 0:
                raise MountError(f"{mountpoint}: {lazy.stderr.strip() or plain.stderr.strip()}")
            print(f"fentros-trace umount: {mountpoint}: busy, detached lazily",
                  file=sys.stderr)
    else:
        print(f"fentros-trace umount: {mountpoint}: not mounted", file=sys.stderr)
        status = 1
    daemon = _read_pid(pid_path(mountpoint, "daemon.pid"))
    qemu = _read_pid(pid_path(mountpoint, "qemu.pid"))
    if daemon and not _ours(daemon, b"fentros-trace"):
        daemon = None
    if qemu and not _ours(qemu, b"qemu"):
        qemu = None
    if daemon and not _wait_gone(daemon, EXIT_TIMEOUT):
        print(f"fentros-trace umount: the daemon ({daemon}) did not exit: killed",
              file=sys.stderr)
        os.kill(daemon, signal.SIGKILL)
    if qemu and _alive(qemu):
        # The daemon died without powering its guest off.
        os.kill(qemu, signal.SIGKILL)
    for name in ("daemon.pid", "qemu.pid"):
        try:
            os.unlink(pid_path(mountpoint, name))
        except OSError:
            pass
    try:
        # Left only when the logs are elsewhere (--workdir): nothing to keep.
        os.rmdir(default_workdir(mountpoint))
    except OSError:
        pass
    return status

