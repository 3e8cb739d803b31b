"""Files the kernel streams over the host channel while commands run (`xfer -c --follow
FILE...` until `xfer -c --stop`, kernel/hostchan/stream.c; <kernel/hostchan_stream.h> has
the frames). Several files are in flight at once, so each frame names its file by an id:

  STREAM_FILE  u32 id, u32 0, the file's name
  STREAM_DATA  u32 id, u32 0, the file's next bytes
  STREAM_END   u32 id, s32 status (0 or -errno), u64 total bytes

StreamReceiver appends each file's bytes to a file of its own on disk as they arrive, so a
recording can be far larger than both the kernel's buffer and the ring; xfer's frames
(the files `xfer -c` sends between two streams) go on to XferReceiver as before.
"""

import os
import struct
from dataclasses import dataclass
from typing import IO, BinaryIO, Dict, List, Optional

from .channel import ChannelError
from .shmchan import Frame, XferReceiver

STREAM_FILE = 16
STREAM_DATA = 17
STREAM_END = 18
STREAM_HEADER = struct.Struct("<II")
STREAM_END_PAYLOAD = struct.Struct("<IiQ")


@dataclass
class StreamedFile:
    """One followed file: where its bytes went, how many, and how it ended (status None
    while it is still being followed)."""
    name: str
    path: str
    out: Optional[BinaryIO]
    received: int = 0
    status: Optional[int] = None


class StreamReceiver(XferReceiver):
    def __init__(self, capture: IO[bytes], directory: str) -> None:
        super().__init__(capture)
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        self.streams: Dict[int, StreamedFile] = {}
        self.ended: List[StreamedFile] = []
        self.streamed = 0  # data bytes of every followed file

    def feed(self, frame: Frame) -> None:
        if frame.type not in (STREAM_FILE, STREAM_DATA, STREAM_END):
            super().feed(frame)
            return
        if len(frame.payload) < STREAM_HEADER.size:
            raise ChannelError(f"frame {frame.seq}: a stream frame of {len(frame.payload)} bytes")
        file_id, word = STREAM_HEADER.unpack_from(frame.payload)
        if frame.type == STREAM_FILE:
            if file_id in self.streams or word:
                raise ChannelError(f"frame {frame.seq}: stream file {file_id} began twice")
            name = frame.payload[STREAM_HEADER.size:].decode("utf-8", errors="replace")
            path = os.path.join(self.directory, f"stream-{len(self.ended) + len(self.streams)}")
            self.streams[file_id] = StreamedFile(name, path, open(path, "wb"))
            return
        sf = self.streams.get(file_id)
        if sf is None or sf.out is None:
            raise ChannelError(f"frame {frame.seq}: data of stream file {file_id}, which "
                               "has not begun")
        if frame.type == STREAM_DATA:
            data = memoryview(frame.payload)[STREAM_HEADER.size:]
            sf.out.write(data)
            sf.received += len(data)
            self.streamed += len(data)
            return
        if len(frame.payload) != STREAM_END_PAYLOAD.size:
            raise ChannelError(f"frame {frame.seq}: a stream end of {len(frame.payload)} bytes")
        _, status, total = STREAM_END_PAYLOAD.unpack(frame.payload)
        if total != sf.received:
            raise ChannelError(f"{sf.name}: {sf.received} bytes arrived, the kernel sent {total}")
        sf.out.close()
        sf.out = None
        sf.status = status
        self.ended.append(sf)
        del self.streams[file_id]

    def close(self) -> None:
        for sf in self.streams.values():
            if sf.out:
                sf.out.close()
                sf.out = None
