"""dmesg once the kernel log has wrapped: the 64 KiB ring has lost the beginning of its
oldest line, and dmesg starts at the next whole one, as Linux shows whole records only.
The `dump` function command fills the log past its end: it prints the whole trace buffer
through printk, a line per event."""

import re

from harness import tracefmt as tf

STAMPED = re.compile(r"^\[ *\d+\.\d{6}\] ")
LOG_SIZE = 64 * 1024


def test_wrapped_log_starts_at_a_whole_line(sh):
    # 64 KB of function records per CPU print as several times that in text.
    sh.do("echo 64 > buffer_size_kb", "echo function > current_tracer", "sleep 0.5",
          "echo 'ftrace_test_target:dump' > set_ftrace_filter")
    sh.run("ftrace_test_call target 1", timeout=120)
    lines = sh.run("dmesg", timeout=60)
    size = sum(len(line) + 1 for line in lines)
    # Only the partial first line is left out: less than one line short of the ring.
    sh.check(LOG_SIZE - 600 < size <= LOG_SIZE, f"dmesg shows {size} bytes of a "
             f"{LOG_SIZE}-byte ring that has wrapped")
    unstamped = [line for line in lines if not STAMPED.match(line)]
    sh.check(lines and not unstamped, "dmesg lines without their time stamp",
             unstamped[:5] + lines[:2])
    # The dump ends with the call that made it, then its closing line of dashes.
    sh.check(any(line.endswith(": ftrace_test_target <-shell_cmd_fn_ftrace_test_call")
                 for line in lines[-5:]) and lines[-1].endswith("] " + "-" * 33),
             "the log's end is not the buffer's dump", lines[-10:])


setup = tf.reset_tracing


def teardown(sh):
    tf.remove_function_commands(sh)
    tf.reset_tracing(sh)
