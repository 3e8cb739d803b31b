#!/usr/bin/env python3
"""A seeded fuzzer of the serial shell and every tracefs file.

Lines come from the shell's grammar (commands from `help`, words, quotes, `;`, `|`, `>`
and `>>`) and from each file's own vocabulary (tracers, function globs and commands,
event names, filter expressions, event triggers, probe lines of each kind (kprobes, fprobes,
event probes), numbers at their boundaries, cpumasks,
pid lists), with hostile variants (long words, unbalanced quotes, control bytes, raw
bytes). After every line the prompt must come back (a command still running after a while gets Ctrl-C, and
must stop), and no fault text may appear; every CHECK_EVERY lines tracing is reset and
must still trace a known call exactly.

    make fuzz SEED=7 LINES=5000            # one boot at $(SMP) CPUs
    python3 tests/fuzz.py --seed 7 --lines 5000 --smp 4

On a failure it prints the seed, the line number and the line, so the run replays:
the same seed gives the same lines. `make test` runs a short fixed-seed run at 1, 2 and 4
CPUs (tests/trace/fuzz_short.py). `make fuzz` boots with an instance laid on reserved
memory too (BOOT_CMDLINE), whose files join the vocabulary.
"""

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from fentros_machine import qemu  # noqa: E402
from fentros_machine.console import Console  # noqa: E402
from harness import tracefmt  # noqa: E402
from harness.isos import IsoCache  # noqa: E402
from harness.paths import (GRUB_TEMPLATE, ISO_DIR, KERNEL, MKISO, ROOT,  # noqa: E402
                           TEST_CMDLINE, TEST_LOG_DIR)
from harness.tracetest import Running, Shell, TestFailure  # noqa: E402

TRACEFS = tracefmt.TRACEFS
CHECK_EVERY = 50
QUIET_SECONDS = 2.0   # a command still printing or blocking after this gets Ctrl-C
STOP_SECONDS = 20.0   # and must be back at the prompt within this after Ctrl-C

# Commands the fuzzer never types, one reason each.
EXCLUDED = {
    "poweroff": "ends the machine", "reboot": "ends the machine",
    "crash": "crashes on purpose", "ftrace_corrupt": "breaks ftrace on purpose",
    "graph_mismatch_test": "breaks the graph tracer on purpose",
    "selftest": "minutes long", "bench": "minutes long",
    "ftrace_torture": "run by its own tests", "graph_torture": "run by its own tests",
    "snapshot_torture": "run by its own tests",
}

NUMBERS = ["0", "1", "-1", "2", "3", "7", "15", "100", "4096", "65535", "2147483647",
           "2147483648", "-2147483649", "4294967295", "4294967296", "9223372036854775807",
           "18446744073709551615", "18446744073709551616", "0x10", "0x", "010", "08", "1e3",
           "+5", "--1", "1.5", " ", "", "abc", "1 2"]
WORDS = ["work_*", "kfree", "*", "!kfree", "*lock*", "k?alloc", "ftrace_test_target",
         "ftrace_test_target_hot", "nosuchfunc", "[ab]*", "*[", "\\*", "sched*", "shell_*",
         "ftrace_test_target:traceoff", "ftrace_test_target_hot:traceon:3",
         "kfree:stacktrace:2", "!kfree:stacktrace:0", "*:dump", "pfs_*:cpudump",
         "ftrace_test_target:nosuchcmd", ":mod:foo", "!", "!!", "!*", "a:b:c:d",
         "ftrace_test_target:snapshot", "work_*:snapshot:3", "!ftrace_test_target:snapshot",
         "ftrace_test_target_hot:snapshot:", "!work_*:snapshot:0", "x:snapshot:y",
         "schedule:enable_event:sched:sched_wakeup", "kfree:disable_event:sched:sched_switch:2",
         "!schedule:enable_event:sched:sched_wakeup", "!kfree:disable_event:sched:sched_switch:0",
         "ftrace_test_target:enable_event:sched:nosuch", "*:enable_event:irq:irq_handler_entry:1",
         "work_*:disable_event:sched:sched_wakeup:", "!*:enable_event:irq:irq_handler_entry:0"]
TRACERS = ["function", "function_graph", "nop", "blk", "functio", "function_graph ", "irqsoff",
           "preemptoff", "preemptirqsoff", "wakeup", "wakeup_rt", "wakeup_dl", "irqsof", "hwlat",
           "osnoise", "timerlat", "osnois"]
CPULISTS = ["0", "1", "0-1", "0-3", "1-0", "0,1", "0,,1", "0-", "-1", "3", "15", "16", "99",
            "0-15", "a", "", " ", "0 1", "1,0", "0-0", "4294967296"]
EVENTS = ["sched:*", "*:*", "sched_switch", "!sched:sched_switch", "irq:", ":", "*",
          "nosuch:event", "irq_vectors:local_timer_entry", "sched:sched_w*", "!*:*",
          "sched", "ftrace:function", "preemptirq:*", "preemptirq:irq_disable",
          "!preemptirq:preempt_enable"]
FILTERS = ["prev_pid == 1", "next_comm ~ \"work*\"", "(((", "prev_pid == abc", "0", "1",
           "cpu & 1", "common_pid != 0 && prev_pid < 5 || !(next_pid >= 3)", "==", "&&",
           "prev_comm == \"sh", "next_pid == 99999999999999999999", "!", "()",
           "prev_pid == 1 &&", "nosuch == 1", "comm ~ \"*\"", "prev_state & 2"]
TRIGGERS = ["traceon", "traceoff", "traceoff:1", "!traceoff", "!traceon:0", "stacktrace",
            "stacktrace:2 if prev_pid == 0", "!stacktrace", "snapshot", "!snapshot:1",
            "enable_event:sched:sched_wakeup", "disable_event:sched:sched_wakeup:3",
            "!enable_event:sched:sched_wakeup", "!disable_event:sched:sched_wakeup",
            "enable_event:irq:irq_handler_entry if cpu == 0", "!enable_event:irq:irq_handler_entry",
            "traceon if nosuch == 1", "traceon:abc", "traceon:", "traceoff  if  common_pid != 0",
            "enable_event:sched", "enable_event:nosys:nosuch", "hist:keys=pid", "bogus", "!",
            "!bogus", "traceoff if", "traceon traceoff", "stacktrace:0x10", "traceon:2:3",
            "hist:keys=common_pid.execname,prev_state:vals=hitcount", "hist:keys=stacktrace",
            "hist:keys=next_comm:vals=prev_pid:sort=hitcount.descending:size=256",
            "!hist:keys=next_comm:vals=prev_pid:sort=hitcount.descending", "hist:keys=pid:pause",
            "hist:keys=pid:cont", "hist:keys=pid:clear", "hist:keys=prev_pid.log2,cpu:size=128",
            "hist:keys=next_pid.buckets=0", "hist:keys=next_pid.bogus", "hist:keys=a,b,c,d",
            "hist:keys=prev_pid:sort=", "hist:keys=prev_pid:sort=x.y,z,w", "hist:vals=x",
            "hist:name=fz:keys=common_pid", "hist:name=fz:keys=prev_pid", "hist:keys=x:foo=bar",
            "hist:keys=common_timestamp.usecs:size=131072", "hist:keys=prev_pid if", "hist:",
            "hist:keys=vec.sym-offset:vals=common_cpu.hex", "enable_hist:sched:sched_switch",
            "disable_hist:sched:sched_switch:2 if cpu == 0", "!disable_hist:sched:sched_switch",
            "enable_hist:sched:nosuch", "hist:keys=prev_pid:onmax($x).save(y)",
            "hist:keys=ts0=common_timestamp.usecs", "hist:keys=prev_pid:size=99999999999",
            "hist:keys=pid:ts0=common_timestamp.usecs", "!hist:keys=pid:ts0=common_timestamp.usecs",
            "hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking)"
            ".wakeup_latency($wakeup_lat,next_pid,next_prio)",
            "hist:keys=next_pid:l=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking)"
            ".trace(wakeup_latency,$l,next_pid,prev_prio)", "hist:keys=next_pid:x=$nosuch",
            "hist:keys=next_pid:a=prev_pid*2+next_pid/0-1", "hist:keys=pid:onmatch(x.y).z()",
            "hist:keys=pid:t=common_timestamp:onchange($t).snapshot()",
            "!hist:keys=pid:t=common_timestamp:onchange($t).snapshot()",
            "hist:keys=pid:u=common_timestamp.usecs:onmax($u).snapshot(pid)",
            "hist:keys=pid:onmatch(sched.sched_waking).snapshot()", "hist:keys=pid:onmax($u).snapshot(",
            "hist:keys=pid:onmatch(sched.sched_switch).wakeup_latency($a)", "hist:keys=pid:a=",
            "hist:keys=pid:a=1+2+3+4+5+6+7+8+9", "hist:keys=pid:onmax($x).save(pid)"]
SYNTHETIC = ["wakeup_latency u64 lat; pid_t pid; int prio", "!wakeup_latency", "", "x",
             "e1 u64 a; s32 b; unsigned int c", "!e1", "e2 unsigned", "bad u99 x", "9x u64 y",
             "e3 u64 a; u64 a", "!nosuch", "e4 char s[16]", "e5 " + "u64 f; " * 70, "!"]
MASKS = ["1", "3", "f", "ffffffff", "0", "zz", "1,1", "ffffffffffffffffffff", "-1"]
PIDS = ["1", "0", "1 2 3", "-1", "99999999", "abc", "1,2", "2 2 2 2"]
# trace_marker_raw: the first four bytes are the id (write_line also sends binary ones).
RAW_MARKS = ["ABCD", "ABC", "A", "", "ABCDdata", "WXYZ" + "d" * 600, "1234" * 800]
TIMESTAMP_MODES = ["delta", "absolute", "[delta]", "x"]
CLOCKS = ["local", "global", "counter", "uptime", "x86-tsc", "nosuch", "[local]"]
OPTIONS = ["print-parent", "noprint-parent", "sym-offset", "nosym-offset", "func_stack_trace",
           "nofunc_stack_trace", "overwrite", "nooverwrite", "nosuch", "no", "funcgraph-proc",
           "stacktrace", "nostacktrace", "latency-format", "nolatency-format", "function-trace",
           "nofunction-trace"]
# kprobe lines: entries and SYM+OFFS places anywhere (int3), on and off instruction
# boundaries, in traced, notrace and blacklisted functions, at raw addresses.
KPROBE_SYMS = ["kprobe_int3_call", "kprobe_int3_notrace", "kprobe_int3_jcc", "work_compute",
               "kfree", "pfs_open", "x86_kprobe_int3", "kprobe_int3_hit", "nosuchfunc",
               "0xffffffff80100000", "0x1"]
KPROBE_OFFS = ["", "+0", "+1", "+2", "+4", "+5", "+7", "+9", "+0x10", "+33", "+100", "+4096",
               "+0x7fffffff", "-1", "+", "%return", "+5%return"]
KPROBE_ARGS = ["", "%di", "a=%ax:u32", "$arg1", "+0(%sp):x64", "s=+0(%di):string", "$stack",
               "%ip", "$retval", "sa=+0(%di):string[3]"]
KPROBES = [f"{kind}:fz/k{(i * 7) % 5} {sym}{off} {arg}".rstrip()
           for i, (kind, sym, off, arg) in enumerate(
               (kind, sym, off, arg) for kind in ("p", "r") for sym in KPROBE_SYMS
               for off in KPROBE_OFFS for arg in KPROBE_ARGS)]
KPROBES += [f"-:fz/k{i}" for i in range(5)] + ["-:fz/", "-:k0", "", "-:fz/ kfree",
            "-:fz/ kprobe_int3_call+5 %di", "-:", "-:/", "p 0xffffffff80100000", "r 0x1"]
# fprobe lines (dynamic_events only): traced, notrace, blacklisted and unknown functions,
# offsets and suffixes, maxactive on entries and exits, register and $-arguments.
FPROBE_SYMS = ["pfs_open", "kfree", "kprobe_int3_notrace", "memcpy", "nosuchfunc", "pfs_open+4",
               "0xffffffff80100000", "kprobe_int3_hit"]
FPROBE_ARGS = KPROBE_ARGS + ["path=+0($arg2):string", "$stack0", "$comm", "@jiffies", "x=%zz",
                             "r=$retval:s32 $arg1"]
FPROBES = [f"{kind}:fz/f{i % 4} {sym}{suffix} {arg}".rstrip()
           for i, (kind, sym, suffix, arg) in enumerate(
               (kind, sym, suffix, arg) for kind in ("f", "f8", "f0", "f5000")
               for sym in FPROBE_SYMS for suffix in ("", "%return", "%ret")
               for arg in FPROBE_ARGS)]
FPROBES += ["-:fz/f0", "-:fz/f1 pfs_open", "-:fz/f2 pfs_open%return", "!f:fz/f3 kfree", "f"]
# event probe lines: trace, synthetic, probe and ftrace events as targets, good and bad
# names, fields, dereferences, types and filters.
EPROBE_NAMES = [":fz/e0", ":fz/e1", "", ":e2", ":fz/", ":fz.e3", "1:fz/e0", ":/e", ":fz/k0"]
EPROBE_TARGETS = ["sched.sched_switch", "sched/sched_waking", "irq.irq_handler_entry",
                  "synthetic.fzs", "fz.k0", "fz/e1", "ftrace.function", "sched.", "nosuch.ev",
                  "sched", "sched/sched_switch%return"]
EPROBE_ARGS = ["", "$prev_pid", "p=$next_pid:s32", "c=$prev_comm:string", "+0($next_comm):u8[4]",
               "$comm", "$pid:s8", "n=$name:string", "+8(+0($prev_comm))", "$nosuch", "%ax",
               "$stack", "@jiffies", "\\1", "x=$prev_pid:b4@2/32", "if prev_pid == 0", "if",
               "if nosuch", "p=$prev_pid if next_pid > 1", "l=$lat:x16", "s=$prev_comm:symstr"]
EPROBES = [f"e{name} {target} {arg}".rstrip() for name in EPROBE_NAMES
           for target in EPROBE_TARGETS for arg in EPROBE_ARGS]
EPROBES += ["-:fz/e0", "-:fz/e0 sched.sched_switch", "!e:fz/e1 sched/sched_waking",
            "-:e2 sched/sched_switch $prev_pid", "-:eprobes/", "e",
            "e:fz/e0 sched.sched_switch if prev_pid == 0 " + " ".join(["x"] * 140),
            "e:fz/e1 sched.sched_switch " + " ".join(f"a{i}=$prev_pid" for i in range(130))]
# tracepoint probe lines (dynamic_events only): tracepoints of one, two and four arguments
# (irq_disable's turns the latency hooks on), names that are no tracepoint (ftrace's own
# events, probes, synthetic events, bad characters, a suffix), maxactive, $argN in and past
# the tracepoint's arguments, dereferences of them, registers, $stack, $retval.
TPROBE_NAMES = ["", ":fz/t0", ":fz/t1", ":t2", ":fz/", "5:fz/t0", "0", ":1x", ":fz/k0", ":fz/e0"]
TPROBE_POINTS = ["sched_switch", "sched_wakeup", "irq_handler_entry", "irq_disable",
                 "thread_noise", "function", "fzs", "k0", "nosuch", "sched.switch",
                 "sched_switch%return", ""]
TPROBE_ARGS = ["", "$arg1", "p=+8($arg1):s32", "c=+12($arg2):string", "$arg2:symbol", "$arg5",
               "$arg0", "$comm", "$stack", "$retval", "%di", "@jiffies", "\\7",
               "+0(+0($arg1)):u8[4]", "x=$arg1:string"]
TPROBES = [f"t{name} {point} {arg}".rstrip() for name in TPROBE_NAMES
           for point in TPROBE_POINTS for arg in TPROBE_ARGS]
TPROBES += ["-:fz/t0", "-:fz/t1 sched_switch", "!t:fz/t0 sched_switch", "-:t2 sched_wakeup $arg1",
            "-:tracepoints/", "t", "t:fz/t0 sched_switch " + " ".join(f"a{i}=$arg1" for i in range(130))]
# dynamic_events also takes synthetic events and removals by the line that made them.
DYNAMIC = KPROBES + FPROBES + EPROBES + TPROBES + ["s:fzs u64 lat; pid_t pid", "s:synthetic/fzs2 char c[]; int v;",
                     "s:junk/fzs u64 x", "s:fzs", "s:", "-:synthetic/fzs", "-:fzs2 char c[]; int v",
                     "!s:fzs u64 lat; pid_t pid", "!p:fz/k0 kfree", "!r:fz/k1 kfree", "-:fzs u64 y",
                     "s:fzs3 u64 a; u64 b; u64 c; u64 d; u64 e; u64 f; u64 g; u64 h"]

# tracefs files and the vocabularies written to them.
FILES = {
    "current_tracer": TRACERS, "tracing_on": NUMBERS, "buffer_size_kb": NUMBERS,
    "set_ftrace_filter": WORDS, "set_ftrace_notrace": WORDS, "set_graph_function": WORDS,
    "set_graph_notrace": WORDS, "stack_trace_filter": WORDS, "set_event": EVENTS,
    "set_event_pid": PIDS, "set_event_notrace_pid": PIDS, "set_ftrace_pid": PIDS,
    "set_ftrace_notrace_pid": PIDS, "tracing_cpumask": MASKS, "trace_clock": CLOCKS,
    "trace_options": OPTIONS, "trace_marker": WORDS + NUMBERS, "max_graph_depth": NUMBERS,
    "tracing_thresh": NUMBERS, "function_profile_enabled": NUMBERS,
    "stack_max_size": NUMBERS, "saved_cmdlines_size": NUMBERS, "error_log": ["", "x"],
    "trace": ["", "x"], "events/enable": NUMBERS, "events/sched/enable": NUMBERS,
    "events/sched/filter": FILTERS, "events/sched/sched_switch/enable": NUMBERS,
    "events/sched/sched_switch/filter": FILTERS, "events/irq/filter": FILTERS,
    "events/irq_vectors/local_timer_entry/filter": FILTERS,
    "per_cpu/cpu0/buffer_size_kb": NUMBERS, "per_cpu/cpu0/trace": ["", "x"],
    "options/func_stack_trace": NUMBERS, "options/overwrite": NUMBERS,
    "options/funcgraph-irqs": NUMBERS, "options/event-fork": NUMBERS,
    "options/function-fork": NUMBERS, "/proc/sys/kernel/stack_tracer_enabled": NUMBERS,
    "available_tracers": TRACERS, "events/header_page": NUMBERS, "README": WORDS,
    "snapshot": NUMBERS, "per_cpu/cpu0/snapshot": NUMBERS,
    "events/sched/sched_switch/trigger": TRIGGERS, "events/sched/sched_wakeup/trigger": TRIGGERS,
    "events/irq_vectors/local_timer_entry/trigger": TRIGGERS,
    "events/irq/irq_handler_entry/trigger": TRIGGERS, "options/stacktrace": NUMBERS,
    "kprobe_events": KPROBES, "dynamic_events": DYNAMIC, "events/fz/enable": NUMBERS,
    "events/fz/k0/enable": NUMBERS, "events/fz/k1/enable": NUMBERS,
    "events/fz/e0/enable": NUMBERS, "events/fz/e1/enable": NUMBERS, "events/fz/f0/enable": NUMBERS,
    "events/fz/f1/enable": NUMBERS, "events/eprobes/enable": NUMBERS,
    "events/fprobes/enable": NUMBERS, "events/fz/e0/trigger": TRIGGERS,
    "events/fz/t0/enable": NUMBERS, "events/fz/t1/filter": FILTERS,
    "events/tracepoints/enable": NUMBERS,
    "events/fz/e1/filter": FILTERS,
    "events/sched/sched_switch/hist": ["", "x"], "synthetic_events": SYNTHETIC,
    "events/sched/sched_waking/trigger": TRIGGERS, "events/ftrace/print/trigger": TRIGGERS,
    "tracing_max_latency": NUMBERS,
    "options/latency-format": NUMBERS, "options/function-trace": NUMBERS,
    "events/preemptirq/enable": NUMBERS, "events/preemptirq/irq_disable/enable": NUMBERS,
    "events/preemptirq/preempt_enable/filter": FILTERS, "hwlat_detector/width": NUMBERS,
    "hwlat_detector/window": NUMBERS,
    "instances/fz/current_tracer": TRACERS, "instances/fz/tracing_on": NUMBERS,
    "instances/fz/buffer_size_kb": NUMBERS, "instances/fz/set_event": EVENTS,
    "instances/fz/events/enable": NUMBERS, "instances/fz/events/sched/enable": NUMBERS,
    "instances/fz/events/sched/sched_switch/enable": NUMBERS, "instances/fz/snapshot": NUMBERS,
    "instances/fz/set_ftrace_filter": WORDS, "instances/fz/set_ftrace_notrace": WORDS,
    "instances/fz/trace_marker": WORDS + NUMBERS, "instances/fz/trace_clock": CLOCKS,
    "instances/fz/tracing_cpumask": MASKS, "instances/fz/trace": ["", "x"],
    "instances/fz/per_cpu/cpu0/buffer_size_kb": NUMBERS, "instances/fz/events/fz/enable": NUMBERS,
    "instances/fz/events/sched/sched_switch/filter": FILTERS,
    "instances/fz/events/sched/filter": FILTERS, "instances/fz/error_log": ["", "x"],
    "instances/fz/events/sched/sched_switch/trigger": TRIGGERS,
    "instances/fz/events/ftrace/print/trigger": TRIGGERS,
    "osnoise/period_us": NUMBERS,
    "osnoise/runtime_us": NUMBERS, "osnoise/stop_tracing_us": NUMBERS,
    "osnoise/stop_tracing_total_us": NUMBERS, "osnoise/print_stack": NUMBERS,
    "osnoise/timerlat_period_us": NUMBERS + ["100", "1000", "1000000", "1000001", "99"],
    "osnoise/cpus": CPULISTS, "events/osnoise/enable": NUMBERS,
    "events/osnoise/irq_noise/enable": NUMBERS, "events/osnoise/thread_noise/filter": FILTERS,
    "buffer_percent": NUMBERS, "free_buffer": ["", "1", "x"], "trace_marker_raw": RAW_MARKS,
    "timestamp_mode": TIMESTAMP_MODES, "options/disable_on_free": NUMBERS,
    "instances/fz/buffer_percent": NUMBERS, "instances/fz/free_buffer": ["", "1", "x"],
    "instances/fz/trace_marker_raw": RAW_MARKS, "instances/fz/timestamp_mode": TIMESTAMP_MODES,
    "instances/fz/tracing_max_latency": NUMBERS, "instances/fz/options/disable_on_free": NUMBERS,
    # The instance `make fuzz` lays on reserved memory at boot (BOOT_CMDLINE below): its
    # fixed-size buffer, its last boot's trace (its first write of a tracer, event, marker
    # or clock starts this boot's) and last_boot_info; ENOENT elsewhere.
    "instances/fzboot/current_tracer": TRACERS, "instances/fzboot/tracing_on": NUMBERS,
    "instances/fzboot/buffer_size_kb": NUMBERS, "instances/fzboot/trace_marker": WORDS,
    "instances/fzboot/trace_clock": CLOCKS, "instances/fzboot/free_buffer": ["", "1"],
    "instances/fzboot/events/sched/sched_switch/enable": NUMBERS,
    "instances/fzboot/trace": ["", "x"],
}
# `make fuzz` boots with an instance on a reserve_mem range (tests/export/test_last_boot.py
# resets the machine under one; here its files take the fuzzer's lines).
BOOT_CMDLINE = "reserve_mem=1M:4096:fzrange trace_instance=fzboot@fzrange"
# mkdir and rmdir: the instances the files above name, and paths they must refuse.
DIRS = ["instances/fz", "instances/fz", "instances/fy", "instances", "instances/fz/x", "events",
        "instances/", "nosuch/x", "/", ".", "..", "instances/.", "instances/fz/events",
        "instances/" + "n" * 300, "trace"]
READ_ONLY_SAFE = ["available_filter_functions", "enabled_functions", "trace",
                  "per_cpu/cpu0/stats", "trace_stat/function0", "stack_trace", "error_log",
                  "saved_cmdlines", "saved_tgids", "printk_formats", "events/header_event",
                  "dyn_ftrace_total_info", "/proc/kallsyms", "/proc/meminfo", "nosuchfile",
                  "events/sched/sched_switch/format", "options", "/", "events",
                  "events/sched/sched_switch/trigger", "events/sched/sched_switch/enable",
                  "snapshot", "per_cpu/cpu0/snapshot", "kprobe_events", "kprobe_profile",
                  "dynamic_events", "events/fz/e0/format", "events/fz/f0/format",
                  "/sys/kernel/debug/kprobes/list", "events/sched/sched_switch/hist",
                  "events/irq_vectors/local_timer_entry/hist", "events/sched/sched_wakeup/hist",
                  "tracing_max_latency", "events/preemptirq/irq_disable/format",
                  "instances", "instances/fz/trace", "instances/fz/set_event",
                  "instances/fz/per_cpu/cpu0/stats", "instances/fz/snapshot",
                  "instances/fz/events/sched/sched_switch/hist", "instances/fz/error_log",
                  "events/osnoise/irq_noise/format", "osnoise", "osnoise/cpus", "timestamp_mode",
                  "instances/fz/timestamp_mode", "events/ftrace/raw_data/format",
                  "instances/fzboot/last_boot_info", "instances/fzboot/trace",
                  "instances/fzboot/per_cpu/cpu0/stats", "instances/fzboot/snapshot"]


class Generator:
    def __init__(self, seed, commands):
        self.rng = random.Random(seed)
        self.commands = [c for c in commands if c not in EXCLUDED]

    def hostile(self, word):
        r = self.rng.random()
        if r < 0.3:
            return word * self.rng.choice((2, 50, 400))
        if r < 0.5:
            return word + self.rng.choice(("'", "\"", "\\", "$?", ";", "|", ">", "\t"))
        if r < 0.7:
            return "".join(chr(self.rng.choice((1, 2, 7, 8, 0x15, 0x1b, 0x7f, 0x80, 0xff)))
                           if self.rng.random() < 0.2 else ch for ch in word)
        return self.rng.choice(("", " ", "''", "\"\"", "-", "--", "-n"))

    def value(self, vocab):
        v = self.rng.choice(vocab)
        return self.hostile(v) if self.rng.random() < 0.15 else v

    def quoted(self, text):
        if "'" not in text and self.rng.random() < 0.8:
            return f"'{text}'"
        return text

    def write_line(self):
        path = self.rng.choice(list(FILES))
        redirect = ">>" if self.rng.random() < 0.3 else ">"
        if path.endswith("trace_marker_raw") and self.rng.random() < 0.5:
            data = "".join(f"\\x{self.rng.randrange(256):02x}"
                           for _ in range(self.rng.choice((0, 3, 4, 5, 16, 700))))
            return f"printf '{data}' {redirect} {path}"
        return f"echo {self.quoted(self.value(FILES[path]))} {redirect} {path}"

    def read_line(self):
        path = self.rng.choice(READ_ONLY_SAFE + list(FILES))
        tail = self.rng.choice(("", " | head -n 3", " | wc -l", " | grep -c a", " | tail -n 2"))
        return f"cat {path}{tail}"

    def command_line(self):
        cmd = self.rng.choice(self.commands)
        if cmd == "work":
            return f"work {self.rng.choice(('0.01', '0', '-1', 'x', '0.02 2', '0.01 0'))}"
        if cmd == "sleep":
            return f"sleep {self.rng.choice(('0', '0.01', '-1', 'x', '1e9', ''))}"
        if cmd == "preemptirq_delay":
            mode = self.rng.choice(("irq", "preempt", "alternate", "wakeup", "x", ""))
            usecs = self.rng.choice(("1", "100", "5000", "0", "-1", "x", "1000001", ""))
            cpu = self.rng.choice(("0", "1", "99", "x", ""))
            opts = [("-t", mode), ("-d", usecs), ("-b", self.rng.choice(("1", "3", "11"))),
                    ("-c", cpu)]
            self.rng.shuffle(opts)
            return "preemptirq_delay " + " ".join(
                f"{o} {v}" for o, v in opts[:self.rng.randrange(5)])
        if cmd in ("mkdir", "rmdir"):
            return self.dir_line(cmd)
        if cmd == "chrt":
            opts = self.rng.choice(("", "-f ", "-r ", "-o ", "-m ", "-x ", "-f -r ", "--fifo "))
            prio = self.value(NUMBERS) + " " if self.rng.random() < 0.7 else ""
            return f"chrt {opts}-p {prio}{self.value(PIDS)}"
        args = [self.value(self.rng.choice((NUMBERS, WORDS, READ_ONLY_SAFE)))
                for _ in range(self.rng.randrange(4))]
        return " ".join([cmd] + [self.quoted(a) for a in args])

    def dir_line(self, cmd=None):
        cmd = cmd or self.rng.choice(("mkdir", "rmdir"))
        return " ".join([cmd] + [self.value(DIRS) for _ in range(self.rng.randrange(1, 3))])

    def raw_line(self):
        n = self.rng.choice((1, 5, 40, 300))
        data = bytes(self.rng.choice([b for b in range(1, 256) if b not in (3, 10, 13)])
                     for _ in range(n))
        return data

    def line(self):
        r = self.rng.random()
        if r < 0.45:
            text = self.write_line()
        elif r < 0.65:
            text = self.read_line()
        elif r < 0.9:
            # Instances come and go often enough for their files to be written when there.
            text = self.command_line() if self.rng.random() < 0.85 else self.dir_line()
        elif r < 0.95:
            return self.raw_line() + b"\r"
        else:
            parts = [self.write_line(), self.read_line(), self.command_line()]
            self.rng.shuffle(parts)
            text = self.rng.choice(("; ", " | ", ";")).join(parts[:self.rng.randrange(2, 4)])
        return text.encode("utf-8", errors="surrogateescape") + b"\r"


def check_still_traces(sh):
    """Back to tracing's boot state, then one known call traced exactly."""
    tracefmt.remove_function_commands(sh)
    sh.run(f"echo > {TRACEFS}/set_graph_function; echo > {TRACEFS}/set_graph_notrace")
    sh.run("echo 0 > /proc/sys/kernel/stack_tracer_enabled; "
           f"echo 0 > {TRACEFS}/function_profile_enabled; echo 0 > {TRACEFS}/tracing_thresh")
    tracefmt.reset_tracing(sh)
    sh.do("echo ftrace_test_target_hot > set_ftrace_filter", "echo function > current_tracer",
          "ftrace_test_call chain 3", "echo 0 > tracing_on")
    count = sh.run("cat trace | grep -c ' ftrace_test_target_hot <-'")
    sh.check(count == ["3"], f"after fuzzing, 3 calls traced as {count}")
    tracefmt.reset_tracing(sh)


def type_line(sh, data, n):
    """Types one line; Ctrl-C if it runs on; fails if the prompt never comes back."""
    running = Running(sh, data.decode("utf-8", errors="replace"), sh.console.begin(data))
    how = running.wait_quiet(QUIET_SECONDS, QUIET_SECONDS * 3)
    if how == "prompt":
        return running.finish()
    lines = running.interrupt(STOP_SECONDS)
    # The command may have ended just before the Ctrl-C went out: the idle shell then
    # answers it with "^C" and a second prompt, which would end the next command's wait.
    resync(sh, n)
    return lines


def resync(sh, n):
    """Types `echo fuzz-sync-N` and reads up to the prompt after its output: whatever
    earlier prompts were still on their way are behind it."""
    token = f"fuzz-sync-{n}".encode()
    start = sh.console.begin(b"echo " + token + b"\r")
    output = b"\n" + token + b"\r\n"
    found = []

    def printed(buf, begin):
        at = buf.find(output, begin)
        if at >= 0:
            found.append(at)
        return at >= 0

    if not sh.console.wait_output(start, printed, STOP_SECONDS):
        raise TestFailure(f"no output from `echo {token.decode()}`",
                          sh.console.output_since(start)[-10:], fatal=True)
    # From the output's own newline on, the next prompt is the one after it.
    sh.reply_lines(f"echo {token.decode()}", sh.console.finish(found[-1], STOP_SECONDS))


def fuzz(sh, seed, lines, commands, log=None):
    gen = Generator(seed, commands)
    sh.run(f"cd {TRACEFS}")
    # Each line's check reads the serial log from the line before it on, not from the boot:
    # on the shared boot of make test the log before the fuzzer holds megabytes of traces,
    # and rereading them after every line cost more than the fuzzing. Crash text that came
    # earlier is the harness's to see (it checks the whole test's log when the test ends).
    previous = sh.console.mark()
    for n in range(1, lines + 1):
        data = gen.line()
        if log:
            log(n, data)
        try:
            began = sh.console.mark()
            type_line(sh, data, n)
            crash = sh.console.crash_lines(previous)
            previous = began
            if crash:
                raise TestFailure("fault text on the console", crash[:5], fatal=True)
            if n % CHECK_EVERY == 0 or n == lines:
                check_still_traces(sh)
                sh.run(f"cd {TRACEFS}")
        except TestFailure as err:
            err.details[:0] = [f"seed {seed}, line {n}: {data!r}"]
            raise


def shell_commands(sh):
    return [line.split()[0] for line in sh.run("help") if line.strip()]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lines", type=int, default=2000)
    p.add_argument("--smp", type=int, default=2)
    p.add_argument("--timeout", type=float, default=60, help="seconds a command may take")
    p.add_argument("-v", "--verbose", action="store_true", help="print every line typed")
    args = p.parse_args()
    TEST_LOG_DIR.mkdir(parents=True, exist_ok=True)
    iso = IsoCache(ROOT, KERNEL, MKISO, ISO_DIR, extra_inputs=[GRUB_TEMPLATE]).get(
        f"{TEST_CMDLINE} {BOOT_CMDLINE}")
    console = Console(qemu.fentros_argv(iso, args.smp), TEST_LOG_DIR / f"fuzz-seed{args.seed}.log")
    began = time.monotonic()
    try:
        boot = console.wait_boot(120)
        if boot.cwd is None:
            print("fuzz: the kernel did not boot", file=sys.stderr)
            return 1
        sh = Shell(console, args.smp, args.timeout, {})
        log = (lambda n, d: print(f"{n}: {d!r}")) if args.verbose else None
        fuzz(sh, args.seed, args.lines, shell_commands(sh), log)
    except TestFailure as err:
        print(f"fuzz: FAIL: {err.message}")
        for line in err.details:
            print(f"    {line}")
        print(f"replay: python3 tests/fuzz.py --seed {args.seed} --lines {args.lines} "
              f"--smp {args.smp}   (serial log: build/test-logs/fuzz-seed{args.seed}.log)")
        return 1
    finally:
        console.kill()
    print(f"fuzz: seed {args.seed}: {args.lines} lines at {args.smp} CPUs, "
          f"{time.monotonic() - began:.0f} s: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
