"""Event format files (events/SYSTEM/EVENT/format) and the records they describe."""

import bisect
import re
import struct

FIELD_RE = re.compile(r"\tfield:(?P<decl>[^;]*);\toffset:(?P<offset>\d+);\tsize:(?P<size>\d+);"
                      r"\tsigned:(?P<signed>\d+);")


class Event:
    def __init__(self, system, text):
        self.system = system
        self.name = None
        self.id = None
        self.fields = {}  # name -> (offset, size, signed, declaration)
        for line in text.decode("utf-8", errors="replace").split("\n"):
            if line.startswith("name: "):
                self.name = line[6:].strip()
            elif line.startswith("ID: "):
                self.id = int(line[4:])
            else:
                m = FIELD_RE.match(line)
                if m:
                    decl = m.group("decl")
                    name = re.sub(r"\[.*\]$", "", decl.split()[-1])
                    self.fields[name] = (int(m.group("offset")), int(m.group("size")),
                                         m.group("signed") == "1", decl)

    def value(self, record, name):
        """A field of a record: an int, or a str for char arrays and __data_loc strings."""
        offset, size, signed, decl = self.fields[name]
        if decl.startswith("__data_loc"):
            (loc,) = struct.unpack_from("<I", record, offset)
            start, length = loc & 0xffff, loc >> 16
            return record[start:start + length].split(b"\0", 1)[0].decode(errors="replace")
        if "char" in decl and "[" in decl:
            end = len(record) if size == 0 else offset + size
            return record[offset:end].split(b"\0", 1)[0].decode(errors="replace")
        if size not in (1, 2, 4, 8):
            raise ValueError(f"{self.name}.{name}: a field of {size} bytes is not a number")
        code = {1: "b", 2: "h", 4: "i", 8: "q"}[size]
        return struct.unpack_from("<" + (code if signed else code.upper()), record, offset)[0]


class Symbols:
    """kallsyms text -> address lookups."""

    def __init__(self, text):
        pairs = []
        for line in text.decode("utf-8", errors="replace").split("\n"):
            parts = line.split()
            if len(parts) >= 3:
                try:
                    pairs.append((int(parts[0], 16), parts[2]))
                except ValueError:
                    continue
        pairs.sort()
        self.addrs = [a for a, _ in pairs]
        self.names = [n for _, n in pairs]

    def name(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return f"0x{addr:x}"
        return self.names[i] if self.addrs[i] == addr else f"{self.names[i]}+0x{addr - self.addrs[i]:x}"

    def address(self, name):
        try:
            return self.addrs[self.names.index(name)]
        except ValueError:
            return 0


def parse_cmdlines(text):
    comms = {}
    for line in text.decode("utf-8", errors="replace").split("\n"):
        pid, _, comm = line.partition(" ")
        if pid.isdigit():
            comms[int(pid)] = comm
    return comms
