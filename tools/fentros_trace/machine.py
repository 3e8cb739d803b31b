"""A booted fentros: QEMU with the serial shell on a pipe and the debug console in a file,
and, when asked for, the host channel (ivshmem-plain over a file in /dev/shm).

The QEMU command line and the console driver are fentros_machine's, shared with the test
harness and the bench drivers, so the tool boots exactly the machine they boot.
"""

import os
import shutil
import subprocess
from typing import BinaryIO, List, Optional, Tuple

from fentros_machine.console import Console
from fentros_machine.qemu import fentros_argv, ivshmem_argv, qemu_binary

from . import shmchan

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACEFS = "/sys/kernel/tracing"
BOOT_TIMEOUT = 120
SHM_DIR = "/dev/shm"


class MachineError(Exception):
    pass


def find_iso(iso: Optional[str] = None) -> str:
    iso = iso or os.path.join(REPO, "build", "fentros.iso")
    if not os.path.exists(iso):
        raise MachineError(f"{iso}: no kernel built (run `make` first)")
    return iso


def iso_with_cmdline(workdir: str, cmdline: str) -> str:
    """An ISO of the built kernel (build/kernel.elf) booting with this command line."""
    kernel = os.path.join(REPO, "build", "kernel.elf")
    if not os.path.exists(kernel):
        raise MachineError(f"{kernel}: no kernel built (run `make` first)")
    iso = os.path.join(workdir, "cmdline.iso")
    done = subprocess.run([os.path.join(REPO, "tools", "mkiso.sh"), kernel, iso, cmdline],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        raise MachineError(f"tools/mkiso.sh: {done.stdout.strip()}")
    return iso


class Machine:
    def __init__(self, workdir: str, smp: int = 2, iso: Optional[str] = None,
                 mem: str = "256M", shm: bool = False,
                 shm_size: int = shmchan.DEFAULT_SIZE, cmdline: Optional[str] = None,
                 reboot: bool = False) -> None:
        """shm: attach the host channel; files then come through it (`xfer -c`) into
        shm-capture.bin, in the debug console's format, and capture_path names it.
        cmdline: boot the built kernel with this command line (instead of iso). reboot:
        a reset of the guest boots it again, RAM kept (see reset), instead of ending QEMU."""
        os.makedirs(workdir, exist_ok=True)
        if cmdline is not None:
            if iso:
                raise MachineError("an ISO and a command line: the ISO has its own")
            iso = iso_with_cmdline(workdir, cmdline)
        self.iso = find_iso(iso)
        if shutil.which(qemu_binary()) is None:
            raise MachineError(f"{qemu_binary()}: QEMU is not installed (run `make deps`)")
        self.channel_path = os.path.join(workdir, "debugcon.bin")
        self.capture_path = self.channel_path
        for path in (self.channel_path, os.path.join(workdir, "shm-capture.bin")):
            if os.path.exists(path):
                os.unlink(path)
        argv = (fentros_argv(self.iso, smp, mem, reboot=reboot)
                + ["-debugcon", f"file:{self.channel_path}"])
        self.shm_path: Optional[str] = None
        self.shm_fd: Optional[int] = None
        self.reader: Optional[shmchan.Reader] = None
        self._capture: Optional[BinaryIO] = None
        chan: Optional[shmchan.ShmChannel] = None
        if shm:
            if not os.path.isdir(SHM_DIR):
                raise MachineError(f"{SHM_DIR}: no shared memory file system for the channel")
            self.shm_path = os.path.join(SHM_DIR, f"fentros-trace-{os.getpid()}-{id(self):x}")
            shmchan.create_backing(self.shm_path, shm_size)
            # Kept open, so that the file stays reachable (shm_file) once its name is gone.
            self.shm_fd = os.open(self.shm_path, os.O_RDWR)
            chan = shmchan.ShmChannel(self.shm_path)
            argv += ivshmem_argv(self.shm_path, f"{shm_size >> 10}K")
            self.capture_path = os.path.join(workdir, "shm-capture.bin")
        try:
            self.console = Console(argv, os.path.join(workdir, "serial.log"))
            boot = self.console.wait_boot(BOOT_TIMEOUT)
        finally:
            # QEMU opened the file at its start and this side has it mapped: its name is no
            # longer needed, and without one nothing is left in /dev/shm, however either ends.
            if self.shm_path:
                os.unlink(self.shm_path)
        if boot.cwd is None:
            if chan:
                chan.close()
            self.close()
            raise MachineError("the kernel did not reach its shell prompt:\n"
                               + "\n".join(boot.lines[-20:]))
        if chan:
            if not chan.ready():
                chan.close()
                self.close()
                raise MachineError("the kernel did not set up the host channel (is the "
                                   "ivshmem device missing from its PCI bus?)")
            self._capture = open(self.capture_path, "wb")
            self.reader = shmchan.Reader(chan, shmchan.XferReceiver(self._capture))

    @property
    def shm_file(self) -> str:
        """A path to the host channel's shared memory while the machine runs (its name in
        /dev/shm is removed at boot): for fileclient.FileClient."""
        if self.shm_fd is None:
            raise MachineError("the machine has no host channel (shm=True)")
        return f"/proc/{os.getpid()}/fd/{self.shm_fd}"

    def run(self, line: str, timeout: float = 600) -> Tuple[int, List[str]]:
        """Runs one shell line; returns (status, output lines)."""
        reply = self.console.command(line.encode() + b"\n", timeout)
        if reply.cwd is None:
            raise MachineError(f"`{line}`: the shell did not come back"
                               + (" (QEMU exited)" if reply.exit_status is not None else ""))
        status = self.console.command(b"echo $?\n", 30)
        try:
            code = int(status.lines[-1])
        except (ValueError, IndexError):
            code = -1
        return code, reply.lines

    def must(self, line: str, timeout: float = 600) -> List[str]:
        """Runs a line that must succeed; its output lines. MachineError with the kernel's
        own message otherwise."""
        code, lines = self.run(line, timeout)
        if code != 0:
            raise MachineError(f"`{line}` failed: " + ("\n".join(lines) or f"status {code}"))
        return lines

    def reset(self, line: str, timeout: float = 600) -> List[str]:
        """Types a line that resets the machine (`reboot`, a panic under panic=reboot, `crash
        triple`) and waits for the shell of the next boot; the lines in between (the end of
        the old boot, the new boot's log). Needs reboot=True and no host channel."""
        if self.reader:
            raise MachineError("a reset with the host channel attached: its ring restarts")
        reply = self.console.command(line.encode() + b"\n", timeout)
        if reply.cwd is None:
            raise MachineError(f"`{line}`: the machine did not come back to its shell"
                               + (" (QEMU exited)" if reply.exit_status is not None else ""))
        if not any("fentros version" in out for out in reply.lines):
            raise MachineError(f"`{line}`: the machine did not reset:\n"
                               + "\n".join(reply.lines[-10:]))
        return reply.lines

    def channel_size(self) -> int:
        """Bytes of file data received so far (the debug console's: with its framing)."""
        if self.reader:
            return self.reader.receiver.received
        try:
            return os.path.getsize(self.channel_path)
        except OSError:
            return 0

    def close(self) -> None:
        if self.console.alive():
            self.console.send(b"poweroff\n")
            self.console.wait_exit(10)
        self.console.kill()
        if self.reader:
            self.reader.stopping.set()
            self.reader.thread.join()
            self.reader.chan.close()
        if self._capture:
            self._capture.close()
        if self.shm_fd is not None:
            os.close(self.shm_fd)
            self.shm_fd = None
