"""The gateway's metrics: the standard gRPC server families for every call of
the public API, whatever protocol carried it (gRPC, gRPC-Web, Connect), and the
door's own.

``grpc_server_*`` are service_kit.metrics' families (the same names and labels
as every service: the dashboards and alerts read them); a call over Connect or
gRPC-Web counts as the gRPC call it is, with its gRPC status name.  The extra
label-free ``gateway_*`` metrics are the door's domain: credentials checked,
the shard map, spectators and what their fan-out costs.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import StreamType
from connectrpc.request import RequestContext
from prometheus_client import Counter, Gauge

from service_kit.handlers import BIDI_STREAM, CLIENT_STREAM, SERVER_STREAM, UNARY
from service_kit.metrics import HANDLED, method_children

CREDENTIALS = Counter(
    "gateway_credential_checks",
    "Bearer credentials checked: cached (accepted within the cache time), checked "
    "(asked the lobby, accepted) or refused.",
    ("result",),
)
SHARD_REFRESHES = Counter(
    "gateway_shard_refreshes", "Shard listings asked for, by outcome.", ("outcome",)
)
SHARD_TABLES = Gauge("gateway_shard_tables", "Tables each shard runs (last listing).", ("shard",))
CONNECTIONS = Gauge(
    "gateway_connections",
    "Client connections open on this replica, from accept (those in their TLS handshake too).",
)
CONNECTIONS_REFUSED = Counter(
    "gateway_connections_refused",
    "Client connections reset as accepted: their address had GATEWAY_CONNECTIONS_PER_ADDRESS open.",
)
SPECTATORS = Gauge("gateway_spectators", "Spectator streams open on this replica.")
WATCHED_TABLES = Gauge(
    "gateway_watched_tables", "Tables with an upstream spectator feed on this replica."
)
SPECTATOR_EVENTS = Counter(
    "gateway_spectator_events",
    "Spectator events put in watchers' buffers (each event counted once per watcher, "
    "whether it travels alone or in a batch).",
)
SPECTATOR_MESSAGES = Counter(
    "gateway_spectator_messages",
    "Messages put in watchers' buffers: an event, or a batch of a table's events of the "
    "same few milliseconds (GATEWAY_WATCH_COALESCE_MS).",
)
SPECTATOR_FEED_EVENTS = Counter(
    "gateway_spectator_feed_events", "Events received on the upstream spectator feeds."
)
SPECTATORS_DROPPED = Counter(
    "gateway_spectators_dropped",
    "Spectator streams ended by the gateway: too_slow, feed_ended.",
    ("reason",),
)
LIMITED = Counter(
    "gateway_limited_calls", "Calls refused by a limit (RESOURCE_EXHAUSTED).", ("limit",)
)

_TYPES = {
    StreamType.UNARY: UNARY,
    StreamType.SERVER_STREAM: SERVER_STREAM,
    StreamType.CLIENT_STREAM: CLIENT_STREAM,
    StreamType.BIDI_STREAM: BIDI_STREAM,
}

REQ = TypeVar("REQ")
RES = TypeVar("RES")


def _labels(ctx: RequestContext[Any, Any]) -> tuple[str, str, str]:
    method = ctx.method
    return (_TYPES.get(method.stream_type, UNARY), method.service_name, method.name)


def _code_of(error: BaseException | None) -> str:
    if error is None:
        return "OK"
    if isinstance(error, ConnectError):
        return "CANCELLED" if error.code is Code.CANCELED else error.code.name
    # GeneratorExit: a stream closed at a yield because its client went away.
    cancelled = error.__class__.__name__ == "CancelledError" or isinstance(error, GeneratorExit)
    return "CANCELLED" if cancelled else "UNKNOWN"


class CallMetrics:
    """started, handled (with the status) and handling time of every call: a
    connectrpc metadata interceptor, first in the list, so it runs before the
    request is read and sees the calls refused before the method runs (an
    undecodable body is INVALID_ARGUMENT like any other)."""

    async def on_start(self, ctx: RequestContext[Any, Any]) -> float:
        method_children(_labels(ctx))[0].inc()
        return time.perf_counter()

    async def on_end(
        self, started: float, ctx: RequestContext[Any, Any], error: Exception | None
    ) -> None:
        labels = _labels(ctx)
        method_children(labels)[3].observe(time.perf_counter() - started)
        HANDLED.labels(*labels, _code_of(error)).inc()


class MessageMetrics:
    """grpc_server_msg_received / _sent: the messages of the calls whose requests
    decoded (after CallMetrics in the list)."""

    async def intercept_unary(
        self,
        call_next: Callable[[REQ, RequestContext[Any, Any]], Awaitable[RES]],
        request: REQ,
        ctx: RequestContext[Any, Any],
    ) -> RES:
        _, received, sent, _ = method_children(_labels(ctx))
        received.inc()
        response = await call_next(request, ctx)
        sent.inc()
        return response

    async def _sent(self, responses: AsyncIterator[RES], sent: Any) -> AsyncIterator[RES]:
        async for response in responses:
            sent.inc()
            yield response

    async def _received(self, requests: AsyncIterator[REQ], received: Any) -> AsyncIterator[REQ]:
        async for request in requests:
            received.inc()
            yield request

    def intercept_server_stream(
        self,
        call_next: Callable[[REQ, RequestContext[Any, Any]], AsyncIterator[RES]],
        request: REQ,
        ctx: RequestContext[Any, Any],
    ) -> AsyncIterator[RES]:
        _, received, sent, _ = method_children(_labels(ctx))
        received.inc()
        return self._sent(call_next(request, ctx), sent)

    def intercept_bidi_stream(
        self,
        call_next: Callable[[AsyncIterator[REQ], RequestContext[Any, Any]], AsyncIterator[RES]],
        request: AsyncIterator[REQ],
        ctx: RequestContext[Any, Any],
    ) -> AsyncIterator[RES]:
        _, received, sent, _ = method_children(_labels(ctx))
        return self._sent(call_next(self._received(request, received), ctx), sent)


def interceptors() -> list[Any]:
    """The metrics interceptors, in the order connectrpc must run them."""
    return [CallMetrics(), MessageMetrics()]
