"""Rebuilding a gRPC method handler around a new behaviour.

Server interceptors in grpc.aio cannot hook "before" and "after" a call: they get
the method's handler and must return one.  Both of ours (metrics, error mapping)
wrap the behaviour, so the bookkeeping of the four RPC types lives here once.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import grpc

Behavior = Callable[..., Any]
if TYPE_CHECKING:
    Handler = grpc.RpcMethodHandler[Any, Any]
else:  # not subscriptable at run time
    Handler = grpc.RpcMethodHandler

UNARY: Final = "UNARY"
CLIENT_STREAM: Final = "CLIENT_STREAM"
SERVER_STREAM: Final = "SERVER_STREAM"
BIDI_STREAM: Final = "BIDI_STREAM"


def rpc_type(handler: Handler) -> str:
    """The ``grpc_type`` label of the standard metrics."""
    if handler.request_streaming:
        return BIDI_STREAM if handler.response_streaming else CLIENT_STREAM
    return SERVER_STREAM if handler.response_streaming else UNARY


def behavior_of(handler: Handler) -> Behavior:
    """The servicer method the handler calls."""
    behavior = {
        UNARY: handler.unary_unary,
        CLIENT_STREAM: handler.stream_unary,
        SERVER_STREAM: handler.unary_stream,
        BIDI_STREAM: handler.stream_stream,
    }[rpc_type(handler)]
    assert behavior is not None
    return behavior


def streams_responses_by_yield(handler: Handler) -> bool:
    """True when responses come from an async generator (rather than from
    ``context.write`` inside a coroutine, as the stock health Watch does)."""
    return handler.response_streaming and inspect.isasyncgenfunction(behavior_of(handler))


def replace_behavior(handler: Handler, behavior: Behavior) -> Handler:
    """The same method (type, serializers) calling ``behavior`` instead."""
    factory = {
        UNARY: grpc.unary_unary_rpc_method_handler,
        CLIENT_STREAM: grpc.stream_unary_rpc_method_handler,
        SERVER_STREAM: grpc.unary_stream_rpc_method_handler,
        BIDI_STREAM: grpc.stream_stream_rpc_method_handler,
    }[rpc_type(handler)]
    return factory(
        behavior,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


def split_method(full_method: str) -> tuple[str, str]:
    """``"/poker.dealer.v1.Dealer/OpenDeck"`` -> ``("poker.dealer.v1.Dealer", "OpenDeck")``."""
    service, _, method = full_method.lstrip("/").rpartition("/")
    return service or "unknown", method or "unknown"
