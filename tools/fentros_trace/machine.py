"""A booted fentros: QEMU with the serial shell on a pipe and the debug console in a file.

The QEMU command line and the console driver are the test harness's (tests/harness), so
the tool boots exactly the machine the tests and benchmarks boot.
"""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests"))

from harness.console import Console  # noqa: E402
from harness.qemu import fentros_argv, qemu_binary  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
BOOT_TIMEOUT = 120


class MachineError(Exception):
    pass


def find_iso(iso=None):
    iso = iso or os.path.join(REPO, "build", "fentros.iso")
    if not os.path.exists(iso):
        raise MachineError(f"{iso}: no kernel built (run `make` first)")
    return iso


class Machine:
    def __init__(self, workdir, smp=2, iso=None, mem="256M", log_stream=None):
        self.iso = find_iso(iso)
        if not any(os.access(os.path.join(d, qemu_binary()), os.X_OK)
                   for d in os.environ.get("PATH", "").split(os.pathsep)):
            raise MachineError(f"{qemu_binary()}: QEMU is not installed (run `make deps`)")
        os.makedirs(workdir, exist_ok=True)
        self.channel_path = os.path.join(workdir, "debugcon.bin")
        if os.path.exists(self.channel_path):
            os.unlink(self.channel_path)
        argv = fentros_argv(self.iso, smp, mem) + ["-debugcon", f"file:{self.channel_path}"]
        self.console = Console(argv, os.path.join(workdir, "serial.log"), stream=log_stream)
        boot = self.console.wait_boot(BOOT_TIMEOUT)
        if boot.cwd is None:
            self.close()
            raise MachineError("the kernel did not reach its shell prompt:\n"
                               + "\n".join(boot.lines[-20:]))

    def run(self, line, timeout=600):
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

    def must(self, line, timeout=600):
        """Runs a line that must succeed; its output lines. MachineError with the kernel's
        own message otherwise."""
        code, lines = self.run(line, timeout)
        if code != 0:
            raise MachineError(f"`{line}` failed: " + ("\n".join(lines) or f"status {code}"))
        return lines

    def channel_size(self):
        try:
            return os.path.getsize(self.channel_path)
        except OSError:
            return 0

    def close(self):
        if self.console.alive():
            self.console.send(b"poweroff\n")
            self.console.wait_exit(10)
        self.console.kill()
