"""Who records: tracing_cpumask (only the listed CPUs' buffers fill) and set_ftrace_pid
(only the listed threads are traced, `>` replacing and `>>` adding), with the function
tracer on while `work` runs on every CPU."""

from harness import tracefmt as tf

setup = teardown = tf.reset_tracing
TIMEOUT = 120


def trace_work(sh, seconds="0.02"):
    sh.do("echo function > current_tracer")
    lines = sh.run(f"work {seconds} 1")
    sh.check(len(lines) == 1 and lines[0].endswith(": ok"), "work did not end well", lines)
    sh.do("echo 0 > tracing_on")
    return tf.read_trace(sh)


def test_cpumask_some_cpus(sh):
    # The odd CPUs (CPU 0 alone at -smp 1): the shell's CPU 0 is left out when it can be.
    cpus = [c for c in range(sh.smp) if c % 2 == 1] or [0]
    mask = tf.cpu_mask(cpus)
    sh.do(f"echo {mask} > tracing_cpumask")
    sh.check(sh.run("cat tracing_cpumask") == [mask], f"tracing_cpumask does not read {mask}")
    trace = trace_work(sh)
    seen = {e.cpu for e in trace.events}
    sh.check(seen == set(cpus), f"mask {mask}: events from CPUs {sorted(seen)}, "
             f"expected exactly {cpus}")
    for cpu in range(sh.smp):
        if cpu not in cpus:
            stats = tf.read_stats(sh, cpu)
            sh.check(stats["entries"] == 0 and stats["overrun"] == 0,
                     f"CPU {cpu} is not in the mask, yet its buffer has entries "
                     f"{stats['entries']}, overrun {stats['overrun']}")
    sh.check(len(trace.events) == trace.entries, "header and lines disagree")


def test_cpumask_none(sh):
    sh.do("echo 0 > tracing_cpumask")
    sh.check(sh.run("cat tracing_cpumask") == ["0"], "tracing_cpumask does not read 0")
    trace = trace_work(sh, "0.01")
    sh.check(trace.entries == 0 and trace.written == 0 and not trace.events,
             f"an empty mask recorded {trace.written} events")


def test_pid_shell_only(sh):
    pid = tf.shell_pid(sh)
    sh.do(f"echo {pid} > set_ftrace_pid")
    sh.check(sh.run("cat set_ftrace_pid") == [str(pid)], "set_ftrace_pid does not list it")
    trace = trace_work(sh)
    sh.check(len(trace.events) > 0, "no events from the shell")
    others = [e for e in trace.events if e.pid != pid or e.comm != "sh"]
    sh.check(not others, f"{len(others)} events from threads other than sh-{pid}",
             [f"line {e.lineno}: {e.comm}-{e.pid}" for e in others[:10]])
    sh.check(len(trace.events) == trace.entries, "header and lines disagree")


def test_pid_append_idle(sh):
    pid = tf.shell_pid(sh)
    sh.do(f"echo {pid} > set_ftrace_pid", "echo 0 >> set_ftrace_pid")
    listed = sh.run("cat set_ftrace_pid")
    sh.check(sorted(listed) == sorted([str(pid), "0"]), "`>>` did not add pid 0", listed)
    sh.do("echo function > current_tracer", "sleep 0.05", "echo 0 > tracing_on")
    trace = tf.read_trace(sh)
    pids = {e.pid for e in trace.events}
    sh.check(pids == {pid, 0}, f"events from pids {sorted(pids)}, expected {pid} and 0")
    idle = {e.comm for e in trace.events if e.pid == 0}
    sh.check(idle == {"<idle>"}, f"pid 0 shows as {sorted(idle)}, expected <idle>")
    # `>` replaces the list.
    sh.do(f"echo {pid} > set_ftrace_pid")
    sh.check(sh.run("cat set_ftrace_pid") == [str(pid)], "`>` did not replace the list")
