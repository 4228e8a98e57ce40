"""gRPC-Web's text mode at the door (services/gateway/grpc_web_text.py): base64 in,
binary gRPC-Web to connectrpc, base64 out, one padded piece per piece sent."""

from __future__ import annotations

import asyncio
import base64
import doctest
import struct
from collections.abc import MutableMapping
from typing import Any

from services.gateway import grpc_web_text
from services.gateway.grpc_web_text import GrpcWebText

MESSAGE = b"\x0a\x02t1"  # a protobuf message's bytes (field 1: "t1")
FRAME = struct.pack(">BI", 0, len(MESSAGE)) + MESSAGE
TRAILER = b"grpc-status: 0\r\n"
TRAILER_FRAME = struct.pack(">BI", 0x80, len(TRAILER)) + TRAILER


class Recorder:
    """A stand-in for connectrpc's app: records what it was given, answers two
    pieces (a message, then the trailer frame), as a server stream does."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] | None = None
        self.body = b""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.scope = scope
        while True:
            message = await receive()
            self.body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/grpc-web+proto")],
            }
        )
        await send({"type": "http.response.body", "body": FRAME, "more_body": True})
        await send({"type": "http.response.body", "body": TRAILER_FRAME, "more_body": False})


def _call(
    app: GrpcWebText, kind: bytes, pieces: list[bytes]
) -> tuple[list[MutableMapping[str, Any]], bool]:
    sent: list[MutableMapping[str, Any]] = []
    left = list(pieces)

    async def receive() -> dict[str, Any]:
        body = left.pop(0) if left else b""
        return {"type": "http.request", "body": body, "more_body": bool(left)}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/poker.room.v1.Room/Watch",
        "headers": [(b"content-type", kind), (b"content-length", b"999")],
    }
    asyncio.run(app(scope, receive, send))
    return sent, not left


def test_the_examples_in_the_module_run() -> None:
    failed, tried = doctest.testmod(grpc_web_text)
    assert tried >= 3 and failed == 0


def test_a_text_mode_call_reaches_the_room_as_binary_and_answers_in_base64() -> None:
    room = Recorder()
    app = GrpcWebText(room, max_message_bytes=1024)
    text = base64.b64encode(FRAME)
    sent, read_all = _call(app, b"application/grpc-web-text+proto", [text[:3], text[3:]])
    assert read_all
    assert room.scope is not None and room.body == FRAME
    headers = dict(room.scope["headers"])
    assert headers[b"content-type"] == b"application/grpc-web+proto"
    assert headers[b"content-length"] == str(len(FRAME)).encode()
    start, first, last = sent
    assert dict(start["headers"])[b"content-type"] == b"application/grpc-web-text+proto"
    # each piece on its own, padded: the message is not held back for the trailer
    assert base64.b64decode(first["body"]) == FRAME and first["more_body"]
    assert base64.b64decode(last["body"]) == TRAILER_FRAME and not last["more_body"]


def test_separately_padded_pieces_of_a_request_are_one_body() -> None:
    room = Recorder()
    app = GrpcWebText(room, max_message_bytes=1024)
    pieces = base64.b64encode(FRAME[:4]) + base64.b64encode(FRAME[4:])
    assert b"=" in pieces[:-2]  # padding in the middle
    _call(app, b"application/grpc-web-text", [pieces])
    assert room.body == FRAME
    assert room.scope is not None
    assert dict(room.scope["headers"])[b"content-type"] == b"application/grpc-web"


def test_a_body_that_is_not_base64_is_invalid_argument_and_the_room_sees_nothing() -> None:
    room = Recorder()
    app = GrpcWebText(room, max_message_bytes=1024)
    sent, _ = _call(app, b"application/grpc-web-text+proto", [b"AAAA!AAA"])
    headers = dict(sent[0]["headers"])
    assert headers[b"grpc-status"] == b"3"
    assert b"not base64" in headers[b"grpc-message"]
    assert headers[b"content-type"] == b"application/grpc-web-text+proto"
    assert room.scope is None


def test_a_body_longer_than_a_message_is_resource_exhausted_before_it_is_all_read() -> None:
    room = Recorder()
    app = GrpcWebText(room, max_message_bytes=30)
    big = base64.b64encode(bytes(300))
    sent, read_all = _call(app, b"application/grpc-web-text", [big[:100], big[100:200], big[200:]])
    assert dict(sent[0]["headers"])[b"grpc-status"] == b"8"
    assert not read_all and room.scope is None


def test_binary_grpc_web_and_connect_pass_through_untouched() -> None:
    for kind in (b"application/grpc-web+proto", b"application/json", b"application/grpc"):
        room = Recorder()
        app = GrpcWebText(room, max_message_bytes=1024)
        sent, _ = _call(app, kind, [FRAME])
        assert room.body == FRAME and room.scope is not None
        assert dict(room.scope["headers"])[b"content-type"] == kind
        assert sent[1]["body"] == FRAME
