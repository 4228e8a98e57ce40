"""Unary calls carried in batches over one stream: ``drain`` (either side) and
``answer`` (the server's side).

Why: in grpc.aio every message costs far more CPU than the work behind most of
the calls between the card room's services, and a table process running many
tables makes its calls at the same moments.  A ``Session`` stream lets it send
every call it has waiting as one message; the server answers each call in order
into one reply message.  Each call keeps the unary call's checks, answer and
error (the error travels in the reply instead of ending the stream), so a client
may use either.

The protos follow one shape: a call message with ``id`` and a ``call`` oneof whose
fields are named like the reply's ``result`` oneof fields, plus ``error``
(``code``, ``message``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, TypeVar

import grpc

from .errors import ErrorCodes, InvalidArgumentError, status_of
from .logs import get_logger

Handler = Callable[[Any, Any], Awaitable[Any]]
Item = TypeVar("Item")
Batch = TypeVar("Batch")


async def drain(
    queue: asyncio.Queue[Item | None],
    new_batch: Callable[[], Batch],
    add: Callable[[Batch, Item], None],
) -> AsyncIterator[Batch]:
    """The messages of a batched stream: every item waiting in ``queue`` when the
    next message is due goes into it (``add``), so items queued while the last
    message was being written leave together.  None in the queue ends the stream
    (after the message it interrupts)."""
    while (item := await queue.get()) is not None:
        batch = new_batch()
        while item is not None:
            add(batch, item)
            if queue.empty():
                break
            item = queue.get_nowait()
        yield batch
        if item is None:
            return


async def answer(
    call: Any,
    reply: Any,
    handlers: Mapping[str, Handler],
    codes: ErrorCodes,
    context: Any,
    results: Mapping[str, str] | None = None,
) -> tuple[str, grpc.StatusCode]:
    """Run one call of a batch into ``reply``: the handler's response in the result
    field named like the call's (or ``results[call]``), or ``reply.error``.
    Returns (call field, code)."""
    method = call.WhichOneof("call")
    reply.id = call.id
    try:
        if method is None:
            raise InvalidArgumentError(f"call is required: one of {', '.join(handlers)}")
        response = await handlers[method](getattr(call, method), context)
        getattr(reply, (results or {}).get(method, method)).CopyFrom(response)
        return method, grpc.StatusCode.OK
    except Exception as error:
        status = status_of(error, codes)
        if status is None:
            get_logger().exception("unexpected error", method=f"Session/{method}")
            status = (grpc.StatusCode.INTERNAL, "internal error")
        reply.error.code = status[0].value[0]
        reply.error.message = status[1]
        return method or "none", status[0]


def require_calls(batch: Any) -> None:
    """A batch carries at least one call (INVALID_ARGUMENT otherwise)."""
    if not batch.calls:
        raise InvalidArgumentError("a batch carries at least one call")


async def answer_batches(
    batches: AsyncIterator[Any],
    new_reply: Callable[[], Any],
    handlers: Mapping[str, Handler],
    codes: ErrorCodes,
    context: Any,
    calls: Any,
    sizes: Any,
    results: Mapping[str, str] | None = None,
) -> AsyncIterator[Any]:
    """A Session stream's server side: each batch answered call by call, in order,
    into one reply message (``answer``); an empty batch is INVALID_ARGUMENT.
    ``calls`` (a Prometheus counter labelled method, code) counts each call and
    ``sizes`` (a histogram) the calls of each message."""
    async for batch in batches:
        require_calls(batch)
        replies = new_reply()
        for call in batch.calls:
            method, code = await answer(
                call, replies.replies.add(), handlers, codes, context, results
            )
            calls.labels(method, code.name).inc()
        sizes.observe(len(batch.calls))
        yield replies
