"""A seat's stream through the door when the shard goes away under a write.

The container restart test (issue 16's fresh-clone CI) saw a bot stop on INTERNAL
"Internal error from Core": the gateway wrote the bot's action to a table service
that was restarting, grpc.aio failed that write in core and ended the gateway's
upstream call INTERNAL, and the gateway passed INTERNAL on.  It is a broken
connection: the client must see UNAVAILABLE, which every client retries.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError

from poker.table.v1 import table_pb2 as tpb
from poker_wire.broken import CORE_WRITE_FAILURE
from services.gateway import seats
from services.gateway.errors import as_connect_errors


def _error(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details)


class BrokenShardCall:
    """An upstream stream whose shard is gone: the snapshot, then ``error`` on the
    next write (grpc.aio's failed write) and on every read after it."""

    def __init__(self, error: grpc.aio.AioRpcError, events: list[bytes]) -> None:
        self.error = error
        self.events = list(events)
        self.broken = asyncio.Event()
        self.written: list[Any] = []

    async def write(self, message: Any) -> None:
        self.written.append(message)
        if len(self.written) > 1:  # the Join went through; the next write fails
            self.broken.set()
            raise self.error

    async def done_writing(self) -> None:
        return None

    async def read(self) -> Any:
        if self.events:
            return self.events.pop(0)
        await self.broken.wait()
        raise self.error

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[bytes]:
        while True:
            yield await self.read()

    def cancel(self) -> bool:
        return True


class Shards:
    async def shard_of(self, table_id: str) -> int:
        return 0


class FakeUpstream:
    def __init__(self, call: BrokenShardCall) -> None:
        self.shards = Shards()
        self.call = call

    def raw_play(self, shard: int) -> Any:
        return lambda *args: self.call

    def raw_play_many(self, shard: int) -> Any:
        return lambda *args: self.call


SNAPSHOT = tpb.TableEvent(snapshot=tpb.Snapshot()).SerializeToString()
JOIN = tpb.PlayerMessage(join=tpb.Join(table_id="t-1", player_id="p-1", token="x"))
ACTION = tpb.PlayerMessage(action=tpb.PlayerAction(action_seq=1))


async def _messages() -> AsyncIterator[tpb.PlayerMessage]:
    yield ACTION
    await asyncio.sleep(60)


async def _play_through(error: grpc.aio.AioRpcError) -> tuple[int, ConnectError]:
    upstream = FakeUpstream(BrokenShardCall(error, [SNAPSHOT]))
    received = 0
    with pytest.raises(ConnectError) as info, as_connect_errors("Play"):
        async for _ in seats.play(upstream, JOIN, _messages()):  # type: ignore[arg-type]
            received += 1
    return received, info.value


def test_a_play_whose_shard_write_broke_ends_unavailable_not_internal() -> None:
    received, error = asyncio.run(
        asyncio.wait_for(_play_through(_error(grpc.StatusCode.INTERNAL, CORE_WRITE_FAILURE)), 5)
    )
    assert received == 1  # the snapshot came through
    assert error.code is Code.UNAVAILABLE, error
    assert "retry" in str(error)


def test_a_shards_own_internal_stays_internal() -> None:
    """An INTERNAL the table service sent with its own message is not a broken
    connection: the client sees it as sent."""
    received, error = asyncio.run(
        asyncio.wait_for(_play_through(_error(grpc.StatusCode.INTERNAL, "internal error")), 5)
    )
    assert received == 1
    assert error.code is Code.INTERNAL and "internal error" in str(error)


def test_play_many_sessions_on_a_broken_shard_end_unavailable() -> None:
    async def scenario() -> list[tpb.SessionEvent]:
        call = BrokenShardCall(_error(grpc.StatusCode.INTERNAL, CORE_WRITE_FAILURE), [])

        class Credentials:
            async def of_join(self, player_id: str, token: str) -> None:
                return None

        many = seats.ManySeats(FakeUpstream(call), Credentials(), lambda player: None)  # type: ignore[arg-type]

        async def requests() -> AsyncIterator[tpb.PlayManyRequest]:
            yield tpb.PlayManyRequest(messages=[tpb.SessionMessage(session=7, message=JOIN)])
            yield tpb.PlayManyRequest(messages=[tpb.SessionMessage(session=7, message=ACTION)])

        ended: list[tpb.SessionEvent] = []
        async for item in many.events(requests()):
            if isinstance(item, tpb.PlayManyEvents):
                ended.extend(e for e in item.events if e.HasField("ended"))
        return ended

    ended = asyncio.run(asyncio.wait_for(scenario(), 5))
    assert [(e.session, e.ended.code) for e in ended] == [(7, grpc.StatusCode.UNAVAILABLE.value[0])]
