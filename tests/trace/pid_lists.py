"""set_ftrace_notrace_pid and options/function-fork, with the function tracer on `work_thread_main`
while `work` runs. The shell is pid 1 and `work`'s threads are its children, so listing
the shell with function-fork on lists them too (Linux 6.1 semantics: a listed task's
children join its list when it forks, in set_ftrace_pid and set_ftrace_notrace_pid)."""

from harness import tracefmt as tf

setup = teardown = tf.reset_tracing
TIMEOUT = 120
SHELL_PID = 1


def work_lines(sh):
    """The work_thread_main lines of one short `work` run, from threads other than the shell."""
    sh.do("echo work_thread_main > set_ftrace_filter", "echo function > current_tracer", "echo > trace")
    lines = sh.run("work 0.05 1")
    sh.check(len(lines) == 1 and lines[0].endswith(": ok"), "work did not end well", lines)
    sh.do("echo 0 > tracing_on")
    trace = tf.read_trace(sh)
    sh.do("echo nop > current_tracer", "echo 1 > tracing_on")
    return [e for e in trace.events if e.kind == "function" and e.pid != SHELL_PID]


def test_notrace_pid_leaves_out_listed_threads(sh):
    sh.check(sh.run("cat set_ftrace_notrace_pid") == ["no pid"], "not empty at first")
    sh.check(work_lines(sh), "work's threads recorded nothing with no pid list")
    # Without function-fork, notracing the shell leaves its new children traced.
    sh.do(f"echo {SHELL_PID} > set_ftrace_notrace_pid")
    sh.check(sh.run("cat set_ftrace_notrace_pid") == [str(SHELL_PID)], "pid not listed")
    sh.check(work_lines(sh), "children of a notrace pid went untraced without function-fork")
    # With it, the children join the notrace list and nothing of theirs is recorded.
    sh.do("echo 1 > options/function-fork")
    lines = work_lines(sh)
    sh.check(not lines, f"{len(lines)} lines from children of a notrace pid with function-fork",
             [f"{e.comm}-{e.pid} {e.func}" for e in lines[:5]])


def test_function_fork_follows_set_ftrace_pid(sh):
    sh.do(f"echo {SHELL_PID} > set_ftrace_pid")
    lines = work_lines(sh)
    sh.check(not lines, f"{len(lines)} lines from threads not in set_ftrace_pid")
    sh.do("echo 1 > options/function-fork")
    sh.check(work_lines(sh), "children of a listed pid were not traced with function-fork")
    # Freed children leave the list again: only the shell stays.
    sh.check(sh.run("cat set_ftrace_pid") == [str(SHELL_PID)],
             "set_ftrace_pid kept freed children", sh.run("cat set_ftrace_pid"))


def test_instance_follows_forks_of_its_own_lists(sh):
    """options/event-fork and function-fork in an instance follow the instance's lists,
    and the top level's options (off) keep the top level's lists as they are."""
    inst = "instances/forks"
    sh.do(f"mkdir {inst}", f"echo {SHELL_PID} > {inst}/set_ftrace_pid",
          f"echo {SHELL_PID} > {inst}/set_event_pid",
          f"echo work_thread_main > {inst}/set_ftrace_filter",
          f"echo function > {inst}/current_tracer",
          f"echo 1 > {inst}/events/sched/sched_switch/enable",
          f"echo 1 > {inst}/options/function-fork", f"echo 1 > {inst}/options/event-fork")
    try:
        lines = sh.run("work 0.05 1")
        sh.check(len(lines) == 1 and lines[0].endswith(": ok"), "work did not end well", lines)
        sh.do(f"echo 0 > {inst}/tracing_on")
        trace = tf.read_trace(sh, f"{inst}/trace")
        workers = {e.pid for e in trace.events if e.comm.startswith("work/")}
        sh.check(len(workers) == sh.smp,
                 f"the instance followed {len(workers)} of {sh.smp} work threads")
        funcs = {e.pid for e in trace.events if e.kind == "function" and e.pid != SHELL_PID}
        sh.check(funcs == workers, f"work_thread_main traced in {sorted(funcs)}, not in the "
                 f"forked {sorted(workers)}")
        # Freed children left the instance's lists; the top level's stayed empty.
        sh.check(sh.run(f"cat {inst}/set_ftrace_pid") == [str(SHELL_PID)],
                 "the instance's set_ftrace_pid kept freed children")
        sh.check(sh.run(f"cat {inst}/set_event_pid") == [str(SHELL_PID)],
                 "the instance's set_event_pid kept freed children")
        sh.check(sh.run("cat set_ftrace_pid") == ["no pid"], "the top level's list changed")
        sh.check(sh.run("cat set_event_pid") == [], "the top level's list changed")
    finally:
        sh.do(f"echo nop > {inst}/current_tracer", f"rmdir {inst}")
