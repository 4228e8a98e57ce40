"""A table's viewers: the open streams, and how one fact reaches each of them.

Why a module of its own: the hand loop decides *what* happened; this decides who
hears it and in which shape.  One subscriber per player (a newer connection
replaces the older, which is how a reconnect works) and any number of
spectators.  Each fact of the hand goes through ``facts.view`` for each viewer,
the only way an event is made, built once per distinct view rather than once per
stream.  ``DELIVERY_ON_TURN`` subscribers get their events gathered into one
EventBatch when they must act or the hand ends.

Spectators (``Watcher``) all see the same public view, so it is also serialized
once per event for all of them: every Watch stream of the table gets the same
bytes object, sent as it is (the Watch handler's serializer passes bytes
through, ``server.add_table_services``).  Each watcher has a bounded buffer
(``WatchLimits.buffer``): one that falls that far behind is dropped with
RESOURCE_EXHAUSTED, never waited for, and gives its place up at once, so a slow
spectator costs the table nothing.  A table takes at most
``WatchLimits.per_table`` watchers and one client at most
``WatchLimits.per_client`` (``WatchClients``); past either the new stream is
refused and nobody else is touched.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import grpc

from poker.table.v1 import table_pb2 as pb
from service_kit.errors import ResourceExhaustedError

from . import facts as f
from . import wire as frames
from .hand import Hand
from .metrics import ACTIONS_REJECTED, STREAM_MESSAGES, WATCHERS_DROPPED
from .settings import WATCH_BUFFER, WATCHERS_PER_CLIENT, WATCHERS_PER_TABLE

QUEUE_LIMIT = 2_000  # events waiting for a slow reader before it is disconnected
_SPECTATOR_MESSAGES = STREAM_MESSAGES.labels("event")  # looked up once: every event


@dataclass(frozen=True, slots=True)
class WatchLimits:
    """How much the spectators of this replica may take (TABLE_WATCH_BUFFER,
    TABLE_WATCHERS_PER_TABLE, TABLE_WATCHERS_PER_CLIENT)."""

    buffer: int = WATCH_BUFFER  # messages one Watch stream may have waiting unread
    per_table: int = WATCHERS_PER_TABLE  # Watch streams on one table, the gateway's included
    per_client: int = WATCHERS_PER_CLIENT  # Watch streams of one client without an identity


def serialize(event: pb.TableEvent) -> bytes:
    """An event's wire bytes, made once for every spectator of the table."""
    return event.SerializeToString()


# What a shared stream's sink gets: an event, a DELIVERY_ON_TURN batch of them
# (the sink wraps them itself: one copy instead of two), or None at the end.  A
# ``wire`` subscriber's sink gets serialized TableEvents instead (``bytes``: one
# event, or a DELIVERY_ON_TURN batch framed around the events' bytes).
Sink = Callable[["Subscriber", "pb.TableEvent | list[pb.TableEvent] | bytes | None"], None]


class Subscriber:
    """One player's open stream (spectators are ``Watcher``s).

    Its events go to ``queue`` (one Play stream each), or to ``sink`` when many
    subscribers share one stream (PlayMany): the sink gets each event, and None
    when the subscriber ends.  ``wire``: the sink takes serialized events, the
    bytes ``Audience.emit`` made once for every seat that sees the same view
    (PlayMany sends them as they are, ``wire.session_event``)."""

    def __init__(
        self, player_id: str, delivery: int, sink: Sink | None = None, *, wire: bool = False
    ) -> None:
        self.player_id = player_id
        self.on_turn = delivery == pb.DELIVERY_ON_TURN
        self.sink = sink
        self.wire = wire and sink is not None
        self.queue: asyncio.Queue[pb.TableEvent | None] = asyncio.Queue()
        self.buffer: list[pb.TableEvent] = []
        self.wire_buffer: list[frames.Piece] = []  # a wire subscriber's DELIVERY_ON_TURN buffer
        self.viewer = f.Viewer()
        self.hand_id = ""
        self.ended: tuple[grpc.StatusCode, str] | None = None

    def _push(self, event: pb.TableEvent) -> None:
        if self.ended is not None:
            return
        if self.sink is not None:  # the shared stream counts its own messages
            self.sink(self, event)
            return
        if self.queue.qsize() >= QUEUE_LIMIT:
            self.end(grpc.StatusCode.RESOURCE_EXHAUSTED, "the stream is not being read")
            return
        STREAM_MESSAGES.labels("batch" if event.HasField("batch") else "event").inc()
        self.queue.put_nowait(event)

    def _flush(self) -> None:
        if not self.buffer:
            return
        if self.sink is not None and self.ended is None:
            self.sink(self, self.buffer)
            self.buffer = []
            return
        if len(self.buffer) == 1:
            self._push(self.buffer[0])
        else:
            self._push(pb.TableEvent(batch=pb.EventBatch(events=self.buffer)))
        self.buffer = []

    def deliver(self, event: pb.TableEvent, *, urgent: bool) -> None:
        """A hand event; ``urgent`` ones (the seat's turn, the hand's end) flush a
        DELIVERY_ON_TURN buffer."""
        if not self.on_turn:
            self._push(event)
            return
        self.buffer.append(event)
        if urgent:
            self._flush()

    def deliver_wire(self, piece: frames.Piece, *, urgent: bool) -> None:
        """``deliver`` for a ``wire`` subscriber: the event's bytes, shared with
        every seat that sees the same view."""
        if self.on_turn:
            self.wire_buffer.append(piece)
            if urgent:
                self._flush_wire()
        elif self.ended is None:
            self.sink(self, piece.event)  # type: ignore[misc]  # a wire subscriber has a sink

    def _flush_wire(self) -> None:
        buffered, self.wire_buffer = self.wire_buffer, []
        if not buffered or self.ended is not None:
            return
        data = buffered[0].event if len(buffered) == 1 else frames.batch_of(buffered)
        self.sink(self, data)  # type: ignore[misc]  # a wire subscriber has a sink

    def direct(self, event: pb.TableEvent) -> None:
        """Snapshot, Pong, ActionRejected: sent now, after anything buffered."""
        if self.wire:
            if self.on_turn:
                self.wire_buffer.append(frames.piece(event.SerializeToString()))
                self._flush_wire()
            elif self.ended is None:
                self.sink(self, event.SerializeToString())  # type: ignore[misc]
            return
        if self.on_turn:
            self.buffer.append(event)
            self._flush()
        else:
            self._push(event)

    def end(self, code: grpc.StatusCode, message: str) -> None:
        """Close the stream with a status (replaced by a newer connection, too slow)."""
        if self.ended is None:
            self.ended = (code, message)
            self.buffer = []
            self.wire_buffer = []
            if self.sink is not None:
                self.sink(self, None)
            else:
                self.queue.put_nowait(None)


class Watcher:
    """One spectator's Watch stream: the serialized public events, waiting in a
    bounded buffer for the stream to send them.

    The table never waits for a watcher: ``send`` appends or, when ``limit``
    messages are already waiting, drops the watcher (its buffer is freed at once
    and the stream ends RESOURCE_EXHAUSTED)."""

    __slots__ = ("_ready", "ended", "limit", "pending")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pending: collections.deque[bytes] = collections.deque()
        self.ended: tuple[grpc.StatusCode, str] | None = None
        self._ready = asyncio.Event()

    def send(self, wire: bytes) -> bool:
        """Queue one serialized event; False when the watcher is (now) gone."""
        if self.ended is not None:
            return False
        if len(self.pending) >= self.limit:
            WATCHERS_DROPPED.labels("too_slow").inc()
            self.pending.clear()
            self.end(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too slow: {self.limit} events were waiting unread "
                "(TABLE_WATCH_BUFFER); a spectator must read as fast as the table deals",
            )
            return False
        self.pending.append(wire)
        self._ready.set()
        return True

    def end(self, code: grpc.StatusCode, message: str) -> None:
        """Close the stream with a status once what is waiting is sent (the table
        stops; a dropped watcher has nothing waiting)."""
        if self.ended is None:
            self.ended = (code, message)
            self._ready.set()

    async def messages(self) -> AsyncIterator[bytes]:
        """What the Watch stream sends, in order, until the watcher ends."""
        while True:
            while self.pending:
                yield self.pending.popleft()
            if self.ended is not None:
                return
            self._ready.clear()
            await self._ready.wait()


class WatchClients:
    """Watch streams open per client, across this replica's tables, so one client
    cannot take a table's (or the replica's) spectator places by itself.

    A client is its address without the port (many connections from one host are
    one client).  Callers with a service identity are not counted here: the
    gateway multiplexes many spectators over one Watch per table.  ``limit``
    None: nobody is limited (no identities, GRPC_PLAINTEXT: the gateway could
    not be told from a client)."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.open: dict[str, int] = {}

    def admit(self, client: str) -> None:
        """Count one more stream of ``client``, or refuse it (RESOURCE_EXHAUSTED)."""
        if self.limit is None:
            return
        count = self.open.get(client, 0)
        if count >= self.limit:
            WATCHERS_DROPPED.labels("client_limit").inc()
            raise ResourceExhaustedError(
                f"this client already has {count} Watch streams open, the most one client "
                f"may hold (TABLE_WATCHERS_PER_CLIENT={self.limit}); close one first"
            )
        self.open[client] = count + 1

    def release(self, client: str) -> None:
        """One of ``client``'s streams closed."""
        if self.limit is None:
            return
        count = self.open.get(client, 0) - 1
        if count > 0:
            self.open[client] = count
        else:
            self.open.pop(client, None)


def client_address(peer: str) -> str:
    """The client of a gRPC peer string: ``ipv4:10.0.0.7:51234`` -> ``ipv4:10.0.0.7``
    (``ipv6:[::1]:51234`` -> ``ipv6:[::1]``); other kinds (``unix:``) as they are."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6"):
        host, colon, port = rest.rpartition(":")
        if colon and port.isdigit():
            return f"{kind}:{host}"
    return peer


class Audience:
    """Everyone subscribed to one table: its players' streams and its spectators'."""

    def __init__(self, table_id: str, limits: WatchLimits | None = None) -> None:
        self.table_id = table_id
        self.limits = limits or WatchLimits()
        self.players: dict[str, Subscriber] = {}
        self.spectators: dict[Watcher, None] = {}  # in the order they came

    def join(
        self,
        player_id: str,
        delivery: int,
        sink: Sink | None,
        hand: Hand | None,
        *,
        wire: bool = False,
    ) -> Subscriber:
        """A player's new stream; it replaces their older one (reconnect).  It sees
        ``hand`` (the hand in progress, if any) from its own seat (none: the
        spectators' view).  ``wire``: its sink takes serialized events."""
        sub = Subscriber(player_id, delivery, sink, wire=wire)
        old = self.players.get(player_id)
        if old is not None:
            old.end(grpc.StatusCode.ABORTED, "replaced by a newer connection of this player")
        self.players[player_id] = sub
        if hand is not None:
            sub.hand_id = hand.hand_id
            sub.viewer = f.Viewer(hand.seat_of(player_id))
        return sub

    def leave(self, sub: Subscriber) -> None:
        """A player's stream closed; their newer connection stays subscribed."""
        if self.players.get(sub.player_id) is sub:
            del self.players[sub.player_id]

    def watch(self) -> Watcher:
        """A new spectator, or RESOURCE_EXHAUSTED when the table has its most."""
        if len(self.spectators) >= self.limits.per_table:
            WATCHERS_DROPPED.labels("table_limit").inc()
            raise ResourceExhaustedError(
                f"table {self.table_id} has {len(self.spectators)} spectators, the most it "
                f"takes (TABLE_WATCHERS_PER_TABLE={self.limits.per_table}); try again later"
            )
        watcher = Watcher(self.limits.buffer)
        self.spectators[watcher] = None
        return watcher

    def unwatch(self, watcher: Watcher) -> None:
        """A spectator's stream closed."""
        self.spectators.pop(watcher, None)

    def emit(self, hand: Hand, fact: f.Fact) -> None:
        """Send one fact to every viewer, as ``facts.view`` builds it for each: once
        for everyone, once more for the seat it is private to (and per viewer for
        the rare showdown that differs by more than one seat).  Each view is
        serialized at most once too: every ``wire`` subscriber (PlayMany) and every
        spectator that sees it gets the same bytes (``broadcast``).

        The key of a view is the seat it is private to, or -1 for the view every
        other seat and the spectators share: ``facts.private_to`` and
        ``facts.shared`` say which facts have one, and the shared view is built for
        the spectator's seat (``facts.SPECTATOR``), which holds no card, so no seat's
        hidden card can be in the bytes the others get."""
        hand_id = hand.hand_id
        turn = isinstance(fact, f.Turn)
        urgent = turn or isinstance(fact, f.HandFinished)
        seq = len(hand.facts)
        private = f.private_to(fact)
        shared = f.shared(fact)
        built: dict[int, pb.TableEvent] = {}
        pieces: dict[int, frames.Piece] = {}

        def event_for(key: int) -> pb.TableEvent:
            event = built.get(key)
            if event is None:
                viewer = f.Viewer(f.SPECTATOR if key == -1 else key)
                event = built[key] = f.view(
                    fact, viewer, seq=seq, table_id=self.table_id, hand_id=hand_id
                )
            return event

        def piece_for(key: int) -> frames.Piece:
            piece = pieces.get(key)
            if piece is None:
                piece = pieces[key] = frames.piece(serialize(event_for(key)))
            return piece

        for sub in list(self.players.values()):
            if sub.hand_id != hand_id:
                sub.hand_id = hand_id
                sub.viewer = f.Viewer(hand.seat_of(sub.player_id))
            seat = sub.viewer.seat
            key = seat if (seat == private or not shared) else -1
            now = urgent and (not turn or seat == private)
            if sub.wire:
                sub.deliver_wire(pieces.get(key) or piece_for(key), urgent=now)
            else:
                sub.deliver(event_for(key), urgent=now)
        if self.spectators:
            self.broadcast(piece_for(-1 if shared else f.SPECTATOR).event)

    def broadcast(self, wire: bytes) -> None:
        """One serialized event to every spectator: the same bytes for all.  A
        watcher too far behind is dropped (``Watcher.send``) and gives its place
        at the table up at once, even while its stream is still stuck sending
        what it had (a client that stopped reading)."""
        sent = 0
        for watcher in list(self.spectators):
            if watcher.send(wire):
                sent += 1
            else:  # ended: it takes no place any more
                del self.spectators[watcher]
        _SPECTATOR_MESSAGES.inc(sent)

    def reject(
        self, sub: Subscriber, hand_id: str, action_seq: int, code: grpc.StatusCode, message: str
    ) -> None:
        """Tell one stream its action was refused (counted by status code)."""
        ACTIONS_REJECTED.labels(code.name).inc()
        sub.direct(
            pb.TableEvent(
                table_id=self.table_id,
                hand_id=hand_id,
                action_rejected=pb.ActionRejected(
                    action_seq=action_seq, code=code.value[0], message=message
                ),
            )
        )

    def end_all(self, code: grpc.StatusCode, message: str) -> None:
        """Close every stream with one status (the table is shutting down)."""
        for sub in list(self.players.values()):
            sub.end(code, message)
        for watcher in list(self.spectators):
            watcher.end(code, message)


__all__ = [
    "QUEUE_LIMIT",
    "Audience",
    "Sink",
    "Subscriber",
    "WatchClients",
    "WatchLimits",
    "Watcher",
    "client_address",
    "serialize",
]
