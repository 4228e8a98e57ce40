"""Free local ports for the servers a test starts (always on 127.0.0.1)."""

from __future__ import annotations

import os
import random
import socket
import time


def free_port() -> int:
    """A port the kernel picked as free now (in the ephemeral range): for a server
    that is started once and never restarted on the same port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def free_ports(count: int) -> list[int]:
    """Ports free now, below Linux's ephemeral range (32768-60999), so no client
    socket's local port takes one between a kill and the restart."""
    rng = random.Random(os.getpid() ^ time.time_ns())
    found: list[int] = []
    for _ in range(2_000):
        port = rng.randrange(20_000, 32_000)
        if port in found:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        found.append(port)
        if len(found) == count:
            return found
    raise RuntimeError(f"no {count} free ports in 20000-32000")
