"""The pieces of tools/fentros_trace/hostfs.py that need no FUSE: the stat cache and its
generations, the signal check behind a cancelled read, the read watch, the commit at
flush, over the fake guest of fakeguest.py.

    python3 -m unittest discover -s tests/tools -p test_hostfs.py
"""

import errno
import os
import signal
import subprocess
import sys
import threading
import time
import types
import unittest
from pathlib import Path
from typing import List

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from fakeguest import TRACING, FakeGuest, FileStat  # noqa: E402
from fentros_trace import hostfs  # noqa: E402


def file_info(flags: int) -> types.SimpleNamespace:
    return types.SimpleNamespace(flags=flags, fh=0, direct_io=0)


class StatCacheTest(unittest.TestCase):
    def test_kept_until_changed(self) -> None:
        asked: List[str] = []

        def stat(path: str) -> FileStat:
            asked.append(path)
            return FileStat(False, 0o644, 0)

        cache = hostfs.StatCache(stat)
        cache.stat("/a")
        cache.stat("/a")
        self.assertEqual(asked, ["/a"])
        cache.changed()
        cache.stat("/a")
        self.assertEqual(asked, ["/a", "/a"])

    def test_absence_kept_eio_not(self) -> None:
        answers = [errno.ENOENT, errno.EIO, errno.EIO]

        def stat(path: str) -> FileStat:
            code = answers.pop(0) if path == "/gone" else errno.EIO
            raise OSError(code, os.strerror(code))

        cache = hostfs.StatCache(stat)
        for _ in range(2):
            with self.assertRaises(FileNotFoundError):
                cache.stat("/gone")
        self.assertEqual(len(answers), 2)
        for _ in range(2):
            with self.assertRaises(OSError) as caught:
                cache.stat("/sick")
            self.assertEqual(caught.exception.errno, errno.EIO)

    def test_answer_from_before_a_change_not_kept(self) -> None:
        cache: hostfs.StatCache
        calls = 0

        def stat(path: str) -> FileStat:
            nonlocal calls
            calls += 1
            if calls == 1:
                cache.changed()  # a write lands while the guest answers
            return FileStat(False, 0o644, calls)

        cache = hostfs.StatCache(stat)
        self.assertEqual(cache.stat("/a").size, 1)
        self.assertEqual(cache.stat("/a").size, 2)
        self.assertEqual(cache.stat("/a").size, 2)

    def test_expires(self) -> None:
        asked: List[str] = []

        def stat(path: str) -> FileStat:
            asked.append(path)
            return FileStat(False, 0o644, 0)

        cache = hostfs.StatCache(stat, ttl=0.05)
        cache.stat("/a")
        time.sleep(0.1)
        cache.stat("/a")
        self.assertEqual(len(asked), 2)


class SignalPendingTest(unittest.TestCase):
    def test_pending_blocked_and_gone(self) -> None:
        script = ("import signal, sys, time\n"
                  "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})\n"
                  "print('ready', flush=True)\n"
                  "time.sleep(30)\n")
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                 text=True)
        assert child.stdout is not None
        try:
            self.assertEqual(child.stdout.readline(), "ready\n")
            self.assertFalse(hostfs.signal_pending(child.pid))
            child.send_signal(signal.SIGUSR1)  # blocked: it would not end a wait
            time.sleep(0.1)
            self.assertFalse(hostfs.signal_pending(child.pid))
        finally:
            child.kill()
            child.wait()
            child.stdout.close()
        self.assertTrue(hostfs.signal_pending(child.pid))


class OpsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.guest = FakeGuest()
        self.ops = hostfs.TracefsOps(self.guest, TRACING, caller_pid=lambda: 1)
        self.addCleanup(self.ops.stop)

    def test_getattr_modes(self) -> None:
        st = self.ops("getattr", "/available_tracers", None)
        self.assertEqual(st["st_mode"] & 0o777, 0o444)
        self.assertTrue(self.ops("getattr", "/events", None)["st_mode"] & 0o40000)
        with self.assertRaises(FileNotFoundError):
            self.ops("getattr", "/nope", None)

    def test_flush_commits_only_what_was_written(self) -> None:
        self.guest.filter = ["old"]
        fi = file_info(os.O_WRONLY | os.O_TRUNC)
        self.ops("open", "/set_ftrace_filter", fi)
        self.assertEqual(fi.direct_io, 1)
        self.ops("flush", "/set_ftrace_filter", fi)  # bash's own copy closed, nothing yet
        self.assertEqual(self.guest.filter, ["old"])
        self.ops("write", "/set_ftrace_filter", b"a\n", 0, fi)
        self.ops("flush", "/set_ftrace_filter", fi)
        self.assertEqual(self.guest.filter, ["a"])
        # Written again through another copy: opened again, appending.
        self.ops("write", "/set_ftrace_filter", b"b\n", 0, fi)
        self.ops("flush", "/set_ftrace_filter", fi)
        self.assertEqual(self.guest.filter, ["a", "b"])
        self.ops("release", "/set_ftrace_filter", fi)
        self.assertEqual(self.guest.handles, {})

    def test_release_commits_an_unwritten_truncation(self) -> None:
        self.guest.filter = ["old"]
        fi = file_info(os.O_WRONLY | os.O_TRUNC)
        self.ops("open", "/set_ftrace_filter", fi)
        self.ops("flush", "/set_ftrace_filter", fi)
        self.ops("release", "/set_ftrace_filter", fi)
        self.assertEqual(self.guest.filter, [])

    def test_gone_guest_gives_eio_and_ends_waits(self) -> None:
        fi = file_info(os.O_RDONLY)
        self.ops("open", "/trace_pipe", fi)
        result: List[int] = []

        def reader() -> None:
            try:
                self.ops("read", "/trace_pipe", 10, 0, fi)
            except OSError as e:
                result.append(e.errno or 0)

        thread = threading.Thread(target=reader)
        thread.start()
        time.sleep(0.2)
        with self.assertLogs("fentros-trace.mount", "WARNING"):
            self.ops.guest_gone("test")
        thread.join(timeout=5)
        self.assertEqual(result, [errno.EIO])
        with self.assertRaises(OSError) as caught:
            self.ops("getattr", "/trace", None)
        self.assertEqual(caught.exception.errno, errno.EIO)
        self.ops("flush", "/trace_pipe", fi)
        self.ops("release", "/trace_pipe", fi)


class ReadWatchTest(unittest.TestCase):
    def test_cancels_a_signalled_reader_only(self) -> None:
        cancelled: List[int] = []
        signalled = {7}
        watch = hostfs.ReadWatch(cancelled.append, pending=lambda pid: pid in signalled,
                                 period=0.02)
        try:
            with watch.reading(7, 70), watch.reading(8, 80):
                time.sleep(0.2)
            self.assertEqual(cancelled, [70])
            watch.cancel_all()
            with watch.reading(9, 90):
                pass
            self.assertEqual(cancelled, [70, 90])
        finally:
            watch.stop()


if __name__ == "__main__":
    unittest.main()
