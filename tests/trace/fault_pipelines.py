"""Pipelines of every shape under allocation-failure injection: 2 to 4 stages, the
filters grep, head, tail and wc, cat of tracefs and procfs files and other producers
(work, which starts threads; dmesg, ps, ls, help), redirections, stages that fail to
start, a trace instance made and removed around them; failslab and fail_page_alloc at 5, 30 and 90 %, with the fault
reports (verbose 2: a stack trace each) on. Every pipeline must end every stage and
return the prompt, a pipeline blocked in `cat trace_pipe` must end on Ctrl-C, nothing may
fault, and each round must have injected failures. Before the rounds, function_graph,
the stack tracer and the profiler with a `stacktrace` probe run and are turned off, so
the reports' stack traces walk a thread that had return hooks and probes.

$FAULT_PIPELINE_ROUNDS (default 60) is the number of pipelines per injector and
probability; $FAULT_PIPELINE_SEED picks the sequence (a failure names its seed)."""

import os
import random
import re

from harness import tracefmt as tf
from harness.faultinject import injected, restore_defaults, set_injection

SMP = [2, 4]
TIMEOUT = 60
PROBABILITIES = (5, 30, 90)
PROMPT = re.compile(r"fentros:[^#]*# ")
ROUNDS = int(os.environ.get("FAULT_PIPELINE_ROUNDS", "60"))

FILES = (
    "printk_formats", "enabled_functions", "available_filter_functions", "available_events",
    "trace", "set_ftrace_filter", "README", "stack_trace", "trace_stat/function0",
    "events/sched/sched_switch/format", "/proc/kallsyms", "/proc/meminfo", "/nope",
)
FILTERS = (
    "tail -n 1", "tail -n 40", "head -n 3", "head", "grep -c e", "grep -v '#'", "grep -i SCHED",
    "wc -l", "nosuchcommand", "head -n x",
)
# Producers other than cat: one that starts threads, and commands that print lists.
PRODUCERS = ("work 0.02 1", "dmesg", "ps", "ls -l /sys/kernel/tracing", "help")
SHAPES = (
    "cat {f} | {a}",
    "cat {f} | {a} | {b}",
    "cat {f} | {a} | {b} | {c}",
    "{a} {f} | {b}",
    "cat {f} | {a} > trace_marker",
    "cat {f} | {a} | {b} > /nope/x",
    "cat {f} {f} | {a}",
    "echo {f} | {a} | {b}",
    "cat {f} > trace_marker | {a}",
    "cat {f} | {a}; cat {f} | {b}",
    "{p} | {a}",
    "{p} | {a} | {b}",
    # A trace instance made, read and removed around a pipeline (each may fail for memory).
    "mkdir instances/fp; echo 1 > instances/fp/events/sched/enable; cat instances/fp/trace | {a}; "
    "rmdir instances/fp",
    "mkdir instances/fp | {a}; ls instances/fp | {b}; rmdir instances/fp",
)


def pipelines(rng, count):
    for _ in range(count):
        a, b, c = (rng.choice(FILTERS) for _ in range(3))
        yield rng.choice(SHAPES).format(f=rng.choice(FILES), p=rng.choice(PRODUCERS), a=a, b=b,
                                        c=c)


def run_or_diagnose(sh, command):
    """Runs one line. Without a prompt in time, tells a shell that is stuck (it does not
    answer Enter, or Ctrl-C does not free it) from one whose prompt was followed by
    output of another context (a report printed after it): the test fails either way."""
    console = sh.console
    reply = console.finish(console.begin(command.encode() + b"\r"), sh.timeout)
    if not reply.timed_out:
        return sh.reply_lines(command, reply)
    tail = [f"  | {l}" for l in reply.lines[-20:]]
    answer = console.finish(console.begin(b"\r"), 10)
    if not answer.timed_out:
        sh.fail(f"`{command}`: its prompt was followed by other output", tail)
    answer = console.finish(console.begin(b"\x03"), 10)
    state = "Ctrl-C brought it back" if not answer.timed_out else "Ctrl-C did not end it"
    sh.fail(f"`{command}` never returned ({state})", tail + [f"  | {l}" for l in answer.lines])


def resync(sh):
    """A Ctrl-C that came after its command ended cancels the next prompt's line (the
    shell prints ^C and a new prompt, which then shows in the next command's output):
    once an `echo` shows no prompt of its own, nothing is pending. (Under injection the
    echo may fail.)"""
    for _ in range(10):
        if not any(PROMPT.match(line) for line in sh.run("echo resync")):
            return
    sh.fail("the shell does not settle after Ctrl-C")


def exercise_tracers(sh):
    """Tracers that leave state behind when turned off: graph shadow frames, a saved
    stack, profile pages, a probe's set."""
    sh.do("echo 'work_*' > set_ftrace_filter", "echo function_graph > current_tracer")
    sh.run("work 0.05 1")
    sh.do("echo nop > current_tracer", "echo 1 > /proc/sys/kernel/stack_tracer_enabled")
    sh.run("work 0.05 1")
    sh.do("echo 0 > /proc/sys/kernel/stack_tracer_enabled",
          "echo 'work_compute:stacktrace' >> set_ftrace_filter",
          "echo 1 > function_profile_enabled")
    sh.run("work 0.05 1")
    sh.do("echo 0 > function_profile_enabled",
          "echo '!work_compute:stacktrace' >> set_ftrace_filter", "echo > set_ftrace_filter")


def stress(sh, name):
    seed = int(os.environ.get("FAULT_PIPELINE_SEED", "0")) or random.randrange(1, 1 << 30)
    rng = random.Random(f"{seed}-{name}-{sh.smp}")
    exercise_tracers(sh)
    counts = {}
    for probability in PROBABILITIES:
        set_injection(sh, probability, injectors=(name,), verbose=2)
        for line in pipelines(rng, ROUNDS):
            try:
                run_or_diagnose(sh, line)
            except Exception:
                print(f"fault_pipelines: seed {seed} ({name}, {probability} %)")
                raise
        # A reader blocked with nothing to read ends on Ctrl-C, under injection too.
        # (Its start may have failed: then the prompt is back before any Ctrl-C.)
        running = sh.begin(f"cat trace_pipe | {rng.choice(FILTERS[:8])}")
        if running.wait_quiet(0.3, 5) == "prompt":
            running.finish()
        else:
            running.interrupt()
        resync(sh)
        set_injection(sh, 0, injectors=(name,))
        counts[probability] = injected(sh, (name,))
    sh.check(all(counts.values()), f"{name}: rounds without an injected failure (seed {seed})",
             [f"{p} %: {n}" for p, n in counts.items()])


setup = tf.reset_tracing


def teardown(sh):
    set_injection(sh, 0)
    restore_defaults(sh)
    tf.remove_function_commands(sh)
    tf.reset_tracing(sh)


def test_failslab(sh):
    stress(sh, "failslab")


def test_fail_page_alloc(sh):
    stress(sh, "fail_page_alloc")

