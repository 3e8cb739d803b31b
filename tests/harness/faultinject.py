"""Allocation-failure injection from a test: /sys/kernel/debug/failslab/ and
fail_page_alloc/. The shell runs a command that names one of these files with injection
paused for itself, so each write below works at the first try, at any probability.

Failures are counted by the kernel's own countdown: injection starts with `times` at
BUDGET and each failure takes one off, so BUDGET - times is what was injected.

Kernel messages may come at any time, between a command's echo and its prompt too: a
script run under injection may leave behind what prints on its own (a `func:dump` probe
whose removal failed for want of memory dumps the buffer each time another function runs
first, until the clean-up removes it). The commands here read their output without them."""

import re

# A line printk wrote: its time stamp first.
KERNEL_MESSAGE = re.compile(r"^\[ *\d+\.\d{6}\] ")

DEBUGFS = "/sys/kernel/debug"
INJECTORS = ("failslab", "fail_page_alloc")
BUDGET = 2147483647  # the largest `times` (an int on Linux): no limit in practice
# Linux's defaults, which the boot starts with.
DEFAULTS = (("probability", 0), ("interval", 1), ("times", 1), ("space", 0), ("verbose", 2))


def _output(sh, command):
    """What `command` printed, kernel messages left out."""
    return [line for line in sh.run(command) if not KERNEL_MESSAGE.match(line)]


def _write_all(sh, name, fields):
    path = f"{DEBUGFS}/{name}"
    command = "; ".join(f"echo {value} > {path}/{field}" for field, value in fields)
    lines = _output(sh, command)
    sh.check(not lines, f"`{command}` printed something", lines[:10])


def set_injection(sh, probability, injectors=INJECTORS, verbose=0):
    """Turns injection on at `probability` % for each injector, every call eligible,
    with a fresh countdown, or (0) off, leaving the countdown to be read by injected()."""
    for name in injectors:
        if probability:
            _write_all(sh, name, (("verbose", verbose), ("interval", 1), ("space", 0),
                                  ("times", BUDGET), ("probability", probability)))
        else:
            _write_all(sh, name, (("probability", 0),))


def injected(sh, injectors=INJECTORS):
    """Failures injected since set_injection turned them on (read with injection off)."""
    total = 0
    for name in injectors:
        lines = _output(sh, f"cat {DEBUGFS}/{name}/times")
        sh.check(len(lines) == 1 and lines[0].lstrip("-").isdigit(),
                 f"{name}/times does not read as a number", lines)
        total += BUDGET - int(lines[0])
    return total


def restore_defaults(sh):
    for name in INJECTORS:
        _write_all(sh, name, DEFAULTS)
