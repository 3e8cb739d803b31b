"""The serial console of one QEMU boot.

A reader thread collects every byte QEMU writes into memory and into the boot's log file.
Commands are exchanged by waiting for the shell's prompt, never by sleeping: a prompt at
the very end of the received text means the shell is idle and reading input.
"""

import os
import re
import subprocess
import threading
import time
from typing import IO, Callable, List, Literal, Optional, Sequence, Tuple, TypeVar, Union

T = TypeVar("T")
# What a prompt search finds: the prompt, "eof" when QEMU's output has ended, or nothing yet.
PromptFound = Union["re.Match[bytes]", Literal["eof"], None]

# The shell is idle when the received text ends with its prompt, `fentros:<cwd># `, or
# with the prompt and whole kernel messages printed after it (`[    1.234567] ...`, as a
# `func:dump` probe firing on another CPU prints them), as on a Linux serial console.
# \Z rather than $: in a regex $ also matches before a final newline. A prompt right after
# "\r\x1b[K" is the line editor redrawing the line being typed (after a Tab's completion
# list, a history key; kernel/shell/line_editor.c writes the two in one piece): the line
# goes on, and if the serial chunks happen to end just after that prompt's "# ", taking it
# for the end would leave every later reply one command behind.
PROMPT_RE = re.compile(
    rb"(?<!\r\x1b\[K)fentros:([^#\r\n]*)# (?:\[ *\d+\.\d{6}\] [^\n]*\n)*\Z")

# Only this much of the tail is searched for the prompt: output can be megabytes long.
PROMPT_WINDOW = 4096

# A test fails when the serial log shows any of these (unless the test expects a crash).
# "WARNING: CPU:" is how a kernel warning starts; a plain "WARNING:" also appears in trace
# headers (a dead ftrace says so) and is not a crash.
CRASH_PATTERNS = (r"Kernel panic", r"EXCEPTION", r"BUG:", r"WARNING: CPU:")
CRASH_RE = re.compile("|".join(CRASH_PATTERNS))

# What QEMU's exit status means with isa-debug-exit and -no-reboot. QEMU also exits
# with 1 when it cannot start at all.
EXIT_MEANING = {0: "reboot", 1: "poweroff, or a QEMU error", 3: "kernel crash"}


def describe_exit(status: int) -> str:
    meaning = EXIT_MEANING.get(status)
    return f"status {status} ({meaning})" if meaning else f"status {status}"


# A kernel message as printk writes it: its time stamp, its text, its newline. One may come
# in the middle of a line the shell is echoing (a probe firing on another CPU prints it).
KERNEL_MESSAGE_RE = re.compile(rb"\[ *\d+\.\d{6}\] [^\n]*\n")


def split_echo(data: bytes) -> Tuple[List[Tuple[int, int]], List[bytes]]:
    """Serial bytes after a command was sent -> (the spans of the shell's echo of the typed
    line, up to and with its newline; the kernel messages that came in the middle of it).
    No spans while the echo has not ended."""
    spans: List[Tuple[int, int]] = []
    messages: List[bytes] = []
    pos = 0
    while True:
        newline = data.find(b"\n", pos)
        if newline < 0:
            return [], messages
        message = KERNEL_MESSAGE_RE.search(data, pos, newline + 1)
        if message is None:
            return spans + [(pos, newline + 1)], messages
        # The message ends at this newline; the echo goes on after it.
        spans.append((pos, message.start()))
        messages.append(message.group())
        pos = message.end()


def split_output(data: bytes) -> List[str]:
    """Serial bytes after a command was sent -> its output lines, without the echo.

    The shell echoes what was typed up to the first newline that is not a kernel
    message's; everything after it is the command's output, after the kernel messages that
    came during the echo. A last line without a newline (output that does not end in one)
    still counts as a line.
    """
    spans, messages = split_echo(data)
    if not spans:
        return []
    rest = b"".join(messages) + data[spans[-1][1]:]
    text = rest.decode("utf-8", errors="replace").replace("\r", "")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


class Reply:
    """How one command ended: back at the prompt, QEMU exited, or a timeout."""

    def __init__(self, lines: List[str], cwd: Optional[str] = None,
                 exit_status: Optional[int] = None, timed_out: bool = False) -> None:
        self.lines = lines
        self.cwd = cwd
        self.exit_status = exit_status
        self.timed_out = timed_out


class Console:
    def __init__(self, argv: Sequence[str], log_path: Union[str, "os.PathLike[str]"],
                 stream: Optional[IO[bytes]] = None) -> None:
        self.log_path = log_path
        self.cwd: Optional[str] = None
        self._log = open(log_path, "wb")
        self._stream = stream
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._eof = False
        # Byte ranges holding the shell's echo of what was typed: a command that contains
        # "BUG:" must not look like a kernel report.
        self._echo_spans: List[Tuple[int, int]] = []
        try:
            # A session of its own keeps a Ctrl-C on the user's terminal away from QEMU;
            # the owner of the console kills it itself.
            self.proc: "subprocess.Popen[bytes]" = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                bufsize=0, start_new_session=True)
        except OSError:
            self._log.close()
            raise
        # Both pipes were asked for above; Popen's stubs type them as optional.
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._stdin: IO[bytes] = self.proc.stdin
        self._stdout: IO[bytes] = self.proc.stdout
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    def _read_loop(self) -> None:
        fd = self._stdout.fileno()
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                break
            self._log.write(data)
            self._log.flush()
            if self._stream:
                self._stream.write(data)
                self._stream.flush()
            with self._cond:
                self._buf += data
                self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def _wait(self, check: Callable[[], Optional[T]], timeout: float) -> Optional[T]:
        """Wait until check() (run with the lock held) returns something other than None."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                result = check()
                if result is not None:
                    return result
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._cond.wait(remaining)

    def _find_prompt(self, start: int, after_newline: bool) -> PromptFound:
        """A prompt ending the text after `start`; "eof" if QEMU is gone; else None."""
        low = start
        if after_newline:
            # Until the echo of the typed line ends, a prompt-like text is our own input.
            newline = self._buf.find(b"\n", start)
            if newline < 0:
                return "eof" if self._eof else None
            low = newline + 1
        low = max(low, len(self._buf) - PROMPT_WINDOW)
        match = PROMPT_RE.search(self._buf, low)
        if match:
            return match
        return "eof" if self._eof else None

    def mark(self) -> int:
        """The current end of the serial log, to delimit what a test produced."""
        with self._cond:
            return len(self._buf)

    def alive(self) -> bool:
        return self.proc.poll() is None and not self._eof

    def wait_boot(self, timeout: float) -> Reply:
        """Wait for the first prompt: a Reply whose lines are the boot log."""
        found = self._wait(lambda: self._find_prompt(0, False), timeout)
        with self._cond:
            end = found.start() if isinstance(found, re.Match) else len(self._buf)
            log = bytes(self._buf[:end]).decode("utf-8", errors="replace").replace("\r", "")
        lines = log.split("\n")
        if found is None:
            return Reply(lines, timed_out=True)
        if not isinstance(found, re.Match):  # "eof": QEMU's output has ended
            return Reply(lines, exit_status=self.wait_exit(10))
        self.cwd = found.group(1).decode("utf-8", errors="replace")
        return Reply(lines, cwd=self.cwd)

    def command(self, data: bytes, timeout: float) -> Reply:
        """Type `data` (it must end the line itself) and wait for the next prompt."""
        return self.finish(self.begin(data), timeout)

    def begin(self, data: bytes) -> int:
        """Type `data` without waiting; returns the mark that finish() and wait_output() take.

        For commands that run until interrupted (`cat trace_pipe`): begin, wait_output
        for what should come, send Ctrl-C, finish.
        """
        with self._cond:
            start = len(self._buf)
        self.send(data)
        return start

    def wait_output(self, start: int, predicate: Callable[[bytearray, int], bool],
                    timeout: float) -> bool:
        """Wait until predicate(buf, start) is true: True, or False when QEMU exited or
        `timeout` seconds passed first. buf is everything received so far (a bytearray
        to read, not keep: it grows); the predicate runs on every arrival of data, so it
        should look only at what it needs (buf.count(b"\n", start), len(buf))."""
        def check() -> Optional[bool]:
            if predicate(self._buf, start):
                return True
            return False if self._eof else None
        return bool(self._wait(check, timeout))

    def at_prompt(self, start: int) -> bool:
        """True once the command begun at `start` has ended: the prompt is back."""
        with self._cond:
            return isinstance(self._find_prompt(start, True), re.Match)

    def finish(self, start: int, timeout: float) -> Reply:
        """Wait for the prompt that ends the command begun at `start`: its Reply."""
        found = self._wait(lambda: self._find_prompt(start, True), timeout)
        with self._cond:
            end = found.start() if isinstance(found, re.Match) else len(self._buf)
            out = bytes(self._buf[start:end])
        spans, _ = split_echo(out)
        with self._cond:
            self._echo_spans.extend((start + a, start + b) for a, b in spans or [(0, len(out))])
        lines = split_output(out)
        if found is None:
            return Reply(lines, timed_out=True)
        if not isinstance(found, re.Match):  # "eof": QEMU's output has ended
            return Reply(lines, exit_status=self.wait_exit(10))
        self.cwd = found.group(1).decode("utf-8", errors="replace")
        return Reply(lines, cwd=self.cwd)

    def send(self, data: bytes) -> None:
        try:
            self._stdin.write(data)
            self._stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass  # QEMU has gone; the wait that follows sees the end of its output.

    def wait_exit(self, timeout: float) -> Optional[int]:
        """QEMU's exit status, or None if it is still running after `timeout` seconds."""
        if self._wait(lambda: True if self._eof else None, timeout) is None:
            return None
        try:
            return self.proc.wait(timeout=max(1.0, timeout))
        except subprocess.TimeoutExpired:
            return None

    def output_since(self, start: int) -> List[str]:
        """Lines received since `start`, for failure reports."""
        with self._cond:
            data = bytes(self._buf[start:])
        return data.decode("utf-8", errors="replace").replace("\r", "").split("\n")

    def crash_lines(self, start: int, end: Optional[int] = None) -> List[str]:
        """Lines between two marks that look like a kernel crash report."""
        with self._cond:
            end = len(self._buf) if end is None else end
            pieces: List[bytes] = []
            pos = start
            for span_start, span_end in self._echo_spans:
                if span_end <= pos or span_start >= end:
                    continue
                pieces.append(bytes(self._buf[pos:max(pos, span_start)]))
                # The echo's newline stays, so the text around it does not join into one line.
                pieces.append(b"\n")
                pos = max(pos, span_end)
            pieces.append(bytes(self._buf[pos:end]) if pos < end else b"")
        text = b"".join(pieces).decode("utf-8", errors="replace").replace("\r", "")
        return [line for line in text.split("\n") if CRASH_RE.search(line)]

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        # The reader ends at the end of QEMU's output; it owns the log until then.
        self._reader.join(timeout=5)
        for pipe in (self._stdin, self._stdout):
            try:
                pipe.close()
            except OSError:
                pass
        if not self._reader.is_alive():
            self._log.close()
