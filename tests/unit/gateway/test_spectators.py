"""Spectators through the door: one feed per table fanned out as the same bytes,
bounded buffers, limits, and a late watcher's snapshot in step with the feed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from poker.table.v1 import table_pb2 as tpb
from service_kit.errors import ResourceExhaustedError
from services.gateway.codecs import Batch, Encoded
from services.gateway.errors import StatusError
from services.gateway.spectators import Spectators


class FakeCall:
    """A Watch of one table on its shard: a snapshot, then what the table sends."""

    def __init__(self, table: FakeTable) -> None:
        self.table = table
        self.queue: asyncio.Queue[bytes | BaseException | None] = asyncio.Queue()
        self.cancelled = False
        snapshot = tpb.TableEvent(
            table_id="t-1",
            snapshot=tpb.Snapshot(table_id="t-1", hand_id=table.hand_id, event_seq=table.seq),
        )
        self.queue.put_nowait(snapshot.SerializeToString())

    async def read(self) -> Any:
        item = await self.queue.get()
        if isinstance(item, BaseException):
            raise item
        return grpc.aio.EOF if item is None else item

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[bytes]:
        while True:
            item = await self.read()
            if item is grpc.aio.EOF:
                return
            yield item

    def cancel(self) -> bool:
        self.cancelled = True
        self.queue.put_nowait(None)
        return True


class FakeTable:
    def __init__(self) -> None:
        self.calls: list[FakeCall] = []
        self.hand_id = "h-1"
        self.seq = 0

    async def open(self, table_id: str) -> FakeCall:
        call = FakeCall(self)
        self.calls.append(call)
        return call

    async def snapshot(self, table_id: str) -> bytes:
        """GetState without a player: the spectator's view now."""
        return tpb.TableEvent(
            table_id="t-1",
            snapshot=tpb.Snapshot(table_id="t-1", hand_id=self.hand_id, event_seq=self.seq),
        ).SerializeToString()

    def emit(self, hand_id: str, seq: int) -> tpb.TableEvent:
        self.hand_id, self.seq = hand_id, seq
        event = tpb.TableEvent(table_id="t-1", hand_id=hand_id, event_seq=seq)
        for call in self.calls:
            if not call.cancelled:
                call.queue.put_nowait(event.SerializeToString())
        return event

    def fail(self, error: BaseException) -> None:
        for call in self.calls:
            call.queue.put_nowait(error)


def _room(table: FakeTable, **limits: Any) -> Spectators:
    settings = {
        "per_table": 100,
        "per_player": 10,
        "buffer": 50,
        "coalesce_s": 0.0,
        "drop_grace_s": 0.05,
    }
    settings.update(limits)
    return Spectators(table.open, table.snapshot, **settings)  # type: ignore[arg-type]


class Watching:
    """One watcher's stream, read into a list on a task of its own."""

    def __init__(
        self, spectators: Spectators, player: str, *, read: bool = True, stuck: bool = False
    ) -> None:
        self.got: list[Encoded] = []
        self.error: BaseException | None = None
        self.stream = spectators.watch("t-1", player)
        self.stuck_once = False
        self.task = asyncio.create_task(self._run(read, stuck))

    async def _run(self, read: bool, stuck: bool) -> None:
        try:
            async for message in self.stream:
                self.got.append(message)
                if not read:
                    await asyncio.Event().wait()  # took the snapshot, never reads again
        except asyncio.CancelledError:
            if not stuck:
                raise
            # As connectrpc does: the cancelled stream writes its status, and a
            # client that does not read holds that write too.
            self.stuck_once = True
            await asyncio.Event().wait()
        except Exception as error:
            self.error = error


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


def test_every_watcher_gets_the_same_bytes_from_one_feed() -> None:
    async def scenario() -> None:
        table = FakeTable()
        spectators = _room(table)
        watchers = [Watching(spectators, f"p{i % 3}") for i in range(6)]
        await _settle()
        feeds = [c for c in table.calls if not c.cancelled]
        assert len(feeds) == 1, "one upstream feed per table, whatever the watchers"
        table.emit("h-1", 1)
        table.emit("h-1", 2)
        await _settle()
        firsts = [w.got[1] for w in watchers]
        assert all(m is firsts[0] for m in firsts), "the same object for every watcher"
        assert [tpb.TableEvent.FromString(w.got[2].data).event_seq for w in watchers] == [2] * 6
        for w in watchers:
            w.task.cancel()
        await _settle()
        assert all(c.cancelled for c in table.calls), "the feed closes with its last watcher"

    asyncio.run(scenario())


def test_events_close_together_reach_watchers_as_one_batch() -> None:
    async def scenario() -> None:
        table = FakeTable()
        spectators = _room(table, coalesce_s=0.02)
        watcher = Watching(spectators, "p1")
        await _settle()
        sent = [table.emit("h-1", seq) for seq in (1, 2, 3)]
        await asyncio.sleep(0.05)
        assert len(watcher.got) == 2  # the snapshot, then one message
        batch = watcher.got[1]
        assert isinstance(batch, Batch)
        assert tpb.TableEvent.FromString(batch.data).batch.events == sent
        watcher.task.cancel()

    asyncio.run(scenario())


def test_a_watcher_that_does_not_read_is_dropped_and_the_others_go_on() -> None:
    async def scenario() -> None:
        table = FakeTable()
        spectators = _room(table, buffer=8)
        slow = Watching(spectators, "p1", read=False)
        fast = Watching(spectators, "p2")
        await _settle()
        for seq in range(1, 21):
            table.emit("h-1", seq)
            await _settle()
        assert len(fast.got) == 21 and fast.error is None
        await asyncio.sleep(0.1)  # the grace: the stream that never reads is cut off
        assert slow.task.cancelled()
        assert spectators.watching() == 1
        fast.task.cancel()

    asyncio.run(scenario())


def test_a_watcher_stuck_again_writing_its_status_is_cancelled_again() -> None:
    """A client that does not read holds the stream's status write too: the
    gateway cancels the stream again a grace later, so it ends (its HTTP/2
    stream is then reset: hypercorn_fix)."""

    async def scenario() -> None:
        table = FakeTable()
        spectators = _room(table, buffer=4)
        slow = Watching(spectators, "p1", read=False, stuck=True)
        await _settle()
        for seq in range(1, 8):
            table.emit("h-1", seq)
            await _settle()
        await asyncio.sleep(0.07)  # one grace: cancelled, and stuck again
        assert slow.stuck_once and not slow.task.done()
        await asyncio.sleep(0.07)  # another: cancelled again, for good
        assert slow.task.cancelled()

    asyncio.run(scenario())


def test_a_watcher_reading_too_slowly_gets_resource_exhausted() -> None:
    async def scenario() -> None:
        table = FakeTable()
        spectators = _room(table, buffer=4)
        got: list[Encoded] = []
        error: list[BaseException] = []

        async def slow_reader() -> None:
            try:
                async for message in spectators.watch("t-1", "p1"):
                    got.append(message)
                    await asyncio.sleep(0.02)
            except StatusError as exc:
                error.append(exc)

        task = asyncio.create_task(slow_reader())
        await _settle()
        for seq in range(1, 11):
            table.emit("h-1", seq)
            await _settle()
        await asyncio.wait_for(task, 1)
        assert error and error[0].code == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
        assert "GATEWAY_WATCH_BUFFER" in str(error[0])
        assert spectators.watching() == 0

    asyncio.run(scenario())


def test_watchers_past_the_limits_are_refused_and_nobody_else_is_touched() -> None:
    async def scenario() -> None:
        table = FakeTable()
        spectators = _room(table, per_table=3, per_player=2)
        mine = [Watching(spectators, "p1") for _ in range(2)]
        await _settle()
        third = Watching(spectators, "p1")
        await _settle()
        assert isinstance(third.error, ResourceExhaustedError)
        assert "GATEWAY_WATCHERS_PER_PLAYER" in third.error.message
        other = Watching(spectators, "p2")
        await _settle()
        assert other.error is None
        fourth = Watching(spectators, "p3")
        await _settle()
        assert isinstance(fourth.error, ResourceExhaustedError)
        assert "GATEWAY_WATCHERS_PER_TABLE" in fourth.error.message
        table.emit("h-1", 1)
        await _settle()
        assert all(len(w.got) == 2 and w.error is None for w in (*mine, other))
        for w in (*mine, other):
            w.task.cancel()

    asyncio.run(scenario())


def test_a_late_watcher_gets_its_snapshot_then_only_what_follows_it() -> None:
    """The feed runs before the new watcher's snapshot is taken: events the
    snapshot covers are not sent again, and none after it is lost."""

    async def scenario() -> None:
        table = FakeTable()
        spectators = _room(table)
        first = Watching(spectators, "p1")
        await _settle()
        table.emit("h-1", 1)
        await _settle()
        # The late watcher attaches to the feed, then its own snapshot is taken;
        # an event the feed delivered just before the snapshot is in its buffer.
        late_stream = spectators.watch("t-1", "p2")
        got: list[Encoded] = []

        async def read_late() -> None:
            async for message in late_stream:
                got.append(message)

        task = asyncio.create_task(read_late())
        await _settle()
        table.emit("h-1", 2)
        table.emit("h-1", 3)
        table.emit("h-2", 1)
        await _settle()
        snapshot = tpb.TableEvent.FromString(got[0].data).snapshot
        seqs = [
            (e.hand_id, e.event_seq) for e in (tpb.TableEvent.FromString(m.data) for m in got[1:])
        ]
        covered = (snapshot.hand_id, snapshot.event_seq)
        assert all(s > covered for s in seqs if s[0] == covered[0])
        expected = [(h, s) for h, s in [("h-1", 2), ("h-1", 3), ("h-2", 1)] if (h, s) > covered]
        assert seqs == expected
        task.cancel()
        first.task.cancel()

    asyncio.run(scenario())


def test_a_feed_that_breaks_ends_its_watchers_with_its_status() -> None:
    async def scenario() -> None:
        table = FakeTable()
        spectators = _room(table)
        watcher = Watching(spectators, "p1")
        await _settle()
        error = grpc.aio.AioRpcError(
            grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "shard gone"
        )
        table.fail(error)
        await _settle()
        assert isinstance(watcher.error, StatusError)
        assert watcher.error.code == grpc.StatusCode.UNAVAILABLE

    asyncio.run(scenario())


@pytest.mark.parametrize("limit", [1, 5])
def test_a_player_may_watch_again_once_a_stream_closes(limit: int) -> None:
    async def scenario() -> None:
        table = FakeTable()
        spectators = _room(table, per_player=limit)
        streams = [Watching(spectators, "p1") for _ in range(limit)]
        await _settle()
        streams[0].task.cancel()
        await _settle()
        again = Watching(spectators, "p1")
        await _settle()
        assert again.error is None and len(again.got) == 1
        for w in (*streams[1:], again):
            w.task.cancel()

    asyncio.run(scenario())
