"""The FUSE mount (tools/fentros_trace/mount.py, hostfs.py) over the fake guest of
fakeguest.py, mounted for real: what bash, cat and Python see at the system-call level.
The guest's side is a stand-in here.

Skipped, with the reason, where FUSE cannot be used (no /dev/fuse, no python3-fusepy).

    python3 -m unittest discover -s tests/tools -p test_mount_fake.py
"""

import errno
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from typing import IO, Any, Dict, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from fentros_trace import mount  # noqa: E402

FAKE_MOUNT = Path(__file__).resolve().parent / "fakemount.py"
TOOL = Path(__file__).resolve().parents[2] / "tools" / "fentros-trace"


def bash(script: str, cwd: str, timeout: float = 20) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


class FakeMount(unittest.TestCase):
    proc: "subprocess.Popen[str]"
    dir: str
    tmp: "tempfile.TemporaryDirectory[str]"

    unusable: Optional[str]

    @classmethod
    def setUpClass(cls) -> None:
        # Skipped test by test (setUp), so that each result names its test.
        cls.unusable = mount.fuse_usable()
        if cls.unusable:
            return
        cls.tmp = tempfile.TemporaryDirectory(prefix="fentros-mount-")
        cls.dir = cls.tmp.name
        cls.proc = subprocess.Popen([mount.FUSE_PYTHON, str(FAKE_MOUNT), cls.dir],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
        assert cls.proc.stdout is not None
        if cls.proc.stdout.readline().strip() != "ready":
            cls.proc.kill()
            raise RuntimeError("the fake mount did not come up")

    def setUp(self) -> None:
        if self.unusable:
            self.skipTest(self.unusable)

    @classmethod
    def tearDownClass(cls) -> None:
        if cls.unusable:
            return
        if mount.is_mounted(cls.dir):
            subprocess.run(["fusermount", "-u", "-z", cls.dir])
        try:
            cls.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            cls.proc.kill()
            cls.proc.wait()
        for pipe in (cls.proc.stdin, cls.proc.stdout):
            if pipe:
                pipe.close()
        cls.tmp.cleanup()

    def tell(self, line: str) -> None:
        stdin: Optional[IO[str]] = self.proc.stdin
        assert stdin is not None
        stdin.write(line + "\n")
        stdin.flush()

    def state(self) -> Dict[str, Any]:
        self.tell("state")
        stdout: Optional[IO[str]] = self.proc.stdout
        assert stdout is not None
        state: Dict[str, Any] = json.loads(stdout.readline())
        return state

    def sh(self, script: str, status: int = 0) -> str:
        run = bash(script, self.dir)
        self.assertEqual(run.returncode, status, f"{script}: {run.stderr}")
        return run.stdout

    def test_fsname_in_proc_mounts(self) -> None:
        with open("/proc/mounts") as f:
            lines = [line.split() for line in f]
        self.assertIn(["tracefs", self.dir, "fuse.fentros"], [line[:3] for line in lines])

    def test_refused_write_gives_bash_the_errno(self) -> None:
        run = bash("echo bad > kprobe_events", self.dir)
        self.assertEqual(run.returncode, 1)
        self.assertRegex(run.stderr, r"^bash: (line 1: )?echo: write error: Invalid argument\n$")

    def test_tracer_written_and_read_back(self) -> None:
        self.assertEqual(self.sh("echo function > current_tracer; cat current_tracer"),
                         "function\n")
        self.assertEqual(self.sh("echo nop > current_tracer; cat current_tracer"), "nop\n")

    def test_truncate_and_append_on_a_filter(self) -> None:
        self.assertEqual(self.sh("echo a > set_ftrace_filter; echo b >> set_ftrace_filter; "
                                 "cat set_ftrace_filter"), "a\nb\n")
        self.assertEqual(self.sh("echo c > set_ftrace_filter; cat set_ftrace_filter"), "c\n")
        # A refused word: the commit still happens at close, before the next command.
        self.sh("echo nosuch > set_ftrace_filter", status=1)
        self.assertEqual(self.sh("cat set_ftrace_filter"), "#### all functions enabled ####\n")
        self.sh("echo d > set_ftrace_filter")
        self.assertEqual(self.state()["filter"], ["d"])
        self.assertEqual(self.sh(": > set_ftrace_filter; sleep 0.2; cat set_ftrace_filter"),
                         "#### all functions enabled ####\n")

    def test_loop_over_event_enables(self) -> None:
        out = self.sh('for f in events/*/*/enable; do echo "$f $(cat "$f")"; done')
        self.assertEqual(out.splitlines(), ["events/irq/irq_handler_entry/enable 0",
                                            "events/sched/sched_switch/enable 0",
                                            "events/sched/sched_wakeup/enable 0"])
        self.sh("echo 1 > events/sched/sched_switch/enable")
        self.assertEqual(self.sh("cat events/sched/sched_switch/enable"), "1\n")
        self.sh("echo 0 > events/sched/sched_switch/enable")

    def test_read_only_files(self) -> None:
        self.assertEqual(os.stat(os.path.join(self.dir, "available_tracers")).st_mode & 0o777,
                         0o444)
        run = bash("echo x > available_tracers", self.dir)
        self.assertIn("available_tracers: Permission denied", run.stderr)
        run = bash("echo x > no_such_file", self.dir)
        self.assertIn("no_such_file: Permission denied", run.stderr)
        run = bash("rm trace", self.dir)
        self.assertIn("Operation not permitted", run.stderr)

    def test_one_write_is_one_guest_write(self) -> None:
        fd = os.open(os.path.join(self.dir, "trace"), os.O_WRONLY)
        try:
            self.assertEqual(os.write(fd, b"x" * 100000), 100000)
        finally:
            os.close(fd)
        self.assertEqual(self.state()["writes"][-1], 100000)

    def test_reads_at_offsets(self) -> None:
        path = os.path.join(self.dir, "big")
        expected = b"".join(b"line %06d\n" % i for i in range(50000))
        with open(path, "rb") as f:
            self.assertEqual(f.read(), expected)
            f.seek(123456)
            self.assertEqual(f.read(30), expected[123456:123486])
        fd = os.open(path, os.O_RDONLY)
        try:
            self.assertEqual(os.pread(fd, 11, 22), expected[22:33])
        finally:
            os.close(fd)

    def test_truncate_accepted(self) -> None:
        self.sh("truncate -s 0 current_tracer")

    def test_release_errno_reaches_close(self) -> None:
        fd = os.open(os.path.join(self.dir, "release_fails"), os.O_WRONLY)
        os.write(fd, b"1\n")
        with self.assertRaises(OSError) as caught:
            os.close(fd)
        self.assertEqual(caught.exception.errno, errno.EBUSY)

    def test_mkdir_rmdir_pass_through(self) -> None:
        self.sh("mkdir instances/foo; ls instances; rmdir instances/foo")
        self.assertIn("Operation not permitted", bash("mkdir foo", self.dir).stderr)

    def test_nonblocking_trace_pipe(self) -> None:
        fd = os.open(os.path.join(self.dir, "trace_pipe"), os.O_RDONLY | os.O_NONBLOCK)
        try:
            with self.assertRaises(BlockingIOError):
                os.read(fd, 100)
        finally:
            os.close(fd)

    def test_trace_pipe_ended_by_sigint(self) -> None:
        # SIGINT at its default action whatever this process inherited: a shell starts
        # its background commands with SIGINT ignored, and cat would outlive Ctrl-C.
        cat = subprocess.Popen(["env", "--default-signal=INT", "cat", "trace_pipe"],
                               cwd=self.dir, stdout=subprocess.PIPE)
        assert cat.stdout is not None
        self.tell("push hello")
        self.assertEqual(cat.stdout.readline(), b"hello\n")
        cat.send_signal(signal.SIGINT)
        self.assertEqual(cat.wait(timeout=5), -signal.SIGINT)
        # Nothing is left open in the guest.
        for _ in range(50):
            if self.state()["handles"] == 0:
                break
            time.sleep(0.1)
        self.assertEqual(self.state()["handles"], 0)

    def test_python_reader_interrupted(self) -> None:
        # A handled signal: the read ends with EINTR, the handler runs.
        script = ("import signal, sys\n"
                  "signal.signal(signal.SIGINT, lambda *a: sys.exit(7))\n"
                  "print('open', flush=True)\n"
                  "open('trace_pipe', 'rb').read(10)\n")
        py = subprocess.Popen([sys.executable, "-c", script], cwd=self.dir,
                              stdout=subprocess.PIPE, text=True)
        assert py.stdout is not None
        self.assertEqual(py.stdout.readline(), "open\n")
        time.sleep(0.3)
        py.send_signal(signal.SIGINT)
        self.assertEqual(py.wait(timeout=5), 7)

    def test_z_guest_gone_gives_eio(self) -> None:
        cat = subprocess.Popen(["cat", "trace_pipe"], cwd=self.dir, stderr=subprocess.PIPE,
                               text=True)
        time.sleep(0.3)
        self.tell("gone")
        self.assertEqual(cat.wait(timeout=5), 1)
        assert cat.stderr is not None
        self.assertIn("Input/output error", cat.stderr.read())
        run = bash(f"cat {self.dir}/current_tracer", "/")
        self.assertIn("Input/output error", run.stderr)
        # umount works on a mount whose guest is gone, and the daemon then exits.
        umount = subprocess.run([sys.executable, str(TOOL), "umount", self.dir],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(umount.returncode, 0, umount.stderr)
        self.assertFalse(mount.is_mounted(self.dir))
        self.assertEqual(self.proc.wait(timeout=10), 0)


class BusyUmount(unittest.TestCase):
    def test_umount_ends_a_blocked_reader(self) -> None:
        why = mount.fuse_usable()
        if why:
            self.skipTest(why)
        with tempfile.TemporaryDirectory(prefix="fentros-mount-") as tmp:
            proc = subprocess.Popen([mount.FUSE_PYTHON, str(FAKE_MOUNT), tmp],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
            assert proc.stdout is not None and proc.stdin is not None
            self.assertEqual(proc.stdout.readline().strip(), "ready")
            cat = subprocess.Popen(["cat", os.path.join(tmp, "trace_pipe")],
                                   stderr=subprocess.PIPE, text=True)
            time.sleep(0.3)
            began = time.monotonic()
            umount = subprocess.run([sys.executable, str(TOOL), "umount", tmp],
                                    capture_output=True, text=True, timeout=60)
            self.assertEqual(umount.returncode, 0, umount.stderr)
            self.assertIn("busy, detached lazily", umount.stderr)
            self.assertEqual(cat.wait(timeout=10), 1)
            assert cat.stderr is not None
            self.assertEqual(cat.stderr.read().strip(),
                             f"cat: {tmp}/trace_pipe: Input/output error")
            cat.stderr.close()
            self.assertEqual(proc.wait(timeout=10), 0)
            self.assertLess(time.monotonic() - began, 10)
            proc.stdin.close()
            proc.stdout.close()


class DeadDaemon(unittest.TestCase):
    def test_umount_after_the_daemon_died(self) -> None:
        why = mount.fuse_usable()
        if why:
            self.skipTest(why)
        with tempfile.TemporaryDirectory(prefix="fentros-mount-") as tmp:
            proc = subprocess.Popen([mount.FUSE_PYTHON, str(FAKE_MOUNT), tmp],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
            assert proc.stdout is not None
            self.assertEqual(proc.stdout.readline().strip(), "ready")
            proc.kill()
            proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                if pipe:
                    pipe.close()
            run = bash(f"cat {tmp}/current_tracer", "/")
            self.assertIn("Transport endpoint is not connected", run.stderr)
            umount = subprocess.run([sys.executable, str(TOOL), "umount", tmp],
                                    capture_output=True, text=True, timeout=60)
            self.assertEqual(umount.returncode, 0, umount.stderr)
            self.assertFalse(mount.is_mounted(tmp))


if __name__ == "__main__":
    unittest.main()
