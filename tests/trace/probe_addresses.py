"""kprobes placed by address, as Linux 6.1 keeps them (tests/reference/linux-6.1-probe-groups.txt,
its last part): `p ADDR` and `r ADDR` on a function's first byte read back as the address (Linux
prints it with %p, hashed; fentros unhashed), are named p_0xADDR and r_0xADDR when no name is
given, fire as a probe on that function does, and `ADDR%return` is not a place: ENOENT with
Linux's error_log line and caret. The address comes from /proc/kallsyms, so the test cannot be
a fixed transcript."""

import re

from harness import tracefmt as tf

setup = teardown = tf.reset_tracing


def address_of(sh, name):
    lines = sh.run(f"grep ' {name}$' /proc/kallsyms")
    sh.check(len(lines) == 1 and re.fullmatch(r"[0-9a-f]{16} [tT] " + name, lines[0]),
             f"/proc/kallsyms has no single text symbol {name}", lines)
    return lines[0].split()[0]


def test_probes_by_address(sh):
    addr = address_of(sh, "ftrace_test_target")
    sh.do("echo > kprobe_events", "echo > error_log", "echo > trace")
    sh.do(f"echo 'p 0x{addr} a=%di:u64' >> kprobe_events", f"echo 'r 0x{addr}' >> kprobe_events")
    lines = sh.run(f"echo 'p:x1 0x{addr}%return' >> kprobe_events; echo rc=$?")
    sh.check(lines == ["echo: write error: No such file or directory", "rc=1"],
             "ADDR%return was not refused as Linux refuses it (ENOENT)", lines)
    log = sh.run("cat error_log")
    want = [re.compile(r"\[\s*\d+\.\d{6}\] trace_kprobe: error: Invalid probed address or symbol"),
            f"  Command: p:x1 0x{addr}%return", "                ^"]
    sh.check(len(log) == 3 and want[0].fullmatch(log[0]) is not None and log[1:] == want[1:],
             "error_log is not Linux's line for ADDR%return", log)
    got = sh.run("cat kprobe_events")
    sh.check(got == [f"p:kprobes/p_0x{addr} 0x{addr} a=%di:u64",
                     f"r10:kprobes/r_0x{addr} 0x{addr}"],
             "an address probe does not read back as its address", got)
    names = sh.run("ls events/kprobes")
    sh.check(names == ["enable", "filter", f"p_0x{addr}", f"r_0x{addr}"],
             "the automatic names are not p_0xADDR and r_0xADDR", names)
    # They fire as probes on the function do: on its ftrace site, and at its return.
    sh.do("echo 1 > events/kprobes/enable")
    sh.run("ftrace_test_call target 3")
    sh.do("echo 0 > events/kprobes/enable")
    bodies = [line.split(": ", 1)[1] for line in sh.run("cat trace")
              if not line.startswith("#") and ": " in line]
    entries = [b for b in bodies if re.fullmatch(
        rf"p_0x{addr}: \(ftrace_test_target\+0x0/0x[0-9a-f]+\) a=\d+", b)]
    returns = [b for b in bodies if re.fullmatch(
        rf"r_0x{addr}: \(\S+\+0x[0-9a-f]+/0x[0-9a-f]+ <- ftrace_test_target\)", b)]
    sh.check(len(entries) == 3 and len(returns) == 3,
             f"{len(entries)} entry and {len(returns)} return records for 3 calls", bodies[:8])
    # Removed by the address, as placed.
    sh.do(f"echo '-:p_0x{addr} 0x{addr}' >> kprobe_events", f"echo '-:r_0x{addr}' >> kprobe_events")
    sh.check(sh.run("cat kprobe_events") == [], "the address probes were not removed")
