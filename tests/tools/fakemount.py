"""The FUSE mount of tools/fentros_trace/mount.py over the fake guest (fakeguest.py), for
test_mount_fake.py: run with /usr/bin/python3 (which sees python3-fusepy) as

    /usr/bin/python3 tests/tools/fakemount.py DIR

It prints "ready" once DIR is mounted, then takes commands on stdin, one a line:
`push TEXT` (TEXT and a newline become readable from trace_pipe), `state` (prints the
guest's filter, tracer, kprobes and the sizes of the writes it got, as JSON) and `gone`
(the guest disappears: from then on everything is EIO). It exits when DIR is unmounted.
"""

import json
import sys
import threading
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from fakeguest import FakeGuest  # noqa: E402
from fentros_trace import mount  # noqa: E402


def main() -> int:
    guest = FakeGuest()
    gone_why: Optional[str] = None

    def ready() -> None:
        print("ready", flush=True)

    def gone() -> Optional[str]:
        return gone_why

    def commands() -> None:
        nonlocal gone_why
        for line in sys.stdin:
            verb, _, rest = line.rstrip("\n").partition(" ")
            if verb == "push":
                guest.push_pipe(rest.encode() + b"\n")
            elif verb == "state":
                print(json.dumps({"filter": guest.filter, "tracer": guest.current_tracer,
                                  "kprobes": guest.kprobes,
                                  "writes": [len(w) for w in guest.writes],
                                  "handles": len(guest.handles)}), flush=True)
            elif verb == "gone":
                gone_why = "told to go"

    threading.Thread(target=commands, daemon=True).start()
    mount.serve(guest, sys.argv[1], on_ready=ready, gone=gone)
    return 0


if __name__ == "__main__":
    sys.exit(main())
