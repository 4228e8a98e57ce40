"""A table's viewers: the open streams, and how one fact reaches each of them.

Why a module of its own: the hand loop decides *what* happened; this decides who
hears it and in which shape.  One subscriber per player (a newer connection
replaces the older, which is how a reconnect works) and any number of
spectators.  Each fact of the hand goes through ``facts.view`` for each viewer,
the only way an event is made, built once per distinct view rather than once per
stream.  ``DELIVERY_ON_TURN`` subscribers get their events gathered into one
EventBatch when they must act or the hand ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import grpc

from poker.table.v1 import table_pb2 as pb

from . import facts as f
from .hand import Hand
from .metrics import ACTIONS_REJECTED, STREAM_MESSAGES

QUEUE_LIMIT = 2_000  # events waiting for a slow reader before it is disconnected


# What a shared stream's sink gets: an event, a DELIVERY_ON_TURN batch of them
# (the sink wraps them itself: one copy instead of two), or None at the end.
Sink = Callable[["Subscriber", "pb.TableEvent | list[pb.TableEvent] | None"], None]


class Subscriber:
    """One open stream: a player's (``player_id``) or a spectator's (None).

    Its events go to ``queue`` (one Play or Watch stream each), or to ``sink`` when
    many subscribers share one stream (PlayMany): the sink gets each event, and
    None when the subscriber ends."""

    def __init__(self, player_id: str | None, delivery: int, sink: Sink | None = None) -> None:
        self.player_id = player_id
        self.on_turn = delivery == pb.DELIVERY_ON_TURN
        self.sink = sink
        self.queue: asyncio.Queue[pb.TableEvent | None] = asyncio.Queue()
        self.buffer: list[pb.TableEvent] = []
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

    def direct(self, event: pb.TableEvent) -> None:
        """Snapshot, Pong, ActionRejected: sent now, after anything buffered."""
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
            if self.sink is not None:
                self.sink(self, None)
            else:
                self.queue.put_nowait(None)


class Audience:
    """Everyone subscribed to one table: its players' streams and its spectators'."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.players: dict[str, Subscriber] = {}
        self.spectators: set[Subscriber] = set()

    def everyone(self) -> list[Subscriber]:
        """Players first, then spectators: the order every fact is delivered in."""
        return [*self.players.values(), *self.spectators]

    def join(
        self, player_id: str | None, delivery: int, sink: Sink | None, hand: Hand | None
    ) -> Subscriber:
        """A new stream; a player's replaces their older one (reconnect).  It sees
        ``hand`` (the hand in progress, if any) from its own seat."""
        sub = Subscriber(player_id, delivery, sink)
        if player_id is None:
            self.spectators.add(sub)
        else:
            old = self.players.get(player_id)
            if old is not None:
                old.end(grpc.StatusCode.ABORTED, "replaced by a newer connection of this player")
            self.players[player_id] = sub
        if hand is not None:
            sub.hand_id = hand.hand_id
            sub.viewer = f.Viewer(hand.seat_of(player_id) if player_id else f.SPECTATOR)
        return sub

    def leave(self, sub: Subscriber) -> None:
        """A stream closed; a player's newer connection stays subscribed."""
        if sub.player_id is None:
            self.spectators.discard(sub)
        elif self.players.get(sub.player_id) is sub:
            del self.players[sub.player_id]

    def emit(self, hand: Hand, fact: f.Fact) -> None:
        """Send one fact to every viewer, as ``facts.view`` builds it for each: once
        for everyone, once more for the seat it is private to (and per viewer for
        the rare showdown that differs by more than one seat)."""
        urgent = isinstance(fact, f.Turn | f.HandFinished)
        seq = len(hand.facts)
        private = f.private_to(fact)
        shared = f.shared(fact)
        built: dict[int, pb.TableEvent] = {}
        for sub in self.everyone():
            if sub.hand_id != hand.hand_id:
                sub.hand_id = hand.hand_id
                sub.viewer = f.Viewer(hand.seat_of(sub.player_id) if sub.player_id else f.SPECTATOR)
            seat = sub.viewer.seat
            key = seat if (seat == private or not shared) else -1
            event = built.get(key)
            if event is None:
                event = built[key] = f.view(
                    fact, sub.viewer, seq=seq, table_id=self.table_id, hand_id=hand.hand_id
                )
            sub.deliver(event, urgent=urgent and (not isinstance(fact, f.Turn) or seat == private))

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
        for sub in self.everyone():
            sub.end(code, message)


__all__ = ["QUEUE_LIMIT", "Audience", "Sink", "Subscriber"]
