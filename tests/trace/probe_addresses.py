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


def test_address_fetch_flags(sh):
    """Linux 6.1 sets a probe's fetch flags only for a symbol (tests/reference/
    linux-6.1-probe-groups-order.txt): by address, $argN is refused on p and r alike and
    $retval on r, while an r's %ip is the return address, as with a symbol; an r off a
    function's entry fails as a registration does."""
    addr = address_of(sh, "ftrace_test_target")
    inside = f"{int(addr, 16) + 5:x}"
    sh.do("echo > kprobe_events", "echo > error_log", "echo > trace")
    for line, err in ((f"p:a1 0x{addr} $arg1", "Invalid argument"),
                      (f"r:a2 0x{addr} $retval", "Invalid argument"),
                      (f"r:a3 0x{addr} $arg1", "Invalid argument"),
                      (f"r:a4 0x{addr} %ip", None),
                      (f"r:a5 0x{inside}", "Invalid argument")):
        got = sh.run(f"echo '{line}' >> kprobe_events; echo rc=$?")
        want = ["rc=0"] if err is None else [f"echo: write error: {err}", "rc=1"]
        sh.check(got == want, f"'{line}' was not taken or refused as Linux 6.1 does", got)
    log = [line.split("error: ", 1)[1] for line in sh.run("cat error_log") if "error: " in line]
    sh.check(log == ["Invalid $-variable specified", "$retval is not available on probe",
                     "Invalid $-variable specified", "Failed to register probe event"],
             "error_log is not Linux's for the address probes", log)
    sh.do("echo 1 > events/kprobes/a4/enable")
    sh.run("ftrace_test_call target 2")
    sh.do("echo 0 > events/kprobes/a4/enable")
    bodies = [line.split(": ", 1)[1] for line in sh.run("cat trace")
              if not line.startswith("#") and ": " in line]
    sh.check(len(bodies) == 2, "two returns recorded", bodies)
    for body in bodies:
        m = re.fullmatch(r"a4: \((\S+)\+0x([0-9a-f]+)/0x[0-9a-f]+ <- ftrace_test_target\) "
                         r"arg1=0x([0-9a-f]+)", body)
        sh.check(m is not None, "the return record's shape", [body])
        ret = sh.run(f"grep ' {m.group(1)}$' /proc/kallsyms")[0].split()[0]
        sh.check(int(m.group(3), 16) == int(ret, 16) + int(m.group(2), 16),
                 "%ip of a return probe placed by address is not the return address", [body])
    sh.do("echo > kprobe_events")
