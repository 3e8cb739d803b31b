"""The one QEMU command line every boot of this project uses: tools/fentros-trace, the
test harness (tests/run.py), `make bench` (tests/bench.py) and the Linux side of `make
bench-linux` (tests/bench_linux.py), so a trace, a figure and a test run the same machine."""

import os
import shlex
from typing import List, Optional, Union

# isa-debug-exit lets `poweroff` end QEMU (status 1) and a panic=poweroff crash (status 3).
DEBUG_EXIT = ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]


def qemu_binary() -> str:
    return os.environ.get("QEMU", "qemu-system-x86_64")


def default_accel() -> str:
    return os.environ.get("QEMU_ACCEL", "tcg")


def machine_argv(smp: int, mem: str = "256M", accel: Optional[str] = None,
                 reboot: bool = False) -> List[str]:
    """QEMU with its serial line on stdio and nothing else attached: add the boot medium.
    A reset of the guest ends QEMU (-no-reboot), unless reboot: then the machine starts
    again, keeping its RAM."""
    return ([qemu_binary(), "-accel", accel or default_accel(), "-smp", str(smp), "-m", mem,
             "-display", "none", "-serial", "stdio"] + ([] if reboot else ["-no-reboot"])
            + ["-monitor", "none"])


def fentros_argv(iso: Union[str, "os.PathLike[str]"], smp: int, mem: str = "256M",
                 accel: Optional[str] = None, reboot: bool = False) -> List[str]:
    """fentros booted from its ISO, with the debug exit and $QEMU_EXTRA."""
    return (machine_argv(smp, mem, accel, reboot) + ["-cdrom", os.fspath(iso)] + DEBUG_EXIT
            + shlex.split(os.environ.get("QEMU_EXTRA", "")))


def ivshmem_argv(mem_path: str, size: str = "16M") -> List[str]:
    """QEMU's ivshmem-plain device over a host file (the kernel's host channel): the guest
    sees the file as PCI BAR2; the host maps the same file."""
    return ["-object", f"memory-backend-file,id=hostchan,share=on,mem-path={mem_path},size={size}",
            "-device", "ivshmem-plain,memdev=hostchan"]
