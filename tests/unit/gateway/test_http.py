"""The door's HTTP layer: health for the probes, CORS for browsers."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

from services.gateway.http import Door

from .asgi_calls import call_app


async def _room(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"room"})


def _headers(messages: list[Any]) -> dict[bytes, bytes]:
    return dict(messages[0]["headers"])


def test_health_says_whether_every_shard_answered() -> None:
    ready = [False]
    door = Door(_room, (), lambda: ready[0])
    assert asyncio.run(call_app(door, "GET", "/healthz", []))[0]["status"] == 503
    ready[0] = True
    assert asyncio.run(call_app(door, "GET", "/healthz", []))[0]["status"] == 200


def test_an_allowed_origin_gets_its_preflight_and_its_headers_exposed() -> None:
    door = Door(_room, ("https://play.example",), lambda: True)
    origin = [(b"origin", b"https://play.example")]
    preflight = asyncio.run(call_app(door, "OPTIONS", "/poker.room.v1.Room/Act", origin))
    assert preflight[0]["status"] == 204
    allowed = _headers(preflight)
    assert allowed[b"access-control-allow-origin"] == b"https://play.example"
    assert b"authorization" in allowed[b"access-control-allow-headers"]
    call = asyncio.run(call_app(door, "POST", "/poker.room.v1.Room/Act", origin))
    assert b"grpc-status" in _headers(call)[b"access-control-expose-headers"]


def test_another_origin_gets_no_cors_headers() -> None:
    door = Door(_room, ("https://play.example",), lambda: True)
    origin = [(b"origin", b"https://evil.example")]
    preflight = asyncio.run(call_app(door, "OPTIONS", "/poker.room.v1.Room/Act", origin))
    assert preflight[0]["status"] == 403
    call = asyncio.run(call_app(door, "POST", "/poker.room.v1.Room/Act", origin))
    assert b"access-control-allow-origin" not in _headers(call)
    anyone = Door(_room, ("*",), lambda: True)
    call = asyncio.run(call_app(anyone, "POST", "/poker.room.v1.Room/Act", origin))
    assert _headers(call)[b"access-control-allow-origin"] == b"https://evil.example"


def test_http1_with_both_transfer_encoding_and_content_length_is_refused_and_closed() -> None:
    """RFC 9112 6.3: a proxy framing by Content-Length could have a second request
    hidden in the chunked body (request smuggling); the door answers 400 and closes
    the connection, and the Room API never sees the call."""
    door = Door(_room, (), lambda: True)
    both = [(b"transfer-encoding", b"chunked"), (b"content-length", b"40")]
    sent = asyncio.run(call_app(door, "POST", "/poker.room.v1.Room/ListTables", both, "1.1"))
    assert sent[0]["status"] == 400
    assert _headers(sent)[b"connection"] == b"close"
    assert b"Transfer-Encoding" in sent[1]["body"] and b"room" not in sent[1]["body"]
    one = [(b"transfer-encoding", b"chunked")]
    assert asyncio.run(call_app(door, "POST", "/x", one, "1.1"))[1]["body"] == b"room"


def test_grpc_over_http1_is_told_to_use_grpc_web_or_connect() -> None:
    """gRPC needs HTTP/2's trailers: over HTTP/1.1 it gets 505 and grpc-status 12
    saying what to use instead (connectrpc raised inside and answered UNKNOWN);
    gRPC-Web over HTTP/1.1 and gRPC over HTTP/2 reach the Room API."""
    door = Door(_room, (), lambda: True)
    grpc = [(b"content-type", b"application/grpc+proto")]
    sent = asyncio.run(call_app(door, "POST", "/poker.room.v1.Room/ListTables", grpc, "1.1"))
    assert sent[0]["status"] == 505
    assert _headers(sent)[b"grpc-status"] == b"12"
    assert b"gRPC-Web" in _headers(sent)[b"grpc-message"]
    web = [(b"content-type", b"application/grpc-web+proto")]
    assert asyncio.run(call_app(door, "POST", "/x", web, "1.1"))[1]["body"] == b"room"
    assert asyncio.run(call_app(door, "POST", "/x", grpc, "2"))[1]["body"] == b"room"


def test_a_request_body_that_never_ends_ends_the_call_but_play_waits() -> None:
    """A body still unfinished BODY_WAIT_S after the call began: the Room API reads
    ``http.disconnect`` and the call ends (a slow-body client held a connection, or
    a stream, for ever).  Play's body is the game: it is never cut."""

    async def reads_the_body(scope: Any, receive: Any, send: Any) -> None:
        while (message := await receive())["type"] == "http.request":
            if not message.get("more_body", False):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": message["type"].encode()})

    async def call(path: str) -> bytes | None:
        door = Door(reads_the_body, (), lambda: True, body_wait_s=0.2)
        pieces = [{"type": "http.request", "body": b"x", "more_body": True}]
        sent: list[Any] = []

        async def receive() -> dict[str, Any]:
            if pieces:
                return pieces.pop()
            await asyncio.sleep(3600)  # the rest never comes
            raise AssertionError("unreachable")

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": path, "headers": []}
        try:
            await asyncio.wait_for(door(scope, receive, send), 1.0)
        except TimeoutError:
            return None
        return bytes(sent[1]["body"])

    assert asyncio.run(call("/poker.room.v1.Room/Register")) == b"http.disconnect"
    assert asyncio.run(call("/poker.room.v1.Room/Play")) is None  # still waiting
