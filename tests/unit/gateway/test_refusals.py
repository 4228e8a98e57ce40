"""The door's own refusals, in the caller's protocol: a request connectrpc
cannot read (a header or query string that is not UTF-8) is INVALID_ARGUMENT
before the Room API sees it, never HTTP 500 (an outside hostile probe)."""

from __future__ import annotations

import asyncio
import doctest
import json
from typing import Any
from urllib.parse import unquote

import pytest

from services.gateway import asgi, refusals
from services.gateway.http import Door

from .asgi_calls import call_app

ACT = "/poker.room.v1.Room/Act"


def test_the_examples_run() -> None:
    for module in (refusals, asgi):
        failed, tried = doctest.testmod(module)
        assert tried >= 1 and failed == 0, module.__name__


async def _room(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("the Room API must not see a request it cannot read")


async def _call(
    headers: list[tuple[bytes, bytes]],
    method: str = "POST",
    query: bytes = b"",
    origins: tuple[str, ...] = (),
) -> list[Any]:
    door = Door(_room, origins, lambda: True)
    return await call_app(door, method, ACT, headers, query=query)


BAD = (b"x-user-agent", b"caf\xe9")


@pytest.mark.parametrize(
    ("kind", "answered"),
    [
        (b"application/grpc", b"application/grpc+proto"),
        (b"application/grpc+proto", b"application/grpc+proto"),
        (b"application/grpc-web+proto", b"application/grpc-web+proto"),
        (b"application/grpc-web-text", b"application/grpc-web-text+proto"),
    ],
)
def test_grpc_callers_get_a_trailers_only_invalid_argument(kind: bytes, answered: bytes) -> None:
    sent = asyncio.run(_call([(b"content-type", kind), BAD]))
    start, body = sent
    headers = dict(start["headers"])
    assert start["status"] == 200
    assert headers[b"content-type"] == answered
    assert headers[b"grpc-status"] == b"3"
    message = unquote(headers[b"grpc-message"].decode())
    assert "'x-user-agent' is not UTF-8" in message
    assert "caf" not in message  # the value itself is never echoed (it may be a secret)
    assert body == {"type": "http.response.body", "body": b""}


def test_a_connect_unary_caller_gets_400_with_the_json_error() -> None:
    sent = asyncio.run(_call([(b"content-type", b"application/json"), BAD]))
    start, body = sent
    assert start["status"] == 400
    assert dict(start["headers"])[b"content-type"] == b"application/json"
    error = json.loads(body["body"])
    assert error["code"] == "invalid_argument"
    assert "'x-user-agent' is not UTF-8" in error["message"]


def test_a_connect_stream_caller_gets_the_error_in_an_end_of_stream_message() -> None:
    sent = asyncio.run(_call([(b"content-type", b"application/connect+proto"), BAD]))
    start, body = sent
    assert start["status"] == 200
    assert dict(start["headers"])[b"content-type"] == b"application/connect+proto"
    frame = body["body"]
    assert frame[0] == refusals.END_STREAM
    assert int.from_bytes(frame[1:5], "big") == len(frame) - 5
    assert json.loads(frame[5:])["error"]["code"] == "invalid_argument"


def test_a_bad_content_type_or_authorization_value_is_refused_too() -> None:
    for name in (b"content-type", b"authorization"):
        sent = asyncio.run(_call([(name, b"\xff\xfe")]))
        assert sent[0]["status"] == 400, name
        assert name.decode() in json.loads(sent[1]["body"])["message"]


def test_a_connect_get_with_a_query_string_that_is_not_utf8_is_invalid_argument() -> None:
    sent = asyncio.run(_call([], method="GET", query=b"encoding=json&message=\xff"))
    assert sent[0]["status"] == 400
    assert "the query string is not UTF-8" in json.loads(sent[1]["body"])["message"]


def test_an_allowed_origin_can_read_the_refusal() -> None:
    origin = (b"origin", b"https://play.example")
    sent = asyncio.run(
        _call(
            [(b"content-type", b"application/grpc-web+proto"), BAD, origin],
            origins=("https://play.example",),
        )
    )
    headers = dict(sent[0]["headers"])
    assert headers[b"access-control-allow-origin"] == b"https://play.example"
    assert b"grpc-status" in headers[b"access-control-expose-headers"]


def test_utf8_headers_reach_the_room() -> None:
    reached: list[Any] = []

    async def room(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope)

    async def go() -> None:
        scope = {
            "type": "http",
            "method": "POST",
            "path": ACT,
            "headers": [(b"x-user-agent", "café".encode())],
            "http_version": "2",
        }
        await Door(room, (), lambda: True)(scope, None, None)  # type: ignore[arg-type]

    asyncio.run(go())
    assert len(reached) == 1
