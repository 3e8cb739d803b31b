"""Recordings over the host channel (`fentros-trace record --channel shm`: QEMU's
ivshmem-plain over a /dev/shm file, `xfer -c` in the kernel), judged by trace-cmd exactly
as the debug console's recordings in test_tracedat.py are: the same scenarios, inherited
with their checks, plus proof that the files did come over the channel."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import test_tracedat as base  # noqa: E402

CHANNEL = ("--channel", "shm", "--progress")


class ChannelCase:
    """Mixed into a debug console scenario: the same recording over the host channel."""
    rec: base.Recording

    def test_came_over_the_channel(self):
        machine = self.rec.dir / "machine"
        self.assertIn("over the host channel", self.rec.result.stderr)
        self.assertEqual((machine / "debugcon.bin").stat().st_size, 0)
        self.assertGreater((machine / "shm-capture.bin").stat().st_size, 100000)
        log = (machine / "serial.log").read_text(errors="replace")
        self.assertIn("hostchan: ivshmem at", log)


class ChannelFunctionTracer(ChannelCase, base.FunctionTracer):
    ARGS = base.FunctionTracer.ARGS + CHANNEL


class ChannelOverrun(ChannelCase, base.Overrun):
    ARGS = base.Overrun.ARGS + CHANNEL

    def test_came_over_the_channel(self):
        # A 16 KB buffer is smaller than the capture size the mixin expects.
        machine = self.rec.dir / "machine"
        self.assertIn("over the host channel", self.rec.result.stderr)
        self.assertEqual((machine / "debugcon.bin").stat().st_size, 0)
        self.assertGreater((machine / "shm-capture.bin").stat().st_size, 0)
