"""Calls and replies of the internal services' ``Batch`` streams, for the tests
(the convention of ``poker/common/v1/batch.proto``)."""

from __future__ import annotations

from typing import TypeVar

from google.protobuf.message import Message

from poker.common.v1.batch_pb2 import Call, Reply

M = TypeVar("M", bound=Message)


def call(call_id: int, method: str = "", request: Message | None = None) -> Call:
    """A Call of ``method`` with ``request`` serialized (none: an empty body)."""
    body = b"" if request is None else request.SerializeToString()
    return Call(id=call_id, method=method, request=body)


def response(reply: Reply, kind: type[M]) -> M:
    """The reply's response decoded as ``kind``; a refused call fails the test."""
    assert reply.WhichOneof("result") == "response", reply.error.message
    return kind.FromString(reply.response)
