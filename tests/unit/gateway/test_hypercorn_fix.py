"""hypercorn (and h2) as the gateway runs them (services/gateway/hypercorn_fix.py):
a real server on 127.0.0.1 and an HTTP/2 peer written with h2, without TLS."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
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

Send = Callable[[dict[str, Any]], Awaitable[None]]
Respond = Callable[[Send], Awaitable[None]]
GET = [(":method", "GET"), (":path", "/"), (":scheme", "http"), (":authority", "t")]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.asynccontextmanager
async def _peer(
    respond: Respond, **client: Any
) -> AsyncIterator[tuple[h2.connection.H2Connection, asyncio.StreamReader, Any]]:
    """hypercorn (patched) serving ``respond`` to every request, and an h2 peer
    connected to it (its connection, reader and writer)."""
    hypercorn_fix.apply()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await respond(send)

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
    peer = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, **client))
    peer.initiate_connection()
    try:
        yield peer, reader, writer
    finally:
        writer.close()
        await writer.wait_closed()
        await asyncio.sleep(0.05)
        stop.set()
        await server


async def _exchange(
    peer: h2.connection.H2Connection,
    reader: asyncio.StreamReader,
    writer: Any,
    seconds: float,
    until: Callable[[list[Any]], bool] = lambda seen: False,
) -> list[Any]:
    """What the peer receives for ``seconds`` (or until ``until``), never
    acknowledging data: its windows stay as they are."""
    writer.write(peer.data_to_send())
    seen: list[Any] = []
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while (left := end - loop.time()) > 0 and not until(seen):
        try:
            data = await asyncio.wait_for(reader.read(65536), left)
        except TimeoutError:
            break
        if not data:
            break
        seen.extend(peer.receive_data(data))
        writer.write(peer.data_to_send())
    return seen


def test_a_response_to_a_peer_that_never_reads_stops_at_the_high_water_mark() -> None:
    """A stream whose peer keeps its flow-control window shut holds at most about
    hypercorn's high-water mark; the app writing it waits.  Unpatched, a
    zero-length take resumed the writer every time: 57 MB went into the buffer in
    one second, and a Watch client that never read grew the gateway's memory."""
    written = 0

    async def stream_forever(send: Send) -> None:
        nonlocal written
        await send({"type": "http.response.start", "status": 200, "headers": []})
        while True:
            await send({"type": "http.response.body", "body": b"x" * 1024, "more_body": True})
            written += 1024

    async def scenario() -> None:
        async with _peer(stream_forever) as (peer, reader, writer):
            peer.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
            peer.send_headers(peer.get_next_available_stream_id(), GET, end_stream=True)
            await _exchange(peer, reader, writer, 0.5)

    asyncio.run(scenario())
    assert 0 < written <= BUFFER_HIGH_WATER, written


def test_a_response_its_app_gave_up_on_is_reset() -> None:
    """An app that ends after its response's first piece, without finishing it (as
    a cancelled stream's does).  Unpatched, the stream stayed open: the client
    waited for ever on it, and it held one of the connection's streams and its
    buffer."""

    async def give_up(send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"x", "more_body": True})

    async def scenario() -> list[Any]:
        async with _peer(give_up) as (peer, reader, writer):
            peer.send_headers(peer.get_next_available_stream_id(), GET, end_stream=True)
            return await _exchange(
                peer,
                reader,
                writer,
                2.0,
                until=lambda seen: any(
                    isinstance(e, (h2.events.StreamReset, h2.events.StreamEnded)) for e in seen
                ),
            )

    seen = asyncio.run(scenario())
    resets = [e for e in seen if isinstance(e, h2.events.StreamReset)]
    assert [r.error_code for r in resets] == [h2.errors.ErrorCodes.CANCEL], seen


def test_a_malformed_request_resets_its_stream_and_the_connection_goes_on() -> None:
    """``authorization: Bearer `` (a space at the value's end, which HTTP/2 does
    not allow) is that stream's error (RFC 9113 8.1.1); a call beside it on the
    same connection is answered.  Unpatched, h2 ended the whole connection."""

    async def ok(send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok", "more_body": False})

    async def scenario() -> tuple[list[int], int, list[Any]]:
        # A peer that sends the header as written (h2 would otherwise strip it).
        async with _peer(ok, normalize_outbound_headers=False, validate_outbound_headers=False) as (
            peer,
            reader,
            writer,
        ):
            bad = peer.get_next_available_stream_id()
            peer.send_headers(bad, [*GET, ("authorization", "Bearer ")], end_stream=True)
            # As browsers send them: the frame flagged PRIORITY.
            flagged = peer.get_next_available_stream_id()
            peer.send_headers(
                flagged, [*GET, ("authorization", "Bearer ")], end_stream=True, priority_weight=16
            )
            good = peer.get_next_available_stream_id()
            peer.send_headers(good, GET, end_stream=True)
            seen = await _exchange(
                peer,
                reader,
                writer,
                2.0,
                until=lambda seen: any(
                    isinstance(e, h2.events.StreamEnded) and e.stream_id == good for e in seen
                ),
            )
            return [bad, flagged], good, seen

    bad, good, seen = asyncio.run(scenario())
    assert not any(isinstance(e, h2.events.ConnectionTerminated) for e in seen), seen
    resets = [(e.stream_id, e.error_code) for e in seen if isinstance(e, h2.events.StreamReset)]
    assert resets == [(b, h2.errors.ErrorCodes.PROTOCOL_ERROR) for b in bad], seen
    answered = [e for e in seen if isinstance(e, h2.events.ResponseReceived)]
    assert [e.stream_id for e in answered] == [good]
    assert dict(answered[0].headers)[b":status"] == b"200"
