"""Spectators, fanned out once per table.

However many people watch a table through this replica, the shard sees one
Watch stream for it (the table's *feed*): the gateway reads each event once, as
bytes, and puts the same ``Encoded`` object in every watcher's buffer.  Nothing
is built, parsed or serialized per watcher (a Connect JSON watcher shares the
event's JSON, made once).

Events that reach a feed within ``GATEWAY_WATCH_COALESCE_MS`` of each other
(a street's cards, the antes, an action and the next turn) go to the watchers as
one message, a ``TableEvent{batch}`` made once per table by joining the events'
bytes (``codecs.Batch``): what costs the door is messages, not bytes, and a
person watching does not see 10 ms.

A watcher that falls ``GATEWAY_WATCH_BUFFER`` messages behind is dropped with
RESOURCE_EXHAUSTED: the feed never waits for anyone, its buffer is freed at
once, and a client that does not read at all (so never takes that status) has
its stream cut off a moment later.  A table holds at most
``GATEWAY_WATCHERS_PER_TABLE`` watchers and a player ``GATEWAY_WATCHERS_PER_PLAYER``
streams; past either the new stream is RESOURCE_EXHAUSTED and nobody else is
touched.  The feed closes with its last watcher.

Joining a feed already running: a new watcher first gets its own Snapshot (the
shard's GetState without a player: the table as a spectator sees it now; a
unary call, since thousands of short Watch streams opened and cancelled at once
look to a gRPC server like a reset flood, which it answers by cancelling
streams), then the feed's events after it.  It is attached to the feed *before*
the snapshot is taken, so nothing falls between the two; what the feed sent
before the snapshot is recognized by the hand and event number and skipped
(events of the snapshot's hand up to its ``event_seq``; events of another hand
until that hand's first event).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc

from poker.table.v1 import table_pb2 as tpb
from service_kit.errors import ResourceExhaustedError
from service_kit.logs import get_logger

from .codecs import Batch, Encoded, gathered
from .errors import StatusError
from .metrics import (
    LIMITED,
    SPECTATOR_EVENTS,
    SPECTATOR_FEED_EVENTS,
    SPECTATOR_MESSAGES,
    SPECTATORS,
    SPECTATORS_DROPPED,
    WATCHED_TABLES,
)

# Opens a raw Watch of one table on its shard: an async iterator of serialized
# TableEvents (and a way to cancel it).
OpenWatch = Callable[[str], Awaitable["grpc.aio.UnaryStreamCall[bytes, bytes]"]]
# A spectator's view of one table now: a serialized TableEvent{snapshot} (the
# shard's GetState without a player: what Watch's first message shows).
Snapshot = Callable[[str], Awaitable[bytes]]


# How many times a watcher that does not read is cancelled before it is left to
# the connection's own end (each a grace apart).
CUT_OFF_TRIES = 3


class Watcher:
    """One spectator stream: a bounded buffer the feed fills."""

    def __init__(
        self,
        feed: Feed,
        player_id: str,
        limit: int,
        drop_grace_s: float,
        release: Callable[[Watcher], None],
    ) -> None:
        self.feed = feed
        self._release = release
        self.released = False
        self.player_id = player_id
        self._limit = limit
        self._grace = drop_grace_s
        # The task serving this stream: a watcher that does not read at all is
        # stuck writing to it, and is cut off (cancelled) if it has not taken its
        # RESOURCE_EXHAUSTED within the grace.
        self.task = asyncio.current_task()
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
                f"too slow: {self._limit} messages were waiting for this spectator "
                "(GATEWAY_WATCH_BUFFER); watch again to resume from a snapshot",
            )
            self._release(self)  # its place and its buffer, now
            asyncio.get_running_loop().call_later(self._grace, self._cut_off)
            return
        self._buffer.append(event)
        SPECTATOR_MESSAGES.inc()
        SPECTATOR_EVENTS.inc(len(event.members) if isinstance(event, Batch) else 1)
        self._wake.set()

    def _cut_off(self, tries: int = CUT_OFF_TRIES) -> None:
        """Cancel the stream's task; again a grace later while it is still
        running: a stream whose client does not read can be cancelled in the
        middle of writing, and then stuck again writing its error's trailers."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
            if tries > 1:
                asyncio.get_running_loop().call_later(self._grace, self._cut_off, tries - 1)

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

    def _unseen(self, message: Encoded) -> Encoded | None:
        """The part of a feed message the snapshot does not cover (the message
        itself once in step: only a new watcher's first messages are looked into)."""
        if self._synced:
            return message
        members = message.members if isinstance(message, Batch) else [message]
        kept = [m for m in members if self._after_snapshot(m)]
        if len(kept) == len(members):
            return message
        return gathered(kept) if kept else None

    async def events(self, snapshot: Encoded) -> AsyncIterator[Encoded]:
        """The snapshot, then the feed's events after it; ends with the status
        the watcher was ended with (raised as a ServiceError by the caller)."""
        self._hand, self._seq = snapshot.hand_id, snapshot.seq
        self._synced = False
        yield snapshot
        while True:
            while self._buffer:
                unseen = self._unseen(self._buffer.popleft())
                if unseen is not None:
                    yield unseen
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
        self._pending: list[Encoded] = []
        self._flush: asyncio.TimerHandle | None = None

    def _send(self) -> None:
        """The events gathered in the coalescing window, one message to everyone."""
        self._flush = None
        if not self._pending:
            return
        message = gathered(self._pending)
        self._pending = []
        for watcher in list(self.watchers):
            watcher.push(message)

    def _add(self, event: Encoded) -> None:
        self._pending.append(event)
        delay = self.spectators.coalesce_s
        if not delay:
            self._send()
        elif self._flush is None:
            self._flush = asyncio.get_running_loop().call_later(delay, self._send)

    async def run(self, call: grpc.aio.UnaryStreamCall[bytes, bytes]) -> None:
        code, message = grpc.StatusCode.UNAVAILABLE, "the table's feed ended; watch again"
        try:
            first = True
            async for data in call:
                if first:  # the feed's own snapshot: each watcher has its own
                    first = False
                    continue
                SPECTATOR_FEED_EVENTS.inc()
                self._add(_encoded(data))
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                code, message = error.code(), error.details() or message
        finally:
            call.cancel()
            if self._flush is not None:
                self._flush.cancel()
            self._send()
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
        self,
        open_watch: OpenWatch,
        snapshot: Snapshot,
        *,
        per_table: int,
        per_player: int,
        buffer: int,
        coalesce_s: float = 0.0,
        drop_grace_s: float = 2.0,
    ) -> None:
        self._open = open_watch
        self._snapshot = snapshot
        self.coalesce_s = coalesce_s
        self.drop_grace_s = drop_grace_s
        self.per_table = per_table
        self.per_player = per_player
        self.buffer = buffer
        self._feeds: dict[str, Feed] = {}
        self._by_player: collections.Counter[str] = collections.Counter()
        self._by_table: collections.Counter[str] = collections.Counter()
        self.log = get_logger()

    def watching(self) -> int:
        """Spectator streams open on this replica."""
        return sum(len(feed.watchers) for feed in self._feeds.values())

    def feed_ended(self, feed: Feed) -> None:
        if self._feeds.get(feed.table_id) is feed:
            del self._feeds[feed.table_id]
            WATCHED_TABLES.set(len(self._feeds))

    def _admit(self, table_id: str, player_id: str) -> None:
        if self._by_table[table_id] >= self.per_table:
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

    def _join(self, table_id: str, player_id: str) -> None:
        """Count a new watcher (after ``_admit``, before anything is awaited, so
        watchers arriving together cannot all pass the limits)."""
        self._by_player[player_id] += 1
        self._by_table[table_id] += 1
        SPECTATORS.inc()

    def _leave(self, table_id: str, player_id: str) -> None:
        SPECTATORS.dec()
        for counts, key in ((self._by_player, player_id), (self._by_table, table_id)):
            counts[key] -= 1
            if counts[key] <= 0:
                del counts[key]

    def _release(self, watcher: Watcher) -> None:
        """A watcher leaves (its stream closed, or it was dropped): its place in
        the feed and in its player's count, once; the feed closes with its last."""
        if watcher.released:
            return
        watcher.released = True
        self._leave(watcher.feed.table_id, watcher.player_id)
        feed = watcher.feed
        feed.watchers.discard(watcher)
        if not feed.watchers and feed.task is not None:
            feed.task.cancel()

    async def watch(self, table_id: str, player_id: str) -> AsyncIterator[Encoded]:
        """A spectator's stream of ``table_id``: its snapshot, then the table's
        public events; RESOURCE_EXHAUSTED past a limit or when too slow."""
        self._admit(table_id, player_id)
        self._join(table_id, player_id)
        try:
            feed = await self._feed(table_id)
        except BaseException:
            self._leave(table_id, player_id)
            raise
        watcher = Watcher(feed, player_id, self.buffer, self.drop_grace_s, self._release)
        feed.watchers.add(watcher)
        try:
            first = await self._snapshot(table_id)
            async for event in watcher.events(snapshot_of(first)):
                yield event
            if watcher.ended is not None and watcher.ended[0] != grpc.StatusCode.OK:
                raise StatusError(*watcher.ended)
        finally:
            self._release(watcher)
