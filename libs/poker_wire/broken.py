"""A stream that broke under a write, told apart from a real INTERNAL.

When a client writes a message on a stream whose peer has just gone (a table
service restarting, a gateway ending a seat's stream), grpc core fails the write
before the transport's status has arrived, and grpc.aio then ends the whole call
INTERNAL with the fixed text ``"Internal error from Core"`` (grpc/grpc#34148)
instead of UNAVAILABLE.  Which of the call's two halves sees it first is a race:
the reading task can get that INTERNAL before the writing task's ``write``
returns.  For every caller in the room it is the same broken connection as
UNAVAILABLE, which is retried; an INTERNAL a service sent on purpose has its own
message and stays INTERNAL.

>>> import grpc
>>> is_broken_write(grpc.StatusCode.INTERNAL, "Internal error from Core")
True
>>> is_broken_write(grpc.StatusCode.INTERNAL, "internal error")
False
>>> is_broken_write(grpc.StatusCode.UNAVAILABLE, "Internal error from Core")
False
"""

from __future__ import annotations

import grpc

CORE_WRITE_FAILURE = "Internal error from Core"
"""The details grpc.aio gives a call whose write failed in core."""

BROKEN_MESSAGE = "the connection to the room broke mid-stream; reconnect"


def is_broken_write(code: grpc.StatusCode | None, details: str | None) -> bool:
    """True when (``code``, ``details``) is grpc.aio's failed-write INTERNAL."""
    return code == grpc.StatusCode.INTERNAL and (details or "") == CORE_WRITE_FAILURE


def upstream_status(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str]:
    """The status to report for an ended call: a failed write's INTERNAL becomes
    UNAVAILABLE (retry), anything else stays as the peer sent it.

    >>> from grpc.aio import AioRpcError, Metadata
    >>> e = AioRpcError(grpc.StatusCode.INTERNAL, Metadata(), Metadata(), CORE_WRITE_FAILURE)
    >>> upstream_status(e)[0].name
    'UNAVAILABLE'
    """
    code, details = error.code(), error.details()
    if is_broken_write(code, details):
        return grpc.StatusCode.UNAVAILABLE, BROKEN_MESSAGE
    return code, details or code.name
