"""Event format files (events/SYSTEM/EVENT/format) and the records they describe."""

import bisect
import re
import struct
from typing import Dict, NamedTuple, Optional, Union

FIELD_RE = re.compile(r"\tfield:(?P<decl>[^;]*);\toffset:(?P<offset>\d+);\tsize:(?P<size>\d+);"
                      r"\tsigned:(?P<signed>\d+);")


class Field(NamedTuple):
    offset: int
    size: int
    signed: bool
    decl: str


class Event:
    def __init__(self, system: str, text: bytes) -> None:
        self.system = system
        self.name = ""
        self.id: Optional[int] = None
        self.fields: Dict[str, Field] = {}
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
                    self.fields[name] = Field(int(m.group("offset")), int(m.group("size")),
                                              m.group("signed") == "1", decl)

    def value(self, record: bytes, name: str) -> Union[int, str]:
        """A field of a record: an int, or a str for char arrays and __data_loc strings."""
        f = self.fields[name]
        if f.decl.startswith("__data_loc"):
            (loc,) = struct.unpack_from("<I", record, f.offset)
            start, length = loc & 0xffff, loc >> 16
            return record[start:start + length].split(b"\0", 1)[0].decode(errors="replace")
        if "char" in f.decl and "[" in f.decl:
            end = len(record) if f.size == 0 else f.offset + f.size
            return record[f.offset:end].split(b"\0", 1)[0].decode(errors="replace")
        return self.number(record, name)

    def number(self, record: bytes, name: str) -> int:
        """A numeric field of a record; ValueError for a field that is not one."""
        f = self.fields[name]
        if f.size not in (1, 2, 4, 8) or f.decl.startswith("__data_loc") or "[" in f.decl:
            raise ValueError(f"{self.name}.{name}: `{f.decl}` is not a number")
        code = {1: "b", 2: "h", 4: "i", 8: "q"}[f.size]
        value: int = struct.unpack_from("<" + (code if f.signed else code.upper()), record,
                                        f.offset)[0]
        return value

    def text(self, record: bytes, name: str) -> str:
        """A string field of a record (a char array or a __data_loc string)."""
        value = self.value(record, name)
        if not isinstance(value, str):
            raise ValueError(f"{self.name}.{name}: `{self.fields[name].decl}` is not a string")
        return value


class Symbols:
    """kallsyms text -> address lookups."""

    def __init__(self, text: bytes) -> None:
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

    def name(self, addr: int) -> str:
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return f"0x{addr:x}"
        return self.names[i] if self.addrs[i] == addr else f"{self.names[i]}+0x{addr - self.addrs[i]:x}"

    def address(self, name: str) -> int:
        try:
            return self.addrs[self.names.index(name)]
        except ValueError:
            return 0


def parse_cmdlines(text: bytes) -> Dict[int, str]:
    comms = {}
    for line in text.decode("utf-8", errors="replace").split("\n"):
        pid, _, comm = line.partition(" ")
        if pid.isdigit():
            comms[int(pid)] = comm
    return comms
