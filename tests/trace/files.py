"""The tracefs files whose content depends on the CPU count: tracing_cpumask (hex, no
0x, bits only for CPUs that exist) and the buffer sizes (buffer_size_kb shows what the
buffer holds: Linux rounds a request up to whole 4080-byte pages, at least two, and
prints the size that gives; `X` when CPUs differ; buffer_total_size_kb sums them), and
that a resize the machine cannot afford changes nothing, not even the events."""

from harness import tracefmt as tf

setup = teardown = tf.reset_tracing

ENOMEM = "echo: write error: Cannot allocate memory"
EINVAL = "echo: write error: Invalid argument"
EOVERFLOW = "echo: write error: Value too large for defined data type"
EBADF = "echo: write error: Bad file descriptor"


def shown_kb(kb):
    """What Linux's buffer_size_kb shows after `echo kb > buffer_size_kb`."""
    pages = max(2, -(-kb * 1024 // 4080))
    return pages * 4080 // 1024


def read_one(sh, path):
    lines = sh.run(f"cat {path}")
    sh.check(len(lines) == 1, f"{path}: expected one line", lines)
    return lines[0]


def test_cpumask_read_write(sh):
    every = tf.cpu_mask(range(sh.smp))
    sh.check(read_one(sh, "tracing_cpumask") == every,
             f"tracing_cpumask at boot should read {every}")
    for cpus in ([0], [sh.smp - 1], []):
        mask = tf.cpu_mask(cpus)
        sh.do(f"echo {mask} > tracing_cpumask")
        sh.check(read_one(sh, "tracing_cpumask") == mask, f"wrote {mask}, read back other")
    for bad in ("zz", "0x1"):
        sh.check(sh.run(f"echo {bad} > tracing_cpumask") == [EINVAL],
                 f"`echo {bad} > tracing_cpumask` should fail with EINVAL")
    sh.do(f"echo {every} > tracing_cpumask")
    sh.check(read_one(sh, "tracing_cpumask") == every, "could not restore the full mask")


def test_cpumask_beyond_cpus(sh):
    # cpumask_parse_user: a bit for a CPU that does not exist is EOVERFLOW, and the mask
    # stays as it was.
    beyond = tf.cpu_mask([sh.smp])
    sh.check(sh.run(f"echo {beyond} > tracing_cpumask") == [EOVERFLOW],
             f"`echo {beyond} > tracing_cpumask` at {sh.smp} CPUs should fail with "
             "EOVERFLOW (Value too large for defined data type)")
    sh.check(read_one(sh, "tracing_cpumask") == tf.cpu_mask(range(sh.smp)),
             "a refused mask changed tracing_cpumask")


def test_marker_on_masked_cpu(sh):
    # The shell runs on CPU 0. A CPU outside the mask has recording off in its buffer, so
    # Linux's tracing_mark_write gets no event and fails with EBADF.
    if sh.smp == 1:
        sh.do("echo 0 > tracing_cpumask")
    else:
        sh.do(f"echo {tf.cpu_mask(range(1, sh.smp))} > tracing_cpumask")
    sh.check(sh.run("echo masked > trace_marker") == [EBADF],
             "a marker written on a CPU outside tracing_cpumask should fail with EBADF")
    sh.check(tf.read_trace(sh).entries == 0, "a marker on a masked CPU was recorded")


def test_buffer_size_rounding(sh):
    for kb in (8, 1, 100, 4080, tf.DEFAULT_BUFFER_KB):
        sh.do(f"echo {kb} > buffer_size_kb")
        want = shown_kb(kb)
        got = read_one(sh, "buffer_size_kb")
        sh.check(got == str(want), f"after `echo {kb} > buffer_size_kb` it reads {got}, "
                 f"Linux reads {want} (whole 4080-byte pages)")
        sh.check(read_one(sh, "per_cpu/cpu0/buffer_size_kb") == str(want),
                 "per_cpu/cpu0/buffer_size_kb differs from buffer_size_kb")
        sh.check(read_one(sh, "buffer_total_size_kb") == str(want * sh.smp),
                 f"buffer_total_size_kb is not {sh.smp} x {want}")


def test_per_cpu_size(sh):
    last = sh.smp - 1
    sh.do(f"echo 100 > per_cpu/cpu{last}/buffer_size_kb")
    default = shown_kb(tf.DEFAULT_BUFFER_KB)
    want_last = shown_kb(100)
    sh.check(read_one(sh, f"per_cpu/cpu{last}/buffer_size_kb") == str(want_last),
             f"per_cpu/cpu{last}/buffer_size_kb after writing 100")
    sh.check(read_one(sh, "buffer_size_kb") == ("X" if sh.smp > 1 else str(want_last)),
             "buffer_size_kb should read X when CPUs differ")
    total = want_last + default * (sh.smp - 1)
    sh.check(read_one(sh, "buffer_total_size_kb") == str(total),
             f"buffer_total_size_kb should be {total}")
    if sh.smp > 1:
        sh.check(read_one(sh, "per_cpu/cpu0/buffer_size_kb") == str(default),
                 "resizing one CPU changed another")
    sh.check(sh.run(f"echo 0 > per_cpu/cpu{last}/buffer_size_kb") == [EINVAL],
             "0 KB for one CPU should fail with EINVAL")


def test_failed_resize_changes_nothing(sh):
    sh.do("echo 100 > buffer_size_kb", "echo kept > trace_marker")
    size = read_one(sh, "buffer_size_kb")
    for kb in ("100000000000", "4000000"):
        sh.check(sh.run(f"echo {kb} > buffer_size_kb") == [ENOMEM],
                 f"`echo {kb} > buffer_size_kb` should fail with ENOMEM")
        sh.check(sh.status() == 1, "a failed write should leave $? = 1")
        sh.check(read_one(sh, "buffer_size_kb") == size, "a failed resize changed the size")
        trace = tf.read_trace(sh)
        sh.check([e.text for e in trace.events] == ["kept"],
                 "a failed resize lost the events in the buffer")
    sh.check(sh.run("echo 0 > buffer_size_kb") == [EINVAL], "0 KB should fail with EINVAL")
    sh.check([e.text for e in tf.read_trace(sh).events] == ["kept"],
             "a refused size lost the events in the buffer")


def work_trace(sh):
    """A short trace from every CPU: `work` with a few of its functions traced."""
    sh.do("echo work_compute work_table_op > set_ftrace_filter",
          "echo function > current_tracer")
    lines = sh.run("work 0.02 1")
    sh.check(len(lines) == 1 and lines[0].endswith(": ok"), "work did not end well", lines)
    sh.do("echo 0 > tracing_on")


def test_per_cpu_trace(sh):
    work_trace(sh)
    whole = tf.read_trace(sh)
    for cpu in range(sh.smp):
        mine = tf.read_trace(sh, f"per_cpu/cpu{cpu}/trace")
        # Linux's header counts the whole buffer, whichever file prints it
        # (print_event_info -> get_total_entries sums every CPU).
        sh.check((mine.entries, mine.written) == (whole.entries, whole.written),
                 f"per_cpu/cpu{cpu}/trace header says {mine.entries}/{mine.written}, "
                 f"trace says {whole.entries}/{whole.written} (Linux counts every CPU)")
        sh.check({e.cpu for e in mine.events} <= {cpu}, f"per_cpu/cpu{cpu}/trace shows "
                 "events of other CPUs")
        sh.check(len(mine.events) == sum(1 for e in whole.events if e.cpu == cpu),
                 f"per_cpu/cpu{cpu}/trace does not show all of CPU {cpu}'s events")


def test_per_cpu_clear(sh):
    work_trace(sh)
    last = sh.smp - 1
    before = [tf.read_stats(sh, cpu)["entries"] for cpu in range(sh.smp)]
    sh.check(before[last] > 0, f"CPU {last} recorded nothing while work ran")
    sh.do(f"echo > per_cpu/cpu{last}/trace")
    after = [tf.read_stats(sh, cpu)["entries"] for cpu in range(sh.smp)]
    sh.check(after[last] == 0, f"`echo > per_cpu/cpu{last}/trace` left {after[last]} events")
    sh.check(after[:last] == before[:last], "clearing one CPU changed the others",
             [f"before {before}", f"after {after}"])
