"""fentros's compact tracer records -> Linux 6.1's ftrace records, byte for byte as the
format files of events/ftrace describe them.

The kernel's tracers write compact records (kernel/trace/trace_internal.h): a context
word (type in bits 28..31, Linux-style flags in 24..27, preempt depth in 20..23, pid in
0..19) and addresses as 32-bit offsets from the kernel's base (it lives in the top 2 GiB).
A function event is 12 bytes of payload where Linux's is 24, so the kernel keeps the
compact form and this module widens it when a trace leaves the kernel. Trace events
(sched_switch and the rest) are already in Linux's layout: a context word whose top nibble
is 0 marks them, and they pass unchanged.
"""

import struct

KERNEL_BASE = 0xffffffff80000000  # KERNEL_VMA_BASE, include/kernel/mm.h

# Compact record types (enum trace_type) and the Linux event ids they widen to.
FULL, FN, STACK, PRINT, GRAPH_ENT, GRAPH_RET, CTXWAKE, HWLAT, OSNOISE, TIMERLAT = range(10)
ID_FUNCTION, ID_KERNEL_STACK, ID_PRINT, ID_FUNCGRAPH_EXIT, ID_FUNCGRAPH_ENTRY = 1, 4, 5, 10, 11
ID_CONTEXT_SWITCH, ID_WAKEUP, ID_HWLAT, ID_OSNOISE, ID_TIMERLAT = 2, 3, 15, 16, 17

# A task state as the wakeup tracers' records hold it: Linux's task_state_index, whose
# letters the compact record keeps (TASK_REPORT's order).
TASK_STATES = "RSDTtXZPI"

# The context word's flag bits -> Linux's common_flags bits.
FLAG_MAP = ((0x1, 0x01),   # irqs off
            (0x2, 0x04),   # need resched
            (0x4, 0x08),   # hardirq
            (0x8, 0x40))   # NMI

# Graph depths: the compact records keep an interrupt-entry flag above the depth
# (kernel/trace/trace_functions_graph.c), which Linux's records have no field for.
GRAPH_ENT_DEPTH = 0xffff
GRAPH_RET_DEPTH = 0x7ff

STACK_DEPTH = 8  # kernel_stack's caller[8] in the format file


class WidenError(Exception):
    pass


def address(offset: int) -> int:
    return KERNEL_BASE + offset if offset else 0


def common(event_id: int, ctx: int) -> bytes:
    flags = 0
    for bit, linux_bit in FLAG_MAP:
        if (ctx >> 24) & bit:
            flags |= linux_bit
    return struct.pack("<HBBi", event_id, flags, (ctx >> 20) & 0xf, ctx & 0xfffff)


class Widener:
    """mark_write: the address of the kernel's tracing_mark_write (from kallsyms), which
    Linux stores in every print record and fentros's compact marker record leaves out."""

    def __init__(self, mark_write: int = 0) -> None:
        self.mark_write = mark_write

    def widen(self, ts: int, payload: bytes) -> bytes:
        """The record a Linux kernel would have written, with the same time."""
        if len(payload) < 4:
            raise WidenError(f"a record of {len(payload)} bytes")
        ctx: int = struct.unpack_from("<I", payload)[0]
        try:
            return self._widen(ctx >> 28, ctx, ts, payload)
        except struct.error as e:
            raise WidenError(f"a record of type {ctx >> 28} and {len(payload)} bytes is cut "
                             f"short ({e})") from e

    def _widen(self, kind: int, ctx: int, ts: int, payload: bytes) -> bytes:
        if kind == FULL:
            return payload
        if kind == FN:
            ip, parent = struct.unpack_from("<II", payload, 4)
            return common(ID_FUNCTION, ctx) + struct.pack("<QQ", address(ip), address(parent))
        if kind == GRAPH_ENT:
            func, depth = struct.unpack_from("<II", payload, 4)
            depth &= GRAPH_ENT_DEPTH  # bit 16 marks an interrupt's first call
            return common(ID_FUNCGRAPH_ENTRY, ctx) + struct.pack("<Qi4x", address(func), depth)
        if kind == GRAPH_RET:
            func, packed, lo, hi = struct.unpack_from("<IIII", payload, 4)
            duration = hi << 32 | lo
            # The record is written at the return: its time is rettime.
            return common(ID_FUNCGRAPH_EXIT, ctx) + struct.pack(
                "<QiIQQ", address(func), packed & GRAPH_RET_DEPTH, packed >> 12, ts - duration, ts)
        if kind == PRINT:
            (length,) = struct.unpack_from("<I", payload, 4)
            text = payload[8:8 + length].split(b"\0", 1)[0]
            # Linux's marker record ends its text with a newline and a NUL.
            if not text.endswith(b"\n"):
                text += b"\n"
            return common(ID_PRINT, ctx) + struct.pack("<Q", self.mark_write) + text + b"\0"
        if kind == STACK:
            (nr,) = struct.unpack_from("<I", payload, 4)
            calls = struct.unpack_from(f"<{nr}I", payload, 8)
            # As Linux: size counts the entries, which may be more than the format
            # file's caller[8]; an array shorter than that is padded with zeros.
            callers = [address(c) for c in calls]
            callers += [0] * (STACK_DEPTH - len(callers))
            return (common(ID_KERNEL_STACK, ctx) + struct.pack("<i4x", nr)
                    + struct.pack(f"<{len(callers)}Q", *callers))
        if kind == CTXWAKE:
            (prev_pid, next_pid, prev_prio, next_prio, prev_state, next_state, next_cpu,
             wakeup) = struct.unpack_from("<iiBBccBB", payload, 4)
            return common(ID_WAKEUP if wakeup else ID_CONTEXT_SWITCH, ctx) + struct.pack(
                "<IIIBBBB", prev_pid, next_pid, next_cpu, prev_prio, state_index(prev_state),
                next_prio, state_index(next_state))
        if kind == HWLAT:
            seqnum, inner, outer, count, ts_lo, ts_hi = struct.unpack_from("<6I", payload, 4)
            start = ts_hi << 32 | ts_lo
            return common(ID_HWLAT, ctx) + struct.pack(
                "<QQQqqIII4x", inner, outer, 0, start // 1_000_000_000, start % 1_000_000_000, 0,
                seqnum, count)
        if kind == OSNOISE:
            (runtime, noise, max_sample, hw, nmi, irq, softirq,
             thread) = struct.unpack_from("<QQQ5I", payload, 4)
            return common(ID_OSNOISE, ctx) + struct.pack(
                "<QQQ5I4x", noise, runtime, max_sample, hw, nmi, irq, softirq, thread)
        if kind == TIMERLAT:
            seqnum, context, latency = struct.unpack_from("<IIQ", payload, 4)
            return common(ID_TIMERLAT, ctx) + struct.pack("<IiQ", seqnum, context, latency)
        raise WidenError(f"unknown record type {kind}")


def state_index(state: bytes) -> int:
    """A compact record's state letter as Linux's index (an unknown one as R's 0)."""
    index = TASK_STATES.find(state.decode("latin-1"))
    return max(index, 0)
