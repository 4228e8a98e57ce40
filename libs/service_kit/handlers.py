"""Rebuilding a gRPC method handler around a new behaviour.

Server interceptors in grpc.aio cannot hook "before" and "after" a call: they get
the method's handler and must return one.  Both of ours (metrics, error mapping)
wrap the behaviour, so the bookkeeping of the four RPC types lives here once.

Request bytes are decoded by the handler's ``request_deserializer`` inside grpc
itself, before (unary) or between (streams) the behaviour's steps; a
``DecodeError`` raised there never reaches an interceptor and grpc reports it as
UNKNOWN or INTERNAL with the exception's class in the message.  So
``tolerant_deserializer`` decodes to an ``Undecodable`` marker instead of
raising, and the error mapping (``service_kit.errors``) answers the marker with
INVALID_ARGUMENT: bad bytes are bad input, like any other malformed request.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

import grpc
from google.protobuf.message import DecodeError

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
    if behavior is None:
        raise TypeError(f"the {rpc_type(handler)} handler has no servicer method")
    return behavior


def streams_responses_by_yield(handler: Handler) -> bool:
    """True when responses come from an async generator (rather than from
    ``context.write`` inside a coroutine, as the stock health Watch does)."""
    return handler.response_streaming and inspect.isasyncgenfunction(behavior_of(handler))


def replace_behavior(
    handler: Handler,
    behavior: Behavior,
    request_deserializer: Callable[[bytes], Any] | None = None,
) -> Handler:
    """The same method (type, serializers) calling ``behavior`` instead, and
    decoding requests with ``request_deserializer`` when one is given."""
    factory = {
        UNARY: grpc.unary_unary_rpc_method_handler,
        CLIENT_STREAM: grpc.stream_unary_rpc_method_handler,
        SERVER_STREAM: grpc.unary_stream_rpc_method_handler,
        BIDI_STREAM: grpc.stream_stream_rpc_method_handler,
    }[rpc_type(handler)]
    return factory(
        behavior,
        request_deserializer=request_deserializer or handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


class WrappingInterceptor(grpc.aio.ServerInterceptor):
    """A server interceptor that wraps the handler of every method it is given
    (grpc.aio hands interceptors the handler, not hooks around the call)."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        return self.wrap(handler, handler_call_details.method)

    def wrap(self, handler: Handler, method: str) -> Handler:
        """The handler to serve ``method`` with instead of ``handler``."""
        raise NotImplementedError


class Undecodable:
    """A request whose bytes are not a valid message of the method's request type.

    Holds the type's name and the body's size, never the bytes (they may be
    anything a client sent)."""

    __slots__ = ("message_type", "size")

    def __init__(self, message_type: str, size: int) -> None:
        self.message_type = message_type
        self.size = size

    @property
    def details(self) -> str:
        """The INVALID_ARGUMENT message: short, no class names."""
        return f"request body is not a valid {self.message_type} message"


Deserializer = Callable[[bytes], Any]
_tolerant: dict[Deserializer, Deserializer] = {}


def message_type_of(deserializer: Deserializer) -> str:
    """The full protobuf name of what ``deserializer`` decodes (``Msg.FromString``)."""
    descriptor = getattr(getattr(deserializer, "__self__", None), "DESCRIPTOR", None)
    name = getattr(descriptor, "full_name", None)
    return name if isinstance(name, str) else "request"


def tolerant_deserializer(deserializer: Deserializer | None) -> Deserializer | None:
    """``deserializer``, returning an ``Undecodable`` where it would raise
    ``DecodeError``.  One wrapper per deserializer, built once: interceptors run
    for every call."""
    if deserializer is None:  # the method takes raw bytes: nothing to decode
        return None
    tolerant = _tolerant.get(deserializer)
    if tolerant is None:
        decode = deserializer
        message_type = message_type_of(decode)

        def decode_or_mark(raw: bytes) -> Any:
            try:
                return decode(raw)
            except DecodeError:
                return Undecodable(message_type, len(raw))

        tolerant = _tolerant[deserializer] = decode_or_mark
    return tolerant


def split_method(full_method: str) -> tuple[str, str]:
    """``"/poker.dealer.v1.Dealer/OpenDeck"`` -> ``("poker.dealer.v1.Dealer", "OpenDeck")``."""
    service, _, method = full_method.lstrip("/").rpartition("/")
    return service or "unknown", method or "unknown"
