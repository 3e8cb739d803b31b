"""The framed stream the kernel's `xfer` command writes to the debug console port.

Frames (little-endian; kernel/shell/xfer.c writes them):
  "FTXF" u16 name_len, name
  "FTXD" u32 len, data, u32 crc32(data)        any number of these
  "FTXE" s32 status, u64 total, u32 crc32(all data of the file)
"""

import os
import struct
import zlib
from typing import Dict, List, Tuple, Union


class ChannelError(Exception):
    pass


class Stream:
    """A growing file of frames; parse() takes every complete file received so far."""

    def __init__(self, data: bytes = b"") -> None:
        self.data = data
        self.pos = 0

    def _need(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise EOFError
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def _tag(self, want: bytes) -> None:
        tag = self._need(4)
        if tag != want:
            raise ChannelError(f"offset {self.pos - 4}: expected {want!r}, found {tag!r}")

    def next_file(self) -> Tuple[str, bytes, int]:
        """(name, data, status) of the next complete file; EOFError if it is not all here."""
        start = self.pos
        try:
            self._tag(b"FTXF")
            (name_len,) = struct.unpack("<H", self._need(2))
            name = self._need(name_len).decode("utf-8", errors="replace")
            parts: List[bytes] = []
            whole = 0
            while True:
                tag = self._need(4)
                if tag == b"FTXD":
                    (n,) = struct.unpack("<I", self._need(4))
                    chunk = self._need(n)
                    (crc,) = struct.unpack("<I", self._need(4))
                    if zlib.crc32(chunk) != crc:
                        raise ChannelError(f"{name}: a chunk of {n} bytes fails its checksum")
                    parts.append(chunk)
                    whole = zlib.crc32(chunk, whole)
                elif tag == b"FTXE":
                    status, total, crc = struct.unpack("<iQI", self._need(16))
                    data = b"".join(parts)
                    if total != len(data) or crc != whole:
                        raise ChannelError(f"{name}: {len(data)} bytes arrived, the kernel "
                                           f"sent {total}, or the file checksum differs")
                    return name, data, status
                else:
                    raise ChannelError(f"{name}: offset {self.pos - 4}: unexpected {tag!r}")
        except EOFError:
            self.pos = start
            raise


def read_files(path: Union[str, "os.PathLike[str]"]) -> Dict[str, bytes]:
    """Every file in a channel capture: {name: data}. Raises ChannelError on damage or a
    file the kernel could not read (its errno text), EOFError if the capture is cut."""
    with open(path, "rb") as f:
        stream = Stream(f.read())
    files: Dict[str, bytes] = {}
    while stream.pos < len(stream.data):
        name, data, status = stream.next_file()
        if status:
            raise ChannelError(f"{name}: {os.strerror(-status)}")
        files[name] = data
    return files

