"""Prometheus: the standard gRPC server metrics, and the ``/metrics`` endpoint.

The families and labels are those of go-grpc-prometheus, which dashboards and
alerts already know:

- ``grpc_server_started_total{grpc_type,grpc_service,grpc_method}``
- ``grpc_server_handled_total{grpc_type,grpc_service,grpc_method,grpc_code}``
- ``grpc_server_handling_seconds{grpc_type,grpc_service,grpc_method}`` (histogram)
- ``grpc_server_msg_received_total`` / ``grpc_server_msg_sent_total`` (same labels)

Messages are counted for every RPC type; for a response stream written with
``context.write`` (rather than yielded) sent messages cannot be seen and are not
counted.  Domain metrics live with each service.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import prometheus_client
from prometheus_client import Counter, Histogram

from .handlers import (
    Behavior,
    Handler,
    WrappingInterceptor,
    behavior_of,
    replace_behavior,
    rpc_type,
    split_method,
    streams_responses_by_yield,
)

_LABELS = ("grpc_type", "grpc_service", "grpc_method")

STARTED = Counter("grpc_server_started", "RPCs started on the server.", _LABELS)
HANDLED = Counter(
    "grpc_server_handled",
    "RPCs completed on the server, regardless of success or failure.",
    (*_LABELS, "grpc_code"),
)
HANDLING = Histogram(
    "grpc_server_handling_seconds",
    "Response latency (seconds) of gRPC that had been application-level handled by the server.",
    _LABELS,
)
RECEIVED = Counter(
    "grpc_server_msg_received", "RPC stream messages received on the server.", _LABELS
)
SENT = Counter("grpc_server_msg_sent", "gRPC stream messages sent by the server.", _LABELS)


def status_of(context: grpc.aio.ServicerContext[Any, Any], error: BaseException | None) -> str:
    """The status code name the client will see (``OK``, ``NOT_FOUND``, ...).

    A streaming handler whose client went away while it waited at a ``yield`` is
    closed by grpc.aio with GeneratorExit, not CancelledError: that is a
    cancelled call too, not the server's UNKNOWN error (which the error-rate
    alert counts; a reflection client such as grpcurl, or a player leaving a
    Play or Watch stream, fired it).
    """
    if isinstance(error, (asyncio.CancelledError, GeneratorExit)):
        return grpc.StatusCode.CANCELLED.name
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code.name
    return grpc.StatusCode.OK.name if error is None else grpc.StatusCode.UNKNOWN.name


_Labels = tuple[str, str, str]
_children: dict[_Labels, tuple[Any, Any, Any, Any]] = {}
_handled: dict[tuple[_Labels, str], Any] = {}


def method_children(labels: _Labels) -> tuple[Any, Any, Any, Any]:
    """The per-method children (started, received, sent, handling) of labels
    (grpc_type, grpc_service, grpc_method), looked up once: ``.labels()`` takes a
    lock and builds a key, too slow for every stream message.  The gateway's
    connectrpc interceptors count with the same children."""
    children = _children.get(labels)
    if children is None:
        children = _children[labels] = (
            STARTED.labels(*labels),
            RECEIVED.labels(*labels),
            SENT.labels(*labels),
            HANDLING.labels(*labels),
        )
    return children


class _Call:
    """The bookkeeping of one RPC: started, messages, handled, latency."""

    __slots__ = ("children", "labels", "start")

    def __init__(self, labels: _Labels) -> None:
        self.labels = labels
        self.start = time.perf_counter()
        self.children = method_children(labels)
        self.children[0].inc()

    def received(self) -> None:
        self.children[1].inc()

    def sent(self) -> None:
        self.children[2].inc()

    def done(self, code: str) -> None:
        handled = _handled.get((self.labels, code))
        if handled is None:
            handled = _handled[(self.labels, code)] = HANDLED.labels(*self.labels, code)
        handled.inc()
        self.children[3].observe(time.perf_counter() - self.start)


async def _counted(requests: AsyncIterator[Any], call: _Call) -> AsyncIterator[Any]:
    async for request in requests:
        call.received()
        yield request


class PrometheusInterceptor(WrappingInterceptor):
    """Records the standard families for every RPC the server handles."""

    def wrap(self, handler: Handler, method: str) -> Handler:
        service, name = split_method(method)
        return replace_behavior(handler, _instrument(handler, (rpc_type(handler), service, name)))


def _instrument(handler: Handler, labels: tuple[str, str, str]) -> Behavior:
    behavior = behavior_of(handler)
    streaming_in = handler.request_streaming

    def request_of(request: Any, call: _Call) -> Any:
        if streaming_in:
            return _counted(request, call)
        call.received()
        return request

    if streams_responses_by_yield(handler):

        async def stream_behavior(request: Any, context: Any) -> AsyncIterator[Any]:
            call = _Call(labels)
            error: BaseException | None = None
            try:
                async for response in behavior(request_of(request, call), context):
                    call.sent()
                    yield response
            except BaseException as exc:
                error = exc
                raise
            finally:
                call.done(status_of(context, error))

        return stream_behavior

    async def unary_behavior(request: Any, context: Any) -> Any:
        call = _Call(labels)
        error: BaseException | None = None
        try:
            response = await behavior(request_of(request, call), context)
            if not handler.response_streaming:
                call.sent()
            return response
        except BaseException as exc:
            error = exc
            raise
        finally:
            call.done(status_of(context, error))

    return unary_behavior


BATCH_SIZE_BUCKETS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)


def batch_metrics(service: str) -> tuple[Counter, Histogram]:
    """The two metrics of a service's ``Batch`` stream (``service_kit.batches``):
    ``<service>_batched_calls`` (calls answered, by method and status code: a call
    refused on the stream is a reply, which ``grpc_server_handled_total`` never
    sees) and ``<service>_batch_size`` (calls per message: what batching saves)."""
    calls = Counter(
        f"{service}_batched_calls",
        "Calls answered on the service's Batch streams, by method and status code.",
        ("method", "code"),
    )
    sizes = Histogram(
        f"{service}_batch_size",
        "Calls per Batch message: how much batching saves over one message each.",
        buckets=BATCH_SIZE_BUCKETS,
    )
    return calls, sizes


def start_metrics_server(host: str, port: int) -> tuple[Callable[[], None], int]:
    """Serve ``/metrics`` over HTTP on a daemon thread; returns (stop, bound port).

    ``port`` 0 binds any free port, which is returned (and logged by the server).
    """
    server, thread = prometheus_client.start_http_server(port, addr=host)

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(timeout=2)

    return stop, int(server.server_port)
