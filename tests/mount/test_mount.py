"""`fentros-trace mount` against a booted fentros: what bash, cat, Python and Debian's
trace-cmd see through the FUSE mount, and what a guest that dies or hangs under it does to
them (EIO, never a hang; umount still works).

trace-cmd runs in a private mount namespace (`unshare -m`) in which the mount is bound
over /sys/kernel/tracing and /sys/kernel/debug/tracing and the guest's
/proc/sys/kernel/ftrace_enabled and /proc/kallsyms over the host's: this host's own
tracefs is never touched, and the namespace's script refuses to run anything unless
those paths are the mount.

Skipped, with the reason, where FUSE cannot be used (no /dev/fuse, no python3-fusepy).
Serial logs and the daemons' logs: build/test-logs/mount/.
"""

import errno
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "fentros-trace"
LOGS = REPO / "build" / "test-logs" / "mount"
sys.path.insert(0, str(REPO / "tools"))

from fentros_trace import mount  # noqa: E402

# The namespace's script: $1 is the mount of the guest's whole tree, the rest the command.
# Every check fails closed: a path that is not the FUSE mount stops the script (status 99)
# before the command can write a tracing file of this host.
NAMESPACE_SCRIPT = r"""
set -e
root=$1; shift
mount --bind "$root/sys/kernel/tracing" /sys/kernel/tracing
if [ -d /sys/kernel/debug/tracing ]; then
    mount --bind "$root/sys/kernel/tracing" /sys/kernel/debug/tracing
fi
mount --bind "$root/proc/sys/kernel/ftrace_enabled" /proc/sys/kernel/ftrace_enabled
mount --bind "$root/proc/kallsyms" /proc/kallsyms
for path in /sys/kernel/tracing /proc/sys/kernel/ftrace_enabled /proc/kallsyms \
        $( [ -d /sys/kernel/debug/tracing ] && echo /sys/kernel/debug/tracing ); do
    case "$(stat -f -c %T "$path")" in
    fuse|fuseblk) ;;
    *) echo "$path is not the FUSE mount" >&2; exit 99 ;;
    esac
done
grep -q "(fentros)" /sys/kernel/tracing/README || { echo "not fentros's README" >&2; exit 99; }
set +e
"$@"
"""


def bash(script, cwd="/", timeout=60):
    return subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


class Mounted(unittest.TestCase):
    """A mount of its own, per class: ROOT is the guest directory it shows."""
    ROOT = "/sys/kernel/tracing"

    @classmethod
    def setUpClass(cls):
        # Skipped test by test (setUp), so that each result names its test.
        cls.unusable = mount.fuse_usable()
        if cls.unusable:
            return
        cls.workdir = LOGS / cls.__name__
        cls.tmp = tempfile.TemporaryDirectory(prefix="fentros-mount-")
        cls.dir = cls.tmp.name
        run = subprocess.run([sys.executable, str(TOOL), "mount", cls.dir, "--smp", "2",
                              "--root", cls.ROOT, "--workdir", str(cls.workdir)],
                             capture_output=True, text=True, timeout=mount.READY_TIMEOUT + 60)
        if run.returncode != 0:
            cls.tmp.cleanup()
            raise RuntimeError(f"mount failed: {run.stderr}")

    def setUp(self):
        if self.unusable:
            self.skipTest(self.unusable)

    @classmethod
    def tearDownClass(cls):
        if cls.unusable:
            return
        subprocess.run([sys.executable, str(TOOL), "umount", cls.dir], capture_output=True, timeout=120)
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def sh(self, script, status=0):
        run = bash(script, cwd=self.dir)
        self.assertEqual(run.returncode, status, f"{script}: {run.stderr}")
        return run.stdout

    def run_in_guest(self, *line, timeout=60):
        return subprocess.run([sys.executable, str(TOOL), "run", self.dir, "--timeout",
                               str(timeout), "--", *line], capture_output=True, text=True,
                              timeout=timeout + 120)

    def qemu_pid(self):
        return int(Path(mount.pid_path(self.dir, "qemu.pid")).read_text())


class Tracefs(Mounted):
    def test_fsname_in_proc_mounts(self):
        with open("/proc/mounts") as f:
            fields = [line.split()[:3] for line in f]
        self.assertIn(["tracefs", self.dir, "fuse.fentros"], fields)

    def test_event_enable_loop(self):
        out = self.sh('for f in events/*/*/enable; do echo "$f $(cat "$f")"; done')
        with open(self.path("available_events")) as f:
            events = sorted(line.strip().replace(":", "/") for line in f if line.strip())
        lines = out.splitlines()
        self.assertEqual(sorted(line.split()[0] for line in lines),
                         [f"events/{e}/enable" for e in events])
        self.assertTrue(all(line.endswith(" 0") for line in lines), lines)
        self.sh("echo 1 > events/sched/sched_switch/enable")
        try:
            self.assertEqual(self.sh("cat events/sched/sched_switch/enable "
                                     "events/sched/enable"), "1\nX\n")
        finally:
            self.sh("echo 0 > events/sched/sched_switch/enable")

    def test_current_tracer_and_back(self):
        self.assertEqual(self.sh("echo function > current_tracer; cat current_tracer"),
                         "function\n")
        self.assertEqual(self.sh("echo nop > current_tracer; cat current_tracer"), "nop\n")

    def test_refused_write_gives_bash_linux_message(self):
        run = bash("echo bad > kprobe_events", cwd=self.dir)
        self.assertEqual(run.returncode, 1)
        self.assertRegex(run.stderr, r"^bash: (line 1: )?echo: write error: Invalid argument\n$")

    def test_truncate_and_append_set_ftrace_filter(self):
        try:
            self.sh("echo work_compute > set_ftrace_filter")
            self.sh("echo work_count_bits >> set_ftrace_filter")
            self.assertEqual(sorted(self.sh("cat set_ftrace_filter").split()),
                             ["work_compute", "work_count_bits"])
            self.sh("echo work_table_op > set_ftrace_filter")
            self.assertEqual(self.sh("cat set_ftrace_filter"), "work_table_op\n")
        finally:
            self.sh("echo > set_ftrace_filter")
        self.assertEqual(self.sh("cat set_ftrace_filter"), "#### all functions enabled ####\n")

    def test_trace_pipe_ended_by_sigint(self):
        self.sh(": > trace")
        # SIGINT at its default action whatever this process inherited: a shell starts
        # its background commands with SIGINT ignored, and cat would outlive Ctrl-C.
        cat = subprocess.Popen(["env", "--default-signal=INT", "cat", "trace_pipe"],
                               cwd=self.dir, stdout=subprocess.PIPE)
        try:
            time.sleep(0.5)
            with open(self.path("trace_marker"), "w") as f:
                f.write("through-the-mount\n")
            # Events of the tests before may come first.
            for _ in range(10000):
                line = cat.stdout.readline().decode()
                if "tracing_mark_write" in line or not line:
                    break
            self.assertRegex(line, r"tracing_mark_write: through-the-mount$")
            began = time.monotonic()
            cat.send_signal(signal.SIGINT)
            self.assertEqual(cat.wait(timeout=10), -signal.SIGINT)
            self.assertLess(time.monotonic() - began, 5)
        finally:
            if cat.poll() is None:
                cat.kill()
            cat.stdout.close()

    def test_concurrent_callers(self):
        # A reader waiting on trace_pipe, loops over the event files, and writers of
        # trace_marker and set_ftrace_filter at once: nobody waits for the blocked reader,
        # nothing fails, and every marker comes out of the pipe.
        self.sh(": > trace")
        reader = subprocess.Popen(
            [sys.executable, "-c",
             "import sys\n"
             "seen = 0\n"
             "with open('trace_pipe', 'rb', buffering=0) as f:\n"
             "    while seen < 100:\n"
             "        seen += f.read(4096).count(b'concurrent-mark-')\n"
             "print(seen)\n"], cwd=self.dir, stdout=subprocess.PIPE, text=True)
        try:
            time.sleep(0.5)
            script = ('for j in 1 2; do (for i in 1 2 3 4 5; do for f in events/*/*/enable; '
                      'do cat "$f" >/dev/null || echo ERR; done; done) & done; '
                      '(for i in $(seq 1 100); do echo concurrent-mark-$i > trace_marker '
                      '|| echo ERR; done) & '
                      '(for i in $(seq 1 10); do echo work_compute > set_ftrace_filter; '
                      'echo work_count_bits >> set_ftrace_filter; '
                      '[ "$(wc -l < set_ftrace_filter)" = 2 ] || echo ERR; done) & wait')
            self.assertEqual(self.sh(script), "")
            out, _ = reader.communicate(timeout=30)
            self.assertEqual(out, "100\n")
        finally:
            if reader.poll() is None:
                reader.kill()
                reader.communicate()
            self.sh("echo > set_ftrace_filter")

    def test_run_in_guest(self):
        run = self.run_in_guest("echo", "from", "the", "host")
        self.assertEqual((run.returncode, run.stdout), (0, "from the host\n"), run.stderr)
        run = self.run_in_guest("cat", "/nope")
        self.assertEqual((run.returncode, run.stdout),
                         (1, "cat: /nope: No such file or directory\n"))
        # A line that does not end is stopped with Ctrl-C; the shell stays usable.
        run = self.run_in_guest("cat", "/sys/kernel/tracing/trace_pipe", timeout=2)
        self.assertEqual(run.returncode, 1)
        self.assertIn("Ctrl-C typed", run.stderr)
        self.assertEqual(self.run_in_guest("echo", "after").stdout, "after\n")

    def test_read_only_files(self):
        self.assertEqual(os.stat(self.path("available_tracers")).st_mode & 0o777, 0o444)
        run = bash("echo nop > available_tracers", cwd=self.dir)
        self.assertIn("available_tracers: Permission denied", run.stderr)

    def test_reads_at_offsets(self):
        with open(self.path("available_filter_functions"), "rb") as f:
            whole = f.read()
        self.assertGreater(len(whole), 4096)
        fd = os.open(self.path("available_filter_functions"), os.O_RDONLY)
        try:
            self.assertEqual(os.pread(fd, 100, 4000), whole[4000:4100])
        finally:
            os.close(fd)

    def test_mkdir_passed_through(self):
        # Outside instances/ the guest's answer comes back as it is: Linux's EPERM.
        with self.assertRaises(OSError) as caught:
            os.mkdir(self.path("foo"))
        self.assertEqual(caught.exception.errno, errno.EPERM)

    def test_instance_through_bash(self):
        # An instance made, used and removed by bash, with Linux's errnos on the way.
        run = bash("echo 0 > events/enable; echo > trace; "
                   "mkdir instances/m && mkdir instances/m; echo rc=$?; "
                   "echo 1 > instances/m/events/sched/sched_switch/enable; sleep 0.3; "
                   "grep -c sched_switch instances/m/trace; grep -c sched_switch trace; "
                   "exec 3< instances/m/trace_pipe; rmdir instances/m; echo rc=$?; exec 3<&-; "
                   "rmdir instances/m; echo rc=$?; ls instances | wc -l", cwd=self.dir)
        out = run.stdout.split()
        self.assertEqual(out[0], "rc=1", run.stdout + run.stderr)
        self.assertIn("File exists", run.stderr)
        self.assertGreater(int(out[1]), 0, run.stdout)
        self.assertEqual(out[2], "0", run.stdout)
        self.assertEqual(out[3:], ["rc=1", "rc=0", "0"], run.stdout + run.stderr)
        self.assertIn("Device or resource busy", run.stderr)

    def test_y_guest_hang_gives_eio(self):
        qemu = self.qemu_pid()
        os.kill(qemu, signal.SIGSTOP)
        try:
            began = time.monotonic()
            run = bash(f"cat {self.dir}/current_tracer", timeout=60)
            self.assertEqual(run.returncode, 1)
            self.assertIn("Input/output error", run.stderr)
            self.assertLess(time.monotonic() - began, 30)
        finally:
            os.kill(qemu, signal.SIGCONT)

    def test_z_guest_killed_gives_eio_and_umount_works(self):
        cat = subprocess.Popen(["cat", "trace_pipe"], cwd=self.dir, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        os.kill(self.qemu_pid(), signal.SIGKILL)
        self.assertEqual(cat.wait(timeout=15), 1)
        self.assertIn("Input/output error", cat.stderr.read())
        cat.stdout.close()
        cat.stderr.close()
        run = bash(f"cat {self.dir}/current_tracer", timeout=30)
        self.assertIn("Input/output error", run.stderr)
        umount = subprocess.run([sys.executable, str(TOOL), "umount", self.dir], capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(umount.returncode, 0, umount.stderr)
        self.assertFalse(mount.is_mounted(self.dir))
        self.assertFalse(os.path.exists(mount.pid_path(self.dir, "daemon.pid")))


class TraceCmd(Mounted):
    """Debian's trace-cmd through the mount of the guest's whole tree."""
    ROOT = "/"

    def trace_cmd(self, *args, status=0):
        run = subprocess.run(["unshare", "-m", "--propagation", "private", "bash", "-c",
                              NAMESPACE_SCRIPT, "ns", self.dir, "trace-cmd", *args],
                             capture_output=True, text=True, timeout=120)
        self.assertNotEqual(run.returncode, 99, run.stderr)
        self.assertEqual(run.returncode, status, f"trace-cmd {' '.join(args)}: {run.stderr}")
        return run.stdout

    def tracing(self, name):
        with open(os.path.join(self.dir, "sys/kernel/tracing", name)) as f:
            return f.read()

    def test_list_events(self):
        listed = self.trace_cmd("list", "-e").split()
        self.assertEqual(sorted(listed), sorted(self.tracing("available_events").split()))

    def test_start_show_stop_reset(self):
        self.trace_cmd("start", "-p", "function", "-l", "work_*")
        try:
            self.assertEqual(self.tracing("current_tracer"), "function\n")
            functions = self.tracing("set_ftrace_filter").split()
            self.assertIn("work_compute", functions)
            self.assertTrue(all(f.startswith("work_") for f in functions), functions)
            self.assertEqual(self.tracing("tracing_on"), "1\n")
            stat = self.trace_cmd("stat")
            self.assertIn("Tracer: function", stat)
            load = self.run_in_guest("work", "0.05", "1")
            self.assertEqual(load.returncode, 0, load.stdout + load.stderr)
            show = self.trace_cmd("show")
            self.assertTrue(show.startswith("# tracer: function\n"), show[:200])
            called = [line.split(": ", 1)[1].split()[0] for line in show.splitlines()
                      if ": " in line and not line.startswith("#")]
            self.assertIn("work_compute", called)
            self.assertEqual([f for f in called if not f.startswith("work_")], [])
            self.trace_cmd("stop")
            self.assertEqual(self.tracing("tracing_on"), "0\n")
        finally:
            self.trace_cmd("reset")
        self.assertEqual(self.tracing("current_tracer"), "nop\n")
        self.assertEqual(self.tracing("set_ftrace_filter"), "#### all functions enabled ####\n")
        self.assertEqual(self.tracing("tracing_on"), "1\n")

    def test_whole_tree(self):
        with open(os.path.join(self.dir, "proc/version")) as f:
            self.assertTrue(f.read().startswith("fentros version "))
        self.assertIn("failslab", os.listdir(os.path.join(self.dir, "sys/kernel/debug")))
        # A live patch enabled through the mount fixes what the guest's work checks.
        enabled = os.path.join(self.dir, "sys/kernel/livepatch/livepatch_work/enabled")
        self.assertRegex(self.run_in_guest("work", "0.02", "1").stdout,
                         r" ([1-9]\d*) of \1 bit counts wrong: ok\n$")
        with open(enabled, "w") as f:
            f.write("1\n")
        try:
            transition = os.path.join(os.path.dirname(enabled), "transition")
            for _ in range(100):
                with open(transition) as f:
                    if f.read() == "0\n":
                        break
                time.sleep(0.1)
            self.assertRegex(self.run_in_guest("work", "0.02", "1").stdout,
                             r" 0 of \d+ bit counts wrong: ok\n$")
        finally:
            with open(enabled, "w") as f:
                f.write("0\n")

    def test_stat_idle(self):
        stat = self.trace_cmd("stat")
        self.assertIn("Buffer size in kilobytes", stat)
        self.assertNotIn("Tracer:", stat)


if __name__ == "__main__":
    unittest.main()
