"""hypercorn as the gateway runs it (services/gateway/hypercorn_fix.py)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.settings
from hypercorn.asyncio import serve
from hypercorn.config import Config
from hypercorn.protocol.h2 import BUFFER_HIGH_WATER

from services.gateway import hypercorn_fix


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _written_to_a_peer_that_never_reads(seconds: float) -> int:
    """Bytes an app streaming a response managed to hand hypercorn in ``seconds``
    while the peer (HTTP/2 without TLS) keeps the stream's window at zero."""
    written = 0

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        nonlocal written
        if scope["type"] == "lifespan":
            while (await receive())["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        while True:
            await send({"type": "http.response.body", "body": b"x" * 1024, "more_body": True})
            written += 1024

    port = _free_port()
    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    config.accesslog = config.errorlog = None
    config.graceful_timeout = 0.1
    stop = asyncio.Event()
    server = asyncio.create_task(serve(app, config, shutdown_trigger=stop.wait))  # type: ignore[arg-type]
    for _ in range(250):
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            break
        except OSError:
            await asyncio.sleep(0.02)
    peer = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    peer.initiate_connection()
    peer.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
    stream = peer.get_next_available_stream_id()
    peer.send_headers(
        stream,
        [(":method", "GET"), (":path", "/"), (":scheme", "http"), (":authority", "t")],
        end_stream=True,
    )
    writer.write(peer.data_to_send())
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while (left := end - loop.time()) > 0:
        try:
            data = await asyncio.wait_for(reader.read(65536), left)
        except TimeoutError:
            break
        if not data:
            break
        peer.receive_data(data)  # never acknowledged: the window stays shut
        writer.write(peer.data_to_send())
    writer.close()
    await writer.wait_closed()
    await asyncio.sleep(0.05)
    stop.set()
    await server
    return written


def test_a_response_to_a_peer_that_never_reads_stops_at_the_high_water_mark() -> None:
    """A stream whose peer keeps its flow-control window shut holds at most about
    hypercorn's high-water mark; the app writing it waits.  Unpatched, a
    zero-length take resumed the writer every time: 57 MB went into the buffer in
    one second, and a Watch client that never read grew the gateway's memory."""
    hypercorn_fix.apply()
    written = asyncio.run(_written_to_a_peer_that_never_reads(0.5))
    assert 0 < written <= BUFFER_HIGH_WATER, written


async def _response_given_up(seconds: float) -> list[Any]:
    """The HTTP/2 events a peer sees of a response whose app ends after its first
    piece, without finishing it (as a cancelled stream's does)."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"x", "more_body": True})

    port = _free_port()
    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    config.accesslog = config.errorlog = None
    config.graceful_timeout = 0.1
    stop = asyncio.Event()
    server = asyncio.create_task(serve(app, config, shutdown_trigger=stop.wait))  # type: ignore[arg-type]
    for _ in range(250):
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            break
        except OSError:
            await asyncio.sleep(0.02)
    peer = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    peer.initiate_connection()
    stream = peer.get_next_available_stream_id()
    peer.send_headers(
        stream,
        [(":method", "GET"), (":path", "/"), (":scheme", "http"), (":authority", "t")],
        end_stream=True,
    )
    writer.write(peer.data_to_send())
    seen: list[Any] = []
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while (left := end - loop.time()) > 0 and not any(
        isinstance(e, (h2.events.StreamReset, h2.events.StreamEnded)) for e in seen
    ):
        try:
            data = await asyncio.wait_for(reader.read(65536), left)
        except TimeoutError:
            break
        if not data:
            break
        seen.extend(peer.receive_data(data))
        writer.write(peer.data_to_send())
    writer.close()
    await writer.wait_closed()
    await asyncio.sleep(0.05)
    stop.set()
    await server
    return seen


def test_a_response_its_app_gave_up_on_is_reset() -> None:
    """Unpatched, the stream stayed open: the client waited for ever on it, and
    it held one of the connection's streams and its buffer."""
    hypercorn_fix.apply()
    seen = asyncio.run(_response_given_up(2.0))
    resets = [e for e in seen if isinstance(e, h2.events.StreamReset)]
    assert [r.error_code for r in resets] == [h2.errors.ErrorCodes.CANCEL], seen
