"""Deadlines on every call between services.

A call without a deadline can wait forever on a stuck peer and hold a hand (and
its players) hostage; so channels made here give every unary-response call a
default timeout unless the caller sets one.  Streams (a player's table stream, a
health Watch) are long-lived by design and keep what the caller asks for.

Inside a servicer, ``call_timeout(context, cap)`` propagates the caller's
remaining time: a downstream call never outlives the request that made it.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Awaitable, Callable, Iterable
from typing import Any

import grpc

from .settings import CALL_DEADLINE

DEFAULT_DEADLINE_S = CALL_DEADLINE.default
"""Default for CALL_DEADLINE_S: generous for a loopback or in-cluster unary call."""


def default_deadline() -> float:
    """CALL_DEADLINE_S from the environment (seconds, default 2)."""
    return CALL_DEADLINE.read()


def call_timeout(context: grpc.aio.ServicerContext[Any, Any] | None, cap: float) -> float:
    """The timeout for a downstream call: ``cap``, or less if the caller's own
    deadline comes sooner."""
    if context is None:
        return cap
    remaining = context.time_remaining()
    if remaining is None:
        return cap
    return max(0.0, min(cap, remaining))


def _with_timeout(
    details: grpc.aio.ClientCallDetails, timeout: float
) -> grpc.aio.ClientCallDetails:
    if details.timeout is not None:
        return details
    return grpc.aio.ClientCallDetails(
        details.method, timeout, details.metadata, details.credentials, details.wait_for_ready
    )


class _UnaryDeadline(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, timeout: float) -> None:
        self._timeout = timeout

    async def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[Any]],
        client_call_details: grpc.aio.ClientCallDetails,
        request: Any,
    ) -> Any:
        return await continuation(_with_timeout(client_call_details, self._timeout), request)


class _StreamUnaryDeadline(grpc.aio.StreamUnaryClientInterceptor):
    def __init__(self, timeout: float) -> None:
        self._timeout = timeout

    async def intercept_stream_unary(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[Any]],
        client_call_details: grpc.aio.ClientCallDetails,
        request_iterator: AsyncIterable[Any] | Iterable[Any],
    ) -> Any:
        details = _with_timeout(client_call_details, self._timeout)
        return await continuation(details, request_iterator)


def insecure_channel(
    target: str,
    *,
    deadline: float | None = None,
    options: list[tuple[str, Any]] | None = None,
) -> grpc.aio.Channel:
    """A plaintext channel (loopback, or inside the cluster's network) whose unary
    calls get ``deadline`` seconds (default CALL_DEADLINE_S) unless given one."""
    timeout = default_deadline() if deadline is None else deadline
    interceptors: list[grpc.aio.ClientInterceptor] = [
        _UnaryDeadline(timeout),
        _StreamUnaryDeadline(timeout),
    ]
    return grpc.aio.insecure_channel(target, options=options, interceptors=interceptors)
