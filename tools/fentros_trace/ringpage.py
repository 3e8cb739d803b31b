"""Ring-buffer pages: fentros's in (trace_pipe_raw), Linux's out (trace.dat).

Both use Linux's sub-buffer framing (events/header_page, events/header_event): a page is
u64 time stamp, u64 commit (bytes of events; bit 31 = events were lost before this page,
bit 30 = their count follows the events as a u64), then events. An event header is a u32:
type_len in bits 0..4, time delta in bits 5..31. type_len 1..28: a payload of 4 * type_len
bytes follows; 0: array[0] holds the payload length + 4 and the payload follows it;
29 padding (array[0] = its length - 4); 30 time extend (delta += array[0] << 27);
31 absolute time stamp (array[0] << 27 | delta, the low 59 bits of the time).
"""

import struct
from typing import List, NamedTuple, Optional, Tuple

PAGE_SIZE = 4096
PAGE_HEADER = 16
PAGE_DATA = PAGE_SIZE - PAGE_HEADER
MISSED_EVENTS = 1 << 31
MISSED_STORED = 1 << 30
COMMIT_MASK = MISSED_STORED - 1

TYPE_PADDING = 29
TYPE_TIME_EXTEND = 30
TYPE_TIME_STAMP = 31
DELTA_BITS = 27
DELTA_MAX = (1 << DELTA_BITS) - 1
TIME_BITS = 59
SMALL_PAYLOAD = 28 * 4


class PageError(Exception):
    pass


class Entry(NamedTuple):
    """One event of a capture, in buffer order. lost_before: the events lost just before
    it (its page's count, on the page's first event; -1 when lost but not counted), else
    None. A page that lost events and holds none gives an entry without a payload, at
    the page's time."""
    ts: int
    payload: Optional[bytes]
    lost_before: Optional[int]


def decode_page(page: bytes, cpu: Optional[int] = None
                ) -> Tuple[Optional[int], int, List[Tuple[int, bytes]]]:
    """One page -> (lost, page time, [(ts, payload bytes)]). lost: events lost before
    this page (None when the page says none were, -1 when lost but not counted)."""
    if len(page) != PAGE_SIZE:
        raise PageError(f"a page of {len(page)} bytes")
    page_ts, commit = struct.unpack_from("<QQ", page)
    size = commit & COMMIT_MASK
    if size > PAGE_DATA:
        raise PageError(f"cpu {cpu}: page commit {size} past the page")
    lost: Optional[int] = None
    if commit & MISSED_EVENTS:
        lost = -1
        if commit & MISSED_STORED and size + 8 <= PAGE_DATA:
            (lost,) = struct.unpack_from("<Q", page, PAGE_HEADER + size)
    data = page[PAGE_HEADER:PAGE_HEADER + size]
    events: List[Tuple[int, bytes]] = []
    pos, t = 0, page_ts
    while pos + 4 <= size:
        (header,) = struct.unpack_from("<I", data, pos)
        kind, delta = header & 31, header >> 5
        room = size - pos
        if kind == TYPE_PADDING:
            length = room if room < 8 else 4 + struct.unpack_from("<I", data, pos + 4)[0]
            if length > room or length % 4:
                raise PageError(f"cpu {cpu}: bad padding at {pos}")
            t += delta
            pos += length
            continue
        if kind in (TYPE_TIME_EXTEND, TYPE_TIME_STAMP):
            if room < 8:
                raise PageError(f"cpu {cpu}: time record cut at {pos}")
            value = struct.unpack_from("<I", data, pos + 4)[0] << DELTA_BITS | delta
            if kind == TYPE_TIME_EXTEND:
                t += value
            else:
                mask = (1 << TIME_BITS) - 1
                t = (page_ts & ~mask) | value
                if t < page_ts:
                    t += 1 << TIME_BITS
            pos += 8
            continue
        if kind == 0:
            if room < 8:
                raise PageError(f"cpu {cpu}: event cut at {pos}")
            length = struct.unpack_from("<I", data, pos + 4)[0] - 4
            start = pos + 8
        else:
            length = 4 * kind
            start = pos + 4
        if length < 0 or start + length > size:
            raise PageError(f"cpu {cpu}: event at {pos} runs past the page")
        t += delta
        events.append((t, bytes(data[start:start + length])))
        pos = start + length
    return lost, page_ts, events


def decode_pages(raw: bytes, cpu: Optional[int] = None) -> List[Entry]:
    """A trace_pipe_raw capture -> its entries in buffer order."""
    if len(raw) % PAGE_SIZE:
        raise PageError(f"cpu {cpu}: {len(raw)} bytes is not a whole number of pages")
    out = []
    for off in range(0, len(raw), PAGE_SIZE):
        lost, page_ts, events = decode_page(raw[off:off + PAGE_SIZE], cpu)
        for i, (ts, payload) in enumerate(events):
            out.append(Entry(ts, payload, lost if i == 0 else None))
        if lost is not None and not events:
            out.append(Entry(page_ts, None, lost))
    return out


class PageWriter:
    """Packs events into Linux pages: one event header each, a time extend where a delta
    needs more than 27 bits, a new page where time goes backwards (the page header holds
    an absolute time), and a new page carrying the count where events were lost."""

    def __init__(self) -> None:
        self.pages: List[bytes] = []
        self._data: Optional[bytearray] = None
        self._ts = self._last = 0
        self._lost: Optional[int] = None

    def _close(self) -> None:
        if self._data is None:
            return
        commit = len(self._data)
        tail = b""
        if self._lost is not None:
            commit |= MISSED_EVENTS
            if self._lost >= 0:
                commit |= MISSED_STORED
                tail = struct.pack("<Q", self._lost)
        body = bytes(self._data) + tail
        self.pages.append(struct.pack("<QQ", self._ts, commit) + body
                          + bytes(PAGE_DATA - len(body)))
        self._data = None
        self._lost = None

    def _open(self, ts: int, lost: Optional[int]) -> bytearray:
        self._close()
        self._data = bytearray()
        self._ts = self._last = ts
        self._lost = lost
        return self._data

    def add(self, ts: int, payload: bytes, lost_before: Optional[int] = None) -> None:
        """An event as large as Linux's largest (4072 bytes, a whole page with its header)
        fits: it opens a page of its own, whose header holds its time, and a loss to
        report before it goes on an empty page of its own."""
        if len(payload) % 4:
            payload = payload + bytes(4 - len(payload) % 4)
        if len(payload) <= SMALL_PAYLOAD:
            event = struct.pack("<I", len(payload) // 4)
        else:
            event = struct.pack("<II", 0, len(payload) + 4)
        size = len(event) + len(payload)
        if size > PAGE_DATA:
            raise PageError(f"an event of {len(payload)} bytes does not fit a page")
        data = self._data
        if lost_before is not None and size + 8 > PAGE_DATA:
            self.mark_lost(lost_before)
            lost_before = None
            data = None
        if lost_before is not None or data is None or ts < self._last:
            data = self._open(ts, lost_before)
        delta = ts - self._last
        stamp = b""
        if delta > DELTA_MAX:
            stamp = struct.pack("<II", TYPE_TIME_EXTEND | (delta & DELTA_MAX) << 5,
                                delta >> DELTA_BITS)
            delta = 0
        room = PAGE_DATA - (8 if self._lost is not None else 0)
        if len(data) + len(stamp) + size > room:
            data = self._open(ts, None)
            stamp, delta = b"", 0
        head = struct.unpack("<I", event[:4])[0] | delta << 5
        data += stamp + struct.pack("<I", head) + event[4:] + payload
        self._last = ts

    def mark_lost(self, lost: int) -> None:
        """Events were lost here, with nothing after them on this CPU."""
        self._open(self._last, lost)

    def finish(self) -> bytes:
        self._close()
        return b"".join(self.pages)
