"""Connections per client address at the door.

Every other limit of the door counts calls; nothing counted connections, so one
address could open connections until the process ran out of file descriptors
(each also costs a TLS session and hypercorn's buffers), and then nobody else
could connect.  ``GATEWAY_CONNECTIONS_PER_ADDRESS`` caps the open connections of
one client address: the connection past it is closed as soon as it is accepted
(after the TLS handshake, which ``ssl_handshake_timeout`` bounds), counted in
``gateway_connections_refused_total`` and logged once a minute at most.  A
browser opens one HTTP/2 connection (six over HTTP/1.1), a bot program a few
channels, so the default leaves room for a household or an office behind one
NAT address.

Behind proxies (``GATEWAY_TRUSTED_HOPS`` > 0) every connection comes from a
proxy, so the cap is off: the proxy limits its clients' connections, and the
per-address call limits read the client's address from ``X-Forwarded-For``.

hypercorn has no such setting; this wraps its ``TCPServer.run`` (the coroutine
that serves one accepted connection).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Coroutine
from typing import Any

from hypercorn.asyncio.tcp_server import TCPServer

from service_kit.logs import get_logger

from .metrics import CONNECTIONS
from .metrics import CONNECTIONS_REFUSED as REFUSED

log = get_logger(part="connections")

LOG_EVERY_S = 60.0

_original_run: Callable[[Any], Coroutine[Any, Any, None]] = TCPServer.run
_original_read_data: Callable[[Any], Coroutine[Any, Any, None]] = TCPServer._read_data


class ConnectionLimit:
    """Open connections per client host; ``per_address`` 0 means no cap.

    >>> limit = ConnectionLimit(2)
    >>> limit.admit("10.0.0.1"), limit.admit("10.0.0.1"), limit.admit("10.0.0.1")
    (True, True, False)
    >>> limit.admit("10.0.0.2")
    True
    >>> limit.release("10.0.0.1"); limit.admit("10.0.0.1")
    True
    """

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self.open: dict[str, int] = {}
        self._logged = -LOG_EVERY_S

    def admit(self, host: str) -> bool:
        """Count a new connection from ``host``; False (not counted) past the cap."""
        count = self.open.get(host, 0)
        if self.per_address and count >= self.per_address:
            REFUSED.inc()
            now = time.monotonic()
            if now - self._logged >= LOG_EVERY_S:
                self._logged = now
                log.warning(
                    "connection refused: its address has the most connections allowed",
                    open=count,
                    limit=self.per_address,
                    setting="GATEWAY_CONNECTIONS_PER_ADDRESS",
                )
            return False
        self.open[host] = count + 1
        CONNECTIONS.inc()
        return True

    def release(self, host: str) -> None:
        """A connection from ``host`` closed."""
        count = self.open.get(host, 0) - 1
        if count > 0:
            self.open[host] = count
        else:
            self.open.pop(host, None)
        CONNECTIONS.dec()


def install(limit: ConnectionLimit) -> None:
    """Serve every connection hypercorn accepts through ``limit`` (again: replaces).

    A connection stops counting when the client's side ends (its reader reached
    the end), not when hypercorn's task for it does: that task waited out the
    keep-alive timer (120 s) after an HTTP/1.1 client had gone, so closed
    connections kept their place and a client reconnecting was refused.  The
    timer is stopped there too (no request can come on a connection whose client
    has gone), so the task ends with the connection."""

    async def run(self: TCPServer) -> None:
        peer = self.writer.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
        if not limit.admit(host):
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
            return
        counted = True

        def release() -> None:
            nonlocal counted
            if counted:
                counted = False
                limit.release(host)

        self._cardroom_release = release  # type: ignore[attr-defined]
        try:
            await _original_run(self)
        finally:
            release()

    async def read_data(self: TCPServer) -> None:
        try:
            await _original_read_data(self)
        finally:
            release = getattr(self, "_cardroom_release", None)
            if release is not None:
                release()
            await self.idle_task.stop()

    TCPServer.run = run  # type: ignore[method-assign]
    TCPServer._read_data = read_data  # type: ignore[method-assign]
