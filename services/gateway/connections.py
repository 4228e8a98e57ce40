"""Connections per client address at the door, counted from the moment of accept.

Every other limit of the door counts calls; nothing counted connections, so one
address could open connections until the process ran out of file descriptors
(each also costs a TLS session and hypercorn's buffers), and then nobody else
could connect.  ``GATEWAY_CONNECTIONS_PER_ADDRESS`` caps the open connections of
one client address: the connection past it is reset as soon as it is accepted,
before any TLS work, counted in ``gateway_connections_refused_total`` and logged
once a minute at most.  A connection counts from accept, through its TLS
handshake (which has ``GATEWAY_TLS_HANDSHAKE_S`` to finish), until its client's
side ends: connections that never finish a handshake counted for nothing before,
so 1,000 of them from one address held 1,000 descriptors for hypercorn's 60 s
handshake timeout (an outside hostile probe).  A browser opens one HTTP/2
connection (six over HTTP/1.1), a bot program a few channels, so the default
leaves room for a household or an office behind one NAT address.

Behind proxies (``GATEWAY_TRUSTED_HOPS`` > 0) every connection comes from a
proxy, so the cap is off: the proxy limits its clients' connections, and the
per-address call limits read the client's address from ``X-Forwarded-For``.

hypercorn has no such setting, and the TLS server it asks asyncio for hides a
connection until its handshake is over.  So ``install`` gives hypercorn's
``asyncio.start_server`` a ``GatedServer``: an accept loop that counts the peer
(resetting the one past the cap), then ``loop.connect_accepted_socket`` runs the
TLS handshake and hands the connection to hypercorn's own callback, exactly as
asyncio's server would have.  (A plain server with ``loop.start_tls`` after it
is not enough: uvloop starts reading a new connection before the code that would
hand it to TLS runs, so the ClientHello could be read by the wrong protocol.)
``TCPServer._read_data`` is wrapped to release the count when the client's side
ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import struct
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import hypercorn.asyncio.run as hypercorn_run
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.events import Closed

from service_kit.logs import get_logger

from .metrics import CONNECTIONS
from .metrics import CONNECTIONS_REFUSED as REFUSED

log = get_logger(part="connections")

LOG_EVERY_S = 60.0

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


StreamCallback = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
STREAM_LIMIT = 2**16  # asyncio.start_server's buffer limit for a connection's reader


def _host_of(peer: object) -> str:
    return str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"


class GatedServer:
    """What ``asyncio.start_server`` does for hypercorn, with the count in front:
    an accept loop of its own, so the peer is known before any TLS work."""

    def __init__(
        self,
        sock: socket.socket,
        limit: ConnectionLimit,
        callback: StreamCallback,
        context: ssl.SSLContext | None,
        handshake_s: float,
    ) -> None:
        self._sock = sock
        self._limit = limit
        self._callback = callback
        self._context = context
        self._handshake_s = handshake_s
        self._opening: set[asyncio.Task[None]] = set()
        sock.setblocking(False)
        self._accepting = asyncio.get_running_loop().create_task(self._accept())
        # Closed once the loop has stopped watching it (not under a pending accept).
        self._accepting.add_done_callback(lambda _: sock.close())

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        logged = -LOG_EVERY_S
        while True:
            try:
                conn, peer = await loop.sock_accept(self._sock)
            except OSError as error:  # out of descriptors, a reset before accept
                if time.monotonic() - logged >= LOG_EVERY_S:
                    logged = time.monotonic()
                    log.warning("accept failed", error=error.strerror or str(error))
                await asyncio.sleep(0.1)
                continue
            host = _host_of(peer)
            if not self._limit.admit(host):
                _reset(conn)
                continue
            task = loop.create_task(self._open(conn, host))
            self._opening.add(task)
            task.add_done_callback(self._opening.discard)

    async def _open(self, conn: socket.socket, host: str) -> None:
        """The TLS handshake (``GATEWAY_TLS_HANDSHAKE_S`` at most), then
        hypercorn's callback; a failed or slow handshake closes the connection
        and frees its place."""
        loop = asyncio.get_running_loop()
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self._limit.release(host)

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer._cardroom_release = release  # type: ignore[attr-defined]
            try:
                await self._callback(reader, writer)
            finally:
                release()

        def protocol() -> asyncio.StreamReaderProtocol:
            reader = asyncio.StreamReader(limit=STREAM_LIMIT, loop=loop)
            return asyncio.StreamReaderProtocol(reader, serve, loop=loop)

        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            await loop.connect_accepted_socket(
                protocol,
                conn,
                ssl=self._context,
                ssl_handshake_timeout=self._handshake_s if self._context else None,
            )
        except BaseException as error:
            conn.close()
            release()
            if not isinstance(error, Exception):  # cancelled: the door is closing
                raise
            # A client that left, stalled or spoke no TLS: its own affair.

    def close(self) -> None:
        """Stop accepting (handshakes under way are cancelled); the listening
        socket closes as the accept loop ends."""
        self._accepting.cancel()
        for task in self._opening:
            task.cancel()

    async def wait_closed(self) -> None:
        """Until the accept loop and the handshakes have ended."""
        await asyncio.gather(self._accepting, *self._opening, return_exceptions=True)


def _reset(conn: socket.socket) -> None:
    """Close ``conn`` with a reset (no FIN handshake to wait out)."""
    with contextlib.suppress(OSError):
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


class _HypercornsAsyncio:
    """The ``asyncio`` hypercorn's server runner sees: itself, but for
    ``start_server``, which puts the count in front of the connection."""

    def __init__(self, limit: ConnectionLimit, handshake_s: float) -> None:
        self._limit = limit
        self._handshake_s = handshake_s

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def start_server(
        self,
        client_connected_cb: StreamCallback,
        *,
        sock: socket.socket,
        backlog: int = 100,
        ssl: ssl.SSLContext | None = None,
        ssl_handshake_timeout: float | None = None,
    ) -> GatedServer:
        return GatedServer(sock, self._limit, client_connected_cb, ssl, self._handshake_s)


def install(limit: ConnectionLimit, handshake_s: float) -> None:
    """Serve every connection hypercorn accepts through ``limit`` (again: replaces).

    A connection stops counting when the client's side ends (its reader reached
    the end), not when hypercorn's task for it does: that task waited out the
    keep-alive timer (120 s) after an HTTP/1.1 client had gone, so closed
    connections kept their place and a client reconnecting was refused.  The
    timer is stopped there too (no request can come on a connection whose client
    has gone), so the task ends with the connection.

    A reader that fails (an exception from hypercorn's protocol code: a
    non-ASCII ``:path`` did, before ``hypercorn_fix`` refused it) closes the
    connection at once: its count was released while the socket stayed open, held
    by a stream nobody would feed again (an outside probe held 100 connections
    past a cap of 20 so)."""
    setattr(hypercorn_run, "asyncio", _HypercornsAsyncio(limit, handshake_s))  # noqa: B010

    async def read_data(self: TCPServer) -> None:
        try:
            await _original_read_data(self)
        except Exception as error:
            log.warning("connection closed: its reader failed", error=type(error).__name__)
            self.writer.transport.abort()
            with contextlib.suppress(Exception):
                await self.protocol.handle(Closed())
        finally:
            release = getattr(self.writer, "_cardroom_release", None)
            if release is not None:
                release()
            await self.idle_task.stop()

    TCPServer._read_data = read_data  # type: ignore[method-assign]
