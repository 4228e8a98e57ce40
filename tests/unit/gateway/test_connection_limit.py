"""ConnectionLimit's counting (services/gateway/connections.py); the real door's
refusals are in tests/system/gateway/test_connections.py."""

from __future__ import annotations

import asyncio
import doctest
from typing import Any

import hypercorn.asyncio.run as hypercorn_run
import pytest
import structlog
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.events import RawData
from hypercorn.protocol import ProtocolWrapper

from services.gateway import connections
from services.gateway.connections import ConnectionLimit

from .asgi_calls import served


def test_the_examples_in_the_module_run_and_a_refusal_is_logged() -> None:
    with structlog.testing.capture_logs() as logs:
        failed, tried = doctest.testmod(connections)
    assert tried >= 4 and failed == 0
    assert [e["limit"] for e in logs if e["log_level"] == "warning"] == [2]


def test_no_cap_admits_everyone_and_counts_them() -> None:
    limit = ConnectionLimit(0)
    assert all(limit.admit("10.0.0.1") for _ in range(1_000))
    assert limit.open == {"10.0.0.1": 1_000}
    for _ in range(1_000):
        limit.release("10.0.0.1")
    assert limit.open == {}  # a host with nothing open is forgotten: memory stays bounded


def test_a_connection_whose_reader_fails_is_closed_and_stops_counting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An exception from hypercorn's protocol code in a connection's reader
    released the connection's count while its socket stayed open (an outside
    probe held 100 connections past a cap of 20 so, with a non-ASCII ``:path``).
    Now the connection is closed then, and a warning logged."""
    monkeypatch.setattr(hypercorn_run, "asyncio", getattr(hypercorn_run, "asyncio"))  # noqa: B009  (restored after)
    monkeypatch.setattr(TCPServer, "_read_data", TCPServer._read_data)
    original_handle = ProtocolWrapper.handle

    async def handle(self: Any, event: Any) -> None:
        if isinstance(event, RawData) and b"boom" in event.data:
            raise UnicodeDecodeError("ascii", b"\xff", 0, 1, "a bug in the protocol code")
        await original_handle(self, event)

    monkeypatch.setattr(ProtocolWrapper, "handle", handle)

    async def waits_for_its_body(scope: Any, receive: Any, send: Any) -> None:
        while (await receive())["type"] == "http.request":
            pass  # a call waiting for its body, which the failed reader never brings
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    limit = ConnectionLimit(2)
    connections.install(limit, handshake_s=2.0)

    async def scenario() -> tuple[bytes, dict[str, int], dict[str, int]]:
        async with served(waits_for_its_body) as (reader, writer):
            await asyncio.sleep(0.1)
            counted = dict(limit.open)
            writer.write(b"POST /wait HTTP/1.1\r\nhost: t\r\ncontent-length: 10\r\n\r\n")
            await writer.drain()
            await asyncio.sleep(0.1)
            writer.write(b"boom")  # the reader fails on it
            try:
                answer = await asyncio.wait_for(reader.read(), 3)  # unfixed: open for ever
            except ConnectionResetError:
                answer = b""
        return answer, counted, dict(limit.open)

    with structlog.testing.capture_logs() as logs:
        answer, counted, after = asyncio.run(scenario())
    assert counted == {"127.0.0.1": 1}
    assert answer == b""  # closed, no response
    assert after == {}
    assert any(e["event"] == "connection closed: its reader failed" for e in logs)
