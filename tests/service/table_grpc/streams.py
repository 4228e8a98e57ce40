"""Asyncio clients of the table's streams for the in-process tests: a player's Play
stream and a spectator's Watch, each read by a task into a list of events."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterable, AsyncIterator, Callable

import grpc

from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc

from .inroom import WAIT_S, Seated


class Reader:
    """One server stream's messages, read by a task; ``error`` is how it ended
    (None: still open, or ended OK)."""

    def __init__(self, call: AsyncIterable[tpb.TableEvent]) -> None:
        self.call = call
        self.events: list[tpb.TableEvent] = []
        self.error: grpc.aio.AioRpcError | None = None
        self.done = asyncio.Event()
        self._changed = asyncio.Event()
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for event in self.call:
                self.events.append(event)
                self._changed.set()
        except grpc.aio.AioRpcError as error:
            self.error = error
        finally:
            self.done.set()
            self._changed.set()

    async def wait_for(
        self, predicate: Callable[[tpb.TableEvent], bool], what: str, start: int = 0
    ) -> tpb.TableEvent:
        """The first event from index ``start`` that matches, waited for."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_S
        while True:
            for event in self.events[start:]:
                if predicate(event):
                    return event
            if self.done.is_set() or loop.time() > deadline:
                kinds = [e.WhichOneof("event") for e in self.events[-10:]]
                raise TimeoutError(f"no {what}; got {kinds}, ended {self.error!r}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), 0.5)

    async def ended(self) -> grpc.aio.AioRpcError | None:
        """Wait for the stream to end; its error (None: OK)."""
        await asyncio.wait_for(self.done.wait(), WAIT_S)
        return self.error

    async def close(self) -> None:
        cancel = getattr(self.call, "cancel", None)
        if cancel is not None:
            cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


class PlayStream(Reader):
    """A player's Play stream: the Join, then nothing sent (the test acts by Act)."""

    def __init__(
        self, stub: table_pb2_grpc.TableServiceAsyncStub, table_id: str, player: Seated
    ) -> None:
        self._closing = asyncio.Event()
        join = tpb.Join(table_id=table_id, player_id=player.player_id, token=player.token)
        super().__init__(stub.Play(self._requests(join)))

    async def _requests(self, join: tpb.Join) -> AsyncIterator[tpb.PlayerMessage]:
        yield tpb.PlayerMessage(join=join)
        await self._closing.wait()


def watch(stub: table_pb2_grpc.TableServiceAsyncStub, table_id: str) -> Reader:
    """A Watch of ``table_id`` on ``stub``'s channel."""
    return Reader(stub.Watch(tpb.WatchRequest(table_id=table_id)))
