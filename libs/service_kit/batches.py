"""Unary calls carried in batches over one stream: the convention of
``poker/common/v1/batch.proto``, written once for every internal service.

Why: in grpc.aio every message costs far more CPU than the work behind most of
the calls between the card room's services, and a table process running many
tables makes its calls at the same moments.  A service's ``Batch`` stream lets
it send every call it has waiting as one ``CallBatch``; the server answers each
call in order into one ``ReplyBatch``.  Each call keeps the unary call's checks,
answer and error (the error travels in the reply instead of ending the stream),
so a client may use either.

Which methods ride the stream is said once, in the protos (the method option
``poker.common.v1.batched``); ``batched_methods`` reads it from the service's
descriptor for both sides: ``BatchServer`` (the server's) and the table
service's ``CallStream`` (the client's).  ``poker_wire.batching.drain`` builds a
stream's messages on either side.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError, Message

from poker.common.v1.batch_pb2 import Call, CallBatch, Reply, ReplyBatch, batched

from .errors import ErrorCodes, InvalidArgumentError, status_of
from .handlers import Undecodable
from .logs import get_logger

YIELD_EVERY = 64
"""Calls of one batch answered between two turns given to the event loop."""

if TYPE_CHECKING:
    from prometheus_client import Counter, Histogram

Handler = Callable[[Any, Any], Awaitable[Message]]
UNKNOWN_METHOD = "unknown"  # the metrics' method label of a call naming no batched method


@dataclass(frozen=True, slots=True)
class BatchedMethod:
    """One unary method that may ride the service's Batch stream."""

    name: str  # the RPC's name, a Call's ``method``: "OpenDeck"
    request: type[Message]
    response: type[Message]


def batched_methods(service: ServiceDescriptor) -> dict[str, BatchedMethod]:
    """The service's unary methods marked ``(poker.common.v1.batched) = true``, by
    name, in the proto's order."""
    return {
        method.name: BatchedMethod(
            method.name,
            message_factory.GetMessageClass(method.input_type),
            message_factory.GetMessageClass(method.output_type),
        )
        for method in service.methods
        if not method.client_streaming
        and not method.server_streaming
        and method.GetOptions().Extensions[batched]
    }


@dataclass(frozen=True, slots=True)
class Early:
    """Replies a server may send before the work done before them is durable.

    ``BatchServer.answer`` with an ``early`` test yields a batch's replies that
    pass it as ``Early`` ahead of the rest (a plain ``ReplyBatch``): the lobby's
    group commit (services/lobby/commits.py) sends these at once and holds the
    rest until their fsync.  The client matches replies by id, so their order
    across messages does not matter."""

    replies: ReplyBatch


def require_calls(batch: CallBatch) -> None:
    """A batch carries at least one call (INVALID_ARGUMENT otherwise)."""
    if not batch.calls:
        raise InvalidArgumentError("a batch carries at least one call")


class BatchServer:
    """The server side of one service's ``Batch`` stream.

    Built once per servicer from the service's descriptor: for each batched
    method, the request type to decode and the servicer's own unary coroutine to
    run, so a call on the stream is the unary call.  ``calls`` (a counter
    labelled method, code) counts each call, since a call refused on the stream is
    a reply that ``grpc_server_handled_total`` never sees; ``sizes`` (a histogram)
    the calls of each message (see ``metrics.batch_metrics``).
    """

    def __init__(
        self,
        service: ServiceDescriptor,
        servicer: object,
        codes: ErrorCodes,
        calls: Counter,
        sizes: Histogram,
    ) -> None:
        self._service = service.full_name
        self._methods = batched_methods(service)
        self._handlers: dict[str, Handler] = {
            name: getattr(servicer, name) for name in self._methods
        }
        self._allowed = ", ".join(self._methods)
        self._codes = codes
        self._calls = calls
        self._sizes = sizes

    @property
    def methods(self) -> tuple[str, ...]:
        """The names of the methods a Call may name."""
        return tuple(self._methods)

    async def answer(
        self,
        batches: AsyncIterator[CallBatch],
        context: Any,
        handlers: Mapping[str, Handler] | None = None,
    ) -> AsyncIterator[ReplyBatch]:
        """A Batch stream's replies: each batch answered call by call, in order,
        into one message; an empty batch is INVALID_ARGUMENT (it ends the stream).
        ``handlers`` replaces some of the servicer's coroutines for this stream
        (by method name), for a service that keeps something per stream."""
        async for replies in self.answer_early(batches, context, handlers, None):
            assert isinstance(replies, ReplyBatch)  # nothing is early without a test
            yield replies

    async def answer_early(
        self,
        batches: AsyncIterator[CallBatch],
        context: Any,
        handlers: Mapping[str, Handler] | None,
        early: Callable[[Message], bool] | None,
    ) -> AsyncIterator[ReplyBatch | Early]:
        """``answer``, where the responses ``early`` says may leave at once go
        first, as ``Early``, and the batch's other replies follow in a
        ``ReplyBatch`` (none is yielded empty)."""
        run = self._handlers if handlers is None else {**self._handlers, **handlers}
        async for batch in batches:
            require_calls(batch)
            replies = ReplyBatch()
            first = ReplyBatch()
            for n, call in enumerate(batch.calls, 1):
                if early is None:
                    method, code, _ = await self._answer(call, replies.replies.add(), run, context)
                else:
                    reply = Reply()
                    method, code, response = await self._answer(call, reply, run, context)
                    into = first if response is not None and early(response) else replies
                    into.replies.append(reply)
                self._calls.labels(method, code.name).inc()
                if n % YIELD_EVERY == 0:
                    # A handler that never awaits (the dealer opening a deck) would
                    # otherwise hold the loop for the whole batch: a caller sending
                    # thousands of calls at once must not stall the other streams.
                    await asyncio.sleep(0)
            self._sizes.observe(len(batch.calls))
            if first.replies:
                yield Early(first)
            if replies.replies:
                yield replies

    async def _answer(
        self, call: Call, reply: Reply, run: Mapping[str, Handler], context: Any
    ) -> tuple[str, grpc.StatusCode, Message | None]:
        """Run one call into ``reply``: the response, or the status the unary call
        would have ended with as ``reply.error``.  Returns (method label, code,
        the response or None)."""
        reply.id = call.id
        method = self._methods.get(call.method)
        label = call.method if method is not None else UNKNOWN_METHOD
        try:
            if not call.method:
                raise InvalidArgumentError(f"call is required: a method, one of {self._allowed}")
            if method is None:
                raise InvalidArgumentError(
                    f"method {call.method[:64]!r} is not a batched method of "
                    f"{self._service}: one of {self._allowed}"
                )
            try:
                request = method.request.FromString(call.request)
            except DecodeError:
                bad = Undecodable(method.request.DESCRIPTOR.full_name, len(call.request))
                get_logger().warning(
                    "undecodable request",
                    method=f"{self._service}/Batch/{method.name}",
                    message_type=bad.message_type,
                    size=bad.size,
                )
                raise InvalidArgumentError(bad.details) from None
            response = await run[method.name](request, context)
            reply.response = response.SerializeToString()
            return label, grpc.StatusCode.OK, response
        except Exception as error:
            status = status_of(error, self._codes)
            if status is None:
                get_logger().exception("unexpected error", method=f"{self._service}/Batch/{label}")
                status = (grpc.StatusCode.INTERNAL, "internal error")
            reply.error.code = status[0].value[0]
            reply.error.message = status[1]
            return label, status[0], None
