"""Recordings over the host channel (`fentros-trace record --channel shm`: QEMU's
ivshmem-plain over a /dev/shm file, `xfer -c` in the kernel), judged by trace-cmd exactly
as the debug console's recordings in test_tracedat.py are: the same scenarios, inherited
with their checks, plus proof that the files did come over the channel."""

import re
import struct
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import test_tracedat as base  # noqa: E402
from fentros_trace import record, ringpage, shmchan  # noqa: E402
from fentros_trace.machine import Machine  # noqa: E402

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


class HostMisbehaves(unittest.TestCase):
    """A host that stops reading, or writes a tail that cannot be, costs the kernel a
    reported failure, never a hang or a fault; Ctrl-C ends a wait for space. A 1 MiB ring
    so that a few copies of /proc/kallsyms fill it."""

    @classmethod
    def setUpClass(cls):
        workdir = base.REPO / "build" / "test-logs" / "export" / cls.__name__
        cls.m = Machine(str(workdir), smp=2, shm=True, shm_size=1 << 20)
        # The reader is stopped: nothing consumes the ring from here on.
        cls.m.reader.stopping.set()
        cls.m.reader.thread.join()

    @classmethod
    def tearDownClass(cls):
        cls.m.close()

    def fill_until_refused(self):
        for _ in range(64):
            code, lines = self.m.run("xfer -c /proc/kallsyms", timeout=60)
            if code:
                return code, lines
        self.fail("a ring nobody reads never filled")

    def test_1_stalled_host(self):
        began = time.monotonic()
        code, lines = self.fill_until_refused()
        self.assertEqual(code, 1)
        self.assertEqual(lines[-1], "xfer: /proc/kallsyms: host channel: Connection timed out")
        self.assertGreaterEqual(time.monotonic() - began, 2)
        self.assertRegex(self.m.must("hostchan")[-1],
                         r"^frames: \d+ sent, 1 dropped \(\d+ bytes\)$")
        self.assertEqual(self.m.must("echo still here"), ["still here"])

    def test_2_interrupted_wait(self):
        # The ring is still full from test_1: xfer waits for space until Ctrl-C, which
        # comes as soon as the shell has taken the line, well before the 2 s stall.
        running = self.m.console.begin(b"xfer -c /proc/kallsyms\n")
        self.assertTrue(self.m.console.wait_output(
            running, lambda buf, start: buf.count(b"\n", start) >= 1, 30))
        self.m.console.send(b"\x03")
        reply = self.m.console.finish(running, 30)
        self.assertIsNotNone(reply.cwd, "the shell did not come back after Ctrl-C")
        self.assertEqual(self.m.must("echo $?"), ["130"])

    def test_3_impossible_tail(self):
        chan = self.m.reader.chan
        head = struct.unpack_from("<Q", chan.map, shmchan.HEAD_OFFSET)[0]
        struct.pack_into("<Q", chan.map, shmchan.TAIL_OFFSET, head + 4096)
        code, lines = self.m.run("xfer -c /proc/version", timeout=60)
        self.assertEqual(code, 1)
        self.assertEqual(lines[-1], "xfer: /proc/version: host channel: Input/output error")
        # Given back everything: the channel works again.
        struct.pack_into("<Q", chan.map, shmchan.TAIL_OFFSET, head)
        code, lines = self.m.run("xfer -c /proc/version", timeout=60)
        self.assertEqual((code, lines[-1]), (0, "xfer: 1 files, 49 bytes"))


class SmallRing(unittest.TestCase):
    """Flow control end to end: megabytes through a 1 MiB ring, so that the kernel waits
    for the host's reader again and again and the ring wraps many times; every byte
    arrives, checked, and nothing is dropped. The trace pages of a `work` run (as many as
    it filled) and then /proc/kallsyms 60 times in one xfer (about 2.8 MB, whatever the
    load)."""

    def test_pages_through_a_small_ring(self):
        workdir = base.REPO / "build" / "test-logs" / "export" / "SmallRing"
        m = Machine(str(workdir), smp=2, shm=True, shm_size=1 << 20)
        try:
            m.must(f"cd {record.TRACEFS}")
            m.must("echo function > current_tracer")
            m.must("echo 1 > tracing_on; work 1; echo 0 > tracing_on")
            stats = {c: m.must(f"cat per_cpu/cpu{c}/stats") for c in range(2)}
            pages = [f"per_cpu/cpu{c}/trace_pipe_raw" for c in range(2)]
            got, _ = record.transfer(m, pages, False)
            files = dict(m.reader.receiver.files)
            kallsyms = m.must("cat /proc/kallsyms | wc -l")
            many, _ = record.transfer(m, ["/proc/kallsyms"] * 60, False)
            state = m.must("hostchan")
        finally:
            m.close()
        self.assertEqual(got, sum(len(files[p][0]) for p in pages))
        for cpu, path in enumerate(pages):
            data, status = files[path]
            self.assertEqual(status, 0)
            entries = [e for e in ringpage.decode_pages(data, cpu) if e.payload is not None]
            entries_line = [s for s in stats[cpu] if s.startswith("entries: ")]
            self.assertEqual(entries_line, [f"entries: {len(entries)}"])
        symbols, status = m.reader.receiver.files["/proc/kallsyms"]
        self.assertEqual((status, symbols.count(b"\n")), (0, int(kallsyms[0])))
        self.assertEqual(many, 60 * len(symbols))
        captured = base.channel.Stream((workdir / "shm-capture.bin").read_bytes())
        names = []
        while captured.pos < len(captured.data):
            name, data, _ = captured.next_file()
            names.append(name)
            if name == "/proc/kallsyms":
                self.assertEqual(data, symbols)
        self.assertEqual(names, pages + ["/proc/kallsyms"] * 60)
        ring = int(state[1].split()[1])
        head = int(state[1].split()[4].rstrip(","))
        self.assertGreater(head, 2 * ring)
        self.assertRegex(state[-1], r"^frames: \d+ sent, 0 dropped \(0 bytes\)$")


class SelftestsWithDevice(unittest.TestCase):
    """The PCI and host channel self-tests on a machine that has the device (the test boots
    have none): the device's BAR, the ring over it, and a re-enumeration that leaves the
    channel working."""

    def test_selftests(self):
        workdir = base.REPO / "build" / "test-logs" / "export" / "SelftestsWithDevice"
        m = Machine(str(workdir), smp=2, shm=True)
        try:
            results = []
            for glob in ("pci_*", "hostchan_*"):
                code, lines = m.run(f"selftest '{glob}'", timeout=300)
                self.assertEqual(code, 0, "\n".join(lines))
                results += [line for line in lines if line.startswith(("ok ", "not ok "))]
            self.assertTrue([r for r in results if re.fullmatch(r"ok \d+ hostchan_device", r)],
                            results)
            self.assertFalse([r for r in results if r.startswith("not ok")], results)
            got, _ = record.transfer(m, ["/proc/version"], False)
            self.assertEqual(m.reader.receiver.files["/proc/version"][1], 0)
            self.assertGreater(got, 0)
        finally:
            m.close()
