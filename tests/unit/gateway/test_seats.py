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
    """Every table on shard 0, but ``t-lobby-refuses``: the lobby, asked whether it
    exists, answers INVALID_ARGUMENT."""

    async def shard_of(self, table_id: str) -> int:
        if table_id == "t-lobby-refuses":
            raise _error(grpc.StatusCode.INVALID_ARGUMENT, "table_id: no such id")
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


class AnyToken:
    """Credentials that take every Join's token (the tests here are about shards)."""

    async def of_join(self, player_id: str, token: str, address: str | None) -> None:
        return None


def _many_seats(call: Any) -> seats.ManySeats:
    """A client's PlayMany whose every shard stream is ``call``."""
    return seats.ManySeats(FakeUpstream(call), AnyToken(), lambda player: None, "127.0.0.1:1")  # type: ignore[arg-type]


def test_play_many_sessions_on_a_broken_shard_end_unavailable() -> None:
    async def scenario() -> list[tpb.SessionEvent]:
        call = BrokenShardCall(_error(grpc.StatusCode.INTERNAL, CORE_WRITE_FAILURE), [])

        many = _many_seats(call)

        async def requests() -> AsyncIterator[tpb.PlayManyRequest]:
            yield tpb.PlayManyRequest(messages=[tpb.SessionMessage(session=7, message=JOIN)])
            # The Join leaves on its own (messages queued together leave as one write).
            await asyncio.sleep(0.05)
            yield tpb.PlayManyRequest(messages=[tpb.SessionMessage(session=7, message=ACTION)])

        ended: list[tpb.SessionEvent] = []
        async for item in many.events(requests()):
            events = tpb.PlayManyEvents.FromString(item.data).events
            ended.extend(e for e in events if e.HasField("ended"))
        return ended

    ended = asyncio.run(asyncio.wait_for(scenario(), 5))
    assert [(e.session, e.ended.code) for e in ended] == [(7, grpc.StatusCode.UNAVAILABLE.value[0])]


class HeldCall:
    """An upstream PlayMany whose first write waits until ``release``: what the
    client sends meanwhile queues in the gateway."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.written: list[bytes] = []
        self.ended = asyncio.Event()

    async def write(self, message: bytes) -> None:
        if not self.written:
            self.written.append(message)
            await self.release.wait()
        else:
            self.written.append(message)

    async def done_writing(self) -> None:
        self.ended.set()

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[bytes]:
        await self.ended.wait()
        return
        yield b""  # an async generator that ends when the writes are done

    def cancel(self) -> bool:
        return True


def _written_behind_a_held_write(behind: list[tpb.SessionMessage]) -> list[bytes]:
    """What a shard's PlayMany was written: a Join, then ``behind`` (each sent by
    the client as a request of its own) while the Join's write is held."""

    async def scenario() -> list[bytes]:
        call = HeldCall()
        many = _many_seats(call)

        async def requests() -> AsyncIterator[tpb.PlayManyRequest]:
            yield tpb.PlayManyRequest(messages=[tpb.SessionMessage(session=1, message=JOIN)])
            while not call.written:
                await asyncio.sleep(0.001)
            for message in behind:
                yield tpb.PlayManyRequest(messages=[message])
            await asyncio.sleep(0.01)  # all of them queued behind the held write
            call.release.set()

        async for _ in many.events(requests()):
            pass
        return call.written

    return asyncio.run(asyncio.wait_for(scenario(), 5))


def test_play_many_messages_queued_behind_a_write_leave_as_one_in_order() -> None:
    """While one write to a shard is in flight, the client's next messages for
    that shard queue and then leave as one PlayManyRequest, in the order sent."""
    written = _written_behind_a_held_write(
        [
            tpb.SessionMessage(
                session=1, message=tpb.PlayerMessage(action=tpb.PlayerAction(action_seq=seq))
            )
            for seq in (1, 2, 3)
        ]
    )
    assert len(written) == 2, written
    first, joined = (tpb.PlayManyRequest.FromString(w) for w in written)
    assert first.messages[0].message.HasField("join")
    assert [m.message.action.action_seq for m in joined.messages] == [1, 2, 3]
    assert all(m.session == 1 for m in joined.messages)


def test_play_many_joins_no_more_than_the_shards_receive_limit_allows() -> None:
    """Messages queued behind a write are joined only up to UP_JOIN_BYTES (the
    table service refuses a message over its 1 MiB limit); a large message
    leaves alone, as it came, and the order is kept."""
    # A Join whose token is half the bound: two of them do not fit one message.
    token = "x" * (seats.UP_JOIN_BYTES // 2)
    big = tpb.PlayerMessage(join=tpb.Join(table_id="t-1", player_id="p-1", token=token))
    written = _written_behind_a_held_write(
        [tpb.SessionMessage(session=session, message=big) for session in (2, 3, 4)]
    )
    assert all(len(w) <= seats.UP_JOIN_BYTES for w in written[1:]), [len(w) for w in written]
    requests = [tpb.PlayManyRequest.FromString(w) for w in written[1:]]
    assert [[m.session for m in r.messages] for r in requests] == [[2], [3], [4]]


def test_a_play_many_join_the_lobby_refuses_ends_that_session_only() -> None:
    """A Join whose table the lobby answers with an error ends that one session
    with the lobby's status; the stream and the other sessions go on."""

    async def scenario() -> tuple[list[tpb.SessionEvent], list[bytes]]:
        call = HeldCall()
        call.release.set()
        many = _many_seats(call)
        refused = tpb.PlayerMessage(
            join=tpb.Join(table_id="t-lobby-refuses", player_id="p-2", token="x")
        )

        async def requests() -> AsyncIterator[tpb.PlayManyRequest]:
            yield tpb.PlayManyRequest(messages=[tpb.SessionMessage(session=2, message=refused)])
            yield tpb.PlayManyRequest(messages=[tpb.SessionMessage(session=1, message=JOIN)])
            await asyncio.sleep(0.01)

        ended: list[tpb.SessionEvent] = []
        async for item in many.events(requests()):
            events = tpb.PlayManyEvents.FromString(item.data).events
            ended.extend(e for e in events if e.HasField("ended"))
        return ended, call.written

    ended, written = asyncio.run(asyncio.wait_for(scenario(), 5))
    assert [(e.session, e.ended.code) for e in ended] == [
        (2, grpc.StatusCode.INVALID_ARGUMENT.value[0])
    ]
    assert "table_id" in ended[0].ended.message
    sent = [m for w in written for m in tpb.PlayManyRequest.FromString(w).messages]
    assert [m.session for m in sent] == [1]  # the other session's Join reached its shard


class CancelledOnCancel:
    """An upstream Play the gateway cancels: its read then raises CancelledError,
    as grpc.aio's locally cancelled call does."""

    def __init__(self) -> None:
        self.cancelled = asyncio.Event()

    async def write(self, message: Any) -> None:
        return None

    async def done_writing(self) -> None:
        return None

    async def read(self) -> Any:
        await self.cancelled.wait()
        raise asyncio.CancelledError

    def cancel(self) -> bool:
        self.cancelled.set()
        return True


def test_a_play_whose_client_sends_an_undecodable_message_ends_invalid_argument() -> None:
    """The client's own bad message is the status it gets (a probe once saw
    CANCELLED: the gateway cancels the shard's call, whose read says so)."""

    async def garbage() -> AsyncIterator[tpb.PlayerMessage]:
        yield ACTION
        raise ConnectError(Code.INVALID_ARGUMENT, "unmarshal message: not a PlayerMessage")

    async def scenario() -> ConnectError:
        upstream = FakeUpstream(CancelledOnCancel())  # type: ignore[arg-type]
        with pytest.raises(ConnectError) as info, as_connect_errors("Play"):
            async for _ in seats.play(upstream, JOIN, garbage()):  # type: ignore[arg-type]
                pass
        return info.value

    error = asyncio.run(asyncio.wait_for(scenario(), 5))
    assert error.code is Code.INVALID_ARGUMENT and "PlayerMessage" in str(error)
