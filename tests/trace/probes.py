"""Event probes, fprobes, tracepoint probes and return probes under load, record by record: an
event probe on sched_switch writes, on the same CPU right after each sched_switch, the values
that sched_switch's own record holds; it fires with its event even when that event records
nothing; a tracepoint probe on sched_switch reads the tracepoint's own arguments (the two
threads) on the same CPU right before each sched_switch record; an fprobe's entry and exit come
in pairs, with the caller and the return value of each call; return probes read the registers
and the stack as the function left them, on every CPU."""

import re

from harness import tracefmt as tf

setup = teardown = tf.reset_tracing
TIMEOUT = 120

EPROBE = ("e:ep sched/sched_switch prev=$prev_pid:s32 next=$next_pid:s32 "
          "pc=$prev_comm:string nc=$next_comm:string st=+0($next_comm):x8")
EP_RE = re.compile(r'ep: \(sched\.sched_switch\) prev=(?P<prev_pid>-?\d+) '
                   r'next=(?P<next_pid>-?\d+) pc="(?P<prev_comm>[^"]*)" '
                   r'nc="(?P<next_comm>[^"]*)" st=0x(?P<first>[0-9a-f]+)')
SWITCH_RE = tf.TRACE_EVENT_LINES["sched_switch"]


def run_work(sh, seconds="0.05", threads=2):
    lines = sh.run(f"work {seconds} {threads}")
    sh.check(len(lines) == 1 and lines[0].endswith(": ok"), "work did not end well", lines)
    sh.do("echo 0 > tracing_on")


def read_lines(sh, path="trace"):
    """The trace's event lines as (line number, cpu, flags, body, pid), strictly parsed."""
    out, bad = [], []
    for lineno, line in enumerate(sh.run(f"cat {path}"), 1):
        if line.startswith("#"):
            continue
        ctx = tf.parse_context(line)
        if isinstance(ctx, str):
            bad.append(f"line {lineno}: {ctx}: {line}")
            continue
        _comm, pid, cpu, flags, _ts, body = ctx
        out.append((lineno, cpu, flags, body, pid))
    sh.check(not bad, "lines not in Linux's form", bad[:10])
    return out


def level(flags):
    """The preempt-depth column: '.' is 0."""
    return 0 if flags[3] == "." else int(flags[3], 16)


def no_loss(sh):
    lines = sh.run("cat trace | head -n 3")
    m = re.search(r"entries-written: (\d+)/(\d+)", "\n".join(lines))
    sh.check(m is not None and m.group(1) == m.group(2),
             "events were lost: the pairs need them all", lines)


def test_eprobe_follows_its_event(sh):
    # Each switch between the two enables makes one of the two lines: start after them.
    sh.do(f"echo '{EPROBE}' >> dynamic_events", "echo 1 > events/eprobes/ep/enable",
          "echo 1 > events/sched/sched_switch/enable", "echo > trace")
    run_work(sh)
    no_loss(sh)
    pending = {}
    bad = []
    pairs = 0
    for lineno, cpu, flags, body, _pid in read_lines(sh):
        if body.startswith("sched_switch: "):
            m = SWITCH_RE.fullmatch(body[len("sched_switch: "):])
            sh.check(m is not None, f"line {lineno}: not Linux's sched_switch line", [body])
            if cpu in pending:
                bad.append(f"line {lineno}: CPU {cpu}: a sched_switch without its ep")
            pending[cpu] = (lineno, m, flags)
            continue
        m = EP_RE.fullmatch(body)
        if not m:
            bad.append(f"line {lineno}: not the ep line: {body}")
            continue
        if cpu not in pending:
            bad.append(f"line {lineno}: CPU {cpu}: an ep without its sched_switch")
            continue
        at, sw, sw_flags = pending.pop(cpu)
        for name in ("prev_pid", "next_pid", "prev_comm", "next_comm"):
            if m.group(name) != sw.group(name):
                bad.append(f"lines {at} and {lineno}: {name} {sw.group(name)} vs {m.group(name)}")
        if int(m.group("first"), 16) != ord(sw.group("next_comm")[0]):
            bad.append(f"line {lineno}: +0($next_comm) is 0x{m.group('first')}, not "
                       f"{sw.group('next_comm')[0]!r}")
        # Written inside sched_switch's writer: one preemption level deeper.
        if level(flags) != level(sw_flags) + 1:
            bad.append(f"lines {at} and {lineno}: preemption levels {sw_flags[3]} and {flags[3]}")
        pairs += 1
    sh.check(not bad, f"{len(bad)} sched_switch/ep mismatches", bad[:10])
    sh.check(pairs >= 4 * sh.smp, f"only {pairs} pairs")


def test_eprobe_without_its_event(sh):
    # sched_switch records nothing; its writer runs for the probe alone (soft mode).
    sh.do(f"echo '{EPROBE}' >> dynamic_events", "echo 1 > events/eprobes/ep/enable")
    sh.check(sh.run("cat events/sched/sched_switch/enable") == ["0*"],
             "sched_switch is not in soft mode")
    run_work(sh)
    lines = read_lines(sh)
    eps = [line[3] for line in lines if EP_RE.fullmatch(line[3])]
    sh.check(len(eps) == len(lines), "lines other than ep",
             [line[3] for line in lines if not EP_RE.fullmatch(line[3])][:5])
    sh.check(len(eps) >= 4 * sh.smp, f"only {len(eps)} ep lines")
    sh.do("echo 0 > events/eprobes/ep/enable", "echo '-:ep' >> dynamic_events")
    sh.check(sh.run("cat events/sched/sched_switch/enable") == ["0"],
             "sched_switch stays in soft mode")


# sched_switch's tracepoint takes prev and next (struct thread *): pid at +8, name at +12
# (kernel/trace/probes/tprobe_selftests.c pins both).
TPROBE = ("t:tp sched_switch prev=$arg1 next=$arg2 prev_pid=+8($arg1):s32 "
          "next_pid=+8($arg2):s32 prev_comm=+12($arg1):string next_comm=+12($arg2):string")
TP_RE = re.compile(r'tp: \(__probestub_sched_switch\+0x0/0x[0-9a-f]+\) prev=0x(?P<prev>[0-9a-f]+) '
                   r'next=0x(?P<next>[0-9a-f]+) prev_pid=(?P<prev_pid>-?\d+) '
                   r'next_pid=(?P<next_pid>-?\d+) prev_comm="(?P<prev_comm>[^"]*)" '
                   r'next_comm="(?P<next_comm>[^"]*)"')


def test_tprobe_reads_the_tracepoint(sh):
    """A t: probe on sched_switch under work on every CPU: each of its records comes right
    before the sched_switch record of the same switch, on the same CPU, with the same
    threads (pids, and names but for the idle threads, which the event calls swapper/N);
    each thread keeps one address, and a CPU's next thread is the prev of its next switch."""
    sh.do(f"echo '{TPROBE}' >> dynamic_events", "echo 1 > events/tracepoints/tp/enable",
          "echo 1 > events/sched/sched_switch/enable", "echo > trace")
    run_work(sh)
    no_loss(sh)
    pending, last_next, address = {}, {}, {}
    bad = []
    pairs = 0
    for lineno, cpu, flags, body, _pid in read_lines(sh):
        m = TP_RE.fullmatch(body)
        if m:
            if cpu in pending:
                bad.append(f"line {lineno}: CPU {cpu}: a tp without its sched_switch")
            pending[cpu] = (lineno, m, flags)
            continue
        if not body.startswith("sched_switch: "):
            bad.append(f"line {lineno}: neither tp nor sched_switch: {body}")
            continue
        sw = SWITCH_RE.fullmatch(body[len("sched_switch: "):])
        sh.check(sw is not None, f"line {lineno}: not Linux's sched_switch line", [body])
        if cpu not in pending:
            bad.append(f"line {lineno}: CPU {cpu}: a sched_switch without its tp")
            continue
        at, tp, tp_flags = pending.pop(cpu)
        for side in ("prev", "next"):
            pid = tp.group(f"{side}_pid")
            if pid != sw.group(f"{side}_pid"):
                bad.append(f"lines {at} and {lineno}: {side}_pid {sw.group(f'{side}_pid')} "
                           f"vs {pid}")
            if pid != "0" and tp.group(f"{side}_comm") != sw.group(f"{side}_comm"):
                bad.append(f"lines {at} and {lineno}: {side}_comm {sw.group(f'{side}_comm')!r} "
                           f"vs {tp.group(f'{side}_comm')!r}")
            # The idle threads of the CPUs are all pid 0: one address per CPU.
            key = (pid, cpu) if pid == "0" else pid
            if address.setdefault(key, tp.group(side)) != tp.group(side):
                bad.append(f"line {at}: pid {pid} at 0x{tp.group(side)}, before at "
                           f"0x{address[key]}")
        if cpu in last_next and last_next[cpu] != tp.group("prev"):
            bad.append(f"line {at}: CPU {cpu} switches from 0x{tp.group('prev')}, not from the "
                       f"0x{last_next[cpu]} it switched to")
        last_next[cpu] = tp.group("next")
        # The probes run one preemption level deeper than the event's writer.
        if level(tp_flags) != level(flags) + 1:
            bad.append(f"lines {at} and {lineno}: preemption levels {flags[3]} and "
                       f"{tp_flags[3]}")
        pairs += 1
    sh.check(not bad, f"{len(bad)} tp/sched_switch mismatches", bad[:10])
    sh.check(pairs >= 4 * sh.smp, f"only {pairs} pairs")
    sh.do("echo 0 > events/tracepoints/tp/enable", "echo '-:tp' >> dynamic_events")


def test_fprobe_entry_and_exit(sh):
    sh.do("echo 'f:fe pfs_open path=+0($arg2):string' >> dynamic_events",
          "echo 'f:fx pfs_open%return r=$retval:s32' >> dynamic_events",
          "echo 1 > events/fprobes/enable")
    runs = 20
    for _ in range(runs):
        sh.run("cat /proc/uptime")
    sh.do("echo 0 > events/fprobes/enable", "echo 0 > tracing_on")
    entries, exits, bad = 0, 0, []
    depth = {}
    # A call's entry and exit are its thread's, wherever the thread ran meanwhile.
    for lineno, _cpu, _flags, body, pid in read_lines(sh):
        m = re.fullmatch(r'fe: \(pfs_open\+0x0/0x[0-9a-f]+\) path="(?P<path>[^"]*)"', body)
        if m:
            entries += 1
            depth[pid] = depth.get(pid, 0) + 1
            continue
        m = re.fullmatch(r"fx: \((?P<caller>\w+)\+0x[0-9a-f]+/0x[0-9a-f]+ <- pfs_open\) "
                         r"r=(?P<r>-?\d+)", body)
        if m:
            exits += 1
            if m.group("caller").startswith("return_to_handler"):
                bad.append(f"line {lineno}: the caller is the return hook: {body}")
            if depth.get(pid, 0) == 0:
                bad.append(f"line {lineno}: an exit with no entry before it in pid {pid}")
            depth[pid] = depth.get(pid, 0) - 1
            continue
        bad.append(f"line {lineno}: neither fe nor fx: {body}")
    sh.check(not bad, f"{len(bad)} bad lines", bad[:10])
    sh.check(entries == exits and entries >= runs,
             f"{entries} entries and {exits} exits for {runs} opens at least")


RETREGS_RE = re.compile(r"(?P<ev>w[12]): \((?P<caller>\w+\+0x[0-9a-f]+/0x[0-9a-f]+) <- work_compute\) "
                        r"ret=0x(?P<ret>[0-9a-f]+) ax=0x(?P<ax>[0-9a-f]+) "
                        r"s0=0x(?P<s0>[0-9a-f]+) sp0=0x(?P<sp0>[0-9a-f]+) ip=(?P<ip>\S+) "
                        r"bx=0x(?P<bx>[0-9a-f]+)")


def test_kretprobe_registers_under_load(sh):
    """Two return probes on one function that the load calls on every CPU, interrupts
    arriving in their return hooks: each reads $retval in %ax, $stack0 at the stack
    pointer, %ip the caller the line names, and both probes of one call read the same %bx
    (the second hook sees the registers the first one put back)."""
    args = "ret=$retval ax=%ax s0=$stack0 sp0=+0(%sp) ip=%ip:symbol bx=%bx"
    sh.do(f"echo 'r:w1 work_compute {args}' >> kprobe_events",
          f"echo 'r:w2 work_compute {args}' >> kprobe_events",
          "echo 1 > events/kprobes/enable", "echo > trace")
    run_work(sh, "0.03", 1)
    sh.do("echo 0 > events/kprobes/enable")
    bad, seen, cpus, last = [], {"w1": 0, "w2": 0}, set(), {}
    for lineno, cpu, _flags, body, pid in read_lines(sh):
        m = RETREGS_RE.fullmatch(body)
        if not m:
            bad.append(f"line {lineno}: not a w1 or w2 line: {body}")
            continue
        seen[m.group("ev")] += 1
        cpus.add(cpu)
        if m.group("ret") != m.group("ax") or m.group("s0") != m.group("sp0") \
                or m.group("ip") != m.group("caller"):
            bad.append(f"line {lineno}: registers disagree: {body}")
        # One call's two records follow each other on its thread, in either order.
        prev = last.pop(pid, None)
        if prev is None:
            last[pid] = m
        elif prev.group("ev") == m.group("ev") or prev.group("bx") != m.group("bx") \
                or prev.group("ret") != m.group("ret"):
            bad.append(f"line {lineno}: the other probe of the call read otherwise: {body}")
    sh.check(not bad, f"{len(bad)} bad lines", bad[:10])
    sh.check(seen["w1"] == seen["w2"] and seen["w1"] > 0, f"records: {seen}")
    sh.check(len(cpus) == sh.smp, f"records on CPUs {sorted(cpus)} of {sh.smp}")
    sh.do("echo > kprobe_events")


MANY = 300  # more than the armed table held before the site index (256)


def test_many_probes_armed_at_once(sh):
    """MANY entry probes on as many functions, all enabled, beside one on
    ftrace_test_target: the handler finds each site's probe through the site index, so the
    target's probe fires exactly once per call, with its own arguments, and every other
    probe that was hit wrote its own event's records."""
    funcs = [line.split()[0] for line in sh.run("cat available_filter_functions")
             if line.split() and not line.startswith("ftrace_test_target")]
    sh.check(len(funcs) >= MANY, f"only {len(funcs)} functions to probe")
    chosen = funcs[:MANY]
    for i in range(0, MANY, 10):
        sh.do("; ".join(f"echo 'p:many/k{j} {chosen[j]}' >> kprobe_events"
                        for j in range(i, min(i + 10, MANY))))
    sh.do("echo 'p:one/target ftrace_test_target a=%di:u64' >> kprobe_events",
          "echo 1 > events/many/enable", "echo 1 > events/one/enable")
    calls = 200
    sh.run(f"ftrace_test_call target {calls}")
    sh.do("echo 0 > tracing_on", "echo 0 > events/one/enable", "echo 0 > events/many/enable")
    profile = {line.split()[0]: line.split() for line in sh.run("cat kprobe_profile")}
    sh.check(profile.get("target", [None, "0"])[1] == str(calls),
             f"the target's probe was hit {profile.get('target')} times for {calls} calls")
    lines = [body for _n, _cpu, _flags, body, _pid in read_lines(sh)]
    target = [b for b in lines if b.startswith("target: (ftrace_test_target+0x0/")]
    sh.check(len(target) == calls, f"{len(target)} target records for {calls} calls",
             target[:3])
    # Each other probe's records name its own function.
    wrong = []
    for body in lines:
        m = re.match(r"k(\d+): \((\w[\w.]*)\+0x0/0x[0-9a-f]+\)$", body)
        if m and chosen[int(m.group(1))] != m.group(2):
            wrong.append(body)
    sh.check(not wrong, "records of one probe name another's function", wrong[:5])
    sh.do("echo > kprobe_events")
