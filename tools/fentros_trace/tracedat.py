"""trace.dat, version 6 (trace-cmd.dat.v6(5)): the file trace-cmd and KernelShark read.

Layout, little-endian: magic 17 08 44 "tracing", "6\\0", endianness 0, long size 8, u32
page size; "header_page\\0" u64 size, text; "header_event\\0" u64 size, text; u32 count
of ftrace formats, each u64 size + text; u32 count of systems, each name\\0, u32 count,
each u64 size + text; u32 size + kallsyms; u32 size + printk_formats; u64 size +
saved_cmdlines; u32 CPU count; "options  \\0" then options (u16 id, u32 size, data) up to
id 0; "flyrecord\\0"; per CPU u64 offset, u64 size; then each CPU's pages, page-aligned.
"""

import os
import struct
from typing import Iterator, List, Sequence, Tuple, Union

MAGIC = b"\x17\x08\x44tracing"
PAGE_SIZE = 4096

OPTION_DONE, OPTION_CPUSTAT, OPTION_TRACECLOCK, OPTION_UNAME = 0, 2, 4, 5


class TraceDatError(Exception):
    pass


def write(path: Union[str, "os.PathLike[str]"], *, header_page: bytes, header_event: bytes,
          ftrace_formats: Sequence[bytes], systems: Sequence[Tuple[str, Sequence[bytes]]],
          kallsyms: bytes, printk_formats: bytes, cmdlines: bytes,
          cpu_data: Sequence[bytes], options: Sequence[Tuple[int, bytes]] = ()) -> None:
    """systems: [(name, [format text])]; cpu_data: [bytes of pages] by CPU;
    options: [(id, bytes)]."""
    out = bytearray()
    out += MAGIC + b"6\0" + bytes([0, 8]) + struct.pack("<I", PAGE_SIZE)
    out += b"header_page\0" + struct.pack("<Q", len(header_page)) + header_page
    out += b"header_event\0" + struct.pack("<Q", len(header_event)) + header_event
    out += struct.pack("<I", len(ftrace_formats))
    for fmt in ftrace_formats:
        out += struct.pack("<Q", len(fmt)) + fmt
    out += struct.pack("<I", len(systems))
    for name, formats in systems:
        out += name.encode() + b"\0" + struct.pack("<I", len(formats))
        for fmt in formats:
            out += struct.pack("<Q", len(fmt)) + fmt
    out += struct.pack("<I", len(kallsyms)) + kallsyms
    out += struct.pack("<I", len(printk_formats)) + printk_formats
    out += struct.pack("<Q", len(cmdlines)) + cmdlines
    out += struct.pack("<I", len(cpu_data))
    if options:
        out += b"options  \0"
        for option_id, data in options:
            out += struct.pack("<HI", option_id, len(data)) + data
        out += struct.pack("<H", OPTION_DONE)
    out += b"flyrecord\0"
    table = len(out)
    out += bytes(16 * len(cpu_data))
    offset = -(-len(out) // PAGE_SIZE) * PAGE_SIZE
    for cpu, data in enumerate(cpu_data):
        struct.pack_into("<QQ", out, table + 16 * cpu, offset, len(data))
        offset += -(-len(data) // PAGE_SIZE) * PAGE_SIZE
    with open(path, "wb") as f:
        f.write(out)
        for data in cpu_data:
            f.seek(-(-f.tell() // PAGE_SIZE) * PAGE_SIZE)
            f.write(data)
        f.truncate()


class Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise TraceDatError(f"the file ends at byte {len(self.data)}, inside a section "
                                "(truncated?)")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def u16(self) -> int:
        value: int = struct.unpack("<H", self.take(2))[0]
        return value

    def u32(self) -> int:
        value: int = struct.unpack("<I", self.take(4))[0]
        return value

    def u64(self) -> int:
        value: int = struct.unpack("<Q", self.take(8))[0]
        return value

    def cstr(self) -> str:
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            raise TraceDatError("a name runs to the end of the file (truncated?)")
        s = self.data[self.pos:end]
        self.pos = end + 1
        return s.decode("utf-8", errors="replace")


class TraceDat:
    """A parsed trace.dat v6: the texts it carries and each CPU's page data."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        with open(path, "rb") as f:
            data = f.read()
        if not data.startswith(MAGIC):
            raise TraceDatError(f"{path}: not a trace.dat file (no trace-cmd magic)")
        r = Reader(data)
        r.take(len(MAGIC))
        version = r.cstr()
        if version != "6":
            raise TraceDatError(f"{path}: trace.dat version {version}; this reads version 6 "
                                "(trace-cmd convert --file-version 6 makes one)")
        endian, long_size = r.take(2)
        if endian != 0 or long_size != 8:
            raise TraceDatError(f"{path}: only little-endian 64-bit traces are read")
        self.page_size = r.u32()
        if r.take(12) != b"header_page\0":
            raise TraceDatError(f"{path}: no header_page section")
        self.header_page = r.take(r.u64())
        if r.take(13) != b"header_event\0":
            raise TraceDatError(f"{path}: no header_event section")
        self.header_event = r.take(r.u64())
        self.ftrace_formats = [r.take(r.u64()) for _ in range(r.u32())]
        self.systems: List[Tuple[str, List[bytes]]] = []
        for _ in range(r.u32()):
            name = r.cstr()
            self.systems.append((name, [r.take(r.u64()) for _ in range(r.u32())]))
        self.kallsyms = r.take(r.u32())
        self.printk_formats = r.take(r.u32())
        self.cmdlines = r.take(r.u64())
        ncpus = r.u32()
        self.options: List[Tuple[int, bytes]] = []
        kind = r.take(10)
        if kind == b"options  \0":
            while True:
                option_id = r.u16()
                if option_id == OPTION_DONE:
                    break
                self.options.append((option_id, r.take(r.u32())))
            kind = r.take(10)
        if kind != b"flyrecord\0":
            raise TraceDatError(f"{path}: no flyrecord section (latency traces are not read)")
        self.cpu_data: List[bytes] = []
        for cpu in range(ncpus):
            offset, size = r.u64(), r.u64()
            if offset + size > len(data):
                raise TraceDatError(f"{path}: CPU {cpu}'s data runs past the end of the file "
                                    "(truncated?)")
            self.cpu_data.append(data[offset:offset + size])

    def all_formats(self) -> Iterator[Tuple[str, bytes]]:
        yield from (("ftrace", f) for f in self.ftrace_formats)
        for system, formats in self.systems:
            yield from ((system, f) for f in formats)
