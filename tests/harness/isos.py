"""Bootable ISOs for the tests, one per kernel command line, cached in build/test-isos/.

grub.cfg carries the command line, so each distinct command line needs an ISO of its own.
The cache key covers everything that goes into one: the kernel (by mtime and size, which
is cheap and changes on every link), the ISO script and GRUB template, and the command line.
"""

import hashlib
import os
import subprocess
import threading
from pathlib import Path


class IsoError(Exception):
    def __init__(self, message, output=""):
        super().__init__(message)
        self.output = output


def file_stamp(path):
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return f"{path}:missing"
    return f"{path}:{st.st_mtime_ns}:{st.st_size}"


class IsoCache:
    def __init__(self, root, kernel, mkiso, out_dir, extra_inputs=()):
        self.root = Path(root)
        self.kernel = Path(kernel)
        self.mkiso = Path(mkiso)
        self.out_dir = Path(out_dir)
        self.extra_inputs = [Path(p) for p in extra_inputs]
        self._lock = threading.Lock()  # groups running in parallel may want the same ISO

    def name(self, cmdline):
        """<command line hash>-<inputs hash>: the first part finds an ISO's older builds."""
        stamps = [file_stamp(p) for p in [self.kernel, self.mkiso, *self.extra_inputs]]
        inputs = hashlib.sha256("\n".join(stamps + [cmdline]).encode("utf-8")).hexdigest()
        line = hashlib.sha256(cmdline.encode("utf-8")).hexdigest()
        return f"{line[:8]}-{inputs[:12]}"

    def get(self, cmdline):
        """The ISO for `cmdline`, built if missing. Raises IsoError."""
        if not self.kernel.is_file():
            raise IsoError(f"no kernel at {self.kernel}: run `make` first")
        if not self.mkiso.is_file():
            raise IsoError(f"no ISO script at {self.mkiso}")
        name = self.name(cmdline)
        iso = self.out_dir / f"{name}.iso"
        with self._lock:
            if iso.is_file():
                return iso
            self.out_dir.mkdir(parents=True, exist_ok=True)
            # Build under a temporary name: an interrupted build must not be cached.
            tmp = self.out_dir / f"{name}.tmp"
            argv = [str(self.mkiso), str(self.kernel), str(tmp), *cmdline.split()]
            proc = subprocess.run(argv, cwd=self.root, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
            if proc.returncode != 0 or not tmp.is_file():
                tmp.unlink(missing_ok=True)
                raise IsoError(f"{self.mkiso} failed with status {proc.returncode}",
                               proc.stdout)
            os.replace(tmp, iso)
            # The command line next to the ISO tells a reader of build/ which is which.
            iso.with_suffix(".cmdline").write_text(cmdline + "\n")
            self.prune(name)
            return iso

    def prune(self, keep):
        """Each kernel build would leave ~10 MB per command line: keep only the newest."""
        prefix = keep.split("-")[0]
        for old in self.out_dir.glob(f"{prefix}-*"):
            if not old.name.startswith(keep + "."):
                old.unlink(missing_ok=True)
