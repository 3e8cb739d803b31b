"""Linux's ftrace text, parsed strictly: the `trace` header, event lines, stack traces,
trace_marker lines, `CPU:N [LOST M EVENTS]` lines, and per_cpu/cpuN/stats.

The formats are those of Linux 6.1 (kernel/trace/trace.c, trace_output.c):

    context   "%16s-%-7d [%03d] " FLAGS " %5lu.%06lu: "   (ns clocks)
              "%16s-%-7d [%03d] " FLAGS " %12llu: "       (counter, x86-tsc)
    FLAGS     5 characters with irq-info, absent without it
    function  "func <-parent" ("func" without print-parent)
    stack     "<stack trace>", then one " => sym" line per frame
    marker    "tracing_mark_write: TEXT"
    event     "NAME: TEXT", TEXT in the form Linux 6.1's print fmt of NAME gives it
              (TRACE_EVENT_LINES: sched, irq, irq_vectors)

A line that does not match exactly, widths included, is reported as an error with the
reason; nothing is skipped silently. Also here: helpers that drive the tracefs files
through a test's shell (see harness/tracetest.py) and return parsed results.
"""

import re
import subprocess

TRACEFS = "/sys/kernel/tracing"

# What Linux prints before the events, after "# tracer: NAME" and "#".
ENTRIES_RE = re.compile(r"# entries-in-buffer/entries-written: (\d+)/(\d+)   #P:(\d+)")
HEADER_IRQ_INFO = [
    "#                                _-----=> irqs-off/BH-disabled",
    "#                               / _----=> need-resched",
    "#                              | / _---=> hardirq/softirq",
    "#                              || / _--=> preempt-depth",
    "#                              ||| / _-=> migrate-disable",
    "#                              |||| /     delay",
    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION",
    "#              | |         |   |||||     |         |",
]
HEADER_NO_IRQ_INFO = [
    "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION",
    "#              | |         |         |         |",
]

# The context prefix; widths are checked in code, as a regex cannot say "%16s" simply.
CONTEXT_RE = re.compile(
    r"(?P<comm> *\S.*?)-(?P<pid>\d+)(?P<pad> *) \[(?P<cpu>\d{3,})\] "
    r"(?P<flags>\S{5})? (?P<ts> *\d+(?:\.\d{6})?): (?P<body>.*)")
# irqs-off, need-resched, hardirq/softirq, preempt depth, migrate-disable.
FLAGS_RE = re.compile(r"[dDbX.][Nnp.][ZzHhs.][0-9a-f.][0-9a-f.]")
# A symbol as %ps prints it, with sym-offset's "+0x../0x.." and sym-addr's " <...>".
SYM = r"(?:[A-Za-z_.$][\w.$]*|0x[0-9a-f]+)"
SYM_RE = re.compile(
    rf"(?P<name>{SYM})(?P<offset>\+0x[0-9a-f]+/0x[0-9a-f]+)?(?P<addr> <[0-9a-f]{{16}}>)?")
FUNCTION_RE = re.compile(rf"(?P<func>{SYM}(?:\+0x[0-9a-f]+/0x[0-9a-f]+)?(?: <[0-9a-f]{{16}}>)?)"
                         rf"(?: <-(?P<parent>{SYM}(?:\+0x[0-9a-f]+/0x[0-9a-f]+)?"
                         rf"(?: <[0-9a-f]{{16}}>)?))?")
FRAME_RE = re.compile(rf" => (?P<sym>{SYM}(?:\+0x[0-9a-f]+/0x[0-9a-f]+)?(?: <[0-9a-f]{{16}}>)?)")
LOST_RE = re.compile(r"CPU:(\d+) \[LOST (\d+) EVENTS\]")
MARKER_PREFIX = "tracing_mark_write: "

# Linux 6.1's text of each event fentros has, field by field (TP_printk of
# include/trace/events/sched.h, irq.h, arch/x86/include/asm/trace/irq_vectors.h).
COMM = r"(?P<{}>[^ ]{{1,15}}|[^ ][^=]{{0,14}})"
_WAKEUP = rf"comm={COMM.format('comm')} pid=(?P<pid>\d+) prio=(?P<prio>\d+) target_cpu=(?P<target_cpu>\d{{3}})"
_PROCESS = rf"comm={COMM.format('comm')} pid=(?P<pid>\d+) prio=(?P<prio>\d+)"
_VECTOR = r"vector=(?P<vector>\d+)"
TRACE_EVENT_LINES = {
    "sched_switch": re.compile(
        rf"prev_comm={COMM.format('prev_comm')} prev_pid=(?P<prev_pid>\d+) prev_prio=(?P<prev_prio>\d+) "
        r"prev_state=(?P<prev_state>R\+?|[SDTtXZPI](?:\|[SDTtXZPI])*\+?) ==> "
        rf"next_comm={COMM.format('next_comm')} next_pid=(?P<next_pid>\d+) next_prio=(?P<next_prio>\d+)"),
    "sched_wakeup": re.compile(_WAKEUP),
    "sched_wakeup_new": re.compile(_WAKEUP),
    "sched_waking": re.compile(_WAKEUP),
    "sched_process_fork": re.compile(
        rf"comm={COMM.format('comm')} pid=(?P<pid>\d+) child_comm={COMM.format('child_comm')} "
        r"child_pid=(?P<child_pid>\d+)"),
    "sched_process_exit": re.compile(_PROCESS),
    "sched_process_free": re.compile(_PROCESS),
    "sched_migrate_task": re.compile(
        rf"{_PROCESS} orig_cpu=(?P<orig_cpu>\d+) dest_cpu=(?P<dest_cpu>\d+)"),
    "irq_handler_entry": re.compile(r"irq=(?P<irq>\d+) name=(?P<name>\S+)"),
    "irq_handler_exit": re.compile(r"irq=(?P<irq>\d+) ret=(?P<ret>handled|unhandled)"),
    **{name: re.compile(_VECTOR) for name in (
        "local_timer_entry", "local_timer_exit", "reschedule_entry", "reschedule_exit",
        "call_function_entry", "call_function_exit", "call_function_single_entry",
        "call_function_single_exit")},
    # The synthetic event of Documentation/trace/histogram.rst's wakeup latency example
    # ("wakeup_latency u64 lat; pid_t pid; int prio"), as Linux's print_synth_event.
    "wakeup_latency": re.compile(r"lat=(?P<lat>\d+) pid=(?P<pid>-?\d+) prio=(?P<prio>-?\d+)"),
}
TRACE_EVENT_PREFIX_RE = re.compile(r"(?P<name>[a-z_][a-z0-9_]*): (?P<text>.*)")

STATS_FIELDS = ["entries", "overrun", "commit overrun", "bytes", "oldest event ts", "now ts",
                "dropped events", "read events"]
STATS_TS_RE = re.compile(r" *\d+\.\d{6}|\d+")


def symbol_name(text):
    """`kmalloc+0x0/0x20 <ffffffff80101234>` -> `kmalloc`."""
    match = SYM_RE.fullmatch(text)
    return match.group("name") if match else text


class Event:
    """One event: a function call, a stack trace, a marker, a trace event (sched_switch...),
    or a LOST line (trace_pipe)."""

    def __init__(self, lineno, kind, comm=None, pid=None, cpu=None, flags=None, ts=None):
        self.lineno = lineno  # 1-based line number in the text parsed
        self.kind = kind      # "function", "stack", "marker", "event" or "lost"
        self.comm = comm
        self.pid = pid
        self.cpu = cpu
        self.flags = flags    # the five flag characters, or None without irq-info
        self.ts = ts          # microseconds (ns clocks) or the raw counter value
        self.func = None      # function events: names as printed (offsets included)
        self.parent = None
        self.frames = []      # stack events: one symbol per " => " line
        self.text = None      # marker events
        self.lost = None      # lost lines: how many events
        self.name = None      # trace events ("event"): the event's name
        self.fields = None    # trace events: its fields as printed, by name (strings)

    @property
    def func_name(self):
        return symbol_name(self.func) if self.func else None

    @property
    def parent_name(self):
        return symbol_name(self.parent) if self.parent else None

    def __repr__(self):
        return f"<Event line {self.lineno} {self.kind} cpu={self.cpu} pid={self.pid}>"


class Trace:
    def __init__(self):
        self.tracer = None     # from "# tracer: NAME"; None for trace_pipe output
        self.entries = None    # the header's entries-in-buffer
        self.written = None    # the header's entries-written
        self.ncpus = None      # the header's #P
        self.events = []
        self.errors = []       # (line number, line, reason)

    def of_kind(self, kind):
        return [e for e in self.events if e.kind == kind]

    def error_report(self, limit=10):
        return [f"line {n}: {reason}: {line!r}" for n, line, reason in self.errors[:limit]]


def parse_context(line, ns_clock=True, irq_info=True):
    """A line's context prefix -> (comm, pid, cpu, flags, ts, body), or a string saying
    what is wrong with it."""
    m = CONTEXT_RE.fullmatch(line)
    if not m:
        return "not an event line"
    comm, pid, pad, flags, ts = m.group("comm", "pid", "pad", "flags", "ts")
    if len(comm) < 16 or (len(comm) > 16 and comm.startswith(" ")):
        return "task name not right-aligned in 16 columns (%16s)"
    if len(pid) + len(pad) < 7 or (len(pid) + len(pad) > 7 and pad):
        return "pid not left-aligned in 7 columns (%-7d)"
    if irq_info:
        if flags is None or not FLAGS_RE.fullmatch(flags):
            return "no valid irq-info flags"
    elif flags is not None:
        return "flags printed without irq-info"
    if ns_clock:
        if not re.fullmatch(r" *\d+\.\d{6}", ts) or len(ts) < 12 or (
                len(ts) > 12 and ts.startswith(" ")):
            return "time stamp not %5lu.%06lu"
        secs, usecs = ts.strip().split(".")
        value = int(secs) * 1000000 + int(usecs)
    else:
        if "." in ts or len(ts) < 12 or (len(ts) > 12 and ts.startswith(" ")):
            return "time stamp not %12llu"
        value = int(ts)
    return comm.strip(), int(pid), int(m.group("cpu")), flags, value, m.group("body")


def parse_header(lines, trace, irq_info=True, context_info=True):
    """Checks the header at the top of `trace`; returns the index of the first event line."""
    def expect(index, text):
        got = lines[index] if index < len(lines) else None
        if got != text:
            trace.errors.append((index + 1, got, f"header: expected {text!r}"))
            return False
        return True

    if not lines or not lines[0].startswith("# tracer: "):
        trace.errors.append((1, lines[0] if lines else None, "no `# tracer: NAME` line"))
        return 0
    trace.tracer = lines[0][len("# tracer: "):]
    if not expect(1, "#"):
        return 2
    i = 2
    if lines[i:i + 2] == ["# WARNING: FUNCTION TRACING IS CORRUPTED",
                          "#          MAY BE MISSING FUNCTION EVENTS"]:
        i += 2
    if not context_info:
        # Linux prints nothing more of the header without context-info.
        return i
    m = ENTRIES_RE.fullmatch(lines[i]) if i < len(lines) else None
    if not m:
        trace.errors.append((i + 1, lines[i] if i < len(lines) else None,
                             "header: no entries-in-buffer/entries-written line"))
        return i
    trace.entries, trace.written, trace.ncpus = (int(g) for g in m.groups())
    i += 1
    if not expect(i, "#"):
        return i + 1
    i += 1
    for text in (HEADER_IRQ_INFO if irq_info else HEADER_NO_IRQ_INFO):
        if not expect(i, text):
            return i + 1
        i += 1
    return i


def parse_trace(lines, header=True, ns_clock=True, irq_info=True, context_info=True,
                print_parent=True):
    """Parses the output of `cat trace` (header=True) or `cat trace_pipe` (header=False)."""
    trace = Trace()
    i = parse_header(lines, trace, irq_info, context_info) if header else 0
    stack = None  # the stack event whose " => " lines are being read
    for index in range(i, len(lines)):
        line, lineno = lines[index], index + 1
        if stack is not None:
            frame = FRAME_RE.fullmatch(line)
            if frame:
                stack.frames.append(frame.group("sym"))
                continue
            if not stack.frames:
                trace.errors.append((lineno, line, "<stack trace> without frames"))
            stack = None
        lost = LOST_RE.fullmatch(line)
        if lost:
            event = Event(lineno, "lost", cpu=int(lost.group(1)))
            event.lost = int(lost.group(2))
            trace.events.append(event)
            continue
        if context_info:
            ctx = parse_context(line, ns_clock, irq_info)
            if isinstance(ctx, str):
                trace.errors.append((lineno, line, ctx))
                continue
            comm, pid, cpu, flags, ts, body = ctx
        else:
            comm = pid = cpu = flags = ts = None
            body = line
        if body == "<stack trace>":
            event = Event(lineno, "stack", comm, pid, cpu, flags, ts)
            stack = event
        elif body.startswith(MARKER_PREFIX):
            event = Event(lineno, "marker", comm, pid, cpu, flags, ts)
            event.text = body[len(MARKER_PREFIX):]
        elif (TRACE_EVENT_PREFIX_RE.fullmatch(body) and
              TRACE_EVENT_PREFIX_RE.fullmatch(body).group("name") in TRACE_EVENT_LINES):
            ev = TRACE_EVENT_PREFIX_RE.fullmatch(body)
            m = TRACE_EVENT_LINES[ev.group("name")].fullmatch(ev.group("text"))
            if not m:
                trace.errors.append((lineno, line, f"not Linux's {ev.group('name')} line"))
                continue
            event = Event(lineno, "event", comm, pid, cpu, flags, ts)
            event.name, event.fields = ev.group("name"), m.groupdict()
        else:
            m = FUNCTION_RE.fullmatch(body)
            if not m or (m.group("parent") and not print_parent):
                trace.errors.append((lineno, line, "not `func <-parent`" if print_parent
                                     else "not `func`"))
                continue
            event = Event(lineno, "function", comm, pid, cpu, flags, ts)
            event.func, event.parent = m.group("func"), m.group("parent")
        trace.events.append(event)
    if stack is not None and not stack.frames:
        trace.errors.append((len(lines), lines[-1], "<stack trace> without frames"))
    return trace


def parse_stats(lines):
    """per_cpu/cpuN/stats -> {name: int}, or raises ValueError naming the first bad line.
    Time stamps are given in microseconds (ns clocks) or as printed (other clocks)."""
    if len(lines) != len(STATS_FIELDS):
        raise ValueError(f"{len(lines)} lines, expected {len(STATS_FIELDS)}")
    stats = {}
    for field, line in zip(STATS_FIELDS, lines):
        prefix = field + ": "
        if not line.startswith(prefix):
            raise ValueError(f"expected `{prefix}...`, got {line!r}")
        value = line[len(prefix):]
        if field.endswith(" ts"):
            if not STATS_TS_RE.fullmatch(value):
                raise ValueError(f"bad time stamp in {line!r}")
            if "." in value:
                secs, usecs = value.strip().split(".")
                stats[field] = int(secs) * 1000000 + int(usecs)
            else:
                stats[field] = int(value)
        elif not re.fullmatch(r"\d+", value):
            raise ValueError(f"not a count: {line!r}")
        else:
            stats[field] = int(value)
    return stats


def backwards_in_time(events):
    """Events whose time stamp is older than the one before on the same CPU."""
    last, bad = {}, []
    for e in events:
        if e.ts is None:
            continue
        if e.cpu in last and e.ts < last[e.cpu].ts:
            bad.append((last[e.cpu], e))
        last[e.cpu] = e
    return bad


# ---- driving tracefs through a test's shell ----

# Options and their defaults, restored between tests. Tracer options that belong to
# other tracers are not touched here.
DEFAULT_OPTIONS = {"print-parent": 1, "sym-offset": 0, "sym-addr": 0, "context-info": 1,
                   "latency-format": 0, "overwrite": 1, "disable_on_free": 0, "irq-info": 1,
                   "markers": 1, "event-fork": 0, "function-trace": 1, "function-fork": 0,
                   "display-graph": 0, "stacktrace": 0, "func_stack_trace": 0}
DEFAULT_BUFFER_KB = 1408
# The event systems whose filters reset_tracing clears.
EVENT_SYSTEMS = ("sched", "irq", "irq_vectors", "preemptirq", "osnoise")


def cpu_mask(cpus):
    """CPU numbers -> what tracing_cpumask shows: hex without 0x."""
    mask = 0
    for cpu in cpus:
        mask |= 1 << cpu
    return f"{mask:x}"


def reset_tracing(sh):
    """Puts tracing back in its boot state and leaves the shell in the tracefs directory.
    Tests use it as setup and teardown, so one that failed halfway leaves nothing behind."""
    sh.do(f"cd {TRACEFS}",
          "echo 0 > tracing_on",
          "echo nop > current_tracer",
          "echo > set_ftrace_filter",
          "echo > set_ftrace_notrace",
          "echo > set_ftrace_pid",
          "echo > set_ftrace_notrace_pid",
          "echo > set_event")
    # Only events in soft mode are left in set_event now; an enable_event that fired leaves
    # its target on when it goes.
    if remove_event_triggers(sh):
        # A hist trigger whose variables another one reads goes only after that one: a
        # second pass takes what the first could not.
        remove_event_triggers(sh)
        sh.do("echo > set_event")
    # Instances go first: an event on in one keeps a kprobe event from being removed.
    for name in sh.run("ls instances"):
        if name.strip():
            sh.do(f"rmdir instances/{name.strip()}")
    remove_dynamic_events(sh)
    sh.do("echo > kprobe_events",
          "echo > synthetic_events",
          "echo > error_log",
          "echo > set_event_pid",
          "echo > set_event_notrace_pid",
          *[f"echo 0 > events/{system}/filter" for system in EVENT_SYSTEMS],
          f"echo {cpu_mask(range(sh.smp))} > tracing_cpumask",
          "echo 0 > snapshot",
          "echo 0 > tracing_thresh",
          "echo 0 > tracing_max_latency",
          "echo 50 > buffer_percent",
          "echo 1000000 > hwlat_detector/window",
          "echo 500000 > hwlat_detector/width",
          # The period first: it may never be below the runtime.
          "echo 1000000 > osnoise/period_us",
          "echo 1000000 > osnoise/runtime_us",
          "echo 0 > osnoise/stop_tracing_us",
          "echo 0 > osnoise/stop_tracing_total_us",
          "echo 0 > osnoise/print_stack",
          "echo 1000 > osnoise/timerlat_period_us",
          f"echo 0-{sh.smp - 1} > osnoise/cpus",
          "echo local > trace_clock",
          f"echo {DEFAULT_BUFFER_KB} > buffer_size_kb",
          *[f"echo {value} > options/{name}" for name, value in DEFAULT_OPTIONS.items()],
          "echo > trace",
          "echo 1 > tracing_on")


def remove_dynamic_events(sh):
    """`> dynamic_events` stops at the first event that cannot go, as on Linux's: a synthetic
    event an event probe is attached to holds the ones made after it. The event probes go
    first, each by its name."""
    for line in sh.run(f"cat {TRACEFS}/dynamic_events"):
        if line.startswith("e:"):
            sh.run(f"echo '-:{line[2:].split(' ')[0]}' >> {TRACEFS}/dynamic_events")
    sh.do(f"echo > {TRACEFS}/dynamic_events")


def remove_event_triggers(sh):
    """Event triggers outlive `echo > set_event` and a `>` write to the trigger file, as on
    Linux: each goes with its own `!`. An event with triggers is in soft mode, which
    set_event lists, so only the events it names are looked at, and ftrace:print, whose
    triggers trace_marker runs without a soft mode. Returns how many."""
    removed = 0
    for event in sh.run(f"cat {TRACEFS}/set_event") + ["ftrace:print"]:
        system, _, name = event.partition(":")
        path = f"{TRACEFS}/events/{system}/{name}/trigger"
        for line in sh.run(f"cat {path}"):
            if line.startswith("#"):
                continue
            if line.startswith("hist:"):
                # `>` takes every hist trigger out (Linux's unreg_all), and only them.
                sh.run(f"echo > {path}")
                removed += 1
                continue
            fields = line.split(" ")[0].split(":")
            command = ":".join(fields[:3] if fields[0].endswith(("_event", "_hist"))
                               else fields[:1])
            sh.run(f"echo '!{command}' >> {path}")
            removed += 1
    return removed


def remove_function_commands(sh):
    """Function commands (func:traceoff ...) outlive `echo > set_ftrace_filter`, as on
    Linux: each goes with its own `!func:cmd`, and a counted one with a count too (the
    counted and the plain command are different probes, as on Linux)."""
    for line in sh.run(f"cat {TRACEFS}/set_ftrace_filter"):
        if ":" in line and not line.startswith("#"):
            fields = line.split(":")
            # enable_event and disable_event name their event (SYS:EVENT) too.
            named = 4 if fields[1].endswith("_event") else 2
            rest = fields[named:]
            count = ":0" if rest and rest[0].startswith("count=") else ""
            command = ":".join(fields[:named])
            sh.run(f"echo '!{command}{count}' >> {TRACEFS}/set_ftrace_filter")


def read_trace(sh, path="trace", header=True, timeout=None, **formats):
    """`cat PATH`, parsed; fails the test on any line that is not in Linux's format."""
    lines = sh.run(f"cat {path}", timeout=timeout)
    trace = parse_trace(lines, header=header, **formats)
    sh.check(not trace.errors, f"{path}: {len(trace.errors)} line(s) not in Linux's format",
             trace.error_report())
    return trace


def read_stats(sh, cpu):
    lines = sh.run(f"cat per_cpu/cpu{cpu}/stats")
    try:
        return parse_stats(lines)
    except ValueError as err:
        sh.fail(f"per_cpu/cpu{cpu}/stats: {err}", lines)


def available_functions(sh):
    """The set of names in available_filter_functions (read once per boot)."""
    cached = sh.cache.get("available_filter_functions")
    if cached is None:
        lines = sh.run(f"cat {TRACEFS}/available_filter_functions")
        sh.check(len(lines) > 0, "available_filter_functions is empty")
        cached = sh.cache["available_filter_functions"] = frozenset(lines)
    return cached


def shell_pid(sh):
    """The pid of the shell, from `ps` (the thread named sh)."""
    lines = sh.run("ps")
    pids = [int(line.split()[0]) for line in lines[1:]
            if len(line.split()) >= 5 and line.split()[-1] == "sh"]
    sh.check(len(pids) == 1, "ps shows no single thread named sh", lines)
    return pids[0]


def kernel_text_symbols(sh):
    """Names of every function in the kernel image (from `nm`), or None when the harness
    does not know which image runs. Callers of traced functions may be untraced code, so
    a parent is checked against these rather than available_filter_functions."""
    if "kernel_text_symbols" not in sh.cache:
        names = None
        if sh.kernel:
            try:
                out = subprocess.run(["nm", str(sh.kernel)], capture_output=True, text=True,
                                     check=True).stdout
                names = frozenset(parts[2] for parts in (line.split() for line in
                                                         out.splitlines())
                                  if len(parts) == 3 and parts[1] in "tT")
            except (OSError, subprocess.CalledProcessError):
                names = None
        sh.cache["kernel_text_symbols"] = names
    return sh.cache["kernel_text_symbols"]
