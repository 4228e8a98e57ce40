"""hypercorn (and h2) as the gateway runs them (services/gateway/hypercorn_fix.py):
a real server on 127.0.0.1 and an HTTP/2 peer written with h2, without TLS."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings
from hypercorn.config import Config
from hypercorn.protocol.h2 import BUFFER_HIGH_WATER

from services.gateway import hypercorn_fix

from .asgi_calls import served

Send = Callable[[dict[str, Any]], Awaitable[None]]
Respond = Callable[[Send], Awaitable[None]]
GET = [(":method", "GET"), (":path", "/"), (":scheme", "http"), (":authority", "t")]


@contextlib.asynccontextmanager
async def _peer(
    respond: Respond, **client: Any
) -> AsyncIterator[tuple[h2.connection.H2Connection, asyncio.StreamReader, Any]]:
    """hypercorn (patched) serving ``respond`` to every request, and an h2 peer
    connected to it (its connection, reader and writer)."""
    hypercorn_fix.apply()

    async def http(scope: Any, receive: Any, send: Any) -> None:
        await respond(send)

    async with served(http) as (reader, writer):
        peer = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, **client))
        peer.initiate_connection()
        yield peer, reader, writer


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


def test_a_request_line_that_is_not_visible_ascii_resets_only_its_stream() -> None:
    """A ``:path`` or ``:method`` with a byte past 0x7F (or a space) is malformed:
    hypercorn decoded it as ASCII in the connection's reader, which raised and
    dropped every call on the connection, or (with a call waiting for its body)
    left the connection open for ever (an outside probe).  A call opened before it
    and one after it are both answered."""

    async def ok(send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok", "more_body": False})

    def request(path: bytes, method: bytes = b"GET") -> list[tuple[bytes, bytes]]:
        return [
            (b":method", method),
            (b":path", path),
            (b":scheme", b"http"),
            (b":authority", b"t"),
        ]

    async def scenario() -> tuple[list[int], list[int], list[Any]]:
        async with _peer(ok, validate_outbound_headers=False) as (peer, reader, writer):
            waiting = peer.get_next_available_stream_id()
            peer.send_headers(waiting, request(b"/"))  # its body has not come yet
            bad = []
            for headers in (
                request(b"/\xff"),
                request("/poker.room.v1.Room/GetMe\u00e9".encode()),
                request(b"/a b"),
                request(b"/", method=b"G\xc9T"),
            ):
                bad.append(peer.get_next_available_stream_id())
                peer.send_headers(bad[-1], headers, end_stream=True)
            after = peer.get_next_available_stream_id()
            peer.send_headers(after, request(b"/"), end_stream=True)
            peer.end_stream(waiting)
            good = [waiting, after]
            seen = await _exchange(
                peer,
                reader,
                writer,
                3.0,
                until=lambda seen: (
                    {e.stream_id for e in seen if isinstance(e, h2.events.StreamEnded)} >= set(good)
                ),
            )
            return bad, good, seen

    bad, good, seen = asyncio.run(scenario())
    assert not any(isinstance(e, h2.events.ConnectionTerminated) for e in seen), seen
    resets = [(e.stream_id, e.error_code) for e in seen if isinstance(e, h2.events.StreamReset)]
    assert resets == [(b, h2.errors.ErrorCodes.PROTOCOL_ERROR) for b in bad], seen
    answered = sorted(e.stream_id for e in seen if isinstance(e, h2.events.ResponseReceived))
    assert answered == good


POST = [
    (":method", "POST"),
    (":path", "/poker.room.v1.Room/Register"),
    (":scheme", "http"),
    (":authority", "t"),
    ("content-type", "application/grpc"),
    ("te", "trailers"),
]


def test_a_response_complete_before_its_request_asks_the_client_to_stop_without_error() -> None:
    """A call refused at its first DATA frame while the client still sends (a gRPC
    message over the size limit): the response's trailers (END_STREAM) are
    followed by RST_STREAM NO_ERROR (RFC 9113 8.1), so the client stops and keeps
    the status it read; a trailers-only answer is not reset.  Unpatched, hypercorn ended
    the stream twice, which closed it, and the client's next DATA frame drew
    RST_STREAM STREAM_CLOSED, which a grpc client still writing reported as
    INTERNAL instead of the status (a hostile-client probe, 3 calls in 39)."""

    async def refuse(send: Send) -> None:
        if refuse.calls == 0:  # type: ignore[attr-defined]  # with trailers
            await send(
                {"type": "http.response.start", "status": 200, "headers": [], "trailers": True}
            )
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            await send(
                {
                    "type": "http.response.trailers",
                    "headers": [(b"grpc-status", b"8")],
                    "more_trailers": False,
                }
            )
        else:  # trailers-only
            await send(
                {"type": "http.response.start", "status": 200, "headers": [(b"grpc-status", b"8")]}
            )
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        refuse.calls += 1  # type: ignore[attr-defined]

    refuse.calls = 0  # type: ignore[attr-defined]

    async def call(peer: Any, reader: Any, writer: Any) -> tuple[int, list[Any]]:
        stream = peer.get_next_available_stream_id()
        peer.send_headers(stream, POST)
        peer.send_data(stream, b"\x00\x00\x50\x00\x00" + b"a" * 1000)  # 5 MiB announced
        seen = await _exchange(
            peer,
            reader,
            writer,
            2.0,
            until=lambda seen: any(
                isinstance(e, h2.events.StreamEnded) and e.stream_id == stream for e in seen
            ),
        )
        # The client's next piece, sent before it read the reset (in flight).
        with contextlib.suppress(h2.exceptions.StreamClosedError):
            peer.send_data(stream, b"a" * 1000)
        seen += await _exchange(peer, reader, writer, 0.3)
        return stream, seen

    async def scenario() -> list[tuple[int, list[Any]]]:
        async with _peer(refuse) as (peer, reader, writer):
            return [await call(peer, reader, writer), await call(peer, reader, writer)]

    (with_trailers, seen_a), (trailers_only, seen_b) = asyncio.run(scenario())
    for seen in (seen_a, seen_b):
        assert not any(isinstance(e, h2.events.ConnectionTerminated) for e in seen), seen
    mine = [e for e in seen_a if getattr(e, "stream_id", None) == with_trailers]
    ended = next(i for i, e in enumerate(mine) if isinstance(e, h2.events.TrailersReceived))
    resets = [(i, e.error_code) for i, e in enumerate(mine) if isinstance(e, h2.events.StreamReset)]
    assert [code for _, code in resets] == [h2.errors.ErrorCodes.NO_ERROR], mine
    assert resets[0][0] > ended, mine  # after the status, not before
    # Ended once (no trailers): the DATA in flight is taken, nothing is reset.
    mine = [e for e in seen_b if getattr(e, "stream_id", None) == trailers_only]
    assert any(isinstance(e, h2.events.StreamEnded) for e in mine), mine
    assert not any(isinstance(e, h2.events.StreamReset) for e in mine), mine


def test_a_stream_past_the_limit_is_refused_and_the_connection_goes_on() -> None:
    """MAX_CONCURRENT_STREAMS 2: a third open stream is refused (RST_STREAM
    REFUSED_STREAM, RFC 9113 5.1.2) and the two open ones, and a call after,
    are answered.  Unpatched, h2 ended the whole connection (GOAWAY)."""

    async def slow_ok(send: Send) -> None:
        await asyncio.sleep(0.3)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok", "more_body": False})

    async def scenario() -> tuple[list[int], int, int, list[Any]]:
        async with _peer(slow_ok) as (peer, reader, writer):
            # The limit as a server would announce it; the peer sends regardless.
            peer.remote_settings.update({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 10})
            first = peer.get_next_available_stream_id()
            peer.send_headers(first, GET, end_stream=True)
            second = peer.get_next_available_stream_id()
            peer.send_headers(second, GET, end_stream=True)
            extra = peer.get_next_available_stream_id()
            peer.send_headers(extra, GET, end_stream=True)
            seen = await _exchange(
                peer,
                reader,
                writer,
                3.0,
                until=lambda seen: sum(isinstance(e, h2.events.StreamEnded) for e in seen) >= 2,
            )
            after = peer.get_next_available_stream_id()
            peer.send_headers(after, GET, end_stream=True)
            seen += await _exchange(
                peer,
                reader,
                writer,
                3.0,
                until=lambda seen: any(
                    isinstance(e, h2.events.StreamEnded) and e.stream_id == after for e in seen
                ),
            )
            return [first, second], extra, after, seen

    hypercorn_fix.apply()
    limit = Config.h2_max_concurrent_streams
    Config.h2_max_concurrent_streams = 2
    try:
        answered_ids, extra, after, seen = asyncio.run(scenario())
    finally:
        Config.h2_max_concurrent_streams = limit
    assert not any(isinstance(e, h2.events.ConnectionTerminated) for e in seen), seen
    resets = [(e.stream_id, e.error_code) for e in seen if isinstance(e, h2.events.StreamReset)]
    assert resets == [(extra, h2.errors.ErrorCodes.REFUSED_STREAM)], seen
    ended = {e.stream_id for e in seen if isinstance(e, h2.events.StreamEnded)}
    assert ended == {*answered_ids, after}, seen


def test_a_body_longer_than_its_content_length_resets_only_its_stream() -> None:
    """``content-length: 2`` and 11 bytes of DATA: that stream is malformed (RFC
    9113 8.1.1) and reset with PROTOCOL_ERROR; a call beside it is answered.
    Unpatched, h2 ended the connection and every call on it."""

    async def ok(send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok", "more_body": False})

    async def scenario() -> tuple[int, int, list[Any]]:
        async with _peer(ok, validate_outbound_headers=False) as (peer, reader, writer):
            bad = peer.get_next_available_stream_id()
            peer.send_headers(bad, [*POST, ("content-length", "2")])
            peer.send_data(bad, b"x" * 11, end_stream=True)
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
            return bad, good, seen

    bad, good, seen = asyncio.run(scenario())
    assert not any(isinstance(e, h2.events.ConnectionTerminated) for e in seen), seen
    resets = [(e.stream_id, e.error_code) for e in seen if isinstance(e, h2.events.StreamReset)]
    assert resets == [(bad, h2.errors.ErrorCodes.PROTOCOL_ERROR)], seen
    assert any(isinstance(e, h2.events.StreamEnded) and e.stream_id == good for e in seen)
