"""A small scripted-player client of the card room, over real gRPC (tests only).

Used by the end-to-end tests (``tests/system/e2e``) and reusable by any test that needs
players at a table of a running :class:`devroom.stack.Stack`::

    stack = Stack(env=stack_env()).start()
    room = Room(stack)
    hand = room.start_hand(STUD, order=stud_order([...]), buy_ins=[1000, 1000])
    hand.play(script({1: ["bring_in"], 2: ["call", "raise 300"]}))  # or hand.play()
    hand.settle()            # recorded; the deal audits; chips conserved; paid out
    assert hand.final_stacks() == {1: ..., 2: ...}
    assert hand.moves()[:2] == [(1, "bring_in"), (2, "call")]
    room.close()
    stop_stack(stack)

The pieces:

- :func:`stack_env`: the per-service settings a test stack needs (preset decks on,
  an audit token, tables started on demand only, roomy call deadlines);
  :func:`stop_stack` stops a stack (table first, backends side by side).
- :class:`Room`: stubs of the lobby (``room.lobby``) and the table service
  (``room.table``); players (:meth:`Room.register`), tables
  (:meth:`Room.create_table`, :meth:`Room.preset`), the audit (:meth:`Room.reveal`,
  :meth:`Room.audit`, :meth:`Room.audit_all`), the chip invariant
  (:meth:`Room.assert_chips_conserved`), ``/metrics`` (:meth:`Room.metrics`, with
  :func:`sample` and :func:`total`), and :meth:`Room.start_hand`: new players
  seated at a new table with a preset deck, their streams connected, the first
  hand in progress (a :class:`Hand`).
- :class:`Player`: one registered player (id, token) and at most one open ``Play``
  stream: :meth:`Player.connect` (returns the Join's Snapshot), ``events`` (batches
  unpacked), :meth:`Player.wait_for`, :meth:`Player.next_turn` (a ``YourTurn``, or
  a ``Snapshot`` with ``your_turn``), :meth:`Player.act` / :meth:`Player.send`,
  :meth:`Player.close` (half-close, or ``abrupt``), :meth:`Player.twin` (a second
  connection of the same player); lobby and unary calls on its behalf
  (:meth:`Player.sit`, :meth:`Player.stand_up`, :meth:`Player.balance`,
  :meth:`Player.state` = GetState, :meth:`Player.history`).
- :class:`Hand`: :meth:`Hand.play` answers every turn with a policy until the
  hand ends; :meth:`Hand.settle`; what happened: :meth:`Hand.finished`,
  :meth:`Hand.final_stacks`, :meth:`Hand.awards`, :meth:`Hand.showdown` (live),
  :meth:`Hand.seen` and :meth:`Hand.moves` (from the hand history: complete).
- Policies for :meth:`Hand.play`, ``(player, hand_id, turn) -> action``:
  :func:`passive` (stand pat, check, call, bring in), :func:`script` (each seat's
  actions in order, like ``"raise 300"``; ``None`` lets the clock run out).
- Deck builders: :func:`stud_order` and :func:`draw_order` turn "who gets which
  card" into the dealer's preset order (first dealt first), filling the rest.

Everything is synchronous (``grpc`` blocking stubs); each open stream is read by a
daemon thread into the player's event list.  Waits take a ``timeout`` and raise
``TimeoutError`` with what was seen, never hang.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from devroom.stack import Stack
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc
from services.dealer.audit import audit_reveal
from tests.support.metrics import scrape

AUDIT_TOKEN = "e2e-audit-token"
WAIT_S = 20.0  # default wait for an event; generous for a loaded 2-core machine

RANKS = "23456789TJQKA"
SUITS = "cdhs"  # G2 order, clubs lowest
STUD_DECK = [r + s for r in RANKS for s in SUITS]
SHORT_DECK = [r + s for r in "789TJQKA" for s in SUITS]  # G1: 7-A, 32 cards
SHORT_DECK_SIXES = [r + s for r in "6789TJQKA" for s in SUITS]  # G1: five players, 36

KINDS = {
    "fold": common.ACTION_KIND_FOLD,
    "check": common.ACTION_KIND_CHECK,
    "call": common.ACTION_KIND_CALL,
    "bring_in": common.ACTION_KIND_BRING_IN,
    "complete": common.ACTION_KIND_COMPLETE,
    "bet": common.ACTION_KIND_BET,
    "raise": common.ACTION_KIND_RAISE,
    "discard": common.ACTION_KIND_DISCARD,
}
KIND_NAMES = {v: k for k, v in KINDS.items()}


def stack_env(**table: str) -> dict[str, dict[str, str]]:
    """``Stack(env=...)`` for tests: preset decks allowed in dealer and table, the
    audit token set, tables started only when a test first touches them (so that a
    table's first hand never starts before its preset deck is set), quick idle
    polls, and a roomy deadline on the table's downstream calls (a hand is voided
    when one fails; a loaded test machine can be slow).  Keyword arguments override
    or add table settings."""
    return {
        "dealer": {"DEALER_ALLOW_PRESET_DECKS": "1"},
        "table": {
            "TABLE_ALLOW_PRESET_DECKS": "1",
            "TABLE_AUDIT_TOKEN": AUDIT_TOKEN,
            "TABLE_DISCOVERY_S": "3600",
            "TABLE_IDLE_POLL_S": "0.3",  # idle tables ask the lobby 3 times a second
            "CALL_DEADLINE_S": "10",
            **table,
        },
    }


def stop_stack(stack: Stack) -> None:
    """``stack.stop()``, faster: the table first (it stops calling the others), then
    the four backends side by side."""
    table = stack.processes.pop("table", None)
    if table is not None:
        table.terminate()
    backends = [stack.processes.pop(name) for name in list(stack.processes)]
    threads = [threading.Thread(target=p.terminate) for p in backends]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def action(kind: str, amount: int = 0, cards: Iterable[str] = ()) -> common.Action:
    """An Action from a kind name (``"call"``, ``"raise"``...), a to-amount and discards."""
    return common.Action(kind=KINDS[kind], amount=amount, cards=list(cards))


def parse_action(text: str, legal: common.LegalActions) -> common.Action:
    """``"call"``, ``"raise 300"``, ``"bet"`` (the smallest legal amount),
    ``"discard 7c 8d"``, ``"discard"`` (stand pat) -> an Action."""
    kind, *rest = text.split()
    if kind == "discard":
        return action("discard", cards=rest)
    if kind in ("bet", "raise", "complete"):
        amount = int(rest[0]) if rest else (min(legal.to_choices) if legal.to_choices else 0)
        if not rest and not legal.to_choices:
            amount = legal.min_to
        return action(kind, amount)
    if rest:
        raise ValueError(f"{kind} takes no amount: {text!r}")
    return action(kind)


def unpack(event: tpb.TableEvent) -> Iterator[tpb.TableEvent]:
    """The events of one stream message: itself, or a batch's events in order."""
    if event.WhichOneof("event") == "batch":
        for inner in event.batch.events:
            yield from unpack(inner)
    else:
        yield event


# ---------------------------------------------------------------------- decks


def _complete(prefix: Sequence[str | None], deck: Sequence[str]) -> list[str]:
    """``prefix`` with every ``None`` (a burn or a card nobody cares about) and the
    tail filled from the unused cards of ``deck``, in deck order."""
    used = [c for c in prefix if c is not None]
    if len(set(used)) != len(used):
        raise ValueError(f"a card is used twice: {used}")
    strangers = set(used) - set(deck)
    if strangers:
        raise ValueError(f"not in this deck: {sorted(strangers)}")
    spare = iter([c for c in deck if c not in set(used)])
    order = [c if c is not None else next(spare) for c in prefix]
    order.extend(spare)
    return order


def stud_order(
    third: Sequence[tuple[str, str, str]],
    streets: Sequence[Sequence[str]] = (),
    river: Sequence[str] = (),
    burns: Sequence[str] = (),
) -> list[str]:
    """A 52-card stud preset order.

    ``third[i]`` is (down, down, door) of the i-th player dealt in (seat order from
    seat 1); ``streets`` are fourth, fifth and sixth street, each the upcards of the
    players still in, in seat order; ``river`` the seventh-street down cards (a
    normal river: burn one, one each).  Burns come from ``burns`` in order, then
    from the unused cards.  No burn before third street (S4 default).
    """
    n = len(third)
    prefix: list[str | None] = [third[k % n][k // n] for k in range(3 * n)]
    burn = iter(burns)
    for street in (*streets, *([river] if river else [])):
        prefix.append(next(burn, None))
        prefix.extend(street)
    return _complete(prefix, STUD_DECK)


def draw_order(
    hands: Sequence[Sequence[str]],
    stub: Sequence[str] = (),
    burn: str | None = None,
    sixes: bool = False,
) -> list[str]:
    """A 7-A preset order: ``hands[i]`` are the five cards of the i-th player in
    dealing order (from the left of the button, D4), dealt one at a time round the
    table; then the burn before the draw (D6) and ``stub``, the cards the draws
    take in order.  ``sixes``: the 36-card deck of five players (G1)."""
    n = len(hands)
    prefix: list[str | None] = [hands[k % n][k // n] for k in range(5 * n)]
    prefix.append(burn)
    prefix.extend(stub)
    return _complete(prefix, SHORT_DECK_SIXES if sixes else SHORT_DECK)


# ---------------------------------------------------------------------- players


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
                turn = _turn_of(event)
                if turn is not None:
                    hand_id = _hand_of(event)
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


def _turn_of(event: tpb.TableEvent) -> tpb.YourTurn | None:
    if event.HasField("your_turn"):
        return event.your_turn
    if event.HasField("snapshot") and event.snapshot.HasField("your_turn"):
        return event.snapshot.your_turn
    return None


def _hand_of(event: tpb.TableEvent) -> str:
    return event.snapshot.hand_id if event.HasField("snapshot") else event.hand_id


# ---------------------------------------------------------------------- policies

Policy = Callable[["Player", str, tpb.YourTurn], "common.Action | str | None"]
"""(player, hand_id, turn) -> the answer; None = do not answer (let the clock run)."""


def passive(player: Player, hand_id: str, turn: tpb.YourTurn) -> common.Action:
    """Stay in as cheaply as possible: stand pat, check, call, bring in."""
    kinds = set(turn.legal.kinds)
    for kind in ("discard", "check", "call", "bring_in"):
        if KINDS[kind] in kinds:
            return action(kind)
    return action("fold")


def script(actions: Mapping[int, Sequence[str | None]], then: Policy = passive) -> Policy:
    """Each seat's actions in order (text as :func:`parse_action` reads it; None =
    let the clock run out); once a seat's list is used up, ``then`` decides."""
    queues = {seat: list(acts) for seat, acts in actions.items()}

    def policy(player: Player, hand_id: str, turn: tpb.YourTurn) -> common.Action | str | None:
        todo = queues.get(turn.legal.seat)
        if todo:
            return todo.pop(0)
        return then(player, hand_id, turn)

    return policy


# ---------------------------------------------------------------------- hands


@dataclass
class Hand:
    """A hand in progress at a table of its own, with its players connected.

    ``players`` are in seat order (seat 1 first); ``hand_id`` is known once any
    player has seen the hand (always, by the time :meth:`Room.start_hand` returns).
    """

    room: Room
    table_id: str
    players: list[Player]
    hand_id: str = ""
    timeouts: list[tuple[int, int]] = field(default_factory=list)  # (seat, action_seq) left
    turns: list[tpb.YourTurn] = field(default_factory=list)  # every turn play() answered
    stood_up: bool = False  # the players asked to leave after this hand

    def by_seat(self, seat: int) -> Player:
        return next(p for p in self.players if p.seat == seat)

    def play(self, policy: Policy = passive, timeout: float = 40.0) -> tpb.HandFinished:
        """Answer every turn of every player with ``policy`` until the hand finishes;
        returns HandFinished (as the first player saw it)."""
        deadline = time.monotonic() + timeout
        skipped: set[tuple[str, int]] = set()
        while True:
            for player in self.players:
                turn = player.pending_turn()
                if turn is None or (turn[0], turn[1].action_seq) in skipped:
                    continue
                if turn[0] != self.hand_id:
                    raise AssertionError(f"a turn in another hand {turn[0]} ({self.hand_id})")
                answer = policy(player, *turn)
                self.turns.append(turn[1])
                if answer is None:
                    skipped.add((turn[0], turn[1].action_seq))
                    self.timeouts.append((turn[1].legal.seat, turn[1].action_seq))
                else:
                    player.act(answer, turn)
            for player in self.players:
                refused = player.of("action_rejected", self.hand_id)
                if refused:
                    raise AssertionError(f"seat {player.seat}'s action was refused: {refused}")
            ends = [p.of("hand_finished", self.hand_id) for p in self.players]
            if any(end and end[0].voided for end in ends):
                raise AssertionError(f"hand {self.hand_id} was voided: {self.room.why_voided()}")
            if all(ends):
                return self.finished()
            if time.monotonic() > deadline:
                raise TimeoutError(
                    "the hand did not finish: "
                    + "; ".join(f"seat {p.seat}: {p.describe_events()}" for p in self.players)
                )
            changed = self.players[0].changed
            with changed:
                changed.wait(0.05)

    def finished(self, seat: int = 0) -> tpb.HandFinished:
        """HandFinished as ``seat`` (default the first player) saw it (waits)."""
        player = self.by_seat(seat) if seat else self.players[0]
        if not player.of("hand_finished", self.hand_id):
            player.wait_for(
                lambda e: e.HasField("hand_finished") and e.hand_id == self.hand_id,
                what="HandFinished",
            )
        (done,) = player.of("hand_finished", self.hand_id)
        result: tpb.HandFinished = done
        return result

    def final_stacks(self) -> dict[int, int]:
        return {s.seat: s.stack for s in self.finished().seats}

    def awards(self) -> list[tuple[int, int, int, int]]:
        """(pot_index, seat, amount, share) of every award, in order."""
        return [(a.pot_index, a.seat, a.amount, a.share) for a in self.finished().awards]

    def showdown(self, seat: int = 0) -> tpb.ShowdownEvent | None:
        player = self.by_seat(seat) if seat else self.players[0]
        shown = player.of("showdown", self.hand_id)
        return shown[0] if shown else None

    def actions(self, seat: int = 0) -> list[tpb.ActionTaken]:
        """Every ActionTaken of the hand, as ``seat`` (default the first) saw them."""
        player = self.by_seat(seat) if seat else self.players[0]
        return player.of("action_taken", self.hand_id)

    def history(self, seat: int = 0) -> tpb.HandHistory:
        """GetHandHistory of this (finished) hand as ``seat`` (default the first) sees it."""
        player = self.by_seat(seat) if seat else self.players[0]
        return player.history(self.hand_id)

    def seen(self, kind: str, seat: int = 0) -> list[Any]:
        """The payloads of every ``kind`` event (``"action_taken"``, ``"cards_dealt"``...)
        of the finished hand, from ``seat``'s history: complete, even for a player who
        joined the hand late."""
        return [
            getattr(e, kind) for e in self.history(seat).events if e.WhichOneof("event") == kind
        ]

    def moves(self, seat: int = 0) -> list[tuple[int, str]]:
        """(seat, kind name) of every ActionTaken of the finished hand, in order."""
        return [
            (a.seat, KIND_NAMES.get(a.action.kind, str(a.action.kind)))
            for a in self.seen("action_taken", seat)
        ]

    def settle(self, timeout: float = WAIT_S) -> tpb.DeckReveal:
        """Wait until the finished hand is recorded (the table's history has its
        reveal, the lobby has its result: players who stood up have left), then
        check it: the deal verifies and chips are conserved.  Returns the reveal."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                reveal = self.room.reveal(self.table_id, self.hand_id)
                if not self.stood_up or all(not p.balance().at_tables for p in self.players):
                    break
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.NOT_FOUND:
                    raise
            if time.monotonic() > deadline:
                raise TimeoutError(f"hand {self.hand_id} was not recorded")
            time.sleep(0.02)
        problems = self.room.audit(self.table_id, self.hand_id)
        assert problems == [], problems
        self.room.assert_chips_conserved()
        if self.stood_up:  # the lobby paid out exactly the final stacks
            final = self.final_stacks()
            for p in self.players:
                assert p.balance().balance == p.granted - p.buy_in + final[p.seat], p.name
        return reveal

    def close(self) -> None:
        for player in self.players:
            player.close()


# ---------------------------------------------------------------------- the room


class Room:
    """Stubs of a running stack's lobby and table service, and the test helpers."""

    def __init__(self, stack: Stack, audit_token: str = AUDIT_TOKEN) -> None:
        self.stack = stack
        self.audit_token = audit_token
        self._channels = [
            grpc.insecure_channel(stack.target("lobby")),
            grpc.insecure_channel(stack.target("table")),
        ]
        self.lobby = lobby_pb2_grpc.LobbyStub(self._channels[0])
        self.table = table_pb2_grpc.TableServiceStub(self._channels[1])
        self.players: list[Player] = []
        self.tables: list[str] = []
        self._names = 0

    def close(self) -> None:
        for player in self.players:
            with contextlib.suppress(Exception):
                player.close()
        for channel in self._channels:
            channel.close()

    # -- lobby

    def register(self, name: str = "", balance: int = 100_000) -> Player:
        self._names += 1
        name = name or f"player{self._names}"
        reply = self.lobby.RegisterPlayer(
            lpb.RegisterPlayerRequest(name=name, initial_balance=balance), timeout=10
        )
        player = Player(self, reply.player.player_id, reply.token, name)
        player.granted = reply.player.balance
        self.players.append(player)
        return player

    def create_table(
        self,
        config: common.GameConfig,
        seats: int,
        *,
        min_buy_in: int = 100,
        action_clock_ms: int = 0,
        name: str = "e2e",
    ) -> str:
        reply = self.lobby.CreateTable(
            lpb.CreateTableRequest(
                name=name,
                config=config,
                seats=seats,
                min_buy_in=min_buy_in,
                action_clock_ms=action_clock_ms,
            ),
            timeout=10,
        )
        table_id: str = reply.table_id
        self.tables.append(table_id)
        return table_id

    def ledger(self) -> lpb.LedgerTotals:
        totals: lpb.LedgerTotals = self.lobby.GetLedgerTotals(
            lpb.GetLedgerTotalsRequest(), timeout=10
        )
        return totals

    def assert_chips_conserved(self) -> lpb.LedgerTotals:
        """granted == balances + at_tables, and the ledger's sums agree."""
        t = self.ledger()
        assert t.granted == t.balances + t.at_tables, t
        assert (t.ledger_balances, t.ledger_tables) == (t.balances, t.at_tables), t
        return t

    def why_voided(self) -> list[str]:
        """The table service's log lines about voided hands (for failure messages)."""
        return [line for line in self.stack["table"].lines if "voided" in line]

    # -- table service

    def preset(self, table_id: str, order: Sequence[str]) -> None:
        self.table.PresetNextDeck(
            tpb.PresetNextDeckRequest(table_id=table_id, order=list(order)), timeout=10
        )

    def reveal(self, table_id: str, hand_id: str) -> tpb.DeckReveal:
        reply: tpb.DeckReveal = self.table.GetDeckReveal(
            tpb.GetDeckRevealRequest(
                table_id=table_id, hand_id=hand_id, audit_token=self.audit_token
            ),
            timeout=10,
        )
        return reply

    def audit(self, table_id: str, hand_id: str) -> list[str]:
        """The problems of a finished hand's deal (empty: commitment and replay verify)."""
        return audit_reveal(self.reveal(table_id, hand_id))

    def finished_hands(self, table_id: str) -> list[str]:
        """The ids of the table's finished hands (public history, up to 100)."""
        reply = self.table.GetHandHistory(
            tpb.GetHandHistoryRequest(table_id=table_id, limit=100), timeout=10
        )
        return [h.hand_id for h in reply.hands]

    def audit_all(self) -> dict[str, list[str]]:
        """Every finished hand of every table this room created: hand_id -> problems
        (only hands with problems are listed)."""
        problems: dict[str, list[str]] = {}
        for table_id in self.tables:
            for hand_id in self.finished_hands(table_id):
                found = self.audit(table_id, hand_id)
                if found:
                    problems[hand_id] = found
        return problems

    def metrics(self, service: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        """Every sample of ``service``'s /metrics: (name, sorted labels) -> value."""
        return scrape(self.stack[service])

    # -- a scripted hand

    def start_hand(
        self,
        config: common.GameConfig,
        *,
        order: Sequence[str] | None,
        buy_ins: Sequence[int],
        seats: int = 0,
        action_clock_ms: int = 0,
        delivery: tpb.Delivery.ValueType = tpb.DELIVERY_EVERY_EVENT,
        connect_first: bool = False,
        stand_up: bool = True,
    ) -> Hand:
        """A new table with ``len(buy_ins)`` new players in seats 1..n, the next deck
        preset to ``order`` (None: shuffled), the first hand in progress and every
        player's stream connected.

        By default the players are seated first and the table is started by the
        preset (the table service starts a table when it is first asked about it):
        the hand starts at once with everyone, and the players join it as it runs
        (their Snapshot carries ``your_turn`` if a turn came before they joined;
        :meth:`Player.history` has every event).  ``connect_first`` connects the
        streams before seating instead, so every event of the hand is seen live;
        use it with two players only (the table starts a hand as soon as two sit).

        ``stand_up``: every player asks to stand up once the hand is under way, so
        that they leave when it finishes and no second hand starts.
        """
        n = len(buy_ins)
        table_id = self.create_table(
            config,
            seats or max(n, 2),
            min_buy_in=min(buy_ins),
            action_clock_ms=action_clock_ms,
        )
        players = [self.register() for _ in range(n)]
        shared = threading.Condition()  # one condition: Hand.play waits on all players
        for player in players:
            player.changed = shared
        if connect_first:
            for player in players:
                player.connect(table_id, delivery)
            if order is not None:
                self.preset(table_id, order)
            for seat, (player, buy_in) in enumerate(zip(players, buy_ins, strict=True), 1):
                player.sit(table_id, buy_in, seat)
        else:
            for seat, (player, buy_in) in enumerate(zip(players, buy_ins, strict=True), 1):
                player.sit(table_id, buy_in, seat)
            if order is not None:
                self.preset(table_id, order)
            for player in players:
                player.connect(table_id, delivery)
        hand = Hand(self, table_id, players)
        seen = players[0].wait_for(lambda e: bool(_hand_of(e)), what="the hand's start (a hand_id)")
        hand.hand_id = _hand_of(seen)
        if stand_up:
            for player in players:
                player.stand_up()
            hand.stood_up = True
        return hand


def sample(
    samples: Mapping[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str
) -> float:
    """One sample's value from :meth:`Room.metrics` (0 when absent)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def total(
    samples: Mapping[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str
) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    return sum(
        value
        for (n, found), value in samples.items()
        if n == name and all((k, v) in found for k, v in labels.items())
    )
