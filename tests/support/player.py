"""A scripted player of the card room over real gRPC (tests only).

:class:`Player`: one registered player (id, token) and at most one open ``Play``
stream: :meth:`Player.connect` (returns the Join's Snapshot), ``events`` (batches
unpacked), :meth:`Player.wait_for`, :meth:`Player.next_turn` (a ``YourTurn``, or
a ``Snapshot`` with ``your_turn``), :meth:`Player.act` / :meth:`Player.send`,
:meth:`Player.close` (half-close, or ``abrupt``), :meth:`Player.twin` (a second
connection of the same player); lobby and unary calls on its behalf
(:meth:`Player.sit`, :meth:`Player.stand_up`, :meth:`Player.balance`,
:meth:`Player.state` = GetState, :meth:`Player.history`).

Each open stream is read by a daemon thread into the player's event list.  Waits
take a ``timeout`` and raise ``TimeoutError`` with what was seen, never hang.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import grpc

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as tpb
from tests.support.wire import hand_of, parse_action, turn_of, unpack

if TYPE_CHECKING:
    from tests.support.room import Room

WAIT_S = 20.0  # default wait for an event; generous for a loaded 2-core machine


class Player:
    """A registered player and (at most) one open Play stream.

    ``events`` holds every event received on the current stream, batches unpacked;
    ``all_events`` those of every stream this player opened.  Reading is done by a
    daemon thread; ``changed`` (shared by the players of a :class:`Hand`) is notified
    on every event, so a driver can wait on several players at once.
    """

    def __init__(self, room: Room, player_id: str, token: str, name: str) -> None:
        self.room = room
        self.id = player_id
        self.token = token
        self.name = name
        self.seat = 0
        self.table_id = ""
        self.granted = 0  # play money RegisterPlayer granted
        self.buy_in = 0  # the last SitDown's buy-in
        self.changed = threading.Condition()
        self.events: list[tpb.TableEvent] = []
        self.all_events: list[tpb.TableEvent] = []
        self.ended: grpc.RpcError | None = None  # how the last stream ended, if it did
        self.stream_done = threading.Event()
        self._outbox: queue.Queue[tpb.PlayerMessage | None] | None = None
        self._call: Any = None
        self._answered: set[tuple[str, int]] = set()

    def twin(self) -> Player:
        """The same player (id, token, seat) as a second client, with a stream of its
        own: a second connection, as from another device."""
        other = Player(self.room, self.id, self.token, self.name)
        other.changed = self.changed
        other.seat, other.table_id = self.seat, self.table_id
        other.granted, other.buy_in = self.granted, self.buy_in
        return other

    # -- the stream

    def connect(
        self, table_id: str, delivery: tpb.Delivery.ValueType = tpb.DELIVERY_EVERY_EVENT
    ) -> tpb.Snapshot:
        """Open a Play stream to ``table_id`` (Join); returns the first Snapshot.
        An open stream of this player is closed first.  A refused Join (a wrong
        token: PERMISSION_DENIED, an unknown table: NOT_FOUND...) raises the
        ``grpc.RpcError`` the stream ended with."""
        self.close()
        self.table_id = table_id
        outbox: queue.Queue[tpb.PlayerMessage | None] = queue.Queue()
        outbox.put(
            tpb.PlayerMessage(
                join=tpb.Join(
                    table_id=table_id, player_id=self.id, token=self.token, delivery=delivery
                )
            )
        )
        self._outbox = outbox
        self.events = []
        self.ended = None
        self.stream_done = threading.Event()

        def requests() -> Iterator[tpb.PlayerMessage]:
            while True:
                msg = outbox.get()
                if msg is None:
                    return
                yield msg

        call = self.room.table.Play(requests())
        self._call = call
        done = self.stream_done
        threading.Thread(target=self._read, args=(call, done), daemon=True).start()
        try:
            snap = self.wait_for(lambda e: e.HasField("snapshot"), what="the Join's Snapshot")
        except TimeoutError:
            if self.ended is not None:
                raise self.ended from None
            raise
        return snap.snapshot

    def _read(self, call: Any, done: threading.Event) -> None:
        try:
            for message in call:
                with self.changed:
                    if call is not self._call:
                        return
                    for event in unpack(message):
                        self.events.append(event)
                        self.all_events.append(event)
                    self.changed.notify_all()
        except grpc.RpcError as error:
            with self.changed:
                if call is self._call:
                    self.ended = error
        finally:
            done.set()
            with self.changed:
                self.changed.notify_all()

    def send(self, message: tpb.PlayerMessage) -> None:
        if self._outbox is None:
            raise RuntimeError(f"{self.name} has no open stream")
        self._outbox.put(message)

    def close(self, *, abrupt: bool = False) -> None:
        """End the stream: half-close (the server ends it OK), or ``abrupt``: cancel
        it as a dropped connection would."""
        call, outbox = self._call, self._outbox
        if call is None or outbox is None:
            return
        if abrupt:
            call.cancel()
        outbox.put(None)
        self.stream_done.wait(5)
        with self.changed:
            self._call = None
            self._outbox = None

    # -- waiting

    def wait_for(
        self,
        predicate: Callable[[tpb.TableEvent], bool],
        *,
        start: int = 0,
        timeout: float = WAIT_S,
        what: str = "an event",
    ) -> tpb.TableEvent:
        """The first event of the current stream from index ``start`` that matches."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for event in self.events[start:]:
                    if predicate(event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0 or self.stream_done.is_set():  # nothing more will come
                    raise TimeoutError(f"{self.name}: no {what}; got {self.describe_events()}")
                self.changed.wait(min(left, 0.5))

    def pending_turn(self) -> tuple[str, tpb.YourTurn] | None:
        """The newest turn (hand_id, YourTurn) received and not answered yet."""
        with self.changed:
            for event in reversed(self.events):
                turn = turn_of(event)
                if turn is not None:
                    hand_id = hand_of(event)
                    if (hand_id, turn.action_seq) in self._answered:
                        return None
                    return hand_id, turn
                if event.HasField("action_taken") or event.HasField("hand_finished"):
                    return None  # the turn (if any) has passed
        return None

    def next_turn(self, timeout: float = WAIT_S) -> tuple[str, tpb.YourTurn]:
        """Wait for a turn not answered yet; returns (hand_id, YourTurn)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                turn = self.pending_turn()
                if turn is not None:
                    return turn
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{self.name}: no turn; got {self.describe_events()}")
                self.changed.wait(min(left, 0.5))

    def act(self, act: common.Action | str, turn: tuple[str, tpb.YourTurn] | None = None) -> None:
        """Answer ``turn`` (default: the pending one, waited for) with ``act`` (an
        Action or text like ``"raise 300"``)."""
        hand_id, your_turn = turn if turn is not None else self.next_turn()
        if isinstance(act, str):
            act = parse_action(act, your_turn.legal)
        self._answered.add((hand_id, your_turn.action_seq))
        self.send(
            tpb.PlayerMessage(
                action=tpb.PlayerAction(
                    hand_id=hand_id, action_seq=your_turn.action_seq, action=act
                )
            )
        )

    # -- reading what happened

    def of(self, kind: str, hand_id: str | None = None) -> list[Any]:
        """The payloads of every event of ``kind`` (a TableEvent oneof name, like
        ``"action_taken"``) on every stream of this player, optionally of one hand."""
        with self.changed:
            return [
                getattr(e, kind)
                for e in self.all_events
                if e.WhichOneof("event") == kind and (hand_id is None or e.hand_id == hand_id)
            ]

    def describe_events(self, last: int = 12) -> str:
        kinds = [e.WhichOneof("event") for e in self.events[-last:]]
        ended = f", stream ended {self.ended.code()}" if self.ended is not None else ""
        return f"{len(self.events)} events, the last {kinds}{ended}"

    # -- lobby calls on this player's behalf

    def sit(self, table_id: str, buy_in: int, seat: int = 0) -> lpb.SitDownResponse:
        reply: lpb.SitDownResponse = self.room.lobby.SitDown(
            lpb.SitDownRequest(
                player_id=self.id, token=self.token, table_id=table_id, seat=seat, buy_in=buy_in
            ),
            timeout=10,
        )
        self.seat = reply.seat
        self.table_id = table_id
        self.buy_in = buy_in
        return reply

    def stand_up(self) -> lpb.StandUpResponse:
        reply: lpb.StandUpResponse = self.room.lobby.StandUp(
            lpb.StandUpRequest(player_id=self.id, token=self.token, table_id=self.table_id),
            timeout=10,
        )
        return reply

    def balance(self) -> lpb.Player:
        reply: lpb.Player = self.room.lobby.GetPlayer(
            lpb.GetPlayerRequest(player_id=self.id, token=self.token), timeout=10
        )
        return reply

    def state(self) -> tpb.Snapshot:
        """GetState: the table as this player may see it now."""
        reply: tpb.Snapshot = self.room.table.GetState(
            tpb.GetStateRequest(table_id=self.table_id, player_id=self.id, token=self.token),
            timeout=10,
        )
        return reply

    def history(self, hand_id: str) -> tpb.HandHistory:
        """GetHandHistory of one finished hand, as this player may see it."""
        reply = self.room.table.GetHandHistory(
            tpb.GetHandHistoryRequest(
                table_id=self.table_id, player_id=self.id, token=self.token, hand_id=hand_id
            ),
            timeout=10,
        )
        (hand,) = reply.hands
        history: tpb.HandHistory = hand
        return history
