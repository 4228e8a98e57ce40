"""service_kit in-process: request bytes that do not decode as the request message.

grpc decodes a request before the servicer runs (unary) or while it reads
(streams); a ``DecodeError`` there used to reach the client as UNKNOWN or
INTERNAL with the exception's class in the message, and streams logged a
traceback.  These tests drive every RPC type, and a stream read on a task of its
own (as the table service reads Play), through the kit's interceptors: bad bytes
are INVALID_ARGUMENT with a short message, counted as such, and logged as one
warning line at most.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import pytest
import structlog
from grpc_health.v1 import health_pb2
from prometheus_client import REGISTRY

from service_kit import insecure_channel
from service_kit.errors import ErrorInterceptor
from service_kit.metrics import PrometheusInterceptor

Message = health_pb2.HealthCheckRequest  # any generated message type will do
SERVICE = "test.Undecodable"
BAD = b"\xff\xff\xff"  # a truncated varint: no message type decodes it
DETAILS = "request body is not a valid grpc.health.v1.HealthCheckRequest message"


def raw(channel: Any) -> Any:
    """The channel for calls of raw bytes (no serializers), which the grpc stubs
    cannot type."""
    return channel


async def _unary(request: Any, context: Any) -> Any:
    return request


async def _server_stream(request: Any, context: Any) -> AsyncIterator[Any]:
    yield request
    yield request


async def _client_stream(requests: AsyncIterator[Any], context: Any) -> Any:
    last = Message()
    async for request in requests:
        last = request
    return last


async def _bidi(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
    async for request in requests:
        yield request


async def _bidi_on_a_task(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
    """Like the table service's Play: a task reads, the generator writes; the end
    of the requests ends the stream."""
    out: asyncio.Queue[Any] = asyncio.Queue()

    async def read() -> None:
        try:
            async for request in requests:
                out.put_nowait(request)
        finally:
            out.put_nowait(None)

    reader = asyncio.create_task(read())
    try:
        while (item := await out.get()) is not None:
            yield item
    finally:
        reader.cancel()


async def _first_must_arrive(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
    """Like Play's Join check: no first message is a servicer error."""
    first = await anext(aiter(requests), None)
    if first is None:
        raise ValueError("the first message must be a Join")
    yield first


METHODS: dict[str, tuple[Any, Any]] = {
    "Unary": (grpc.unary_unary_rpc_method_handler, _unary),
    "ServerStream": (grpc.unary_stream_rpc_method_handler, _server_stream),
    "ClientStream": (grpc.stream_unary_rpc_method_handler, _client_stream),
    "Bidi": (grpc.stream_stream_rpc_method_handler, _bidi),
    "BidiOnATask": (grpc.stream_stream_rpc_method_handler, _bidi_on_a_task),
    "FirstMustArrive": (grpc.stream_stream_rpc_method_handler, _first_must_arrive),
}
TYPES = {
    "Unary": "UNARY",
    "ServerStream": "SERVER_STREAM",
    "ClientStream": "CLIENT_STREAM",
    "Bidi": "BIDI_STREAM",
    "BidiOnATask": "BIDI_STREAM",
    "FirstMustArrive": "BIDI_STREAM",
}


class _Handlers(grpc.GenericRpcHandler):
    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Any:
        service, _, method = handler_call_details.method.lstrip("/").partition("/")
        if service != SERVICE or method not in METHODS:
            return None
        factory, behavior = METHODS[method]
        return factory(
            behavior,
            request_deserializer=Message.FromString,
            response_serializer=Message.SerializeToString,
        )


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def stdlib_records() -> Iterator[_Records]:
    """What grpc's and asyncio's own loggers say (tracebacks of a failed servicer,
    a suppressed abort, a task's exception never retrieved)."""
    records = _Records()
    loggers = [logging.getLogger(name) for name in ("grpc", "asyncio")]
    for logger in loggers:
        logger.addHandler(records)
    try:
        yield records
    finally:
        for logger in loggers:
            logger.removeHandler(records)


def _handled(method: str, code: str) -> float:
    labels = {
        "grpc_type": TYPES[method],
        "grpc_service": SERVICE,
        "grpc_method": method,
        "grpc_code": code,
    }
    return REGISTRY.get_sample_value("grpc_server_handled_total", labels) or 0.0


async def _send_bad(channel: grpc.aio.Channel, method: str) -> grpc.aio.AioRpcError:
    path = f"/{SERVICE}/{method}"
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        if method == "Unary":
            await raw(channel).unary_unary(path)(BAD)
        elif method == "ServerStream":
            async for _ in raw(channel).unary_stream(path)(BAD):
                pass
        elif method == "ClientStream":
            await raw(channel).stream_unary(path)(iter([BAD]))
        else:
            async for _ in raw(channel).stream_stream(path)(iter([BAD])):
                pass
    return raised.value


async def _with_server(test: Any) -> None:
    server = grpc.aio.server(interceptors=[PrometheusInterceptor(), ErrorInterceptor()])
    server.add_generic_rpc_handlers((_Handlers(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with insecure_channel(f"127.0.0.1:{port}", deadline=5) as channel:
            await test(channel)
    finally:
        await server.stop(0)


def test_undecodable_request_is_invalid_argument_on_every_rpc_type(
    stdlib_records: _Records,
) -> None:
    before = {m: _handled(m, "INVALID_ARGUMENT") for m in METHODS}

    async def check(channel: grpc.aio.Channel) -> None:
        for method in METHODS:
            error = await _send_bad(channel, method)
            assert (method, error.code(), error.details()) == (
                method,
                grpc.StatusCode.INVALID_ARGUMENT,
                DETAILS,
            )
        await asyncio.sleep(0.1)  # the servers' tasks finish

    with structlog.testing.capture_logs() as logs:
        asyncio.run(_with_server(check))
    for method in METHODS:
        assert _handled(method, "INVALID_ARGUMENT") == before[method] + 1, method
        for code in ("UNKNOWN", "INTERNAL", "OK"):
            assert _handled(method, code) == 0.0, (method, code)
    warnings = [e for e in logs if e["event"] == "undecodable request"]
    assert [(e["log_level"], e["method"].rpartition("/")[2]) for e in warnings] == [
        ("warning", m) for m in METHODS
    ]
    assert all(e["message_type"] == "grpc.health.v1.HealthCheckRequest" for e in warnings)
    assert all(e["size"] == len(BAD) for e in warnings)
    assert not [e for e in logs if e not in warnings], logs  # no "unexpected error"
    assert [r.getMessage() for r in stdlib_records.records] == []


def test_undecodable_message_mid_stream_ends_it_with_invalid_argument(
    stdlib_records: _Records,
) -> None:
    """The messages before the bad one are answered; the bad one ends the stream."""
    good = Message(service="poker.table.v1.TableService").SerializeToString()

    async def check(channel: grpc.aio.Channel) -> None:
        for method in ("Bidi", "BidiOnATask"):
            call = raw(channel).stream_stream(f"/{SERVICE}/{method}")()  # raw bytes both ways
            await call.write(good)
            assert await call.read() == good
            await call.write(BAD)
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await call.read()
            assert (method, raised.value.code(), raised.value.details()) == (
                method,
                grpc.StatusCode.INVALID_ARGUMENT,
                DETAILS,
            )

    with structlog.testing.capture_logs() as logs:
        asyncio.run(_with_server(check))
    assert [e["event"] for e in logs] == ["undecodable request"] * 2
    assert [r.getMessage() for r in stdlib_records.records] == []
