"""Backtraces taken in an interrupt that arrived in a function whose return address
function_graph (or the profiler) had swapped for return_to_handler: the stacktrace
command on sched_tick (called from the timer interrupt) must unwind through the
interrupt frame into the interrupted function and name its real caller, as Linux's
unwinder does with ftrace_graph_ret_addr: no return_to_handler, no bare addresses."""

from harness import tracefmt as tf

setup = teardown = tf.reset_tracing
TIMEOUT = 120


def stacks(lines):
    """The `=> frame` lists of the trace, one per <stack trace>."""
    out, cur = [], None
    for line in lines:
        if line.startswith(" => "):
            if cur is None:
                cur = []
                out.append(cur)
            cur.append(line[4:].strip())
        else:
            cur = None
    return out


def interrupted_graph_frames(sh, enable, disable):
    """Runs the load with sched_tick's stacktrace command and the given hook on; returns
    the stacks whose interrupted part holds two work_* frames (a hooked function and the
    caller its swapped return address leads to), after checking every stack is clean."""
    sh.do("echo 'sched_tick:stacktrace' > set_ftrace_filter", *enable)
    sh.run("work 0.3 2")
    sh.do("echo 0 > tracing_on")
    found = stacks(sh.run("cat trace"))  # before a tracer switch clears the buffer
    sh.do(*disable, "echo '!sched_tick:stacktrace' >> set_ftrace_filter")
    sh.check(found, "no stack traces recorded")
    # The C side of the return hook (ftrace_return_to_handler, or the lone graph client's
    # return handler) is a real function and may be where the interrupt landed; the
    # trampoline return_to_handler is not a caller.
    bad = [s for s in found
           if any(f.split("+")[0] == "return_to_handler" or f.startswith("0x") for f in s)]
    sh.check(not bad, f"{len(bad)} of {len(found)} stacks show return_to_handler or an "
             "address", bad[:2])
    deep = []
    for s in found:
        if "isr_common" in s:
            below = s[s.index("isr_common") + 1:]
            if sum(f.startswith("work_") for f in below) >= 2:
                deep.append(s)
    return found, deep


def test_under_function_graph(sh):
    found, deep = interrupted_graph_frames(
        sh, ["echo 'work_*' > set_graph_function", "echo function_graph > current_tracer"],
        ["echo nop > current_tracer", "echo > set_graph_function"])
    sh.check(deep, f"none of {len(found)} stacks unwound from the interrupt into two "
             "graph-hooked work_* frames", found[:3])


def test_under_profiler(sh):
    found, deep = interrupted_graph_frames(
        sh, ["echo 1 > function_profile_enabled"], ["echo 0 > function_profile_enabled"])
    sh.check(deep, f"none of {len(found)} stacks unwound from the interrupt into two "
             "work_* frames the profiler hooked", found[:3])
