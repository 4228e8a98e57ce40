"""Spectators, fanned out once per table.

However many people watch a table through this replica, the shard sees one
Watch stream for it (the table's *feed*): the gateway reads each event once, as
bytes, and puts the same ``Encoded`` object in every watcher's buffer.  Nothing
is built, parsed or serialized per watcher (a Connect JSON watcher shares the
event's JSON, made once).

A watcher that falls ``GATEWAY_WATCH_BUFFER`` events behind is dropped with
RESOURCE_EXHAUSTED: the feed never waits for anyone.  A table holds at most
``GATEWAY_WATCHERS_PER_TABLE`` watchers and a player ``GATEWAY_WATCHERS_PER_PLAYER``
streams; past either the new stream is RESOURCE_EXHAUSTED and nobody else is
touched.  The feed closes with its last watcher.

Joining a feed already running: a new watcher first gets its own Snapshot (a
short Watch of its own, whose first message is the table as a spectator sees it
now), then the feed's events after it.  It is attached to the feed *before*
the snapshot is taken, so nothing falls between the two; what the feed sent
before the snapshot is recognized by the hand and event number and skipped
(events of the snapshot's hand up to its ``event_seq``; events of another hand
until that hand's first event).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc

from poker.table.v1 import table_pb2 as tpb
from service_kit.errors import ResourceExhaustedError
from service_kit.logs import get_logger

from .codecs import Encoded
from .errors import StatusError
from .metrics import (
    LIMITED,
    SPECTATOR_EVENTS,
    SPECTATOR_FEED_EVENTS,
    SPECTATORS,
    SPECTATORS_DROPPED,
    WATCHED_TABLES,
)

# Opens a raw Watch of one table on its shard: an async iterator of serialized
# TableEvents (and a way to cancel it).
OpenWatch = Callable[[str], Awaitable["grpc.aio.UnaryStreamCall[bytes, bytes]"]]


class Watcher:
    """One spectator stream: a bounded buffer the feed fills."""

    def __init__(self, feed: Feed, player_id: str, limit: int) -> None:
        self.feed = feed
        self.player_id = player_id
        self._limit = limit
        self._buffer: collections.deque[Encoded] = collections.deque()
        self._wake = asyncio.Event()
        self.ended: tuple[grpc.StatusCode, str] | None = None
        # Until the snapshot: where it left off (see the module).
        self._hand = ""
        self._seq = 0
        self._synced = False

    def push(self, event: Encoded) -> None:
        if self.ended is not None:
            return
        if len(self._buffer) >= self._limit:
            SPECTATORS_DROPPED.labels("too_slow").inc()
            self.end(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too slow: {self._limit} events were waiting for this spectator "
                "(GATEWAY_WATCH_BUFFER); watch again to resume from a snapshot",
            )
            return
        self._buffer.append(event)
        SPECTATOR_EVENTS.inc()
        self._wake.set()

    def end(self, code: grpc.StatusCode, message: str) -> None:
        if self.ended is None:
            self.ended = (code, message)
            self._buffer.clear()
            self._wake.set()

    def _after_snapshot(self, event: Encoded) -> bool:
        """False for a feed event the snapshot already covers."""
        if self._synced or not event.seq:
            return True
        if event.hand_id == self._hand:
            return event.seq > self._seq
        if event.seq == 1:  # a hand that started after the snapshot
            self._synced = True
            return True
        return False

    async def events(self, snapshot: Encoded) -> AsyncIterator[Encoded]:
        """The snapshot, then the feed's events after it; ends with the status
        the watcher was ended with (raised as a ServiceError by the caller)."""
        self._hand, self._seq = snapshot.hand_id, snapshot.seq
        self._synced = False
        yield snapshot
        while True:
            while self._buffer:
                event = self._buffer.popleft()
                if self._after_snapshot(event):
                    yield event
            if self.ended is not None:
                return
            self._wake.clear()
            await self._wake.wait()


class Feed:
    """One table's upstream Watch and its watchers."""

    def __init__(self, table_id: str, spectators: Spectators) -> None:
        self.table_id = table_id
        self.spectators = spectators
        self.watchers: set[Watcher] = set()
        self.task: asyncio.Task[None] | None = None

    async def run(self, call: grpc.aio.UnaryStreamCall[bytes, bytes]) -> None:
        code, message = grpc.StatusCode.UNAVAILABLE, "the table's feed ended; watch again"
        try:
            first = True
            async for data in call:
                if first:  # the feed's own snapshot: each watcher has its own
                    first = False
                    continue
                SPECTATOR_FEED_EVENTS.inc()
                event = _encoded(data)
                for watcher in list(self.watchers):
                    watcher.push(event)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                code, message = error.code(), error.details() or message
        finally:
            self.spectators.feed_ended(self)
            for watcher in list(self.watchers):
                SPECTATORS_DROPPED.labels("feed_ended").inc()
                watcher.end(code, message)


def _encoded(data: bytes) -> Encoded:
    """A feed event, with the hand and number the snapshot check needs (parsed
    once per event, for all watchers)."""
    event = tpb.TableEvent.FromString(data)
    return Encoded(data, tpb.TableEvent, hand_id=event.hand_id, seq=event.event_seq)


def snapshot_of(data: bytes) -> Encoded:
    """A watcher's own first message (a Snapshot event) and where it leaves off."""
    event = tpb.TableEvent.FromString(data)
    snap = event.snapshot
    return Encoded(data, tpb.TableEvent, hand_id=snap.hand_id, seq=snap.event_seq)


class Spectators:
    """Every feed of this replica, and the limits (see the module)."""

    def __init__(
        self, open_watch: OpenWatch, *, per_table: int, per_player: int, buffer: int
    ) -> None:
        self._open = open_watch
        self.per_table = per_table
        self.per_player = per_player
        self.buffer = buffer
        self._feeds: dict[str, Feed] = {}
        self._by_player: collections.Counter[str] = collections.Counter()
        self.log = get_logger()

    def feed_ended(self, feed: Feed) -> None:
        if self._feeds.get(feed.table_id) is feed:
            del self._feeds[feed.table_id]
            WATCHED_TABLES.set(len(self._feeds))

    def _admit(self, table_id: str, player_id: str) -> None:
        feed = self._feeds.get(table_id)
        if feed is not None and len(feed.watchers) >= self.per_table:
            LIMITED.labels("watchers_per_table").inc()
            raise ResourceExhaustedError(
                f"table {table_id} has {self.per_table} spectators on this door, the most "
                "allowed (GATEWAY_WATCHERS_PER_TABLE); try again later"
            )
        if self._by_player[player_id] >= self.per_player:
            LIMITED.labels("watchers_per_player").inc()
            raise ResourceExhaustedError(
                f"you already watch with {self.per_player} streams, the most allowed per "
                "player (GATEWAY_WATCHERS_PER_PLAYER); close one first"
            )

    async def _feed(self, table_id: str) -> Feed:
        feed = self._feeds.get(table_id)
        if feed is None:
            call = await self._open(table_id)
            feed = self._feeds.get(table_id)  # another watcher may have won the race
            if feed is not None:
                call.cancel()
                return feed
            feed = self._feeds[table_id] = Feed(table_id, self)
            feed.task = asyncio.create_task(feed.run(call), name=f"feed {table_id}")
            WATCHED_TABLES.set(len(self._feeds))
        return feed

    async def watch(self, table_id: str, player_id: str) -> AsyncIterator[Encoded]:
        """A spectator's stream of ``table_id``: its snapshot, then the table's
        public events; RESOURCE_EXHAUSTED past a limit or when too slow."""
        self._admit(table_id, player_id)
        self._by_player[player_id] += 1
        SPECTATORS.inc()
        watcher: Watcher | None = None
        own: grpc.aio.UnaryStreamCall[bytes, bytes] | None = None
        try:
            feed = await self._feed(table_id)
            watcher = Watcher(feed, player_id, self.buffer)
            feed.watchers.add(watcher)
            own = await self._open(table_id)
            first = await own.read()
            own.cancel()
            if not isinstance(first, bytes):
                raise ResourceExhaustedError("the table's stream ended before its snapshot")
            async for event in watcher.events(snapshot_of(first)):
                yield event
            if watcher.ended is not None and watcher.ended[0] != grpc.StatusCode.OK:
                raise StatusError(*watcher.ended)
        finally:
            if own is not None:
                own.cancel()
            SPECTATORS.dec()
            self._by_player[player_id] -= 1
            if self._by_player[player_id] <= 0:
                del self._by_player[player_id]
            if watcher is not None:
                feed = watcher.feed
                feed.watchers.discard(watcher)
                if not feed.watchers and feed.task is not None:
                    feed.task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await asyncio.shield(feed.task)
