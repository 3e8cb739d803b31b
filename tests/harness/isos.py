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

    def key(self, cmdline):
        stamps = [file_stamp(p) for p in [self.kernel, self.mkiso, *self.extra_inputs]]
        digest = hashlib.sha256("\n".join(stamps + [cmdline]).encode("utf-8"))
        return digest.hexdigest()[:16]

    def get(self, cmdline):
        """The ISO for `cmdline`, built if missing. Raises IsoError."""
        if not self.kernel.is_file():
            raise IsoError(f"no kernel at {self.kernel}: run `make` first")
        if not self.mkiso.is_file():
            raise IsoError(f"no ISO script at {self.mkiso}")
        iso = self.out_dir / f"{self.key(cmdline)}.iso"
        with self._lock:
            if iso.is_file():
                return iso
            self.out_dir.mkdir(parents=True, exist_ok=True)
            # Build under a temporary name: an interrupted build must not be cached.
            tmp = iso.with_suffix(".iso.tmp")
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
            return iso
